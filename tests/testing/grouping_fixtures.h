// XSpaces built in code for the grouping tests and for tests that check
// what a load must keep for grouping (ops_projection_test.cc).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string_view>

#include "convert/grouping/group_events.h"
#include "convert/model/xspace_model.h"
#include "proto/xplane.pb.h"
#include "proto/xspace_builder.h"

namespace tbprof::grouping_test {

// tsl's ContextType of a TensorCore's offload to a SparseCore.
constexpr int64_t kScOffload = 17;

// A host's launch of a TPU program: what names the launch for xprof's
// preprocessing (device ordinal, queue, run id; core type 0, a TensorCore).
void AddLaunch(XLineBuilder& line, int64_t begin, int64_t duration, int64_t run_id, int64_t ordinal,
               int64_t queue = 0);

// xla's MergeHostStepsTest: the host's step "train" launches four programs
// that the TPU ran as four modules, each its own step, each offloading to a
// SparseCore.
tensorflow::profiler::XSpace MergeHostStepsSpace();

// One TF step, in µs: an op run eagerly (a/add:AddV2, 20-380, launching
// add_kernel, 1000-1100 on the GPU) and an op of a function called eagerly
// (b/mul:Mul, 510-890, launching mul_kernel, 1200-1500).
tensorflow::profiler::XSpace EagerAndFunctionSpace();

// A space loaded and grouped: Of(plane, name) is GroupByName on it.
struct Grouped {
  std::unique_ptr<XSpaceModel> model;
  EventGroups groups;
  int32_t Of(std::string_view plane, std::string_view name) const;
  // Expects each named event of `plane` in `group` (kNoGroup: in none).
  void ExpectIn(std::string_view plane, std::initializer_list<std::string_view> names, int32_t group) const;
};
Grouped GroupSpace(const tensorflow::profiler::XSpace& space);

// The group of the first event named `name` on the plane named `plane`; a
// failure of the test, and -2, when there is none.
int32_t GroupByName(const XSpaceModel& m, const EventGroups& g, std::string_view plane, std::string_view name);
// Whether that event ran eagerly (false, and a failure, when there is none).
bool EagerByName(const XSpaceModel& m, const EventGroups& g, std::string_view plane, std::string_view name);

}  // namespace tbprof::grouping_test
