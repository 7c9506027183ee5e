// libFuzzer target over every tool: an input the decoder accepts is a
// well-formed XSpace whose contents may still be nonsense (a stat of the
// wrong type, an HLO proto cut short, a timestamp near 2^64, an id that
// points nowhere). Each tool must answer such a file with valid JSON or an
// error, within the fuzzer's time and memory limits; a crash, a sanitizer
// report or a hang is a finding.
#include <unistd.h>

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// The tools read files, as they do in the server: the input goes to a file
// of this process's own, rewritten for every input.
const std::string& InputPath() {
  static const std::string path = [] {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/tbprof_tools_fuzz_" + std::to_string(getpid()) + ".xplane.pb";
  }();
  return path;
}

bool WriteInput(std::string_view bytes) {
  FILE* f = std::fopen(InputPath().c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Inputs the decoder rejects are the reader fuzzer's business.
  if (!tbprof::ParseXSpace(bytes, "fuzz", tbprof::LoadOptions{}).ok()) return 0;
  if (!WriteInput(bytes)) return 0;
  tbprof::ToolInput in;
  in.hosts = {"fuzz"};
  in.profile_paths = {InputPath()};
  in.max_output_bytes = 64u << 20;
  for (const tbprof::ToolSpec& tool : tbprof::ProfileTools()) {
    for (bool csv : {false, true}) {
      if (csv && !tool.csv) continue;
      in.csv = csv;
      auto out = tool.run(in);
      if (!out.ok()) {
        Check(!out.status().message().empty());
        continue;
      }
      if (out->content_type != "application/json" || !out->content_encoding.empty()) continue;
      boost::system::error_code ec;
      (void)boost::json::parse(out->body, ec);
      Check(!ec);
    }
  }
  return 0;
}
