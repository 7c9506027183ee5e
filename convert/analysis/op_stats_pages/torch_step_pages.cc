#include "convert/analysis/op_stats_pages/torch_step_pages.h"

#include <string>
#include <vector>

#include "convert/analysis/op_stats_pages/input_pipeline_basics.h"

namespace tbprof {
namespace {

constexpr const char* kMultiProcessLoading =
    "<a href=\"https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading\" "
    "target=\"_blank\">multi-process data loading</a>";
constexpr const char* kMemoryPinning =
    "<a href=\"https://pytorch.org/docs/stable/data.html#memory-pinning\" target=\"_blank\">memory pinning</a>";
constexpr const char* kDdp =
    "<a href=\"https://pytorch.org/docs/stable/notes/ddp.html\" target=\"_blank\">DistributedDataParallel</a>";
constexpr const char* kAmp =
    "<a href=\"https://pytorch.org/docs/stable/amp.html\" target=\"_blank\">automatic mixed precision (torch.amp)</a>";

// A category's mean over the steps, in ms; 0 without steps.
double MeanMs(const TorchStepTable& steps, const std::string& category) {
  size_t c = 0;
  while (c < steps.categories.size() && steps.categories[c] != category) ++c;
  if (c == steps.categories.size() || steps.category_ms.empty()) return 0;
  double sum = 0;
  for (const std::vector<double>& row : steps.category_ms) sum += row[c];
  return sum / static_cast<double>(steps.category_ms.size());
}

double MeanStepMs(const TorchStepTable& steps) {
  double sum = 0;
  for (const std::vector<double>& row : steps.category_ms) {
    for (double ms : row) sum += ms;
  }
  return steps.category_ms.empty() ? 0 : sum / static_cast<double>(steps.category_ms.size());
}

// A category's share of the mean step, in percent; negative (unknown) without steps.
double PercentOfStep(const TorchStepTable& steps, const std::string& category) {
  const double step = MeanStepMs(steps);
  return step > 0 ? 100.0 * MeanMs(steps, category) / step : -1;
}

}  // namespace

DataTable TorchStepBreakdownTable(const TorchStepTable& steps,
                                  const tensorflow::profiler::InputPipelineAnalysisResult& result) {
  DataTable t;
  t.AddColumn("stepnum", "Step", "string");
  std::string graph_ids = "stepnum";
  for (const std::string& c : steps.categories) {
    t.AddColumn(c, c, "number");
    graph_ids += "," + c;
  }
  t.AddColumn("stepTimeMs", "Step time", "number");
  for (size_t s = 0; s < steps.step_names.size(); ++s) {
    std::vector<DataTable::Cell> row;
    row.emplace_back(std::in_place_type<std::string>, steps.step_names[s]);
    double total = 0;
    for (double ms : steps.category_ms[s]) {
      row.emplace_back(std::in_place_type<double>, ms);
      total += ms;
    }
    row.emplace_back(std::in_place_type<double>, total);
    t.AddRow(std::move(row));
  }
  SetStepTimeProperties(result, t);
  t.SetProperty("framework", kPyTorchFramework);
  t.SetProperty("step_time_graph_column_ids", graph_ids);
  // Each category's mean over the steps, so a page shows the served figure rather than one it averaged itself.
  if (!steps.category_ms.empty()) {
    for (const std::string& c : steps.categories) t.SetProperty("avg_ms_" + c, FixedDigits(MeanMs(steps, c), 6));
  }
  const double dataloader = PercentOfStep(steps, "DataLoader");
  t.SetProperty("dataloader_percent", dataloader < 0 ? std::string("unknown") : OneDigit(dataloader) + "%");
  t.SetProperty("input_conclusion", TorchInputStatement(steps));
  return t;
}

std::string TorchInputStatement(const TorchStepTable& steps) {
  const double dataloader = PercentOfStep(steps, "DataLoader");
  if (dataloader < 0) return "No steps were found, so the time in DataLoader is unknown.";
  std::string statement = OneDigit(dataloader) + "% of the average step was spent in DataLoader (" +
                          FixedDigits(MeanMs(steps, "DataLoader"), 3) + " ms of " + FixedDigits(MeanStepMs(steps), 3) +
                          " ms). ";
  // torch-tb-profiler's threshold for advising multi-process loading.
  statement += dataloader >= 5 ? "The program is input-bound: the steps wait for the DataLoader."
                               : "The program is not input-bound.";
  return statement;
}

std::vector<std::string> TorchInputAdvice() {
  return {std::string("Load batches in worker processes: set num_workers > 0 on the DataLoader (") +
              kMultiProcessLoading + ").",
          std::string("Copy batches to the GPU from page-locked memory: pin_memory=True on the DataLoader and "
                      "tensor.to(device, non_blocking=True) (") +
              kMemoryPinning + ").",
          "Prepare batches ahead of the step: raise prefetch_factor (batches loaded in advance by each worker) and "
          "keep workers alive between epochs with persistent_workers=True."};
}

DataTable TorchRecommendationTable(const TorchStepTable& steps, const TorchGpuSummary& gpu) {
  DataTable t;
  for (const char* id : {"tip_type", "link", "description"}) t.AddColumn(id, id, "string");
  std::string statement;
  const double dataloader = PercentOfStep(steps, "DataLoader");
  if (dataloader >= 5) {
    statement += "This run spends " + OneDigit(dataloader) + "% of its step time in DataLoader. ";
    for (const std::string& tip : TorchInputAdvice()) t.AddRow({std::string("host"), tip, std::string("Next steps for reducing the DataLoader time")});
  }
  const double communication = PercentOfStep(steps, "Communication");
  if (communication > 10) {
    statement += "This run spends " + OneDigit(communication) + "% of its step time in communication. ";
    t.AddRow({std::string("device"),
              std::string("Communicate less per step: gradient compression, gradient accumulation (no_sync) or a "
                          "larger batch size; overlap it with compute in ") +
                  kDdp + ".",
              std::string("Next steps for reducing the communication time")});
  }
  if (gpu.utilization_percent && *gpu.utilization_percent < 50) {
    statement += "The GPU ran kernels " + FixedDigits(*gpu.utilization_percent, 2) + "% of the step time. ";
    t.AddRow({std::string("device"),
              std::string("Give the GPU more work per kernel: a larger batch size (it may change the speed and "
                          "stability of convergence), or fewer, larger kernels (torch.compile)."),
              std::string("Next steps for raising the GPU utilization")});
  }
  t.AddRow({std::string("doc"), std::string("Run in lower precision where the accuracy allows: ") + kAmp + ".",
            std::string("Other useful resources")});
  t.SetProperty("framework", kPyTorchFramework);
  t.SetProperty("bottleneck", dataloader >= 5 ? "input" : "");
  t.SetProperty("statement", statement);
  return t;
}

}  // namespace tbprof
