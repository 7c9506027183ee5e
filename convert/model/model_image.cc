#include "convert/model/model_image.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "convert/base/memory_grant.h"

namespace tbprof {
namespace {

static_assert(std::endian::native == std::endian::little, "model images are little-endian");
// Arrays written as they lie in memory: their structs hold no padding but the
// stat's, which is zeroed on the way out (the image's bytes follow from the model).
static_assert(sizeof(Event) == 24 && offsetof(Event, metadata) == 16 && offsetof(Event, first_stat) == 20);
static_assert(sizeof(LineModel) == 48 && offsetof(LineModel, first_event) == 40);
static_assert(sizeof(Stat) == 16 && offsetof(Stat, kind) == 4 && offsetof(Stat, u64) == 8);
static_assert(std::is_trivially_copyable_v<Event> && std::is_trivially_copyable_v<LineModel> &&
              std::is_trivially_copyable_v<Stat>);

constexpr uint32_t kImageVersion = 1;
constexpr uint32_t kLayout = (sizeof(Event) << 16) | (sizeof(LineModel) << 8) | sizeof(Stat);

// A checksum of the stream as it passes, eight bytes at a time: reading an
// image back must stay near disk speed, which a byte-wise hash would not.
class StreamHash {
 public:
  void Add(const char* p, size_t n) {
    while (n > 0 && pending_ > 0) Take(static_cast<uint8_t>(*p++)), --n;
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      Mix(w);
    }
    while (n > 0) Take(static_cast<uint8_t>(*p++)), --n;
  }
  uint64_t Value() const {
    uint64_t h = h_;
    if (pending_ > 0) h = Mixed(h, word_ | (uint64_t{pending_} << 56));
    return h ^ (h >> 31);
  }

 private:
  static uint64_t Mixed(uint64_t h, uint64_t w) {
    h = (h ^ (w * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
  }
  void Mix(uint64_t w) { h_ = Mixed(h_, w); }
  void Take(uint8_t b) {
    word_ |= uint64_t{b} << (8 * pending_);
    if (++pending_ == 8) Mix(word_), word_ = 0, pending_ = 0;
  }
  uint64_t h_ = 0x243f6a8885a308d3ull, word_ = 0;
  uint32_t pending_ = 0;
};

class ImageWriter {
 public:
  explicit ImageWriter(const ImageSink& sink) : sink_(sink) { buffer_.reserve(kBufferBytes); }

  template <typename T>
  void Put(T v) {
    static_assert(std::is_integral_v<T>);
    Append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  void PutBytes(std::string_view s) { Append(s.data(), s.size()); }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    PutBytes(s);
  }
  template <typename T>
  void PutArray(const std::vector<T>& v) {
    Put<uint64_t>(v.size());
    Append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void PutStats(const std::vector<Stat>& stats) {
    Put<uint64_t>(stats.size());
    for (const Stat& s : stats) {
      char bytes[sizeof(Stat)] = {};
      std::memcpy(bytes, &s.name, sizeof(s.name));
      bytes[offsetof(Stat, kind)] = static_cast<char>(s.kind);
      std::memcpy(bytes + offsetof(Stat, u64), &s.u64, sizeof(s.u64));
      Append(bytes, sizeof(bytes));
    }
  }
  Status Finish() {
    const uint64_t sum = hash_.Value();
    Append(reinterpret_cast<const char*>(&sum), sizeof(sum));
    Flush();
    return status_;
  }

 private:
  static constexpr size_t kBufferBytes = size_t{1} << 20;
  void Append(const char* p, size_t n) {
    hash_.Add(p, n);
    if (buffer_.size() + n > kBufferBytes) Flush();
    if (n >= kBufferBytes) {
      if (status_.ok()) status_ = sink_(std::string_view(p, n));
      return;
    }
    buffer_.append(p, n);
  }
  void Flush() {
    if (status_.ok() && !buffer_.empty()) status_ = sink_(buffer_);
    buffer_.clear();
  }
  const ImageSink& sink_;
  std::string buffer_;
  StreamHash hash_;
  Status status_;
};

class ImageReader {
 public:
  ImageReader(const ImageSource& source, uint64_t image_bytes) : source_(source), left_(image_bytes) {}

  template <typename T>
  Status Get(T& v) {
    return Read(&v, sizeof(v));
  }
  // A count of `element_bytes`-sized things: no more than the image has left.
  Status GetCount(uint64_t& n, size_t element_bytes, std::string_view what) {
    RETURN_IF_ERROR(Get(n));
    if (n > left_ / element_bytes) {
      return DataLoss("the model image is damaged: it claims " + std::to_string(n) + " " + std::string(what) +
                      ", more than it holds");
    }
    return Status::Ok();
  }
  Status GetBytes(std::string& s, uint64_t n) {
    if (n > left_) return DataLoss("the model image is damaged: it ends early");
    s.resize(n);
    return Read(s.data(), n);
  }
  Status GetString(std::string& s) {
    uint64_t n = 0;
    RETURN_IF_ERROR(GetCount(n, 1, "bytes of a string"));
    RETURN_IF_ERROR(ClaimMemory(n, "reading the model image: its strings"));
    return GetBytes(s, n);
  }
  template <typename T>
  Status GetArray(std::vector<T>& v, std::string_view what) {
    uint64_t n = 0;
    RETURN_IF_ERROR(GetCount(n, sizeof(T), what));
    RETURN_IF_ERROR(ClaimMemory(n * sizeof(T), "reading the model image: its " + std::string(what)));
    v.resize(n);
    return Read(v.data(), n * sizeof(T));
  }
  Status CheckSum() {
    if (left_ != sizeof(uint64_t)) {
      return DataLoss("the model image is damaged: " + std::to_string(left_) + " bytes where its checksum should end it");
    }
    const uint64_t computed = hash_.Value();
    uint64_t stored = 0;
    RETURN_IF_ERROR(Read(&stored, sizeof(stored)));
    if (stored != computed) return DataLoss("the model image is damaged: its checksum does not match");
    return Status::Ok();
  }

 private:
  Status Read(void* dst, size_t n) {
    if (n > left_) return DataLoss("the model image is damaged: it ends early");
    RETURN_IF_ERROR(source_(dst, n));
    // The checksum, the image's last eight bytes, is not part of what it sums.
    if (left_ > sizeof(uint64_t)) hash_.Add(static_cast<const char*>(dst), std::min<uint64_t>(n, left_ - sizeof(uint64_t)));
    left_ -= n;
    return Status::Ok();
  }
  const ImageSource& source_;
  uint64_t left_;
  StreamHash hash_;
};

void WritePlane(const XPlaneModel& p, ImageWriter& w) {
  w.Put<int64_t>(p.id);
  w.Put<uint32_t>(p.name);
  w.PutArray(p.lines);
  w.PutArray(p.events);
  w.PutStats(p.event_stats);
  w.Put<uint64_t>(p.event_metadata.size());
  for (const EventMetadata& m : p.event_metadata) {
    w.Put<int64_t>(m.id);
    w.Put<uint32_t>(m.name);
    w.Put<uint32_t>(m.display_name);
    w.Put<uint32_t>(m.metadata_blob);
    w.Put<uint32_t>(m.first_stat);
    w.Put<uint32_t>(m.num_stats);
    w.Put<uint64_t>(m.child_ids.size());
    for (int64_t c : m.child_ids) w.Put<int64_t>(c);
  }
  w.PutStats(p.metadata_stats);
  w.PutStats(p.plane_stats);
  w.Put<uint64_t>(p.stat_metadata.size());
  for (const auto& [name, id] : p.stat_metadata) w.Put<uint32_t>(name), w.Put<int64_t>(id);
  w.Put<uint64_t>(p.occurrences.size());
  for (const auto& [event, count] : p.occurrences) w.Put<uint32_t>(event), w.Put<int64_t>(count);
}

Status ReadPlane(ImageReader& r, XPlaneModel& p) {
  RETURN_IF_ERROR(r.Get(p.id));
  RETURN_IF_ERROR(r.Get(p.name));
  RETURN_IF_ERROR(r.GetArray(p.lines, "lines"));
  RETURN_IF_ERROR(r.GetArray(p.events, "events"));
  RETURN_IF_ERROR(r.GetArray(p.event_stats, "event stats"));
  uint64_t n = 0;
  RETURN_IF_ERROR(r.GetCount(n, 36, "event metadata"));
  RETURN_IF_ERROR(ClaimMemory(n * sizeof(EventMetadata), "reading the model image: its event metadata"));
  p.event_metadata.resize(n);
  for (EventMetadata& m : p.event_metadata) {
    uint64_t children = 0;
    RETURN_IF_ERROR(r.Get(m.id));
    RETURN_IF_ERROR(r.Get(m.name));
    RETURN_IF_ERROR(r.Get(m.display_name));
    RETURN_IF_ERROR(r.Get(m.metadata_blob));
    RETURN_IF_ERROR(r.Get(m.first_stat));
    RETURN_IF_ERROR(r.Get(m.num_stats));
    RETURN_IF_ERROR(r.GetCount(children, sizeof(int64_t), "child ids"));
    m.child_ids.resize(children);
    for (int64_t& c : m.child_ids) RETURN_IF_ERROR(r.Get(c));
  }
  RETURN_IF_ERROR(r.GetArray(p.metadata_stats, "metadata stats"));
  RETURN_IF_ERROR(r.GetArray(p.plane_stats, "plane stats"));
  RETURN_IF_ERROR(r.GetCount(n, 12, "stat names"));
  p.stat_metadata.resize(n);
  for (auto& [name, id] : p.stat_metadata) {
    RETURN_IF_ERROR(r.Get(name));
    RETURN_IF_ERROR(r.Get(id));
  }
  RETURN_IF_ERROR(r.GetCount(n, 12, "aggregated events"));
  p.occurrences.resize(n);
  for (auto& [event, count] : p.occurrences) {
    RETURN_IF_ERROR(r.Get(event));
    RETURN_IF_ERROR(r.Get(count));
  }
  return Status::Ok();
}

// Every index the model's readers follow without checking.
class ImageChecker {
 public:
  explicit ImageChecker(const XSpaceModel& m) : strings_(m.strings.size()), blobs_(m.blobs.size()) {}

  Status Plane(const XPlaneModel& p) const {
    if (!Str(p.name)) return Damaged("a plane's name");
    for (const LineModel& l : p.lines) {
      if (!Str(l.name) || !Str(l.display_name) || uint64_t{l.first_event} + l.num_events > p.events.size()) {
        return Damaged("a line");
      }
    }
    uint32_t previous_first = 0;
    for (const Event& e : p.events) {
      if (e.metadata >= p.event_metadata.size() || e.first_stat < previous_first || e.first_stat > p.event_stats.size()) {
        return Damaged("an event");
      }
      previous_first = e.first_stat;
    }
    for (const EventMetadata& m : p.event_metadata) {
      if (!Str(m.name) || !Str(m.display_name) || !Blob(m.metadata_blob) ||
          uint64_t{m.first_stat} + m.num_stats > p.metadata_stats.size()) {
        return Damaged("an event's metadata");
      }
    }
    for (const auto* stats : {&p.event_stats, &p.metadata_stats, &p.plane_stats}) {
      for (const Stat& s : *stats) {
        if (!StatOk(s)) return Damaged("a stat");
      }
    }
    for (const auto& [name, id] : p.stat_metadata) {
      if (!Str(name)) return Damaged("a stat's name");
    }
    for (const auto& [event, count] : p.occurrences) {
      if (event >= p.events.size()) return Damaged("an aggregated event");
    }
    return Status::Ok();
  }

 private:
  bool Str(StrId id) const { return id < strings_; }
  bool Blob(uint32_t id) const { return id == kNoBlob || id < blobs_; }
  bool StatOk(const Stat& s) const {
    if (!Str(s.name) || s.kind > StatKind::kBytes) return false;
    if (s.kind == StatKind::kStr) return Str(s.str);
    if (s.kind == StatKind::kBytes) return s.blob < blobs_;
    return true;
  }
  static Status Damaged(std::string_view what) {
    return DataLoss("the model image is damaged: " + std::string(what) + " points outside it");
  }
  size_t strings_, blobs_;
};

// Interned again in id order: distinct strings get back the ids they had.
Status ReadStrings(ImageReader& r, XSpaceModel& m) {
  uint64_t n = 0;
  RETURN_IF_ERROR(r.GetCount(n, sizeof(uint32_t), "strings"));
  std::string s;
  for (uint64_t id = 1; id < n; ++id) {
    uint32_t size = 0;
    RETURN_IF_ERROR(r.Get(size));
    RETURN_IF_ERROR(r.GetBytes(s, size));
    if (m.strings.Intern(s) != id) return DataLoss("the model image is damaged: its strings repeat");
  }
  return ClaimMemory(m.strings.MemoryBytes(), "reading the model image: its strings");
}

Status ReadStringList(ImageReader& r, std::vector<std::string>& list) {
  uint64_t n = 0;
  RETURN_IF_ERROR(r.GetCount(n, sizeof(uint64_t), "strings"));
  list.resize(n);
  for (std::string& s : list) RETURN_IF_ERROR(r.GetString(s));
  return Status::Ok();
}

}  // namespace

Status WriteModelImage(const XSpaceModel& model, const ImageSink& sink) {
  ImageWriter w(sink);
  w.Put<uint32_t>(kImageVersion);
  w.Put<uint32_t>(kLayout);
  w.Put<uint64_t>(model.strings.size());
  for (StrId id = 1; id < model.strings.size(); ++id) {
    const std::string_view s = model.Str(id);
    w.Put<uint32_t>(static_cast<uint32_t>(s.size()));
    w.PutBytes(s);
  }
  for (const auto* list : {&model.blobs, &model.errors, &model.warnings, &model.hostnames}) {
    w.Put<uint64_t>(list->size());
    for (const std::string& s : *list) w.PutString(s);
  }
  w.Put<uint64_t>(model.planes.size());
  for (const XPlaneModel& p : model.planes) WritePlane(p, w);
  return w.Finish();
}

StatusOr<std::unique_ptr<XSpaceModel>> ReadModelImage(const ImageSource& source, uint64_t image_bytes) {
  ImageReader r(source, image_bytes);
  uint32_t version = 0, layout = 0;
  RETURN_IF_ERROR(r.Get(version));
  RETURN_IF_ERROR(r.Get(layout));
  if (version != kImageVersion || layout != kLayout) {
    return InvalidArgument("the model image is of another version of tbprof (" + std::to_string(version) +
                           "; this one reads " + std::to_string(kImageVersion) + ")");
  }
  auto model = std::make_unique<XSpaceModel>();
  RETURN_IF_ERROR(ReadStrings(r, *model));
  for (auto* list : {&model->blobs, &model->errors, &model->warnings, &model->hostnames}) {
    RETURN_IF_ERROR(ReadStringList(r, *list));
  }
  uint64_t planes = 0;
  RETURN_IF_ERROR(r.GetCount(planes, 8, "planes"));
  model->planes.resize(planes);
  for (XPlaneModel& p : model->planes) RETURN_IF_ERROR(ReadPlane(r, p));
  RETURN_IF_ERROR(r.CheckSum());
  const ImageChecker checker(*model);
  for (const XPlaneModel& p : model->planes) RETURN_IF_ERROR(checker.Plane(p));
  return model;
}

}  // namespace tbprof
