#include "convert/xplane/xspace_reader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <type_traits>
#include <unordered_map>

#include "convert/base/cancellation.h"
#include "convert/base/file_bytes.h"
#include "convert/base/inflate_claimed.h"
#include "convert/base/file_name.h"
#include "convert/base/run_both.h"
#include "convert/xplane/damaged_file.h"
#include "convert/xplane/plane_parser.h"

namespace tbprof {
namespace {

using namespace xplane_detail;  // NOLINT(google-build-using-namespace)

struct PageReleaser {
  const uint8_t* released_to;
  static void Release(void* ctx, const uint8_t* p) {
    auto* self = static_cast<PageReleaser*>(ctx);
    const long page = sysconf(_SC_PAGESIZE);
    auto aligned = reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(page - 1));
    // Keep a margin: the current event may straddle the page boundary.
    aligned -= 4 * page;
    if (aligned > self->released_to + (8 << 20)) {
      madvise(const_cast<uint8_t*>(self->released_to), aligned - self->released_to, MADV_DONTNEED);
      self->released_to = aligned;
    }
  }
};

// Where the second decoding thread starts: at line `line` of plane `plane`
// (line 0: the whole plane); the first thread takes everything before.
struct SplitPoint {
  size_t plane = 0;
  uint32_t line = 0;
  const uint8_t* begin = nullptr;  // first byte the second thread decodes
};

// The most even split of the bytes, within a plane when one straddles the
// middle: a host plane often holds most of a file.
SplitPoint BalancedSplit(const std::vector<std::string_view>& planes) {
  uint64_t total = 0;
  for (std::string_view p : planes) total += p.size();
  const uint64_t half = total / 2;
  uint64_t before = 0;
  for (size_t i = 0; i < planes.size(); ++i) {
    if (before + planes[i].size() <= half) {
      before += planes[i].size();
      continue;
    }
    std::vector<std::string_view> lines;
    SkimFields(U8(planes[i]), U8(planes[i]) + planes[i].size(), [&](uint32_t f, const uint8_t* b, const uint8_t* e) {
      if (f == 3) lines.emplace_back(reinterpret_cast<const char*>(b), e - b);
    });
    uint32_t k = 0;
    while (k < lines.size() && before + lines[k].size() <= half) before += lines[k++].size();
    if (k < lines.size() && before + lines[k].size() - half < half - before) ++k;  // line k fits the first half better
    if (k == 0) return {i, 0, U8(planes[i])};
    if (k >= lines.size()) return i + 1 < planes.size() ? SplitPoint{i + 1, 0, U8(planes[i + 1])} : SplitPoint{planes.size()};
    return {i, k, U8(lines[k])};
  }
  return {planes.size()};
}

// Appends `from` to `to`, passing each element through `fix`, and hands the
// pages of `from` already copied back to the kernel as it goes, so the two
// copies are never both resident (the peak of a load stays that of one model).
template <typename T, typename Fix>
void AppendReleasing(std::vector<T>& to, std::vector<T>& from, Fix&& fix) {
  static_assert(std::is_trivially_copyable_v<T>);
  to.reserve(to.size() + from.size());
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const size_t chunk = (size_t{8} << 20) / sizeof(T);
  const auto begin = reinterpret_cast<uintptr_t>(from.data());
  uintptr_t released = (begin + page - 1) & ~(page - 1);  // never the page holding the allocator's header
  for (size_t i = 0; i < from.size(); i += chunk) {
    const size_t end = std::min(from.size(), i + chunk);
    for (size_t j = i; j < end; ++j) {
      T v = from[j];
      fix(v);
      to.push_back(v);
    }
    const uintptr_t copied = (begin + end * sizeof(T)) & ~(page - 1);
    if (copied > released) {
      madvise(reinterpret_cast<void*>(released), copied - released, MADV_DONTNEED);
      released = copied;
    }
  }
  std::vector<T>().swap(from);
}

// Appends the events of `tail` (the later lines of the same plane, decoded by
// another thread, its stats still to be passed through `fix_stat`) to `into`.
// False when the two decoders disagree on the plane's event metadata (only
// when events name metadata the plane lacks).
template <typename FixStat>
bool AppendPlaneTail(XPlaneModel& into, XPlaneModel&& tail, FixStat&& fix_stat) {
  if (into.event_metadata.size() != tail.event_metadata.size()) return false;
  for (size_t i = 0; i < into.event_metadata.size(); ++i) {
    if (into.event_metadata[i].id != tail.event_metadata[i].id) return false;
  }
  const auto event_base = static_cast<uint32_t>(into.events.size());
  const auto stat_base = static_cast<uint32_t>(into.event_stats.size());
  for (LineModel line : tail.lines) {
    line.first_event += event_base;
    into.lines.push_back(line);
  }
  AppendReleasing(into.events, tail.events, [&](Event& ev) { ev.first_stat += stat_base; });
  AppendReleasing(into.event_stats, tail.event_stats, fix_stat);
  into.events.shrink_to_fit();  // no-ops when the first decoder counted every line exactly
  into.event_stats.shrink_to_fit();
  for (const auto& [e, n] : tail.occurrences) into.occurrences.emplace_back(e + event_base, n);
  return true;
}

// Moves `from`'s planes behind `into`'s, re-interning its strings and
// renumbering its blobs. With `first_is_tail`, from's first plane holds the
// remaining lines of into's last plane. False when that plane cannot be joined.
bool MergeModel(XSpaceModel& into, XSpaceModel&& from, bool first_is_tail) {
  std::vector<StrId> remap(from.strings.size());
  for (size_t i = 0; i < remap.size(); ++i) remap[i] = into.strings.Intern(from.strings.View(static_cast<StrId>(i)));
  const auto blob_base = static_cast<uint32_t>(into.blobs.size());
  auto fix_stat = [&](Stat& st) {
    st.name = remap[st.name];
    if (st.kind == StatKind::kStr) st.str = remap[st.str];
    if (st.kind == StatKind::kBytes) st.blob += blob_base;
  };
  auto fix_stats = [&](std::vector<Stat>& stats) {
    for (Stat& st : stats) fix_stat(st);
  };
  for (size_t pi = 0; pi < from.planes.size(); ++pi) {
    XPlaneModel& p = from.planes[pi];
    for (LineModel& l : p.lines) l.name = remap[l.name], l.display_name = remap[l.display_name];
    if (pi == 0 && first_is_tail) {  // its name, metadata and plane stats are into's already
      if (into.planes.empty() || !AppendPlaneTail(into.planes.back(), std::move(p), fix_stat)) return false;
      continue;
    }
    p.name = remap[p.name];
    for (EventMetadata& md : p.event_metadata) {
      md.name = remap[md.name];
      md.display_name = remap[md.display_name];
      if (md.metadata_blob != kNoBlob) md.metadata_blob += blob_base;
    }
    fix_stats(p.event_stats);
    fix_stats(p.metadata_stats);
    fix_stats(p.plane_stats);
    for (auto& [name, id] : p.stat_metadata) name = remap[name];
    into.planes.push_back(std::move(p));
  }
  for (std::string& b : from.blobs) into.blobs.push_back(std::move(b));
  return true;
}

// A large file is decoded by two threads, each into a model of its own, over
// one contiguous half of the bytes each (so each releases only pages it has
// read): whole planes, and the lines of the plane at the middle shared out.
// The second model is then merged in.
StatusOr<std::unique_ptr<XSpaceModel>> Decode(std::string_view bytes, std::string_view source, bool release_pages,
                                              const LoadOptions& options) {
  auto model = std::make_unique<XSpaceModel>();
  const uint8_t* base = U8(bytes);
  std::vector<std::string_view> planes;
  Decoder outline_decoder(base, source, nullptr, nullptr);
  const bool outlined =
      SpaceParser(outline_decoder, *model, options).OutlineSpace(base, base + bytes.size(), planes);
  const SplitPoint split = outlined && bytes.size() >= options.parallel_min_bytes ? BalancedSplit(planes)
                                                                                  : SplitPoint{planes.size()};

  PageReleaser releaser{base};
  Decoder d(base, source, release_pages ? &PageReleaser::Release : nullptr, &releaser);
  SpaceParser parser(d, *model, options);
  TailCounts tail_counts;
  auto decode_front = [&] {
    bool ok = true;
    for (size_t i = 0; i < split.plane && ok; ++i) ok = !CancelRequested() && parser.ParsePlaneBytes(planes[i]);
    if (ok && split.line > 0) parser.ParsePlaneBytes(planes[split.plane], LineRange{0, split.line, &tail_counts});
  };
  std::unique_ptr<XSpaceModel> back;
  std::string back_error;
  uint64_t back_error_offset = 0;
  Status back_refusal;
  auto decode_back = [&] {
    try {
      back = std::make_unique<XSpaceModel>();
      PageReleaser back_releaser{split.begin};
      Decoder bd(base, source, release_pages ? &PageReleaser::Release : nullptr, &back_releaser);
      SpaceParser back_parser(bd, *back, options);
      for (size_t i = split.plane; i < planes.size(); ++i) {
        LineRange lines;
        if (i == split.plane && split.line > 0) lines = {split.line, UINT32_MAX, &tail_counts};
        if (CancelRequested() || !back_parser.ParsePlaneBytes(planes[i], lines)) break;
      }
      back_error = bd.error();
      back_error_offset = bd.error_offset();
      back_refusal = bd.refusal();
    } catch (...) {
      tail_counts.Publish({});
      throw;
    }
    tail_counts.Publish({});  // unblocks the front if the back stopped before counting
  };
  if (split.plane < planes.size()) {
    RunBoth(decode_front, decode_back);
  } else {
    decode_front();
  }
  // A load stopped for a client that left is no verdict on the file.
  if (CancelRequested()) return CancelledError("loading " + std::string(source));
  if (!d.refusal().ok()) return d.refusal();
  if (!back_refusal.ok()) return back_refusal;
  // The first error in file order: the front planes, the back planes, then the top level.
  if (d.failed()) return DamagedFile(bytes, source, d.error_offset());
  if (!back_error.empty()) return DamagedFile(bytes, source, back_error_offset);
  if (!outlined) return DamagedFile(bytes, source, outline_decoder.error_offset());
  if (back && !MergeModel(*model, std::move(*back), split.line > 0)) {
    LoadOptions serial = options;
    serial.parallel_min_bytes = UINT64_MAX;
    return Decode(bytes, source, release_pages, serial);
  }
  return model;
}

}  // namespace

StatusOr<std::unique_ptr<XSpaceModel>> ParseXSpace(std::string_view bytes, std::string_view source,
                                                   const LoadOptions& options) {
  // An XSpace with no field set serialises to zero bytes: an empty profile, as xprof reads it.
  if (bytes.empty()) return std::make_unique<XSpaceModel>();
  return Decode(bytes, source, /*release_pages=*/false, options);
}

StatusOr<std::string> ReadFileMaybeGzip(const std::string& path, uint64_t max_bytes) {
  MappedFile f;
  RETURN_IF_ERROR(f.Open(path, max_bytes));
  StatusOr<std::string> bytes =
      HasGzipMagic(f.view()) ? Inflate(f.view(), path, max_bytes) : StatusOr<std::string>(std::string(f.view()));
  // A change during the read outranks whatever the read made of it.
  RETURN_IF_ERROR(f.CheckUnchanged());
  return bytes;
}

StatusOr<std::unique_ptr<XSpaceModel>> LoadXSpaceFile(const std::string& path, const LoadOptions& options) {
  MappedFile f;
  const uint64_t max_bytes = options.max_bytes != 0 ? options.max_bytes : kMaxXSpaceBytes;
  if (Status opened = f.Open(path, max_bytes); !opened.ok()) {
    // Past the format's own bound the user is told why no profiler wrote it whole.
    if (opened.code() != ErrorCode::kResourceExhausted || options.max_bytes != 0) return opened;
    return ResourceExhausted(opened.message() +
                             " (an XSpace is one protobuf message, and protobuf writes at most 2 GiB of one: a file "
                             "this large is not one profiler's output; open the hosts' own files)");
  }
  // Serialised, an XSpace with nothing set is empty too, but a profiler always
  // writes at least a plane: an empty file is one whose writing failed.
  if (f.view().empty()) return EmptyProfileFile(path);
  if (HasGzipMagic(f.view())) {
    return DecodeInflated(f, path, max_bytes,
                          [&](std::string_view bytes) { return Decode(bytes, path, /*release_pages=*/false, options); });
  }
  auto model = Decode(f.view(), path, options.release_decoded_pages, options);
  // Decoded bytes are only trusted when the file stayed the same throughout.
  RETURN_IF_ERROR(f.CheckUnchanged());
  return model;
}

}  // namespace tbprof
