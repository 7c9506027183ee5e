// Test inputs outside the code: the real profiles of the testdata, whole files,
// and the tbprof binary run as a command.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/tools/tool_registry.h"
#include "proto/xplane.pb.h"
#include "synthetic/profile_generator.h"

namespace tbprof::test_files {

// The .xplane.pb files under TBPROF_TESTDATA/xplane, sorted by path; those
// under corrupt/ (which must fail cleanly) only with `include_corrupt`. Empty
// when the testdata is missing: callers fail then, never skip.
std::vector<std::string> RealXPlaneFiles(bool include_corrupt = false);
// Where RealXPlaneFiles looks, for the message of a test that finds nothing.
std::string RealXPlaneDir();
bool IsCorrupt(const std::string& path);

// A request for one host: `path`, named after its file.
ToolInput OneHostInput(const std::string& path);
// Runs `tool` on each real profile as a one-host request: a corrupt one must
// fail with an error (not crash), every other one must succeed and is handed
// to `check`. Returns how many were checked; missing testdata fails the test.
int CheckToolOnRealProfiles(const ToolSpec& tool,
                            const std::function<void(const std::string& path, const ToolOutput& out)>& check);

// `name` under the temporary directory, made unique to this test process.
std::string TempPath(const std::string& name);
// A synthetic profile of that shape, SynthOptions' defaults otherwise.
SynthOptions SynthShape(int gpus, int steps, int64_t events, uint64_t seed = 1);
// Writes host 0 of a synthetic profile to `path`, creating its folder; an
// error fails the test.
void WriteSyntheticFile(const std::string& path, const SynthOptions& options);

// The whole file; empty when it cannot be read.
std::string ReadAll(const std::string& path);
// `path` parsed by libprotobuf, the reference our reader is checked against; a
// file it cannot parse fails the test.
tensorflow::profiler::XSpace ParseWithLibprotobuf(const std::string& path);
// The id of the plane's stat metadata named `name`; -1 when it has none.
int64_t StatMetadataId(const tensorflow::profiler::XPlane& plane, std::string_view name);

struct CommandResult {
  int status = -1;  // as pclose() returns it: read it with WEXITSTATUS
  std::string output;
};
// Runs `command` with /bin/sh and collects its standard output (append
// "2>&1" to the command for its errors too).
CommandResult RunCommand(const std::string& command);

}  // namespace tbprof::test_files
