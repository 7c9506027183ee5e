// Writes tfprof ProfileProto files into a directory, as TensorFlow's
// ProfileContext writes profile_<step> there: TensorFlow's tfprof test model
// as its show test recorded it (profile_100) and as its stats test did
// (profile_200). The browser tests serve that directory as a run of their
// logdir, so the tfprof page is walked on tfprof's own files too.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testing/tfprof_fixtures.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  namespace fx = tbprof::tfprof_fixtures;
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const std::pair<const char*, fx::TfTestModel> files[] = {{"profile_100", fx::TfTestModel::kShow},
                                                           {"profile_200", fx::TfTestModel::kStats}};
  for (const auto& [name, model] : files) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << fx::TfTestModelWriter(model).Serialize();
    if (!out.good()) {
      std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
      return 1;
    }
  }
  return 0;
}
