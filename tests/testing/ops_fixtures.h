// Small XSpaces built in code for the Ops* suites, with the numbers each test
// expects worked out by hand in the comments of ops_fixtures.cc.
#pragma once

#include <memory>
#include <string>

#include <boost/json.hpp>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/model/xspace_model.h"
#include "proto/xplane.pb.h"

namespace tbprof::ops_test {

constexpr int64_t kUs = 1000000;  // picoseconds per microsecond

// One host thread with two `train` steps (step_num 1 and 2) launching kernels
// on one GPU stream, linked by correlation_id.
tensorflow::profiler::XSpace GpuTwoStepSpace();
// A CPU-only profile: one `train` step with host compute, an IteratorGetNext
// wait and tf.data iterator ops on a second thread.
tensorflow::profiler::XSpace CpuInputBoundSpace();

std::unique_ptr<XSpaceModel> ToModel(const tensorflow::profiler::XSpace& space);
OpStats OpStatsOf(const tensorflow::profiler::XSpace& space);

// Writes `space` to a fresh file under the test temp dir and returns its path.
std::string WriteSpace(const tensorflow::profiler::XSpace& space, const std::string& name);

// Runs xplane tool `tool` on the file at `path` as the server would (no
// cache) and parses its JSON; a failure fails the test and gives null.
boost::json::value RunXPlaneTool(const std::string& tool, const std::string& path);

}  // namespace tbprof::ops_test
