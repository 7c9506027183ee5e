// The run environment of one host's XSpace (xprof SetRunEnvironment):
// device kind and model (GpuModelName, beside the device peaks), core count.
#pragma once

#include <string>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

// `programs`: the space's HLO modules (empty when it has none), which tell
// whether the run trained.
RunEnvironment ConvertXSpaceToRunEnvironment(const XSpaceModel& space, const HloPrograms& programs);

}  // namespace tbprof
