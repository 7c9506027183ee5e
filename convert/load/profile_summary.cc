#include "convert/load/profile_summary.h"

#include <cstdint>
#include <vector>

#include "convert/base/file_bytes.h"
#include "convert/model/schema.h"
#include "convert/xplane/wire_decoder.h"
#include "convert/xplane/xplane_fields.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

namespace field = xplane_field;

// The stat names XLA gives a compiled program's proto (today's and older builds').
constexpr std::string_view kHloProtoStat = "Hlo Proto";
constexpr std::string_view kHloProtoStatLegacy = "HLO Proto";

// Calls on_field(number, wire_type, value, bytes) for each field of a
// message; stops quietly at damage (the load reports it, not the listing).
template <typename F>
void ForEachField(std::string_view message, F&& on_field) {
  const uint8_t* p = xplane_detail::U8(message);
  xplane_detail::SkimEveryField(p, p + message.size(),
                                [&](uint32_t n, uint32_t wire, uint64_t v, const uint8_t* b, const uint8_t* e) {
                                  on_field(n, wire, v, std::string_view(reinterpret_cast<const char*>(b), e - b));
                                });
}

// The value message of a map entry (its field 2).
std::string_view MapValue(std::string_view entry) {
  std::string_view value;
  ForEachField(entry, [&](uint32_t n, uint32_t, uint64_t, std::string_view b) {
    if (n == field::kMapValue) value = b;
  });
  return value;
}

// Whether the metadata plane's event metadata carry a bytes stat named as an HLO proto.
bool HoldsHloPrograms(std::string_view plane) {
  std::vector<uint64_t> hlo_stat_ids;
  ForEachField(plane, [&](uint32_t n, uint32_t, uint64_t, std::string_view entry) {
    if (n != field::kPlaneStatMetadata) return;
    uint64_t id = 0;
    std::string_view name;
    ForEachField(MapValue(entry), [&](uint32_t f, uint32_t wire, uint64_t v, std::string_view b) {
      if (f == field::kStatMetaId && wire == 0) id = v;
      if (f == field::kStatMetaName) name = b;
    });
    if (name == kHloProtoStat || name == kHloProtoStatLegacy) hlo_stat_ids.push_back(id);
  });
  if (hlo_stat_ids.empty()) return false;
  bool found = false;
  ForEachField(plane, [&](uint32_t n, uint32_t, uint64_t, std::string_view entry) {
    if (found || n != field::kPlaneEventMetadata) return;
    ForEachField(MapValue(entry), [&](uint32_t f, uint32_t, uint64_t, std::string_view stat) {
      if (found || f != field::kEventMetaStats) return;
      uint64_t id = 0;
      bool bytes = false;
      ForEachField(stat, [&](uint32_t s, uint32_t wire, uint64_t v, std::string_view) {
        if (s == field::kStatMetadataId && wire == 0) id = v;
        if (s == field::kStatBytes) bytes = true;
      });
      for (uint64_t hlo : hlo_stat_ids) found |= bytes && id == hlo;
    });
  });
  return found;
}

}  // namespace

ProfileSummary SummarizeXSpaceBytes(std::string_view bytes) {
  ProfileSummary summary;
  ForEachField(bytes, [&](uint32_t n, uint32_t wire, uint64_t, std::string_view plane) {
    if (n != field::kSpacePlanes || wire != 2) return;
    std::string_view name;
    ForEachField(plane, [&](uint32_t f, uint32_t, uint64_t, std::string_view b) {
      if (f == field::kPlaneName) name = b;
    });
    if (schema::IsGpuPlane(name)) summary.has_gpu_plane = true;
    if (name == schema::kMetadataPlane && !summary.has_hlo_programs) summary.has_hlo_programs = HoldsHloPrograms(plane);
  });
  return summary;
}

StatusOr<ProfileSummary> SummarizeProfile(const std::string& path, ProfileFormat format) {
  if (format == ProfileFormat::kKinetoTrace) return ProfileSummary{.has_gpu_plane = true, .has_hlo_programs = false};
  if (format != ProfileFormat::kXPlane) return ProfileSummary{};
  MappedFile f;
  RETURN_IF_ERROR(f.Open(path, kMaxXSpaceBytes));
  if (!HasGzipMagic(f.view())) {
    ProfileSummary summary = SummarizeXSpaceBytes(f.view());
    RETURN_IF_ERROR(f.CheckUnchanged());
    return summary;
  }
  ASSIGN_OR_RETURN(std::string inflated, ReadFileMaybeGzip(path));
  return SummarizeXSpaceBytes(inflated);
}

}  // namespace tbprof
