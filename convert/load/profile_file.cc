#include "convert/load/profile_file.h"

#include <atomic>

#include "convert/base/file_name.h"
#include "convert/kineto/kineto_reader.h"

namespace tbprof {
namespace {
std::atomic<uint64_t> g_loads{0};
}  // namespace

uint64_t ProfileFileLoads() { return g_loads.load(); }

StatusOr<std::unique_ptr<XSpaceModel>> LoadProfileFile(const std::string& path, const LoadOptions& options) {
  g_loads.fetch_add(1, std::memory_order_relaxed);
  const ProfileFileName name = ParseProfileFileName(FileNameOfPath(path));
  const bool json = name.format == ProfileFormat::kKinetoTrace || name.content_decides ||
                    name.suffix.ends_with(".json") || name.suffix.ends_with(".json.gz");
  if (json) return LoadKinetoFile(path, options);
  if (name.format == ProfileFormat::kTfprofProfile) {
    return InvalidArgument(FileNameOfPath(path) + " is a tfprof profile (ProfileProto): only the tfprof tool reads it");
  }
  return LoadXSpaceFile(path, options);
}

}  // namespace tbprof
