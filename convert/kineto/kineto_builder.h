// The Kineto importer's working state, shared by its two steps: reading the
// JSON into pending events (kineto_parse.cc) and turning those into planes
// (kineto_build.cc). Not for use outside convert/kineto.
//
// Design: the reader copies what it needs out of each event as it scans
// (interned names, args as stats, the line it belongs to), so the text's
// pages can be released behind it; the planes are built only once every
// event is known, because a line's events must be sorted and a device op's
// operator is found through launches that may come later in the file. A
// large trace is read by two builders, one per half of the events, the
// second merged into the first (see ParseTraceEvents).
// The planes are built in two passes so that the pending events and stats
// (as large as the model) are released while the model is made: the layout
// (LayOutPlane) walks each line in the model's order writing the events and
// interning every string the planes add, and places each event's stats; the
// copy (CopyStatsInFileOrder) then walks the pending events in the file's
// order, the order they are stored in, writing their stats to those places
// and handing the pending pages back behind it.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert/base/file_name.h"
#include "convert/base/memory_grant.h"
#include "convert/base/released_pages.h"
#include "convert/base/status.h"
#include "convert/kineto/json_scanner.h"
#include "convert/model/model_writer.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof::kineto_detail {

// What an event is, from its `cat` (current and PyTorch ≤1.9 spellings).
enum class Kind : uint8_t {
  kCpuOp, kUserAnnotation, kPython, kRuntime, kDriver, kOtherHost, kMemory,  // host
  kKernel, kMemcpy, kMemset, kGpuAnnotation, kOtherDevice,                   // device
};
Kind KindOf(std::string_view cat);

inline bool IsDeviceKind(Kind k) { return k >= Kind::kKernel; }

// Host ops that torch-tb-profiler does not count as operators: steps, data
// loading, optimizer and (Distributed)DataParallel wrappers.
bool IsOperatorName(std::string_view name);

inline constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
// Beyond this (106 days in ps) a time does not fit the model's int64 picoseconds.
inline constexpr int64_t kMaxSpanNs = std::numeric_limits<int64_t>::max() / 1000;
// The most an absolute time may be (73 years from 1970, either way): any two
// such times, and a span added, stay within int64 nanoseconds.
inline constexpr int64_t kMaxAbsTimeNs = std::numeric_limits<int64_t>::max() / 4;

struct PendingEvent {
  int64_t ts_ns = 0, dur_ns = 0;
  uint32_t line = 0;
  StrId name = kNoStr;
  StrId cat = kNoStr;  // as written
  uint32_t first_stat = 0, num_stats = 0;
  Kind kind = Kind::kOtherHost;
  uint8_t part = 0;  // whose stats: 0 this builder's, 1 the back half's (see MergeFrom)
  // Until the planes are laid out: args["External id"] and args["correlation"]
  // (kNone when absent), read per launch and device op when linking them.
  // After: where the event's stats go and what the layout resolved for them
  // (see KinetoBuilder::LayOutPlane), so the links' 16 bytes serve twice.
  struct Links {
    int64_t external, correlation;
  };
  struct Placed {
    uint32_t first_stat;  // in its plane's event_stats
    StrId tf_op;          // kNoStr: none
    // A kernel's kernel_details; a `[memory]` record's peak_bytes_in_use.
    union {
      StrId kernel_details;
      int64_t memory_peak;
    };
  };
  union {
    Links links = {kNone, kNone};
    Placed placed;
  };
};
static_assert(sizeof(PendingEvent) == 56);

// Arg names repeat on every event: a small direct-mapped cache in front of
// the string table spares hashing each key in full.
class ArgNameCache {
 public:
  StrId Intern(std::string_view key, StringTable& strings) {
    if (key.empty()) return kNoStr;
    const size_t slot = (key.size() * 31 + static_cast<unsigned char>(key[0]) * 7 +
                         static_cast<unsigned char>(key[key.size() / 2]) * 3 +
                         static_cast<unsigned char>(key.back())) & (kSlots - 1);
    StrId& id = slots_[slot];
    if (id != kNoStr && strings.View(id) == key) return id;
    id = strings.Intern(key);
    return id;
  }

 private:
  static constexpr size_t kSlots = 256;
  StrId slots_[kSlots] = {};
};

struct PendingLine {
  int device = -1;  // -1: the host plane
  int64_t id = 0;
  StrId pid = kNoStr, tid = kNoStr;  // host lines: as written
  std::vector<uint32_t> events;
};

// The trace as read, before it becomes planes.
class KinetoBuilder {
 public:
  KinetoBuilder(std::string_view source, uint64_t parallel_min_bytes);

  // `release_pages`: `json`'s pages behind the parse may be handed back to
  // the kernel: a file mapping's (re-read if touched again) or an inflated
  // buffer's (the parse never reads behind itself).
  Status Parse(std::string_view json, bool release_pages = false);
  StatusOr<std::unique_ptr<XSpaceModel>> Build();

 private:
  struct Names {
    StrId correlation, correlation_id, device, device_id, stream, external_id, external_id_old, registers,
        shared_memory, grid, block, occupancy, name, bytes, total_allocated, total_reserved, device_type,
        device_index, addr, trace_cat;
  } n_;
  // Kinds by interned `cat`: an event's category is looked up once per distinct spelling.
  std::unordered_map<StrId, Kind> kind_of_cat_;
  int64_t args_external_ = kNone, args_correlation_ = kNone;  // of the event being read
  ArgNameCache arg_names_;
  // "<op>:<op>", the tf_op of a cpu_op and of what it launched, made once per op name.
  std::unordered_map<StrId, StrId> tf_op_of_name_;
  // A name may be of any size: the text and its interned copy are claimed
  // before they are made (the copy as ClaimHeld's, which counts it held); a
  // refusal is kept in tf_op_refused_ and the name left without an op.
  StrId TfOpOf(StrId name) {
    auto [it, fresh] = tf_op_of_name_.try_emplace(name, kNoStr);
    if (fresh) {
      std::string_view text = space_->Str(name);
      const uint64_t op_bytes = 2 * uint64_t{text.size()} + 1;
      if (!tf_op_refused_.ok()) return kNoStr;
      if (op_bytes > kClaimStep) {
        tf_op_refused_ = ClaimMemory(2 * op_bytes, "loading the profile: its operators' names");
        if (!tf_op_refused_.ok()) return kNoStr;
        claimed_ += op_bytes;
      }
      std::string op;
      op.reserve(2 * text.size() + 1);
      op.append(text).append(":").append(text);
      it->second = space_->strings.Intern(op);
      if (op_bytes > kClaimStep) ReleaseMemory(op_bytes);  // the text, gone
    }
    return it->second;
  }
  Kind KindOfCat(StrId cat) {
    auto [it, fresh] = kind_of_cat_.try_emplace(cat, Kind::kOtherHost);
    if (fresh) it->second = KindOf(space_->Str(cat));
    return it->second;
  }

  // The file is no whole trace: damaged, or cut short (then the JSON ends
  // before it closes).
  Status Error(const std::string& what) const { return DamagedProfileFile(source_, json_.size(), what); }
  Status ScanError(const JsonScanner& js) const {
    return Error(js.error_offset() >= json_.size() ? "it ends before its JSON closes (" + js.error() + ")"
                                              : "not valid JSON (" + js.error() + ")");
  }
  // Claims (convert/base/memory_grant.h) what the builder holds beyond what
  // it has claimed: its pending events and stats and its strings, which a
  // trace of small events or huge names makes many times the file's size.
  // Each line costs its entry, its index entry and its events' indices (a
  // vector growing by doubling): a trace of one event per device makes as
  // many lines as events. The args' index (arg_at_) is counted too.
  Status ClaimHeld() {
    RETURN_IF_ERROR(intern_refused_);
    const uint64_t held = events_.size() * (sizeof(PendingEvent) + 2 * sizeof(uint32_t)) +
                          stats_.size() * sizeof(Stat) + space_->strings.MemoryBytes() +
                          lines_.size() * (sizeof(PendingLine) + kIndexEntryBytes) +
                          arg_at_.capacity() * sizeof(arg_at_[0]);
    if (held <= claimed_) return Status::Ok();
    const uint64_t more = std::max<uint64_t>(held - claimed_, kClaimStep);
    RETURN_IF_ERROR(ClaimMemory(more, "loading the profile"));
    claimed_ += more;
    return Status::Ok();
  }
  static constexpr uint64_t kClaimStep = uint64_t{1} << 20;
  static constexpr uint64_t kIndexEntryBytes = 32;  // an unordered_map node, with its bucket
  // A string of the trace interned. One larger than kClaimStep (a name or an
  // arg may be of any size) is claimed before it is copied, and counted as
  // held; a refusal is kept in intern_refused_ (ClaimHeld returns it) and the
  // string left out.
  StrId Intern(std::string_view text) {
    if (text.size() > kClaimStep) {
      if (StrId known = space_->strings.Find(text); known != kNoStr) return known;
      if (!intern_refused_.ok()) return kNoStr;
      intern_refused_ = ClaimMemory(text.size(), "loading the profile: a string of " +
                                                     std::to_string(text.size() >> 20) + " MiB");
      if (!intern_refused_.ok()) return kNoStr;
      claimed_ += text.size();
    }
    return space_->strings.Intern(text);
  }
  // An event's args in JSON may name a key twice: the last value is the
  // arg's, as json.loads (torch-tb-profiler's reader) keeps it, so a trace
  // repeating one key millions of times holds one stat. Returns the stat of
  // `name` among the object's so far (from `first`), or null.
  Stat* ArgSoFar(uint32_t first, StrId name);
  // Notes that stat `index` of the args object being read is `name`'s.
  void IndexArg(StrId name, uint32_t index);
  static constexpr uint32_t kArgsScannedInPlace = 16;
  // Past kArgsScannedInPlace, where each name's stat is in the object being
  // read: by name id, (the object's number, the stat's index), so that no
  // object clears it; 8 bytes per string of the table, only once an event
  // has that many args.
  std::vector<std::pair<uint32_t, uint32_t>> arg_at_;
  uint32_t args_object_ = 0;
  bool args_indexed_ = false;
  void ReserveFor(size_t json_bytes);
  Status ParseTopLevel(JsonScanner& js);
  Status ParseTraceEvents(JsonScanner& js);
  Status ParseEvents(JsonScanner& js, size_t stop_at, bool* stopped);
  Status ParseEventsFrom(size_t from, int depth, size_t* end);
  void MergeFrom(KinetoBuilder& back);
  Status ParseEvent(JsonScanner& js);
  Status ParseArgs(JsonScanner& js);
  Status ParseDeviceProperties(JsonScanner& js);
  Status ParseDistributedInfo(JsonScanner& js);
  std::string HostName() const;
  void AddEvent(char ph, StrId cat, StrId name, StrId pid, StrId tid, int64_t ts, int64_t dur,
                uint32_t first_stat);
  const Stat* ArgOf(const PendingEvent& e, StrId name) const;
  int64_t IntArg(const PendingEvent& e, StrId name) const;
  uint32_t HostLine(StrId pid, StrId tid);
  uint32_t DeviceLine(int device, int64_t stream);
  std::string KernelDetails(const PendingEvent& e) const;
  void AddDeviceStats(int device, PlaneWriter& plane);
  std::vector<std::vector<uint32_t>> LinesByPlane(const std::vector<int>& devices) const;
  Status ReservePlane(const std::vector<uint32_t>& line_order, XPlaneModel& plane,
                      std::vector<std::pair<char*, size_t>>& filled) const;
  StatusOr<uint32_t> LayOutPlane(int device, const std::vector<uint32_t>& line_order, PlaneWriter& plane,
                                 const std::unordered_map<int64_t, StrId>& op_of_external,
                                 const std::unordered_map<int64_t, int64_t>& external_of_correlation,
                                 std::vector<std::pair<StrId, uint32_t>>& first_of_name);
  Status CopyStatsInFileOrder(const std::vector<int>& devices);
  std::string AllocatorOf(const PendingEvent& e) const;
  int64_t UpdateMemoryPeak(const PendingEvent& e);
  template <typename AddStat>
  void AddMemoryStats(const PendingEvent& e, int64_t peak, AddStat&& add);
  template <typename AddStat>
  void AddDerivedStats(const PendingEvent& e, AddStat&& add);
  // The names of the stats the planes add, interned as the first plane is laid out.
  struct BuiltNames {
    StrId tf_op = kNoStr, kernel_details = kNoStr, root = kNoStr, step_num = kNoStr;
  } built_;

  std::string source_;
  uint64_t parallel_min_bytes_;
  uint64_t claimed_ = 0;  // by ClaimHeld
  Status tf_op_refused_;  // by TfOpOf
  Status intern_refused_;  // by Intern
  std::string_view json_;
  std::unique_ptr<XSpaceModel> space_;
  std::vector<PendingEvent> events_;
  std::vector<Stat> stats_;
  // The back half's, once merged: kept where its thread wrote them (copying
  // them over would touch as much fresh memory again). Event indices past
  // events_ are into back_events_.
  std::vector<PendingEvent> back_events_;
  std::vector<Stat> back_stats_;
  const PendingEvent& EventAt(uint32_t i) const {
    return i < events_.size() ? events_[i] : back_events_[i - events_.size()];
  }
  PendingEvent& MutableEventAt(uint32_t i) {
    return i < events_.size() ? events_[i] : back_events_[i - events_.size()];
  }
  const Stat* StatsOf(const PendingEvent& e) const { return (e.part ? back_stats_ : stats_).data() + e.first_stat; }
  template <typename F>
  void ForEachEvent(F&& f) const {
    for (const PendingEvent& e : events_) f(e);
    for (const PendingEvent& e : back_events_) f(e);
  }
  std::vector<PendingLine> lines_;
  std::unordered_map<uint64_t, uint32_t> host_line_of_, device_line_of_;
  std::map<std::pair<StrId, StrId>, std::string> thread_names_;
  std::map<int, std::vector<Stat>> device_properties_;
  int64_t base_time_ns_ = 0;
  int64_t rank_ = kNone;  // distributedInfo.rank
  int64_t span_begin_ns_ = kNone, span_end_ns_ = kNone;
  bool saw_trace_events_ = false;
  int64_t origin_ns_ = 0;
  // Parse's `release_pages`: the text read is handed back behind the reading.
  bool release_pages_ = false;
  PagesReleasedBehind json_read_;
  static constexpr size_t kReadMargin = size_t{16} << 10;
  std::map<std::string, int64_t> peak_in_use_;
};

}  // namespace tbprof::kineto_detail
