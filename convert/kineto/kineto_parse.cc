// Reading a Kineto trace's JSON into the builder's pending events.
#include <algorithm>
#include <utility>

#include "convert/base/huge_pages.h"
#include "convert/base/released_pages.h"
#include "convert/base/cancellation.h"
#include "convert/base/run_both.h"
#include "convert/kineto/kineto_builder.h"
#include "convert/kineto/kineto_reader.h"

namespace tbprof::kineto_detail {

namespace {

// A stat of a JSON value: numbers, strings and booleans as themselves, arrays
// and objects as their text.
template <typename Intern>
bool ReadStatValue(JsonScanner& js, Intern&& intern, Stat* out) {
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
      out->str = intern(text);
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
      out->str = intern(text);
      return true;
  }
}

// pid and tid: numbers or strings, kept as their text.
template <typename Intern>
bool ReadIdText(JsonScanner& js, Intern&& intern, StrId* out) {
  std::string_view text;
  bool ok = js.Peek() == JsonType::kString ? js.ReadString(&text)
            : js.Peek() == JsonType::kNumber ? js.ReadNumberText(&text)
                                              : js.SkipValue(&text);
  if (ok) *out = intern(text);
  return ok;
}

}  // namespace

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

KinetoBuilder::KinetoBuilder(std::string_view source, uint64_t parallel_min_bytes)
    : source_(source), parallel_min_bytes_(parallel_min_bytes), space_(std::make_unique<XSpaceModel>()) {
  // The stat names the parse looks for, interned once.
  const std::pair<StrId Names::*, std::string_view> kNames[] = {
      {&Names::correlation, "correlation"}, {&Names::correlation_id, schema::kCorrelationId},
      {&Names::device, "device"}, {&Names::device_id, schema::kDeviceId}, {&Names::stream, "stream"},
      {&Names::external_id, kKinetoExternalIdStat}, {&Names::external_id_old, "external id"},
      {&Names::registers, "registers per thread"}, {&Names::shared_memory, "shared memory"},
      {&Names::grid, "grid"}, {&Names::block, "block"}, {&Names::occupancy, kKinetoOccupancyStat},
      {&Names::name, "name"}, {&Names::bytes, "Bytes"}, {&Names::total_allocated, "Total Allocated"},
      {&Names::total_reserved, "Total Reserved"}, {&Names::device_type, "Device Type"},
      {&Names::device_index, "Device Id"}, {&Names::addr, "Addr"}, {&Names::trace_cat, "Trace"}};
  for (const auto& [field, text] : kNames) n_.*field = space_->strings.Intern(text);
}

// Room for a typical event and its args per few hundred bytes of JSON:
// address space only until written, and it spares the copies of repeated growth.
void KinetoBuilder::ReserveFor(size_t json_bytes) {
  ReserveLarge(events_, json_bytes / 512);
  ReserveLarge(stats_, json_bytes / 48);
}

Status KinetoBuilder::Parse(std::string_view json, bool release_pages) {
  json_ = json;
  if (json.empty()) return EmptyProfileFile(source_);
  JsonScanner js(json);
  ReserveFor(json.size());
  if (release_pages) json_read_ = PagesReleasedBehind(json.data(), json.size());
  release_pages_ = release_pages;
  if (js.Peek() != JsonType::kObject) {
    return Error("not a PyTorch profiler trace: the file is not a JSON object");
  }
  RETURN_IF_ERROR(ParseTopLevel(js));
  if (js.Peek() != JsonType::kEnd || js.offset() < json.size()) {
    if (js.failed()) return ScanError(js);
    return Error("not valid JSON (text after the trace object at byte " + std::to_string(js.offset()) + ")");
  }
  if (!saw_trace_events_) return Error("not a PyTorch profiler trace: no \"traceEvents\" array");
  return intern_refused_;
}

// The elements of the open traceEvents array, until it closes, or until one
// starts at `stop_at` (then `stopped`, that element not read).
Status KinetoBuilder::ParseEvents(JsonScanner& js, size_t stop_at, bool* stopped) {
  *stopped = false;
  CancellationPoll cancel;
  while (js.NextElement()) {
    if (cancel.Due()) return CancelledError("loading " + source_);
    if (js.offset() == stop_at) {
      *stopped = true;
      return Status::Ok();
    }
    if (js.Peek() != JsonType::kObject) {
      if (!js.SkipValue()) return ScanError(js);
      continue;  // not an event
    }
    RETURN_IF_ERROR(ParseEvent(js));
    RETURN_IF_ERROR(ClaimHeld());
    // Every event read so far is copied into the builder: the text behind
    // it is not read again, so the peak footprint is the model plus a window
    // of the file rather than the whole file (a margin for the event being read).
    if (release_pages_ && js.offset() > kReadMargin) json_read_.ReleaseBefore(json_.data() + js.offset() - kReadMargin);
  }
  return js.failed() ? ScanError(js) : Status::Ok();
}

// A large traceEvents array is read by two threads, each over one half of
// its bytes: this builder up to an element near the middle, a second one
// from there to the array's end, whose events are then appended here. The
// middle is found by a guess at the bytes; the front confirms it by reading
// up to exactly that element (a guess inside a string is never reached, and
// the front then reads the whole array itself). Strings are interned again in
// the back's order, so the model is the one a single thread makes, ids and all.
Status KinetoBuilder::ParseTraceEvents(JsonScanner& js) {
  const size_t begin = js.offset();
  size_t split = std::string_view::npos;
  if (json_.size() - begin >= parallel_min_bytes_) {
    split = FindLikelyObjectElement(json_, begin + (json_.size() - begin) / 2, json_.size());
  }
  bool stopped = false;
  if (split == std::string_view::npos) return ParseEvents(js, split, &stopped);
  KinetoBuilder back(source_, UINT64_MAX);
  back.json_ = json_;
  back.release_pages_ = release_pages_;
  if (release_pages_) back.json_read_ = PagesReleasedBehind(json_.data() + split, json_.size() - split);
  const int depth = js.depth();
  Status front_status, back_status;
  size_t back_end = 0;
  RunBoth([&] { front_status = ParseEvents(js, split, &stopped); },
          [&] { back_status = back.ParseEventsFrom(split, depth, &back_end); });
  RETURN_IF_ERROR(front_status);
  if (!stopped) return Status::Ok();
  RETURN_IF_ERROR(back_status);
  if (CancelRequested()) return CancelledError("loading " + source_);
  MergeFrom(back);
  js.ContinueAfterContainer(back_end);
  return Status::Ok();
}

// The back half: from the element at `from` of an array open at nesting
// `depth` to that array's end; `end` is the offset after its ']'.
Status KinetoBuilder::ParseEventsFrom(size_t from, int depth, size_t* end) {
  JsonScanner js(json_);
  js.ResumeInArray(from, depth);
  ReserveFor(json_.size() - from);
  bool stopped = false;
  RETURN_IF_ERROR(ParseEvents(js, std::string_view::npos, &stopped));
  *end = js.offset();
  return Status::Ok();
}

// Appends the back half's events, stats, lines and thread names, its strings
// interned here in its own order (the order one thread would have met them).
void KinetoBuilder::MergeFrom(KinetoBuilder& back) {
  StringTable& strings = space_->strings;
  const StringTable& theirs = back.space_->strings;
  std::vector<StrId> id(theirs.size());
  for (size_t i = 0; i < theirs.size(); ++i) id[i] = strings.Intern(theirs.View(static_cast<StrId>(i)));
  std::vector<uint32_t> line_of(back.lines_.size());
  for (size_t l = 0; l < back.lines_.size(); ++l) {
    const PendingLine& bl = back.lines_[l];
    line_of[l] = bl.device < 0 ? HostLine(id[bl.pid], id[bl.tid]) : DeviceLine(bl.device, bl.id);
  }
  for (Stat& st : back.stats_) {
    st.name = id[st.name];
    if (st.kind == StatKind::kStr) st.str = id[st.str];
  }
  const uint32_t first_index = static_cast<uint32_t>(events_.size());
  for (uint32_t i = 0; i < back.events_.size(); ++i) {
    PendingEvent& e = back.events_[i];
    e.name = id[e.name];
    e.cat = id[e.cat];
    e.line = line_of[e.line];
    e.part = 1;
    lines_[e.line].events.push_back(first_index + i);
  }
  back_events_ = std::move(back.events_);
  back_stats_ = std::move(back.stats_);
  for (auto& [key, name] : back.thread_names_) thread_names_[{id[key.first], id[key.second]}] = std::move(name);
  if (back.span_begin_ns_ != kNone) {
    span_begin_ns_ = span_begin_ns_ == kNone ? back.span_begin_ns_ : std::min(span_begin_ns_, back.span_begin_ns_);
    span_end_ns_ = span_end_ns_ == kNone ? back.span_end_ns_ : std::max(span_end_ns_, back.span_end_ns_);
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
      RETURN_IF_ERROR(ParseTraceEvents(js));
    } else if (key == "deviceProperties") {
      RETURN_IF_ERROR(ParseDeviceProperties(js));
    } else if (key == "distributedInfo") {
      RETURN_IF_ERROR(ParseDistributedInfo(js));
    } else if (key == "baseTimeNanoseconds") {
      std::string_view text;
      if (js.Peek() != JsonType::kNumber || !js.ReadNumberText(&text)) return Error("bad \"baseTimeNanoseconds\"");
      std::optional<int64_t> v = JsonNumberToInt(text);
      if (!v || *v < 0 || *v > kMaxAbsTimeNs) return Error("bad \"baseTimeNanoseconds\" " + std::string(text));
      base_time_ns_ = *v;
    } else if (!js.SkipValue()) {
      break;
    }
  }
  if (js.failed()) return ScanError(js);
  return Status::Ok();
}

// Only the rank is read: it names the trace's host.
Status KinetoBuilder::ParseDistributedInfo(JsonScanner& js) {
  if (js.Peek() != JsonType::kObject) return js.SkipValue() ? Status::Ok() : ScanError(js);
  js.EnterObject();
  std::string_view key;
  while (js.NextKey(&key)) {
    std::string_view text;
    if (key == "rank" && js.Peek() == JsonType::kNumber) {
      if (!js.ReadNumberText(&text)) break;
      if (std::optional<int64_t> rank = JsonNumberToInt(text); rank && *rank >= 0) rank_ = *rank;
    } else if (!js.SkipValue()) {
      break;
    }
  }
  return js.failed() ? ScanError(js) : Status::Ok();
}

void KinetoBuilder::IndexArg(StrId name, uint32_t index) {
  if (name >= arg_at_.size()) arg_at_.resize(std::max<size_t>(space_->strings.size(), 2 * arg_at_.size()));
  arg_at_[name] = {args_object_, index};
}

Stat* KinetoBuilder::ArgSoFar(uint32_t first, StrId name) {
  if (stats_.size() - first <= kArgsScannedInPlace) {
    for (uint32_t i = first; i < stats_.size(); ++i) {
      if (stats_[i].name == name) return &stats_[i];
    }
    return nullptr;
  }
  if (!args_indexed_) {
    args_indexed_ = true;
    ++args_object_;
    for (uint32_t i = first; i < stats_.size(); ++i) IndexArg(stats_[i].name, i);
  }
  if (name < arg_at_.size() && arg_at_[name].first == args_object_) return &stats_[arg_at_[name].second];
  return nullptr;
}

Status KinetoBuilder::ParseArgs(JsonScanner& js) {
  if (js.Peek() != JsonType::kObject) return js.SkipValue() ? Status::Ok() : ScanError(js);
  js.EnterObject();
  const uint32_t first = static_cast<uint32_t>(stats_.size());
  args_indexed_ = false;
  auto intern = [this](std::string_view text) { return Intern(text); };
  std::string_view key;
  uint64_t read = 0;
  while (js.NextKey(&key)) {
    if ((++read & 0xffff) == 0) {  // one event may carry millions
      RETURN_IF_ERROR(ClaimHeld());
      if (CancelRequested()) return CancelledError("loading " + source_);
    }
    Stat s;
    s.name = key.size() > kClaimStep ? Intern(key) : arg_names_.Intern(key, space_->strings);
    if (s.name == n_.external_id_old) s.name = n_.external_id;
    if (!ReadStatValue(js, intern, &s)) break;
    if (s.kind == StatKind::kNone) continue;
    if (Stat* earlier = ArgSoFar(first, s.name)) {
      *earlier = s;
    } else {
      if (args_indexed_) IndexArg(s.name, static_cast<uint32_t>(stats_.size()));
      stats_.push_back(s);
    }
    if (s.name == n_.external_id) args_external_ = s.IsInteger() ? s.IntValue() : kNone;
    if (s.name == n_.correlation) args_correlation_ = s.IsInteger() ? s.IntValue() : kNone;
  }
  return js.failed() ? ScanError(js) : Status::Ok();
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
  auto intern = [this](std::string_view t) { return Intern(t); };
  // `absolute`: a point in time, bounded so that differences never wrap (a
  // duration is bounded by kMaxSpanNs below).
  auto time_value = [&](int64_t* out, bool absolute) -> Status {
    if (js.Peek() != JsonType::kNumber) return js.SkipValue() ? Status::Ok() : ScanError(js);
    if (!js.ReadNumberText(&text)) return ScanError(js);
    std::optional<int64_t> ns = JsonMicrosToNanos(text);
    if (!ns || (absolute && (*ns > kMaxAbsTimeNs || *ns < -kMaxAbsTimeNs))) {
      return Error("event time " + std::string(text) + " µs is beyond what a profile spans");
    }
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
        cat = Intern(text);
      } else if (!js.SkipValue()) {
        break;
      }
    } else if (key == "name") {
      if (js.Peek() == JsonType::kString && js.ReadString(&text)) {
        name = Intern(text);
      } else if (!js.SkipValue()) {
        break;
      }
    } else if (key == "pid") {
      if (!ReadIdText(js, intern, &pid)) break;
    } else if (key == "tid") {
      if (!ReadIdText(js, intern, &tid)) break;
    } else if (key == "ts") {
      RETURN_IF_ERROR(time_value(&ts, /*absolute=*/true));
    } else if (key == "dur") {
      RETURN_IF_ERROR(time_value(&dur, /*absolute=*/false));
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
  e.links.external = args_external_;
  e.links.correlation = args_correlation_;
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
  const Stat* stats = StatsOf(e);
  for (uint32_t i = 0; i < e.num_stats; ++i) {
    if (stats[i].name == name) return &stats[i];
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

}  // namespace tbprof::kineto_detail
