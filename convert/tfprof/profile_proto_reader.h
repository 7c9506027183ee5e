// Reads tfprof's own profile file (ProfileProto: ProfileContext's profile_<N>,
// Profiler.serialize_to_string()) into the node model.
#pragma once

#include <string>
#include <string_view>

#include "convert/model/tfprof_model.h"
#include "convert/base/status.h"

namespace tensorflow::tfprof {
class ProfileProto;
}

namespace tbprof::tfprof {

// `bytes` are the file's contents; `name` is used in messages. A file that is
// not a ProfileProto, or whose nodes refer to nodes or strings it lacks, is an
// error naming the problem.
StatusOr<Model> ReadProfileProto(std::string_view bytes, const std::string& name);
StatusOr<Model> ModelFromProfileProto(const tensorflow::tfprof::ProfileProto& profile, const std::string& name);

}  // namespace tbprof::tfprof
