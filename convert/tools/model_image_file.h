// A profile file's model image on disk (convert/model/model_image.h), kept
// where its summary is (op_stats_summary.h) as `<file>.tbprof-model`, so that
// reopening a PyTorch trace after a restart reads its model back instead of
// importing the JSON again. Written by `tbprof summarize` and by a server
// told to write summaries, for the formats where it pays.
//
// Layout: "TBPIMG", u16 file version, the profile's identity (u64 size, i64
// mtime ns, u64 digest, as a summary's), then the image. One of another
// version or identity, or a damaged one, is ignored (one log line) and the
// profile read instead.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"
#include "convert/tools/op_stats_summary.h"

namespace tbprof {

inline constexpr char kModelImageSuffix[] = ".tbprof-model";

// Whether an image of this profile's model is worth its disk: for PyTorch
// (Kineto) JSON traces, whose import is slow beside their model's size (a
// third to a half of the file); for xplanes of kXPlaneImageMinBytes and more.
// An xplane's model is about 1.3 times the file and reads back in some 60 %
// of the import's time (a 1.17 GB profile's first trace picture: 6.5 s
// imported, 4.0 s from its image); for smaller ones the second or less saved
// does not pay for a file larger than the profile beside each one.
inline constexpr uint64_t kXPlaneImageMinBytes = uint64_t{512} << 20;
bool ModelImagePays(const std::string& profile_path);

// The image's place for a summary's place (same folder, same name, its own
// suffix); SummaryPathFor / SummaryCandidates with kModelImageSuffix find it from the profile's.
// Another `suffix` names another file kept beside the summary (a trace preview).
std::string ModelImagePathFor(const std::string& summary_path, std::string_view suffix = kModelImageSuffix);

Status WriteModelImageFile(const std::string& image_path, const ProfileIdentity& identity, const XSpaceModel& model);
StatusOr<std::unique_ptr<XSpaceModel>> ReadModelImageFile(const std::string& image_path,
                                                          const ProfileIdentity& expected);

// The model from the first image valid for `identity` among the places
// `policy` says; null when there is none (each one present but ignored is logged).
std::unique_ptr<XSpaceModel> ReadModelImageFor(const std::string& profile_path, const ProfileIdentity& identity,
                                               const SummaryPolicy& policy);

}  // namespace tbprof
