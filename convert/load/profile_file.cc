#include "convert/load/profile_file.h"

#include "convert/base/file_name.h"
#include "convert/kineto/kineto_reader.h"

namespace tbprof {

StatusOr<std::unique_ptr<XSpaceModel>> LoadProfileFile(const std::string& path, const LoadOptions& options) {
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
