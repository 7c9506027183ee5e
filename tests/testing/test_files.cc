#include "tests/testing/test_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tbprof::test_files {

namespace fs = std::filesystem;

std::string RealXPlaneDir() { return (fs::path(TBPROF_TESTDATA) / "xplane").string(); }

bool IsCorrupt(const std::string& path) { return path.find("/corrupt/") != std::string::npos; }

std::vector<std::string> RealXPlaneFiles(bool include_corrupt) {
  std::vector<std::string> out;
  if (!fs::is_directory(RealXPlaneDir())) return out;
  for (const auto& entry : fs::recursive_directory_iterator(RealXPlaneDir())) {
    std::string path = entry.path().string();
    if (!entry.is_regular_file() || !path.ends_with(".xplane.pb")) continue;
    if (include_corrupt || !IsCorrupt(path)) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ToolInput OneHostInput(const std::string& path) {
  ToolInput input;
  input.hosts = {fs::path(path).filename().string()};
  input.profile_paths = {path};
  return input;
}

int CheckToolOnRealProfiles(const ToolSpec& tool,
                            const std::function<void(const std::string& path, const ToolOutput& out)>& check) {
  const std::vector<std::string> files = RealXPlaneFiles(/*include_corrupt=*/true);
  if (files.empty()) ADD_FAILURE() << "required: no testdata at " << RealXPlaneDir();
  int checked = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    StatusOr<ToolOutput> out = tool.run(OneHostInput(path));
    if (IsCorrupt(path)) {
      EXPECT_FALSE(out.ok()) << "a corrupt profile must be refused";
      continue;
    }
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) continue;
    check(path, *out);
    ++checked;
  }
  return checked;
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("tbprof_" + std::to_string(getpid()) + "_" + name)).string();
}

SynthOptions SynthShape(int gpus, int steps, int64_t events, uint64_t seed) {
  SynthOptions o;
  o.gpus = gpus;
  o.steps = steps;
  o.events = events;
  o.seed = seed;
  return o;
}

void WriteSyntheticFile(const std::string& path, const SynthOptions& options) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  Status s = WriteSyntheticXSpace(options, 0, out);
  EXPECT_TRUE(s.ok()) << path << ": " << s.message();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

tensorflow::profiler::XSpace ParseWithLibprotobuf(const std::string& path) {
  tensorflow::profiler::XSpace space;
  if (!space.ParseFromString(ReadAll(path))) ADD_FAILURE() << "libprotobuf cannot parse " << path;
  return space;
}

int64_t StatMetadataId(const tensorflow::profiler::XPlane& plane, std::string_view name) {
  for (const auto& [id, md] : plane.stat_metadata()) {
    if (md.name() == name) return id;
  }
  return -1;
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  r.status = pclose(pipe);
  return r;
}

}  // namespace tbprof::test_files
