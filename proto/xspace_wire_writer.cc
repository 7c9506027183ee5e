#include "proto/xspace_wire_writer.h"

#include <cerrno>
#include <cstring>

namespace tbprof::wire {

void Encoder::Double(uint32_t field, double v) {
  Tag(field, kFixed64);
  char b[8];
  std::memcpy(b, &v, 8);  // little-endian hosts only, like the reader
  buf_.append(b, 8);
}

int64_t NameIds::Id(std::string_view name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  names_.emplace_back(name);
  int64_t id = static_cast<int64_t>(names_.size());
  ids_.emplace(names_.back(), id);
  return id;
}

void StatsEncoder::Emit(int64_t stat_id, uint32_t value_field, uint64_t v) {
  stat_.clear();
  stat_.IntAlways(1, stat_id);
  if (value_field == 2) {
    double d;
    std::memcpy(&d, &v, 8);
    stat_.Double(2, d);
  } else {
    stat_.IntAlways(value_field, static_cast<int64_t>(v));
  }
  out_->Message(field_, stat_);
}

StatsEncoder& StatsEncoder::Int(int64_t stat_id, int64_t v) {
  Emit(stat_id, 4, static_cast<uint64_t>(v));
  return *this;
}
StatsEncoder& StatsEncoder::Uint(int64_t stat_id, uint64_t v) {
  Emit(stat_id, 3, v);
  return *this;
}
StatsEncoder& StatsEncoder::Double(int64_t stat_id, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  Emit(stat_id, 2, bits);
  return *this;
}
StatsEncoder& StatsEncoder::RefId(int64_t stat_id, int64_t value_id) {
  Emit(stat_id, 7, static_cast<uint64_t>(value_id));
  return *this;
}
StatsEncoder& StatsEncoder::Str(int64_t stat_id, std::string_view v) {
  stat_.clear();
  stat_.IntAlways(1, stat_id);
  stat_.BytesAlways(5, v);
  out_->Message(field_, stat_);
  return *this;
}
StatsEncoder& StatsEncoder::Int(std::string_view name, int64_t v) { return Int(plane_->StatId(name), v); }
StatsEncoder& StatsEncoder::Uint(std::string_view name, uint64_t v) { return Uint(plane_->StatId(name), v); }
StatsEncoder& StatsEncoder::Double(std::string_view name, double v) { return Double(plane_->StatId(name), v); }
StatsEncoder& StatsEncoder::Str(std::string_view name, std::string_view v) { return Str(plane_->StatId(name), v); }
StatsEncoder& StatsEncoder::Ref(std::string_view name, std::string_view v) {
  int64_t name_id = plane_->StatId(name);
  return RefId(name_id, plane_->StatId(v));
}

PlaneWriter::PlaneWriter(int64_t id, std::string_view name, uint64_t spill_bytes)
    : id_(id), name_(name), spill_threshold_(spill_bytes) {}

PlaneWriter::~PlaneWriter() {
  if (spill_) std::fclose(spill_);
}

void PlaneWriter::SetDisplayName(int64_t event_id, std::string_view display_name) {
  display_names_[event_id] = std::string(display_name);
}

void PlaneWriter::FlushEvent() {
  if (!in_event_) return;
  in_event_ = false;
  const uint64_t bytes = 1 + Encoder::VarintSize(event_.size()) + event_.size();
  if (measuring_) {
    measured_ += bytes;
    return;
  }
  written_ += bytes;
  lines_.Message(4, event_);
  if (lines_.size() > spill_threshold_ && spill_error_.empty() && !Spill(spill_error_)) lines_.clear();
}

StatsEncoder PlaneWriter::AddEvent(std::string_view name, int64_t offset_ps, int64_t duration_ps) {
  return AddEventById(event_names_.Id(name), offset_ps, duration_ps);
}

StatsEncoder PlaneWriter::AddEventById(int64_t metadata_id, int64_t offset_ps, int64_t duration_ps) {
  FlushEvent();
  event_.clear();
  event_.Int(1, metadata_id);
  event_.IntAlways(2, offset_ps);  // oneof: present even when 0
  event_.Int(3, duration_ps);
  in_event_ = true;
  return StatsEncoder(this, &event_, 4);
}

bool PlaneWriter::Spill(std::string& error) {
  if (!spill_) {
    spill_ = std::tmpfile();
    if (!spill_) {
      error = std::string("cannot create a temporary file: ") + std::strerror(errno);
      return false;
    }
  }
  if (std::fwrite(lines_.bytes().data(), 1, lines_.size(), spill_) != lines_.size()) {
    error = std::string("cannot write a temporary file: ") + std::strerror(errno);
    return false;
  }
  spilled_bytes_ += lines_.size();
  lines_.clear();
  return true;
}

namespace {
// A map<int64, XEventMetadata|XStatMetadata> entry: key=1, value=2 {id=1, name=2}.
void AppendMetadataEntries(Encoder& out, uint32_t field, const NameIds& ids,
                           const std::unordered_map<int64_t, std::string>* display_names = nullptr) {
  Encoder value, entry;
  for (size_t i = 0; i < ids.names().size(); ++i) {
    int64_t id = static_cast<int64_t>(i + 1);
    value.clear();
    value.Int(1, id);
    value.Bytes(2, ids.names()[i]);
    if (display_names) {
      auto it = display_names->find(id);
      if (it != display_names->end()) value.Bytes(4, it->second);
    }
    entry.clear();
    entry.Int(1, id);
    entry.Message(2, value);
    out.Message(field, entry);
  }
}
}  // namespace

bool PlaneWriter::Finish(std::ostream& out, std::string& error) {
  if (!spill_error_.empty()) {
    error = spill_error_;
    return false;
  }
  Encoder head, tail;
  head.Int(1, id_);
  head.Bytes(2, name_);
  AppendMetadataEntries(tail, 4, event_names_, &display_names_);
  AppendMetadataEntries(tail, 5, stat_names_);
  tail.bytes().append(plane_stats_.bytes());
  uint64_t total = head.size() + spilled_bytes_ + lines_.size() + tail.size();
  Encoder prefix;
  prefix.Tag(1, kLen);
  prefix.Varint(total);
  out.write(prefix.bytes().data(), static_cast<std::streamsize>(prefix.size()));
  out.write(head.bytes().data(), static_cast<std::streamsize>(head.size()));
  if (spill_) {
    std::rewind(spill_);
    std::vector<char> buf(1 << 20);
    uint64_t left = spilled_bytes_;
    while (left > 0) {
      size_t n = std::fread(buf.data(), 1, buf.size() < left ? buf.size() : left, spill_);
      if (n == 0) {
        error = "cannot read back a temporary file";
        return false;
      }
      out.write(buf.data(), static_cast<std::streamsize>(n));
      left -= n;
    }
    std::fclose(spill_);
    spill_ = nullptr;
  }
  out.write(lines_.bytes().data(), static_cast<std::streamsize>(lines_.size()));
  out.write(tail.bytes().data(), static_cast<std::streamsize>(tail.size()));
  lines_.clear();
  if (!out) {
    error = "write failed";
    return false;
  }
  return true;
}

void WriteHostnames(std::ostream& out, const std::vector<std::string>& hostnames) {
  Encoder e;
  for (const std::string& h : hostnames) e.BytesAlways(4, h);
  out.write(e.bytes().data(), static_cast<std::streamsize>(e.size()));
}

}  // namespace tbprof::wire
