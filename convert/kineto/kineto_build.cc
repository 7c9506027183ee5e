// Turning the builder's pending events into the model's planes.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "convert/base/cancellation.h"
#include "convert/base/released_pages.h"
#include "convert/base/run_both.h"
#include "convert/kineto/kineto_builder.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/model/model_writer.h"

namespace tbprof::kineto_detail {

namespace {

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

Stat NamedStat(StrId name, StatKind kind) {
  Stat s;
  s.name = name;
  s.kind = kind;
  return s;
}

Stat IntStat(StrId name, int64_t v) {
  Stat s = NamedStat(name, StatKind::kInt64);
  s.i64 = v;
  return s;
}

Stat StrStat(StrId name, StrId v) {
  Stat s = NamedStat(name, StatKind::kStr);
  s.str = v;
  return s;
}

// One metadata per (name, category as written): the category is its stat.
// Nearly every name comes with one category, so the first (category,
// metadata) of a name sits in a table by name id; other pairs in a map. The
// table is the space's, lent to one plane at a time and cleared of that
// plane's entries after it (a table per plane would cost planes × names).
using FirstOfName = std::vector<std::pair<StrId, uint32_t>>;  // metadata 0 is the placeholder: "none yet"
class MetadataIndex {
 public:
  MetadataIndex(PlaneWriter& plane, StrId category_stat, FirstOfName& first_of_name)
      : plane_(plane), category_stat_(category_stat), first_of_name_(first_of_name) {}
  ~MetadataIndex() {
    for (StrId name : touched_) first_of_name_[name] = {kNoStr, 0};
  }
  MetadataIndex(const MetadataIndex&) = delete;
  MetadataIndex& operator=(const MetadataIndex&) = delete;
  uint32_t Of(StrId name, StrId cat) {
    if (name >= first_of_name_.size()) first_of_name_.resize(name + 1024, {kNoStr, 0});
    auto& first = first_of_name_[name];
    if (first.second != 0 && first.first == cat) return first.second;
    if (first.second == 0) {
      first = {cat, Add(name, cat)};
      touched_.push_back(name);
      return first.second;
    }
    auto [it, fresh] = others_.try_emplace((uint64_t{name} << 32) | cat, 0);
    if (fresh) it->second = Add(name, cat);
    return it->second;
  }

 private:
  uint32_t Add(StrId name, StrId cat) {
    EventMetadata md;
    md.id = static_cast<int64_t>(plane_.NumEventMetadata());
    md.name = name;
    plane_.BeginEventMetadata();
    plane_.AddMetadataStat(StrStat(category_stat_, cat));
    return plane_.EndEventMetadata(std::move(md));
  }
  PlaneWriter& plane_;
  StrId category_stat_;
  FirstOfName& first_of_name_;
  std::vector<StrId> touched_;
  std::unordered_map<uint64_t, uint32_t> others_;
};

// Asks the kernel to fault in, writable, the pages of each range, last range
// and last page first (where the thread filling them from the front reaches
// last). Contents are untouched, so this may race with the filling. Kernels
// before 5.14 lack the request: then nothing is done.
void PopulateBackward(const std::vector<std::pair<char*, size_t>>& ranges) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  constexpr uintptr_t kStep = uintptr_t{2} << 20;
  for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(r->first) & ~(page - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(r->first) + r->second + page - 1) & ~(page - 1);
    while (end > begin) {
      if (CancelRequested()) return;  // the building thread stops too
      const uintptr_t from = end - begin > kStep ? (end - kStep) & ~(page - 1) : begin;
      if (madvise(reinterpret_cast<void*>(from), end - from, MADV_POPULATE_WRITE) != 0) return;
      end = from;
    }
  }
}

}  // namespace

bool IsOperatorName(std::string_view name) {
  return !name.starts_with("ProfilerStep#") && !name.starts_with("enumerate(DataLoader)") &&
         !name.starts_with("enumerate(DataPipe)") && !name.starts_with("Optimizer.") &&
         name != "DataParallel.forward" && name != "DistributedDataParallel.forward";
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

// The allocator a `[memory]` record is of.
std::string KinetoBuilder::AllocatorOf(const PendingEvent& e) const {
  const int64_t device_type = IntArg(e, n_.device_type);
  const int64_t device = IntArg(e, n_.device_index);
  // c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP (ROCm); other kinds are named by their number.
  return device_type == 1 || device_type == 6 ? "GPU_" + std::to_string(device) + "_caching"
         : device_type == 0 || device_type == kNone ? std::string("cpu")
                                                     : "device_type_" + std::to_string(device_type);
}

// The allocator's peak in use so far, this record's allocation included: a
// running maximum in the model's order of events.
int64_t KinetoBuilder::UpdateMemoryPeak(const PendingEvent& e) {
  int64_t& peak = peak_in_use_[AllocatorOf(e)];
  if (const int64_t allocated = IntArg(e, n_.total_allocated); allocated != kNone) peak = std::max(peak, allocated);
  return peak;
}

// A `[memory]` record as the allocator events the memory profile reads;
// `peak` from UpdateMemoryPeak.
template <typename AddStat>
void KinetoBuilder::AddMemoryStats(const PendingEvent& e, int64_t peak, AddStat&& add) {
  StringTable& s = space_->strings;
  const int64_t bytes = IntArg(e, n_.bytes);
  const int64_t allocated = IntArg(e, n_.total_allocated);
  const int64_t reserved = IntArg(e, n_.total_reserved);
  const int64_t addr = IntArg(e, n_.addr);
  add(StrStat(s.Intern("allocator_name"), s.Intern(AllocatorOf(e))));
  if (bytes != kNone) {
    add(IntStat(s.Intern("requested_bytes"), std::llabs(bytes)));
    add(IntStat(s.Intern("allocation_bytes"), std::llabs(bytes)));
  }
  if (addr != kNone) add(IntStat(s.Intern("addr"), addr));
  if (allocated != kNone) add(IntStat(s.Intern("bytes_allocated"), allocated));
  // Reserved by the caching allocator but not handed out: its free bytes.
  // (TensorFlow's bytes_reserved is stack memory, which PyTorch has none of:
  // 0, so the profile's in-use memory is the allocated heap.)
  if (allocated != kNone && reserved != kNone) {
    add(IntStat(s.Intern("bytes_available"), std::max<int64_t>(0, reserved - allocated)));
    add(IntStat(s.Intern("bytes_reserved"), 0));
  }
  add(IntStat(s.Intern("peak_bytes_in_use"), peak));
}

// The stats an event has in the model after its args, from what the layout
// resolved (`e.placed`); `add` takes each in order.
template <typename AddStat>
void KinetoBuilder::AddDerivedStats(const PendingEvent& e, AddStat&& add) {
  if (e.kind == Kind::kMemory) AddMemoryStats(e, e.placed.memory_peak, add);
  std::string_view name_text = space_->Str(e.name);
  if ((e.kind == Kind::kCpuOp || e.kind == Kind::kUserAnnotation) && name_text.starts_with("ProfilerStep#")) {
    std::optional<int64_t> n = JsonNumberToInt(name_text.substr(13));
    add(IntStat(built_.root, 1));
    if (n) add(IntStat(built_.step_num, *n));
  } else if (e.kind == Kind::kCpuOp && IsOperatorName(name_text)) {
    add(StrStat(built_.tf_op, e.placed.tf_op));
  }
  if (e.kind == Kind::kKernel) add(StrStat(built_.kernel_details, e.placed.kernel_details));
  if ((e.kind == Kind::kKernel || e.kind == Kind::kMemcpy || e.kind == Kind::kMemset) && e.placed.tf_op != kNoStr) {
    add(StrStat(built_.tf_op, e.placed.tf_op));
  }
}

// The lines of each of `devices` (ascending, the host's -1 first), by id.
std::vector<std::vector<uint32_t>> KinetoBuilder::LinesByPlane(const std::vector<int>& devices) const {
  std::vector<uint32_t> order(lines_.size());
  for (uint32_t l = 0; l < order.size(); ++l) order[l] = l;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return lines_[a].device != lines_[b].device ? lines_[a].device < lines_[b].device : lines_[a].id < lines_[b].id;
  });
  std::vector<std::vector<uint32_t>> by_plane(devices.size());
  size_t plane = 0;
  for (uint32_t l : order) {
    while (devices[plane] != lines_[l].device) ++plane;
    by_plane[plane].push_back(l);
  }
  return by_plane;
}

// Claims the plane's arrays and sizes its events, adding them to `filled`
// (they are written for sure, in order). The stats are sized once the
// layout has counted them.
Status KinetoBuilder::ReservePlane(const std::vector<uint32_t>& line_order, XPlaneModel& plane,
                                   std::vector<std::pair<char*, size_t>>& filled) const {
  size_t num_events = 0, num_stats = 0;
  for (uint32_t l : line_order) {
    num_events += lines_[l].events.size();
    for (uint32_t idx : lines_[l].events) num_stats += EventAt(idx).num_stats;
  }
  const size_t reserved_stats = num_stats + 2 * num_events;  // + tf_op, kernel_details
  RETURN_IF_ERROR(ClaimMemory(sizeof(XPlaneModel) + sizeof(EventMetadata) + line_order.size() * sizeof(LineModel) +
                                  num_events * sizeof(Event) + reserved_stats * sizeof(Stat),
                              "loading the profile"));
  PlaneWriter(plane).ReserveLarge(num_events, 0);
  filled.emplace_back(reinterpret_cast<char*>(plane.events.data()), num_events * sizeof(Event));
  return Status::Ok();
}

// The plane's lines and events in the model's order, every string the plane
// adds interned in that order: each event is given the place of its stats
// and what they derive from (`placed`, over the links, which are read here
// for the last time). The stats themselves are copied later, in the file's
// order (CopyStatsInFileOrder). Returns the number of the plane's stats.
StatusOr<uint32_t> KinetoBuilder::LayOutPlane(int device, const std::vector<uint32_t>& line_order, PlaneWriter& plane,
                                              const std::unordered_map<int64_t, StrId>& op_of_external,
                                              const std::unordered_map<int64_t, int64_t>& external_of_correlation,
                                              std::vector<std::pair<StrId, uint32_t>>& first_of_name) {
  StringTable& strings = space_->strings;
  const StrId category_stat = strings.Intern(kKinetoCategoryStat);
  built_.tf_op = strings.Intern(schema::kTfOp);
  built_.kernel_details = strings.Intern(schema::kKernelDetails);
  built_.root = strings.Intern(schema::kIsRoot);
  built_.step_num = strings.Intern(schema::kStepNum);
  const StrId alloc = strings.Intern(schema::kMemoryAllocationEvent);
  const StrId dealloc = strings.Intern(schema::kMemoryDeallocationEvent);
  plane.AddEventMetadata({});  // index 0: nameless, MetadataIndex's "none yet"
  MetadataIndex metadata_index(plane, category_stat, first_of_name);
  CancellationPoll cancel;
  uint64_t num_stats = 0;
  for (uint32_t l : line_order) {
    if (CancelRequested()) return CancelledError("loading " + source_);
    PendingLine& pl = lines_[l];
    auto outer_first = [&](uint32_t a, uint32_t b) {
      const PendingEvent& x = EventAt(a);
      const PendingEvent& y = EventAt(b);
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
    plane.BeginLine();
    for (uint32_t idx : pl.events) {
      if (cancel.Due()) return CancelledError("loading " + source_);
      PendingEvent& pe = MutableEventAt(idx);
      StrId name = pe.name;
      if (pe.kind == Kind::kMemory) {
        const int64_t bytes = IntArg(pe, n_.bytes);
        name = bytes != kNone && bytes < 0 ? dealloc : alloc;
      }
      const uint32_t metadata = metadata_index.Of(name, pe.cat);
      const PendingEvent::Links links = pe.links;
      PendingEvent::Placed placed;
      placed.first_stat = static_cast<uint32_t>(num_stats);
      placed.tf_op = kNoStr;
      placed.kernel_details = kNoStr;
      if (pe.kind == Kind::kMemory) placed.memory_peak = UpdateMemoryPeak(pe);
      if (pe.kind == Kind::kCpuOp && IsOperatorName(space_->Str(pe.name))) placed.tf_op = TfOpOf(pe.name);
      if (pe.kind == Kind::kKernel) placed.kernel_details = strings.Intern(KernelDetails(pe));
      if (pe.kind == Kind::kKernel || pe.kind == Kind::kMemcpy || pe.kind == Kind::kMemset) {
        int64_t external = links.external;
        if (external == kNone || external == 0) {
          auto c = external_of_correlation.find(links.correlation);
          if (c != external_of_correlation.end()) external = c->second;
        }
        auto op = op_of_external.find(external);
        if (op != op_of_external.end()) placed.tf_op = op->second;
      }
      pe.placed = placed;
      uint32_t derived = 0;
      AddDerivedStats(pe, [&derived](const Stat&) { ++derived; });  // interns what they name
      num_stats += uint64_t{pe.num_stats} + derived;
      if (num_stats > std::numeric_limits<uint32_t>::max()) {
        return Error("a plane of more than 2^32 stats, more than a profile holds");
      }
      plane.EndLaidOutEvent((pe.ts_ns - origin_ns_) * 1000, pe.dur_ns * 1000, metadata, placed.first_stat);
    }
    plane.EndLine(line);
    std::vector<uint32_t>().swap(pl.events);  // the layout's own: not read again
  }
  return static_cast<uint32_t>(num_stats);
}

// Each event's stats to the place its layout gave them, the pending events
// and stats read front to back and their pages handed back behind the
// reading: the pending copy and the model's are never both whole in memory,
// where building the planes in their own order (line by line, each line's
// events all over the file) would keep every pending page to the end.
Status KinetoBuilder::CopyStatsInFileOrder(const std::vector<int>& devices) {
  std::vector<Stat*> stats_of_plane(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) stats_of_plane[i] = space_->planes[i].event_stats.data();
  std::vector<uint32_t> plane_of_line(lines_.size());
  for (size_t l = 0; l < lines_.size(); ++l) {
    plane_of_line[l] =
        static_cast<uint32_t>(std::lower_bound(devices.begin(), devices.end(), lines_[l].device) - devices.begin());
  }
  CancellationPoll cancel;
  for (std::vector<PendingEvent>* part : {&events_, &back_events_}) {
    const std::vector<Stat>& pending_stats = part == &events_ ? stats_ : back_stats_;
    PagesReleasedBehind events_read(part->data(), part->size() * sizeof(PendingEvent));
    PagesReleasedBehind stats_read(pending_stats.data(), pending_stats.size() * sizeof(Stat));
    for (const PendingEvent& pe : *part) {
      if (cancel.Due()) return CancelledError("loading " + source_);
      Stat* out = stats_of_plane[plane_of_line[pe.line]] + pe.placed.first_stat;
      const Stat* in = StatsOf(pe);
      for (uint32_t i = 0; i < pe.num_stats; ++i) {
        Stat s = in[i];
        if (s.name == n_.correlation) s.name = n_.correlation_id;
        if (s.name == n_.device) s.name = n_.device_id;
        *out++ = s;
      }
      AddDerivedStats(pe, [&out](const Stat& s) { *out++ = s; });
      events_read.ReleaseBefore(&pe);
      stats_read.ReleaseBefore(in);
    }
    std::vector<PendingEvent>().swap(*part);
  }
  std::vector<Stat>().swap(stats_);
  std::vector<Stat>().swap(back_stats_);
  return Status::Ok();
}

StatusOr<std::unique_ptr<XSpaceModel>> KinetoBuilder::Build() {
  if (CancelRequested()) return CancelledError("loading " + source_);
  origin_ns_ = span_begin_ns_ == kNone ? std::numeric_limits<int64_t>::max() : span_begin_ns_;
  ForEachEvent([&](const PendingEvent& e) { origin_ns_ = std::min(origin_ns_, e.ts_ns); });
  if (origin_ns_ == std::numeric_limits<int64_t>::max()) origin_ns_ = 0;
  for (const std::vector<PendingEvent>* part : {&events_, &back_events_}) {
    for (const PendingEvent& e : *part) {
      if (e.ts_ns - origin_ns_ > kMaxSpanNs - e.dur_ns) {
        return Error("event '" + std::string(space_->Str(e.name)) + "' ends " +
                     std::to_string((e.ts_ns - origin_ns_ + e.dur_ns) / 1000) +
                     " µs after the trace's first event, longer than a profile can span");
      }
    }
  }
  // The operator behind each External id, and the External id of each launch.
  std::unordered_map<int64_t, StrId> op_of_external;
  std::unordered_map<int64_t, int64_t> external_of_correlation;
  ForEachEvent([&](const PendingEvent& e) {
    if (e.kind == Kind::kCpuOp && IsOperatorName(space_->Str(e.name))) {
      int64_t external = e.links.external;
      if (external == kNone || external == 0) return;
      op_of_external.try_emplace(external, TfOpOf(e.name));
    } else if (e.kind == Kind::kRuntime || e.kind == Kind::kDriver) {
      int64_t external = e.links.external, correlation = e.links.correlation;
      if (external != kNone && correlation != kNone) external_of_correlation.try_emplace(correlation, external);
    }
  });
  RETURN_IF_ERROR(tf_op_refused_);
  XSpaceModel& space = *space_;
  space.hostnames.push_back(HostName());
  std::vector<int> devices;
  for (const PendingLine& l : lines_) {
    if (l.device >= 0) devices.push_back(l.device);
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  devices.insert(devices.begin(), -1);  // the host plane first
  space.planes.resize(devices.size());
  // Every plane's buffers are sized first, so the second core can fault in
  // their pages while the first fills them: in a fresh process each page's
  // first write costs a fault, a large share of this step on virtual machines.
  const std::vector<std::vector<uint32_t>> line_orders = LinesByPlane(devices);
  RETURN_IF_ERROR(ClaimHeld());  // the operators' names
  std::vector<std::pair<char*, size_t>> filled_for_sure;
  for (size_t i = 0; i < devices.size(); ++i) {
    RETURN_IF_ERROR(ReservePlane(line_orders[i], space.planes[i], filled_for_sure));
  }
  Status built;
  FirstOfName first_of_name;
  RunBoth(
      [&] {
        for (size_t i = 0; i < devices.size() && built.ok(); ++i) {
          PlaneWriter plane(space.planes[i]);
          plane.SetId(static_cast<int64_t>(i));
          if (devices[i] < 0) {
            plane.SetName(space.strings.Intern(schema::kHostPlane));
          } else {
            plane.SetName(space.strings.Intern(std::string(schema::kGpuPlanePrefix) + std::to_string(devices[i])));
            AddDeviceStats(devices[i], plane);
          }
          StatusOr<uint32_t> num_stats =
              LayOutPlane(devices[i], line_orders[i], plane, op_of_external, external_of_correlation, first_of_name);
          if (!num_stats.ok()) {
            built = num_stats.status();
            break;
          }
          plane.SizeStatsForLaidOutEvents(*num_stats);
          // the kernels' details, their operators' names
          built = tf_op_refused_.ok() ? ClaimHeld() : tf_op_refused_;
        }
      },
      [&] { PopulateBackward(filled_for_sure); });
  RETURN_IF_ERROR(built);
  RETURN_IF_ERROR(CopyStatsInFileOrder(devices));
  if (span_begin_ns_ != kNone) {
    const StrId env_name = space.strings.Intern(schema::kTaskEnvironmentPlane);
    PlaneWriter env = PlaneWriter::AddTo(space, static_cast<int64_t>(space.planes.size()), env_name);
    env.AddEventMetadata({});
    env.AddPlaneStat(IntStat(space.strings.Intern(schema::kProfileStartTime), base_time_ns_ + span_begin_ns_));
    env.AddPlaneStat(IntStat(space.strings.Intern(schema::kProfileStopTime), base_time_ns_ + span_end_ns_));
  }
  return std::move(space_);
}

// Each rank of a distributed run is a host of its own: "rank <N>" where the
// trace says its rank, else the trace's file name without its suffixes
// (torch-tb-profiler's "<worker>.<span>.pt.trace.json" keeps its worker and span).
std::string KinetoBuilder::HostName() const {
  if (rank_ != kNone) return "rank " + std::to_string(rank_);
  std::string_view name = source_;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  for (std::string_view suffix : {".gz", ".json", ".pt.trace"}) {
    if (name.ends_with(suffix) && name.size() > suffix.size()) name.remove_suffix(suffix.size());
  }
  return std::string(name);
}

// deviceProperties as the capability stats device_peaks and the run
// environment read, beside Kineto's own names.
void KinetoBuilder::AddDeviceStats(int device, PlaneWriter& plane) {
  auto it = device_properties_.find(device);
  if (it == device_properties_.end()) return;
  StringTable& s = space_->strings;
  std::string_view name;
  int64_t warp_size = 0;
  for (const Stat& st : it->second) {
    std::string_view key = space_->Str(st.name);
    if (key == "name" && st.kind == StatKind::kStr) name = space_->Str(st.str);
    if (key == "warpSize") warp_size = st.IntValue();
    if (key == "computeMajor") plane.AddPlaneStat(IntStat(s.Intern(schema::kComputeCapMajor), st.IntValue()));
    if (key == "computeMinor") plane.AddPlaneStat(IntStat(s.Intern(schema::kComputeCapMinor), st.IntValue()));
    if (key == "numSms") plane.AddPlaneStat(IntStat(s.Intern("core_count"), st.IntValue()));
    if (key == "totalGlobalMem") plane.AddPlaneStat(IntStat(s.Intern("memory_size"), st.IntValue()));
    plane.AddPlaneStat(st);
  }
  if (!name.empty()) plane.AddPlaneStat(StrStat(s.Intern(schema::kGpuDeviceName), s.Intern(name)));
  // AMD GPUs have 64-wide wavefronts; Kineto writes no vendor.
  const bool amd = warp_size == 64 || name.find("AMD") != std::string_view::npos ||
                   name.find("Instinct") != std::string_view::npos;
  plane.AddPlaneStat(
      StrStat(s.Intern(schema::kDeviceVendor), s.Intern(amd ? schema::kVendorAmd : schema::kVendorNvidia)));
}

}  // namespace tbprof::kineto_detail
