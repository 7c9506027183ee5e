#include "convert/kineto/kineto_reader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include "convert/base/file_bytes.h"
#include "convert/kineto/json_scanner.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

// What an event is, from its `cat` (current and PyTorch ≤1.9 spellings).
enum class Kind : uint8_t {
  kCpuOp, kUserAnnotation, kPython, kRuntime, kDriver, kOtherHost, kMemory,  // host
  kKernel, kMemcpy, kMemset, kGpuAnnotation, kOtherDevice,                   // device
};

Kind KindOf(std::string_view cat) {
  static const std::unordered_map<std::string_view, Kind> kKinds = {
      {"cpu_op", Kind::kCpuOp},          {"Operator", Kind::kCpuOp},
      {"user_annotation", Kind::kUserAnnotation},
      {"python_function", Kind::kPython}, {"Python", Kind::kPython},
      {"cuda_runtime", Kind::kRuntime},  {"Runtime", Kind::kRuntime},
      {"cuda_driver", Kind::kDriver},    {"kernel", Kind::kKernel},
      {"Kernel", Kind::kKernel},         {"gpu_memcpy", Kind::kMemcpy},
      {"Memcpy", Kind::kMemcpy},         {"gpu_memset", Kind::kMemset},
      {"Memset", Kind::kMemset},         {"gpu_user_annotation", Kind::kGpuAnnotation},
      {"cuda_sync", Kind::kOtherDevice},
  };
  auto it = kKinds.find(cat);
  return it == kKinds.end() ? Kind::kOtherHost : it->second;
}

bool IsDeviceKind(Kind k) { return k >= Kind::kKernel; }

// Host ops that torch-tb-profiler does not count as operators: steps, data
// loading, optimizer and (Distributed)DataParallel wrappers.
bool IsOperatorName(std::string_view name) {
  return !name.starts_with("ProfilerStep#") && !name.starts_with("enumerate(DataLoader)") &&
         !name.starts_with("enumerate(DataPipe)") && !name.starts_with("Optimizer.") &&
         name != "DataParallel.forward" && name != "DistributedDataParallel.forward";
}

// Asks for huge pages behind a large reserved vector: filling hundreds of MB
// 4 KB page by page costs a fault each, a visible share of an import (on
// virtual machines above all). Only advice: the kernel may decline.
template <typename T>
void AdviseHugePages(const std::vector<T>& v) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(v.data() + v.capacity()) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
// Beyond this (106 days in ps) a time does not fit the model's int64 picoseconds.
constexpr int64_t kMaxSpanNs = std::numeric_limits<int64_t>::max() / 1000;

struct PendingEvent {
  int64_t ts_ns = 0, dur_ns = 0;
  uint32_t line = 0;
  StrId name = kNoStr;
  StrId cat = kNoStr;  // as written
  uint32_t first_stat = 0, num_stats = 0;
  Kind kind = Kind::kOtherHost;
  // args["External id"] and args["correlation"] (kNone when absent), read
  // per launch and device op when linking them.
  int64_t external = kNone, correlation = kNone;
};

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
  explicit KinetoBuilder(std::string_view source) : source_(source), space_(std::make_unique<XSpaceModel>()) {
    StringTable& s = space_->strings;
    n_.correlation = s.Intern("correlation");
    n_.correlation_id = s.Intern(schema::kCorrelationId);
    n_.device = s.Intern("device");
    n_.device_id = s.Intern(schema::kDeviceId);
    n_.stream = s.Intern("stream");
    n_.external_id = s.Intern(kKinetoExternalIdStat);
    n_.external_id_old = s.Intern("external id");
    n_.registers = s.Intern("registers per thread");
    n_.shared_memory = s.Intern("shared memory");
    n_.grid = s.Intern("grid");
    n_.block = s.Intern("block");
    n_.occupancy = s.Intern(kKinetoOccupancyStat);
    n_.name = s.Intern("name");
    n_.bytes = s.Intern("Bytes");
    n_.total_allocated = s.Intern("Total Allocated");
    n_.total_reserved = s.Intern("Total Reserved");
    n_.device_type = s.Intern("Device Type");
    n_.device_index = s.Intern("Device Id");
    n_.addr = s.Intern("Addr");
    n_.trace_cat = s.Intern("Trace");
  }

  // `release_pages`: `json` is a file mapping whose pages behind the parse
  // may be handed back to the kernel (they are re-read if touched again).
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
  StrId TfOpOf(StrId name) {
    auto [it, fresh] = tf_op_of_name_.try_emplace(name, kNoStr);
    if (fresh) {
      std::string_view text = space_->Str(name);
      std::string op;
      op.reserve(2 * text.size() + 1);
      op.append(text).append(":").append(text);
      it->second = space_->strings.Intern(op);
    }
    return it->second;
  }
  Kind KindOfCat(StrId cat) {
    auto [it, fresh] = kind_of_cat_.try_emplace(cat, Kind::kOtherHost);
    if (fresh) it->second = KindOf(space_->Str(cat));
    return it->second;
  }

  Status Error(const std::string& what) const { return InvalidArgument(source_ + ": " + what); }
  Status ScanError(const JsonScanner& js) const {
    return InvalidArgument(source_ + ": not valid JSON (" + js.error() + ")");
  }
  Status ParseTopLevel(JsonScanner& js);
  Status ParseEvent(JsonScanner& js);
  Status ParseArgs(JsonScanner& js);
  Status ParseDeviceProperties(JsonScanner& js);
  void AddEvent(char ph, StrId cat, StrId name, StrId pid, StrId tid, int64_t ts, int64_t dur,
                uint32_t first_stat);
  const Stat* ArgOf(const PendingEvent& e, StrId name) const;
  int64_t IntArg(const PendingEvent& e, StrId name) const;
  uint32_t HostLine(StrId pid, StrId tid);
  uint32_t DeviceLine(int device, int64_t stream);
  std::string KernelDetails(const PendingEvent& e) const;
  void AddDeviceStats(int device, XPlaneModel& plane);
  void BuildPlane(int device, XPlaneModel& plane, const std::unordered_map<int64_t, StrId>& op_of_external,
                  const std::unordered_map<int64_t, int64_t>& external_of_correlation);
  void AddMemoryEvent(const PendingEvent& e, XPlaneModel& plane, std::vector<Stat>& stats);

  std::string source_;
  std::unique_ptr<XSpaceModel> space_;
  std::vector<PendingEvent> events_;
  std::vector<Stat> stats_;
  std::vector<PendingLine> lines_;
  std::unordered_map<uint64_t, uint32_t> host_line_of_, device_line_of_;
  std::map<std::pair<StrId, StrId>, std::string> thread_names_;
  std::map<int, std::vector<Stat>> device_properties_;
  int64_t base_time_ns_ = 0;
  int64_t span_begin_ns_ = kNone, span_end_ns_ = kNone;
  bool saw_trace_events_ = false;
  int64_t origin_ns_ = 0;
  const char* release_base_ = nullptr;
  const char* released_to_ = nullptr;
  void ReleasePagesBefore(size_t offset);
  std::map<std::string, int64_t> peak_in_use_;
};

Status KinetoBuilder::Parse(std::string_view json, bool release_pages) {
  JsonScanner js(json);
  // Room for a typical event and its args per few hundred bytes: address
  // space only until written, and it spares the copies of repeated growth.
  events_.reserve(json.size() / 512);
  stats_.reserve(json.size() / 48);
  AdviseHugePages(events_);
  AdviseHugePages(stats_);
  if (release_pages) {
    release_base_ = json.data();
    released_to_ = json.data();
  }
  if (js.Peek() != JsonType::kObject) {
    return Error("not a PyTorch profiler trace: the file is not a JSON object");
  }
  RETURN_IF_ERROR(ParseTopLevel(js));
  if (js.Peek() != JsonType::kEnd || js.offset() < json.size()) {
    if (js.failed()) return ScanError(js);
    return Error("not valid JSON (text after the trace object at byte " + std::to_string(js.offset()) + ")");
  }
  if (!saw_trace_events_) return Error("not a PyTorch profiler trace: no \"traceEvents\" array");
  return Status::Ok();
}

// Every event read so far is copied into the builder: the mapped pages
// behind it are not needed again, so the peak footprint is the model plus a
// window of the file rather than the whole file.
void KinetoBuilder::ReleasePagesBefore(size_t offset) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const char* aligned = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(release_base_ + offset) & ~(page - 1));
  aligned -= 4 * page;  // a margin for the event being read
  if (aligned > released_to_ + (8 << 20)) {
    madvise(const_cast<char*>(released_to_), static_cast<size_t>(aligned - released_to_), MADV_DONTNEED);
    released_to_ = aligned;
  }
}

Status KinetoBuilder::ParseTopLevel(JsonScanner& js) {
  if (!js.EnterObject()) return ScanError(js);
  std::string_view key;
  while (js.NextKey(&key)) {
    if (key == "traceEvents") {
      if (js.Peek() != JsonType::kArray) return Error("\"traceEvents\" is not an array");
      saw_trace_events_ = true;
      js.EnterArray();
      while (js.NextElement()) {
        if (js.Peek() != JsonType::kObject) {
          if (!js.SkipValue()) return ScanError(js);
          continue;  // not an event
        }
        RETURN_IF_ERROR(ParseEvent(js));
        if (release_base_ != nullptr) ReleasePagesBefore(js.offset());
      }
    } else if (key == "deviceProperties") {
      RETURN_IF_ERROR(ParseDeviceProperties(js));
    } else if (key == "baseTimeNanoseconds") {
      std::string_view text;
      if (js.Peek() != JsonType::kNumber || !js.ReadNumberText(&text)) return Error("bad \"baseTimeNanoseconds\"");
      std::optional<int64_t> v = JsonNumberToInt(text);
      if (!v || *v < 0) return Error("bad \"baseTimeNanoseconds\" " + std::string(text));
      base_time_ns_ = *v;
    } else if (!js.SkipValue()) {
      break;
    }
  }
  if (js.failed()) return ScanError(js);
  return Status::Ok();
}

// A stat of a JSON value: numbers, strings and booleans as themselves, arrays
// and objects as their text.
bool ReadStatValue(JsonScanner& js, StringTable& strings, Stat* out) {
  std::string_view text;
  switch (js.Peek()) {
    case JsonType::kNumber: {
      if (!js.ReadNumberText(&text)) return false;
      if (std::optional<int64_t> i = JsonNumberToInt(text)) {
        out->kind = StatKind::kInt64;
        out->i64 = *i;
      } else {
        out->kind = StatKind::kDouble;
        out->f64 = *JsonNumberToDouble(text);
      }
      return true;
    }
    case JsonType::kString:
      if (!js.ReadString(&text)) return false;
      out->kind = StatKind::kStr;
      out->str = strings.Intern(text);
      return true;
    case JsonType::kTrue:
    case JsonType::kFalse: {
      JsonType t;
      if (!js.ReadLiteral(&t)) return false;
      out->kind = StatKind::kInt64;
      out->i64 = t == JsonType::kTrue ? 1 : 0;
      return true;
    }
    case JsonType::kNull: {
      JsonType t;
      out->kind = StatKind::kNone;
      return js.ReadLiteral(&t);
    }
    default:
      if (!js.SkipValue(&text)) return false;
      out->kind = StatKind::kStr;
      out->str = strings.Intern(text);
      return true;
  }
}

Status KinetoBuilder::ParseArgs(JsonScanner& js) {
  if (js.Peek() != JsonType::kObject) return js.SkipValue() ? Status::Ok() : ScanError(js);
  js.EnterObject();
  std::string_view key;
  while (js.NextKey(&key)) {
    Stat s;
    s.name = arg_names_.Intern(key, space_->strings);
    if (s.name == n_.external_id_old) s.name = n_.external_id;
    if (!ReadStatValue(js, space_->strings, &s)) break;
    if (s.kind == StatKind::kNone) continue;
    stats_.push_back(s);
    if (s.name == n_.external_id && args_external_ == kNone && s.IsInteger()) args_external_ = s.IntValue();
    if (s.name == n_.correlation && args_correlation_ == kNone && s.IsInteger()) args_correlation_ = s.IntValue();
  }
  return js.failed() ? ScanError(js) : Status::Ok();
}

// pid and tid: numbers or strings, kept as their text.
bool ReadIdText(JsonScanner& js, StringTable& strings, StrId* out) {
  std::string_view text;
  bool ok = js.Peek() == JsonType::kString ? js.ReadString(&text)
            : js.Peek() == JsonType::kNumber ? js.ReadNumberText(&text)
                                              : js.SkipValue(&text);
  if (ok) *out = strings.Intern(text);
  return ok;
}

Status KinetoBuilder::ParseEvent(JsonScanner& js) {
  js.EnterObject();
  const uint32_t first_stat = static_cast<uint32_t>(stats_.size());
  args_external_ = args_correlation_ = kNone;
  char ph = 0;
  StrId cat = kNoStr;
  StrId name = kNoStr, pid = kNoStr, tid = kNoStr;
  int64_t ts = kNone, dur = kNone;
  std::string_view key, text;
  auto time_value = [&](int64_t* out) -> Status {
    if (js.Peek() != JsonType::kNumber) return js.SkipValue() ? Status::Ok() : ScanError(js);
    if (!js.ReadNumberText(&text)) return ScanError(js);
    std::optional<int64_t> ns = JsonMicrosToNanos(text);
    if (!ns) return Error("event time " + std::string(text) + " µs is beyond what a profile spans");
    *out = *ns;
    return Status::Ok();
  };
  while (js.NextKey(&key)) {
    if (key == "ph") {
      if (js.Peek() == JsonType::kString && js.ReadString(&text)) {
        ph = text.size() == 1 ? text[0] : '?';
      } else if (!js.SkipValue()) {
        break;
      }
    } else if (key == "cat") {
      if (js.Peek() == JsonType::kString && js.ReadString(&text)) {
        cat = space_->strings.Intern(text);
      } else if (!js.SkipValue()) {
        break;
      }
    } else if (key == "name") {
      if (js.Peek() == JsonType::kString && js.ReadString(&text)) {
        name = space_->strings.Intern(text);
      } else if (!js.SkipValue()) {
        break;
      }
    } else if (key == "pid") {
      if (!ReadIdText(js, space_->strings, &pid)) break;
    } else if (key == "tid") {
      if (!ReadIdText(js, space_->strings, &tid)) break;
    } else if (key == "ts") {
      RETURN_IF_ERROR(time_value(&ts));
    } else if (key == "dur") {
      RETURN_IF_ERROR(time_value(&dur));
    } else if (key == "args") {
      RETURN_IF_ERROR(ParseArgs(js));
    } else if (!js.SkipValue()) {
      break;
    }
  }
  if (js.failed()) return ScanError(js);
  if (ph == 'M') {
    // Thread names ("thread_name" metadata) name the host lines.
    if (space_->Str(name) == "thread_name") {
      for (uint32_t i = first_stat; i < stats_.size(); ++i) {
        if (stats_[i].name == n_.name && stats_[i].kind == StatKind::kStr) {
          thread_names_[{pid, tid}] = std::string(space_->Str(stats_[i].str));
        }
      }
    }
    stats_.resize(first_stat);
    return Status::Ok();
  }
  if ((ph != 'X' && ph != 'i' && ph != 'I') || ts == kNone) {
    stats_.resize(first_stat);  // flows, counters, and events without a time
    return Status::Ok();
  }
  if (ph == 'X' && dur == kNone) return Error("complete event '" + std::string(space_->Str(name)) + "' has no \"dur\"");
  if (ph != 'X') dur = 0;
  if (dur < 0) dur = 0;  // Kineto's own writer clamps negative durations
  if (dur > kMaxSpanNs) {
    return Error("event '" + std::string(space_->Str(name)) + "' lasts " + std::to_string(dur / 1000) +
                 " µs, longer than a profile can span");
  }
  AddEvent(ph, cat, name, pid, tid, ts, dur, first_stat);
  return Status::Ok();
}

void KinetoBuilder::AddEvent(char ph, StrId cat, StrId name, StrId pid, StrId tid, int64_t ts, int64_t dur,
                             uint32_t first_stat) {
  std::string_view name_text = space_->Str(name);
  if (cat == n_.trace_cat) {
    // The profiling span ("PyTorch Profiler (0)"): the session's start and stop.
    span_begin_ns_ = span_begin_ns_ == kNone ? ts : std::min(span_begin_ns_, ts);
    span_end_ns_ = span_end_ns_ == kNone ? ts + dur : std::max(span_end_ns_, ts + dur);
    stats_.resize(first_stat);
    return;
  }
  PendingEvent e;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.name = name;
  e.cat = cat;
  e.first_stat = first_stat;
  e.num_stats = static_cast<uint32_t>(stats_.size()) - first_stat;
  e.external = args_external_;
  e.correlation = args_correlation_;
  e.kind = ph == 'X' ? KindOfCat(cat) : (name_text == "[memory]" ? Kind::kMemory : Kind::kOtherHost);
  if (ph != 'X' && e.kind != Kind::kMemory && (space_->Str(pid).empty() || space_->Str(pid) == "Traces")) {
    stats_.resize(first_stat);  // global markers ("Record Window End", "Iteration Start")
    return;
  }
  if (IsDeviceKind(e.kind)) {
    // The device from args.device, else the pid; the stream from args.stream, else the tid.
    int64_t device = IntArg(e, n_.device);
    if (device == kNone) device = JsonNumberToInt(space_->Str(pid)).value_or(0);
    int64_t stream = IntArg(e, n_.stream);
    if (stream == kNone) {
      std::string_view t = space_->Str(tid);
      if (t.starts_with("stream ")) t.remove_prefix(7);
      stream = JsonNumberToInt(t).value_or(0);
    }
    if (e.kind == Kind::kGpuAnnotation) stream = kKinetoGpuAnnotationLineId;
    e.line = DeviceLine(static_cast<int>(std::clamp<int64_t>(device, 0, 1 << 20)), stream);
  } else {
    e.line = HostLine(pid, tid);
  }
  lines_[e.line].events.push_back(static_cast<uint32_t>(events_.size()));
  events_.push_back(e);
}

Status KinetoBuilder::ParseDeviceProperties(JsonScanner& js) {
  if (js.Peek() != JsonType::kArray) return js.SkipValue() ? Status::Ok() : ScanError(js);
  js.EnterArray();
  while (js.NextElement()) {
    const uint32_t first = static_cast<uint32_t>(stats_.size());
    RETURN_IF_ERROR(ParseArgs(js));
    std::vector<Stat> props(stats_.begin() + first, stats_.end());
    stats_.resize(first);
    int id = 0;
    for (const Stat& s : props) {
      if (space_->Str(s.name) == "id" && s.IsInteger()) id = static_cast<int>(std::clamp<int64_t>(s.IntValue(), 0, 1 << 20));
    }
    device_properties_[id] = std::move(props);
  }
  return js.failed() ? ScanError(js) : Status::Ok();
}

const Stat* KinetoBuilder::ArgOf(const PendingEvent& e, StrId name) const {
  for (uint32_t i = e.first_stat; i < e.first_stat + e.num_stats; ++i) {
    if (stats_[i].name == name) return &stats_[i];
  }
  return nullptr;
}

int64_t KinetoBuilder::IntArg(const PendingEvent& e, StrId name) const {
  const Stat* s = ArgOf(e, name);
  return s && s->IsInteger() ? s->IntValue() : kNone;
}

uint32_t KinetoBuilder::HostLine(StrId pid, StrId tid) {
  auto [it, fresh] = host_line_of_.try_emplace((uint64_t{pid} << 32) | tid, static_cast<uint32_t>(lines_.size()));
  if (fresh) {
    PendingLine line;
    line.pid = pid;
    line.tid = tid;
    std::optional<int64_t> t = JsonNumberToInt(space_->Str(tid));
    line.id = t ? std::llabs(*t) : static_cast<int64_t>(lines_.size());
    lines_.push_back(std::move(line));
  }
  return it->second;
}

uint32_t KinetoBuilder::DeviceLine(int device, int64_t stream) {
  uint64_t key = (uint64_t(static_cast<uint32_t>(device)) << 40) ^ static_cast<uint64_t>(stream);
  auto [it, fresh] = device_line_of_.try_emplace(key, static_cast<uint32_t>(lines_.size()));
  if (fresh) {
    PendingLine line;
    line.device = device;
    line.id = stream;
    lines_.push_back(std::move(line));
  }
  return it->second;
}


// "[x, y, z]" → x,y,z; missing dimensions are 1, as CUDA's.
std::string Dims(std::string_view text) {
  int64_t dims[3] = {1, 1, 1};
  size_t n = 0, i = 0;
  while (i < text.size() && n < 3) {
    while (i < text.size() && !(text[i] >= '0' && text[i] <= '9')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j > i) dims[n++] = JsonNumberToInt(text.substr(i, j - i)).value_or(1);
    i = j;
  }
  return std::to_string(dims[0]) + "," + std::to_string(dims[1]) + "," + std::to_string(dims[2]);
}

// The CUPTI collector's kernel_details text, from what Kineto wrote: the
// figures it lacks (registers and occupancy on ROCm) are left out.
std::string KinetoBuilder::KernelDetails(const PendingEvent& e) const {
  std::string out;
  auto add = [&out](std::string_view key, const std::string& value) {
    if (!out.empty()) out += ' ';
    out.append(key).append(":").append(value);
  };
  if (int64_t regs = IntArg(e, n_.registers); regs != kNone) add("regs", std::to_string(regs));
  if (int64_t shared = IntArg(e, n_.shared_memory); shared != kNone) {
    add("static_shared", std::to_string(shared));  // Kineto adds static and dynamic
    add("dynamic_shared", "0");
  }
  const Stat* grid = ArgOf(e, n_.grid);
  const Stat* block = ArgOf(e, n_.block);
  add("grid", Dims(grid && grid->kind == StatKind::kStr ? space_->Str(grid->str) : ""));
  add("block", Dims(block && block->kind == StatKind::kStr ? space_->Str(block->str) : ""));
  if (const Stat* occ = ArgOf(e, n_.occupancy)) add("occ_pct", std::to_string(occ->DoubleValue()));
  return out;
}

Stat IntStat(StrId name, int64_t v) {
  Stat s;
  s.name = name;
  s.kind = StatKind::kInt64;
  s.i64 = v;
  return s;
}

Stat StrStat(StrId name, StrId v) {
  Stat s;
  s.name = name;
  s.kind = StatKind::kStr;
  s.str = v;
  return s;
}

// A `[memory]` record as the allocator events the memory profile reads.
void KinetoBuilder::AddMemoryEvent(const PendingEvent& e, XPlaneModel& plane, std::vector<Stat>& stats) {
  StringTable& s = space_->strings;
  const int64_t bytes = IntArg(e, n_.bytes);
  const int64_t device_type = IntArg(e, n_.device_type);
  const int64_t device = IntArg(e, n_.device_index);
  const int64_t allocated = IntArg(e, n_.total_allocated);
  const int64_t reserved = IntArg(e, n_.total_reserved);
  const int64_t addr = IntArg(e, n_.addr);
  std::string allocator = device_type == 1 ? "GPU_" + std::to_string(device) + "_caching" : "cpu";
  stats.push_back(StrStat(s.Intern("allocator_name"), s.Intern(allocator)));
  if (bytes != kNone) {
    stats.push_back(IntStat(s.Intern("requested_bytes"), std::llabs(bytes)));
    stats.push_back(IntStat(s.Intern("allocation_bytes"), std::llabs(bytes)));
  }
  if (addr != kNone) stats.push_back(IntStat(s.Intern("addr"), addr));
  if (allocated != kNone) stats.push_back(IntStat(s.Intern("bytes_allocated"), allocated));
  // Reserved by the caching allocator but not handed out: its free bytes.
  // (TensorFlow's bytes_reserved is stack memory, which PyTorch has none of:
  // 0, so the profile's in-use memory is the allocated heap.)
  if (allocated != kNone && reserved != kNone) {
    stats.push_back(IntStat(s.Intern("bytes_available"), std::max<int64_t>(0, reserved - allocated)));
    stats.push_back(IntStat(s.Intern("bytes_reserved"), 0));
  }
  int64_t& peak = peak_in_use_[allocator];
  if (allocated != kNone) peak = std::max(peak, allocated);
  stats.push_back(IntStat(s.Intern("peak_bytes_in_use"), peak));
  (void)plane;
}

// One metadata per (name, category as written): the category is its stat.
// Nearly every name comes with one category, so the first (category,
// metadata) of a name sits in a table by name id; other pairs in a map.
class MetadataIndex {
 public:
  MetadataIndex(XPlaneModel& plane, StrId category_stat) : plane_(plane), category_stat_(category_stat) {}
  uint32_t Of(StrId name, StrId cat) {
    if (name >= first_of_name_.size()) first_of_name_.resize(name + 1024, {kNoStr, 0});
    auto& first = first_of_name_[name];
    if (first.second != 0 && first.first == cat) return first.second;
    if (first.second == 0) {
      first = {cat, Add(name, cat)};
      return first.second;
    }
    auto [it, fresh] = others_.try_emplace((uint64_t{name} << 32) | cat, 0);
    if (fresh) it->second = Add(name, cat);
    return it->second;
  }

 private:
  uint32_t Add(StrId name, StrId cat) {
    EventMetadata md;
    md.id = static_cast<int64_t>(plane_.event_metadata.size());
    md.name = name;
    md.first_stat = static_cast<uint32_t>(plane_.metadata_stats.size());
    md.num_stats = 1;
    plane_.metadata_stats.push_back(StrStat(category_stat_, cat));
    plane_.event_metadata.push_back(std::move(md));
    return static_cast<uint32_t>(plane_.event_metadata.size() - 1);
  }
  XPlaneModel& plane_;
  StrId category_stat_;
  std::vector<std::pair<StrId, uint32_t>> first_of_name_;  // metadata 0 is the placeholder: "none yet"
  std::unordered_map<uint64_t, uint32_t> others_;
};

void KinetoBuilder::BuildPlane(int device, XPlaneModel& plane,
                               const std::unordered_map<int64_t, StrId>& op_of_external,
                               const std::unordered_map<int64_t, int64_t>& external_of_correlation) {
  StringTable& strings = space_->strings;
  const StrId category_stat = strings.Intern(kKinetoCategoryStat);
  const StrId tf_op = strings.Intern(schema::kTfOp);
  const StrId kernel_details = strings.Intern(schema::kKernelDetails);
  const StrId root = strings.Intern(schema::kIsRoot);
  const StrId step_num = strings.Intern(schema::kStepNum);
  const StrId alloc = strings.Intern(schema::kMemoryAllocationEvent);
  const StrId dealloc = strings.Intern(schema::kMemoryDeallocationEvent);
  plane.event_metadata.emplace_back();  // index 0: the nameless placeholder
  MetadataIndex metadata_index(plane, category_stat);
  std::vector<uint32_t> line_order;
  for (uint32_t l = 0; l < lines_.size(); ++l) {
    if (lines_[l].device == device) line_order.push_back(l);
  }
  std::stable_sort(line_order.begin(), line_order.end(),
                   [&](uint32_t a, uint32_t b) { return lines_[a].id < lines_[b].id; });
  size_t num_events = 0, num_stats = 0;
  for (uint32_t l : line_order) {
    num_events += lines_[l].events.size();
    for (uint32_t idx : lines_[l].events) num_stats += events_[idx].num_stats + 2;  // + tf_op, kernel_details
  }
  plane.events.reserve(num_events);
  plane.event_stats.reserve(num_stats);
  AdviseHugePages(plane.events);
  AdviseHugePages(plane.event_stats);
  for (uint32_t l : line_order) {
    PendingLine& pl = lines_[l];
    auto outer_first = [&](uint32_t a, uint32_t b) {
      const PendingEvent& x = events_[a];
      const PendingEvent& y = events_[b];
      return x.ts_ns != y.ts_ns ? x.ts_ns < y.ts_ns : x.dur_ns > y.dur_ns;
    };
    // Kineto mostly writes a thread's or stream's events in order already.
    if (!std::is_sorted(pl.events.begin(), pl.events.end(), outer_first)) {
      std::sort(pl.events.begin(), pl.events.end(), outer_first);
    }
    LineModel line;
    line.id = pl.id;
    line.display_id = pl.id;
    if (device < 0) {
      auto it = thread_names_.find({pl.pid, pl.tid});
      line.name = strings.Intern(it != thread_names_.end() ? it->second
                                                           : "thread " + std::string(space_->Str(pl.tid)));
    } else {
      line.name = strings.Intern(pl.id == kKinetoGpuAnnotationLineId ? std::string("GPU annotations")
                                                                      : "Stream #" + std::to_string(pl.id));
    }
    line.first_event = static_cast<uint32_t>(plane.events.size());
    line.num_events = static_cast<uint32_t>(pl.events.size());
    for (uint32_t idx : pl.events) {
      const PendingEvent& pe = events_[idx];
      Event ev;
      ev.begin_ps = (pe.ts_ns - origin_ns_) * 1000;
      ev.duration_ps = pe.dur_ns * 1000;
      ev.first_stat = static_cast<uint32_t>(plane.event_stats.size());
      StrId name = pe.name;
      if (pe.kind == Kind::kMemory) {
        const int64_t bytes = IntArg(pe, n_.bytes);
        name = bytes != kNone && bytes < 0 ? dealloc : alloc;
      }
      ev.metadata = metadata_index.Of(name, pe.cat);
      plane.events.push_back(ev);
      for (uint32_t i = pe.first_stat; i < pe.first_stat + pe.num_stats; ++i) {
        Stat s = stats_[i];
        if (s.name == n_.correlation) s.name = n_.correlation_id;
        if (s.name == n_.device) s.name = n_.device_id;
        plane.event_stats.push_back(s);
      }
      std::string_view name_text = space_->Str(pe.name);
      if (pe.kind == Kind::kMemory) AddMemoryEvent(pe, plane, plane.event_stats);
      if ((pe.kind == Kind::kCpuOp || pe.kind == Kind::kUserAnnotation) && name_text.starts_with("ProfilerStep#")) {
        std::optional<int64_t> n = JsonNumberToInt(name_text.substr(13));
        plane.event_stats.push_back(IntStat(root, 1));
        if (n) plane.event_stats.push_back(IntStat(step_num, *n));
      } else if (pe.kind == Kind::kCpuOp && IsOperatorName(name_text)) {
        plane.event_stats.push_back(StrStat(tf_op, TfOpOf(pe.name)));
      }
      if (pe.kind == Kind::kKernel || pe.kind == Kind::kMemcpy || pe.kind == Kind::kMemset) {
        if (pe.kind == Kind::kKernel) {
          plane.event_stats.push_back(StrStat(kernel_details, strings.Intern(KernelDetails(pe))));
        }
        int64_t external = pe.external;
        if (external == kNone || external == 0) {
          auto c = external_of_correlation.find(pe.correlation);
          if (c != external_of_correlation.end()) external = c->second;
        }
        auto op = op_of_external.find(external);
        if (op != op_of_external.end()) plane.event_stats.push_back(StrStat(tf_op, op->second));
      }
    }
    plane.lines.push_back(line);
  }
}

StatusOr<std::unique_ptr<XSpaceModel>> KinetoBuilder::Build() {
  origin_ns_ = span_begin_ns_ == kNone ? std::numeric_limits<int64_t>::max() : span_begin_ns_;
  for (const PendingEvent& e : events_) origin_ns_ = std::min(origin_ns_, e.ts_ns);
  if (origin_ns_ == std::numeric_limits<int64_t>::max()) origin_ns_ = 0;
  for (const PendingEvent& e : events_) {
    if (e.ts_ns - origin_ns_ > kMaxSpanNs - e.dur_ns) {
      return Error("event '" + std::string(space_->Str(e.name)) + "' ends " +
                   std::to_string((e.ts_ns - origin_ns_ + e.dur_ns) / 1000) +
                   " µs after the trace's first event, longer than a profile can span");
    }
  }
  // The operator behind each External id, and the External id of each launch.
  std::unordered_map<int64_t, StrId> op_of_external;
  std::unordered_map<int64_t, int64_t> external_of_correlation;
  for (const PendingEvent& e : events_) {
    if (e.kind == Kind::kCpuOp && IsOperatorName(space_->Str(e.name))) {
      int64_t external = e.external;
      if (external == kNone || external == 0) continue;
      op_of_external.try_emplace(external, TfOpOf(e.name));
    } else if (e.kind == Kind::kRuntime || e.kind == Kind::kDriver) {
      int64_t external = e.external, correlation = e.correlation;
      if (external != kNone && correlation != kNone) external_of_correlation.try_emplace(correlation, external);
    }
  }
  XSpaceModel& space = *space_;
  std::vector<int> devices;
  for (const PendingLine& l : lines_) {
    if (l.device >= 0) devices.push_back(l.device);
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  space.planes.resize(1 + devices.size());
  space.planes[0].id = 0;
  space.planes[0].name = space.strings.Intern(schema::kHostPlane);
  BuildPlane(-1, space.planes[0], op_of_external, external_of_correlation);
  for (size_t i = 0; i < devices.size(); ++i) {
    XPlaneModel& plane = space.planes[i + 1];
    plane.id = static_cast<int64_t>(i + 1);
    plane.name = space.strings.Intern(std::string(schema::kGpuPlanePrefix) + std::to_string(devices[i]));
    AddDeviceStats(devices[i], plane);
    BuildPlane(devices[i], plane, op_of_external, external_of_correlation);
  }
  if (span_begin_ns_ != kNone) {
    XPlaneModel env;
    env.id = static_cast<int64_t>(space.planes.size());
    env.name = space.strings.Intern(schema::kTaskEnvironmentPlane);
    env.event_metadata.emplace_back();
    env.plane_stats.push_back(IntStat(space.strings.Intern(schema::kProfileStartTime), base_time_ns_ + span_begin_ns_));
    env.plane_stats.push_back(IntStat(space.strings.Intern(schema::kProfileStopTime), base_time_ns_ + span_end_ns_));
    space.planes.push_back(std::move(env));
  }
  events_.clear();
  stats_.clear();
  return std::move(space_);
}

// deviceProperties as the capability stats device_peaks and the run
// environment read, beside Kineto's own names.
void KinetoBuilder::AddDeviceStats(int device, XPlaneModel& plane) {
  auto it = device_properties_.find(device);
  if (it == device_properties_.end()) return;
  StringTable& s = space_->strings;
  std::string_view name;
  int64_t warp_size = 0;
  for (const Stat& st : it->second) {
    std::string_view key = space_->Str(st.name);
    if (key == "name" && st.kind == StatKind::kStr) name = space_->Str(st.str);
    if (key == "warpSize") warp_size = st.IntValue();
    if (key == "computeMajor") plane.plane_stats.push_back(IntStat(s.Intern(schema::kComputeCapMajor), st.IntValue()));
    if (key == "computeMinor") plane.plane_stats.push_back(IntStat(s.Intern(schema::kComputeCapMinor), st.IntValue()));
    if (key == "numSms") plane.plane_stats.push_back(IntStat(s.Intern("core_count"), st.IntValue()));
    if (key == "totalGlobalMem") plane.plane_stats.push_back(IntStat(s.Intern("memory_size"), st.IntValue()));
    plane.plane_stats.push_back(st);
  }
  if (!name.empty()) plane.plane_stats.push_back(StrStat(s.Intern(schema::kGpuDeviceName), s.Intern(name)));
  // AMD GPUs have 64-wide wavefronts; Kineto writes no vendor.
  const bool amd = warp_size == 64 || name.find("AMD") != std::string_view::npos ||
                   name.find("Instinct") != std::string_view::npos;
  plane.plane_stats.push_back(
      StrStat(s.Intern(schema::kDeviceVendor), s.Intern(amd ? schema::kVendorAmd : schema::kVendorNvidia)));
}

}  // namespace

StatusOr<std::unique_ptr<XSpaceModel>> ParseKinetoTrace(std::string_view json, std::string_view source) {
  KinetoBuilder builder(source);
  RETURN_IF_ERROR(builder.Parse(json));
  return builder.Build();
}

namespace {

StatusOr<std::unique_ptr<XSpaceModel>> ParseMappedKinetoTrace(std::string_view json, std::string_view source,
                                                              bool release_pages) {
  KinetoBuilder builder(source);
  RETURN_IF_ERROR(builder.Parse(json, release_pages));
  return builder.Build();
}

}  // namespace

StatusOr<std::unique_ptr<XSpaceModel>> LoadKinetoFile(const std::string& path, const LoadOptions& options) {
  MappedFile f;
  RETURN_IF_ERROR(f.Open(path, options.max_bytes));
  if (HasGzipMagic(f.view())) {
    auto inflated = Inflate(f.view(), path, options.max_bytes);
    RETURN_IF_ERROR(f.CheckUnchanged());
    if (!inflated.ok()) return inflated.status();
    return ParseKinetoTrace(*inflated, path);
  }
  auto model = ParseMappedKinetoTrace(f.view(), path, options.release_decoded_pages);
  RETURN_IF_ERROR(f.CheckUnchanged());
  return model;
}

}  // namespace tbprof
