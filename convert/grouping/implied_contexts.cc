#include "convert/grouping/implied_contexts.h"

#include <algorithm>
#include <string_view>

#include "convert/model/schema.h"

namespace tbprof {
namespace {

// tsl's ContextType values of the three kinds of link.
constexpr int64_t kLegacyContext = 1;
constexpr int64_t kTpuStreamContext = 11;
constexpr int64_t kTpuLaunchContext = 12;
// The host's TPU launch events carry the runtime's full run id; the TPU
// planes only its 27 low bits, which is what xprof keys the launch by.
constexpr uint64_t kRunIdMask = (uint64_t{1} << 27) - 1;

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

}  // namespace

std::span<const std::string_view> ImpliedContexts::KeyStatNames() {
  // In Key order.
  static constexpr std::string_view kNames[kKeys] = {schema::kId,        schema::kIterNum,       schema::kRequestId,
                                                     schema::kQueueAddr, schema::kDeviceOrdinal, schema::kQueueId,
                                                     schema::kRunId,     schema::kCoreType};
  return kNames;
}

ImpliedContexts::ImpliedContexts(const XSpaceModel& space) {
  for (int k = 0; k < kKeys; ++k) stat_ids_[k] = space.Find(KeyStatNames()[k]);
  auto ids = [&](std::initializer_list<std::string_view> event_names) {
    std::vector<StrId> out;
    for (std::string_view n : event_names) {
      if (StrId id = space.Find(n); id != kNoStr) out.push_back(id);
    }
    return out;
  };
  // The legacy TPU executor's ops; and, by the same key, the iterator ops an
  // executor step runs on other threads (xprof links those in its grouping,
  // ConnectInterThread, rather than in its preprocessing: the same edges).
  rules_.push_back({kLegacyContext, ids({"ExecutorState::Process"}),
                    ids({"TpuExecuteOp", "IteratorGetNextOp::DoCompute", "IteratorGetNextAsOptionalOp::DoCompute"}),
                    {kStepId, kIterNum}});
  rules_.push_back({kTpuStreamContext, ids({"EnqueueRequestLocked"}),
                    ids({"RunProgramRequest", "HostCallbackRequest", "TransferH2DRequest",
                         "TransferPreprocessedH2DRequest", "TransferD2HRequest", "OnDeviceSendRequest",
                         "OnDeviceRecvRequest", "OnDeviceSendRecvLocalRequest", "CustomWait",
                         "OnDeviceSendRequestMulti", "OnDeviceRecvRequestMulti", "PjrtAsyncWait"}),
                    {kRequestId, kQueueAddr}});
  rules_.push_back({kTpuLaunchContext, ids({"DoEnqueueProgram"}), ids({"CompleteCallbacks"}),
                    {kDeviceOrdinal, kQueueId, kRunId, kCoreType}});
}

bool ImpliedContexts::PlaneHas(const XPlaneModel& p, Key key) const {
  if (stat_ids_[key] == kNoStr) return false;
  return std::any_of(p.stat_metadata.begin(), p.stat_metadata.end(),
                     [&](const auto& m) { return m.first == stat_ids_[key]; });
}

std::optional<uint64_t> ImpliedContexts::Value(const XPlaneModel& p, uint32_t e, Key key) const {
  const tbprof::Stat* s = p.FindStat(e, stat_ids_[key]);
  if (s == nullptr || !s->IsInteger()) {
    if (key == kCoreType) return 0;
    return std::nullopt;
  }
  return s->UintValue();
}

// A role is the rule's index times two, plus one for the consumer side.
std::vector<uint8_t> ImpliedContexts::RolesOf(const XPlaneModel& p) const {
  std::vector<uint8_t> roles(p.event_metadata.size(), kNone);
  for (size_t r = 0; r < rules_.size(); ++r) {
    const Rule& rule = rules_[r];
    if (!std::all_of(rule.stats.begin(), rule.stats.end(), [&](Key k) { return k == kCoreType || PlaneHas(p, k); })) {
      continue;
    }
    for (size_t m = 0; m < p.event_metadata.size(); ++m) {
      const StrId name = p.event_metadata[m].name;
      if (std::find(rule.producers.begin(), rule.producers.end(), name) != rule.producers.end()) {
        roles[m] = static_cast<uint8_t>(2 * r);
      } else if (std::find(rule.consumers.begin(), rule.consumers.end(), name) != rule.consumers.end()) {
        roles[m] = static_cast<uint8_t>(2 * r + 1);
      }
    }
  }
  return roles;
}

std::optional<ImpliedContext> ImpliedContexts::HostContext(const XPlaneModel& p, uint8_t role, uint32_t e) const {
  if (role == kNone) return std::nullopt;
  const Rule& rule = rules_[role / 2];
  uint64_t h = static_cast<uint64_t>(rule.type);
  for (Key k : rule.stats) {
    std::optional<uint64_t> v = Value(p, e, k);
    if (!v) return std::nullopt;
    h = Mix(h, k == kRunId && rule.type == kTpuLaunchContext ? *v & kRunIdMask : *v);
  }
  return ImpliedContext{rule.type, static_cast<int64_t>(h), role % 2 == 0};
}

bool ImpliedContexts::KeysModuleLaunches(const XPlaneModel& p) const {
  return PlaneHas(p, kQueueId) && PlaneHas(p, kRunId);
}

std::optional<ImpliedContext> ImpliedContexts::ModuleContext(const XPlaneModel& p, uint64_t device_ordinal,
                                                             uint32_t e) const {
  std::optional<uint64_t> queue = Value(p, e, kQueueId), run = Value(p, e, kRunId);
  if (!queue || !run) return std::nullopt;
  // The same values in the same order as the host's launch rule.
  uint64_t h = static_cast<uint64_t>(kTpuLaunchContext);
  for (uint64_t v : {device_ordinal, *queue, *run, *Value(p, e, kCoreType)}) h = Mix(h, v);
  return ImpliedContext{kTpuLaunchContext, static_cast<int64_t>(h), false};
}

}  // namespace tbprof
