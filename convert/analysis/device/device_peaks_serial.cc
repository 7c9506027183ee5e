#include "convert/analysis/device/device_peaks_serial.h"

namespace tbprof {

void PutDevicePeaks(VarintWriter& s, const DevicePeaks& p) {
  s.U(static_cast<uint64_t>(p.kind)), s.S(p.device_type), s.I(p.device_count), s.D(p.peak_tflops), s.D(p.hbm_gbps);
  s.D(p.sram_rd_gbps), s.D(p.sram_wr_gbps), s.D(p.cmem_rd_gbps), s.D(p.cmem_wr_gbps), s.D(p.vmem_rd_gbps);
  s.D(p.vmem_wr_gbps), s.B(p.megacore), s.B(p.has_cmem), s.B(p.has_merged_vmem);
  s.S(p.gpu_name);  // its datasheet is found again by it
}

DevicePeaks GetDevicePeaks(VarintReader& s) {
  DevicePeaks p;
  p.kind = static_cast<DeviceKind>(s.Below(static_cast<uint64_t>(DeviceKind::kTpu) + 1));
  p.device_type = s.S(), p.device_count = s.Int(), p.peak_tflops = s.D(), p.hbm_gbps = s.D();
  p.sram_rd_gbps = s.D(), p.sram_wr_gbps = s.D(), p.cmem_rd_gbps = s.D(), p.cmem_wr_gbps = s.D();
  p.vmem_rd_gbps = s.D(), p.vmem_wr_gbps = s.D(), p.megacore = s.B(), p.has_cmem = s.B();
  p.has_merged_vmem = s.B();
  p.gpu_name = s.S();
  p.datasheet = GpuDatasheetOf(p.gpu_name);
  return p;
}

}  // namespace tbprof
