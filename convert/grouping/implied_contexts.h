// The producer/consumer links xprof's preprocessing gives events that do not
// carry them (TSL's PreprocessXPlane mutators), before grouping: the TPU
// runtime's launches (host DoEnqueueProgram -> CompleteCallbacks and the TPU
// core's "XLA Modules" event), its request queues (EnqueueRequestLocked ->
// RunProgramRequest, …) and the legacy TPU executor (ExecutorState::Process
// -> TpuExecuteOp, and the tf.data IteratorGetNext ops by the same key). A
// context is keyed by its type and the values of the stats that name it; an
// implied context replaces the event's own context of the same side, as the
// mutators overwrite `_pt`/`_p` (`_ct`/`_c`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

struct ImpliedContext {
  int64_t type = 0;  // the runtime's ContextType value
  int64_t id = 0;    // a hash of the naming stats' values
  bool producer = false;
};

class ImpliedContexts {
 public:
  explicit ImpliedContexts(const XSpaceModel& space);

  // Per event metadata of host plane `p`, the rule and side its name takes
  // (kNone when none, or when the plane lacks a stat the rule needs).
  std::vector<uint8_t> RolesOf(const XPlaneModel& p) const;
  static constexpr uint8_t kNone = 0xff;

  // The context host event `e` takes by its metadata's `role`, if it carries
  // every stat the rule needs.
  std::optional<ImpliedContext> HostContext(const XPlaneModel& p, uint8_t role, uint32_t e) const;

  // Whether the modules of TPU TensorCore plane `p` take launch contexts: the
  // plane declares a queue and a run id.
  bool KeysModuleLaunches(const XPlaneModel& p) const;
  // The stats whose values name the contexts, every rule's.
  static std::span<const std::string_view> KeyStatNames();

  // The consumer context of event `e` on the "XLA Modules" line of a
  // TensorCore plane that KeysModuleLaunches, with this device ordinal (the
  // plane name's number), if the event has a queue and a run id.
  std::optional<ImpliedContext> ModuleContext(const XPlaneModel& p, uint64_t device_ordinal, uint32_t e) const;

 private:
  enum Key : uint8_t { kStepId, kIterNum, kRequestId, kQueueAddr, kDeviceOrdinal, kQueueId, kRunId, kCoreType, kKeys };
  struct Rule {
    int64_t type;
    std::vector<StrId> producers, consumers;
    std::vector<Key> stats;  // kCoreType, when listed, defaults to 0
  };
  bool PlaneHas(const XPlaneModel& p, Key key) const;
  std::optional<uint64_t> Value(const XPlaneModel& p, uint32_t e, Key key) const;

  StrId stat_ids_[kKeys];
  std::vector<Rule> rules_;
};

}  // namespace tbprof
