// DevicePeaks in a summary's payloads (the OpStats' and each trace_analysis
// rank's op roofline): every figure, and the GPU's name, by which its
// datasheet is found again on reading.
#pragma once

#include "convert/analysis/device/device_peaks.h"
#include "convert/base/varint_codec.h"

namespace tbprof {

void PutDevicePeaks(VarintWriter& s, const DevicePeaks& p);
DevicePeaks GetDevicePeaks(VarintReader& s);

}  // namespace tbprof
