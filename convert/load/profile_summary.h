// What listing a run's tools needs to know of a profile, read from the
// file's structure without building its model: the planes' names, and
// whether /host:metadata carries compiled programs (HLO protos). /run_tools
// reads this, so listing a run never decodes its events.
#pragma once

#include <string>

#include "convert/base/status.h"
#include "convert/load/profile_format.h"

namespace tbprof {

struct ProfileSummary {
  bool has_gpu_plane = false;     // a "/device:GPU:<n>" plane
  bool has_hlo_programs = false;  // an event of /host:metadata holds an "Hlo Proto" (or "HLO Proto") bytes stat
};

// An xplane file's summary from its planes' names and the metadata plane's
// metadata (a gzip'ed one is inflated, bounded as any load, but not
// decoded). A PyTorch trace is summarised without reading it: it has no
// compiled programs, and its GPU planes are known only from its events,
// which the kernel tables then read (has_gpu_plane is true). Other formats:
// nothing is present.
StatusOr<ProfileSummary> SummarizeProfile(const std::string& path, ProfileFormat format);

// The summary of the bytes of an XSpace (not gzip'ed).
ProfileSummary SummarizeXSpaceBytes(std::string_view bytes);

}  // namespace tbprof
