#include "convert/xplane/damaged_file.h"

#include "convert/base/file_bytes.h"
#include "convert/base/file_name.h"
#include "convert/xplane/wire_decoder.h"
#include "convert/xplane/xplane_fields.h"
#include "convert/model/load_options.h"

namespace tbprof {
namespace {

using namespace xplane_detail;  // NOLINT(google-build-using-namespace)

// The message kinds of an XSpace that a cut can fall inside, and which field
// of each leads to which (xplane_fields.h).
enum class Part { kSpace, kPlane, kLine, kEvent, kStat, kEventMetadataEntry, kEventMetadata, kStatMetadataEntry,
                  kStatMetadata, kUnknown };

const char* PartName(Part part) {
  switch (part) {
    case Part::kSpace: return "the profile's top level";
    case Part::kPlane: return "a plane's header";
    case Part::kLine: return "a line's header";
    case Part::kEvent: return "an event";
    case Part::kStat: return "a stat";
    case Part::kEventMetadataEntry:
    case Part::kEventMetadata: return "an event's metadata";
    case Part::kStatMetadataEntry:
    case Part::kStatMetadata: return "a stat's metadata";
    case Part::kUnknown: break;
  }
  return "a field";
}

Part ChildPart(Part parent, uint32_t field) {
  namespace f = xplane_field;
  switch (parent) {
    case Part::kSpace: return field == f::kSpacePlanes ? Part::kPlane : Part::kUnknown;
    case Part::kPlane:
      if (field == f::kPlaneLines) return Part::kLine;
      if (field == f::kPlaneEventMetadata) return Part::kEventMetadataEntry;
      if (field == f::kPlaneStatMetadata) return Part::kStatMetadataEntry;
      return field == f::kPlaneStats ? Part::kStat : Part::kUnknown;
    case Part::kLine: return field == f::kLineEvents ? Part::kEvent : Part::kUnknown;
    case Part::kEvent: return field == f::kEventStats ? Part::kStat : Part::kUnknown;
    case Part::kEventMetadataEntry: return field == f::kMapValue ? Part::kEventMetadata : Part::kUnknown;
    case Part::kEventMetadata: return field == f::kEventMetaStats ? Part::kStat : Part::kUnknown;
    case Part::kStatMetadataEntry: return field == f::kMapValue ? Part::kStatMetadata : Part::kUnknown;
    default: return Part::kUnknown;
  }
}

// For bytes cut short (a file whose writer stopped, or a partial copy): the
// innermost message the last byte falls inside, found by following the
// length-delimited field that runs past the end, from the XSpace down.
// nullptr when the bytes are not cut short but malformed.
const char* MessageCutShort(std::string_view bytes) {
  const uint8_t* p = U8(bytes);
  const uint8_t* const end = p + bytes.size();
  Part part = Part::kSpace;
  bool cut = false;
  while (p < end) {
    uint64_t tag, v;
    if (!SkimVarint(p, end, tag)) return p >= end ? PartName(part) : nullptr;
    switch (tag & 7) {
      case kVarint:
        if (!SkimVarint(p, end, v)) return p >= end ? PartName(part) : nullptr;
        break;
      case kFixed64:
      case kFixed32: {
        const ptrdiff_t width = (tag & 7) == kFixed64 ? 8 : 4;
        if (end - p < width) return PartName(part);
        p += width;
        break;
      }
      case kLen:
        if (!SkimVarint(p, end, v)) return p >= end ? PartName(part) : nullptr;
        if (v > static_cast<uint64_t>(end - p)) {
          Part child = ChildPart(part, static_cast<uint32_t>(tag >> 3));
          if (child == Part::kUnknown) return PartName(part);
          part = child;  // the cut falls inside this field: go down into it
          cut = true;
        } else {
          p += v;
        }
        break;
      default:
        return nullptr;
    }
  }
  return cut ? PartName(part) : nullptr;
}

}  // namespace

// What a user needs about a profile that cannot be decoded: that the file is
// damaged and must be captured again, its size, and where it breaks, named by
// its file name only (answers must not reveal the server's paths).
Status DamagedFile(std::string_view bytes, std::string_view source, uint64_t error_offset) {
  std::string where;
  if (const char* part = MessageCutShort(bytes)) where = std::string("it ends inside ") + part + ", ";
  where += "unreadable from byte offset " + std::to_string(error_offset);
  return DamagedProfileFile(source, bytes.size(), where);
}

std::string XSpaceFileDamage(const std::string& path) {
  MappedFile f;
  if (!f.Open(path, kMaxXSpaceBytes).ok()) return "";
  if (f.view().empty()) return "empty";
  if (HasGzipMagic(f.view())) return "";
  // Only the planes' lengths are read (a page per plane): a file cut short
  // has a last plane longer than the bytes left.
  const uint8_t* p = U8(f.view());
  const uint8_t* const end = p + f.view().size();
  while (p < end) {
    uint64_t tag, v;
    if (!SkimVarint(p, end, tag)) return "damaged";
    if ((tag & 7) == kLen) {
      if (!SkimVarint(p, end, v) || v > static_cast<uint64_t>(end - p)) return "damaged";
      p += v;
    } else if ((tag & 7) == kVarint) {
      if (!SkimVarint(p, end, v)) return "damaged";
    } else {
      return "damaged";  // an XSpace has only length-delimited fields
    }
  }
  return "";
}

}  // namespace tbprof
