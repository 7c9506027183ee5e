// A loaded model written out as its arrays lie in memory, so that a later
// open reads them back at disk speed instead of importing the profile again.
// It pays where the import is slow beside the model's size: a PyTorch JSON
// trace imports at a few seconds a gigabyte into a model a third to a half
// of the file, which reads back in a fraction of a second.
//
// The stream: u32 layout check (the sizes of the packed structs), the
// strings in id order (so interning them again gives the same ids), blobs,
// the space's lists, each plane's arrays; then a u64 checksum of all that.
// Integers are little-endian, as the structs are laid out in memory on every
// machine tbprof builds for. Decoding checks every index it will follow
// (names, metadata, stat ranges, blobs), so a damaged or crafted image is an
// error, never a wild read; and claims its arrays' memory before making them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// Takes the next piece of the image; an error stops the writing.
using ImageSink = std::function<Status(std::string_view bytes)>;
// Fills `n` bytes at `dst` with the next piece; DataLoss when the image ends first.
using ImageSource = std::function<Status(void* dst, size_t n)>;

Status WriteModelImage(const XSpaceModel& model, const ImageSink& sink);
// `image_bytes`: the image's whole size (no count in it may claim more).
StatusOr<std::unique_ptr<XSpaceModel>> ReadModelImage(const ImageSource& source, uint64_t image_bytes);

}  // namespace tbprof
