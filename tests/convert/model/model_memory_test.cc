// What a model says it holds (MemoryBytes, by which the cache counts it):
// beside its arrays' contents, each plane's own object and each array's
// allocation, which dominate a model of many tiny planes (a PyTorch trace of
// 200,000 devices).
#include <gtest/gtest.h>

#include "convert/model/xspace_model.h"

namespace tbprof {
namespace {

TEST(ModelMemory, ManyTinyPlanesCountTheirObjectsAndAllocations) {
  XSpaceModel space;
  const size_t strings = space.MemoryBytes();
  space.planes.resize(1000);
  for (XPlaneModel& p : space.planes) {
    p.events.resize(1);
    p.event_stats.resize(2);
  }
  const size_t contents = 1000 * (sizeof(Event) + 2 * sizeof(Stat));
  // Each plane's object, and two allocations of at least 16 bytes of malloc's own.
  EXPECT_GE(space.MemoryBytes(), strings + contents + 1000 * (sizeof(XPlaneModel) + 2 * 16));
}

}  // namespace
}  // namespace tbprof
