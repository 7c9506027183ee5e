// The run environment of one host's XSpace (xprof SetRunEnvironment and
// hardware_type_utils' GpuModelName): device kind and model, core count.
#pragma once

#include <string>

#include "convert/analysis/hlo_module.h"
#include "convert/analysis/op_stats.h"
#include "convert/xplane/xspace_model.h"

namespace tbprof {

// `programs`: the space's HLO modules (empty when it has none), which tell
// whether the run trained.
RunEnvironment ConvertXSpaceToRunEnvironment(const XSpaceModel& space, const HloPrograms& programs);

// A GPU's model as xprof names it from its plane's device capabilities:
// "Nvidia GPU (Hopper)" by compute capability, "AMD GPU - gfx942" by the
// reported architecture (or the compute capability that names exactly one),
// else the AMD family ("AMD GPU - gfx-9XX series"); "" for an unknown vendor.
std::string GpuModelName(std::string_view vendor, int compute_cap_major, int compute_cap_minor,
                         std::string_view device_name);

}  // namespace tbprof
