#include "convert/analysis/host_events/xspace_to_tf_data_stats.h"
#include "convert/model/schema.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "convert/base/json.h"
#include "convert/grouping/event_forest.h"

namespace tbprof {

namespace {

constexpr int kMaxIteratorDepth = 100;  // xprof stops walking deeper than this
// A crafted file can link iterators into a dense cycle whose walk is
// exponential in the depth; real calls touch at most a few thousand events.
constexpr int64_t kMaxVisitsPerCall = int64_t{1} << 20;

struct IteratorMetadata {
  int64_t id = 0;
  std::optional<int64_t> parent_id;
  std::string name, long_name;
  bool is_async = false;
};

// Last "::" component of the iterator's event name (tsl IteratorName), split
// left to right like absl::StrSplit so that ":::" parts the same way.
std::string_view IteratorName(std::string_view long_name) {
  size_t start = 0;
  for (size_t pos = long_name.find("::"); pos != std::string_view::npos; pos = long_name.find("::", start)) {
    start = pos + 2;
  }
  return long_name.substr(start);
}

// StrSplit(name, "::").size() == 2: the name carries only the root's own name.
bool IsRootIteratorName(std::string_view name) {
  size_t first = name.find("::");
  return first != std::string_view::npos && name.find("::", first + 2) == std::string_view::npos;
}

bool IsAsyncIterator(std::string_view name) {
  static const std::set<std::string_view> kAsync = {"Prefetch",    "ParallelInterleave", "ParallelMap",
                                                    "ParseExample", "MapAndBatch",       "DataService",
                                                    "LegacyParallelInterleave", "ParallelBatch"};
  return kAsync.count(name) > 0;
}

// One host's analysis: the forest, the iterator metadata and the pipelines.
class HostAnalyzer {
 public:
  HostAnalyzer(const XSpaceModel& model, const XPlaneModel& plane)
      : model_(model), plane_(plane), forest_(model, plane) {
    forest_.ConnectTfDataEvents();
    id_ = model.Find(schema::kId);
    parent_id_ = model.Find(schema::kParentId);
  }

  std::vector<TfDataPipeline> Run() {
    std::map<int64_t, std::vector<uint32_t>> root_events;  // root iterator id -> its GetNext events
    std::set<int64_t> device_pipeline_ids;
    for (uint32_t e : forest_.Order()) {
      if (forest_.Type(e) != TfDataEventType::kIterator) continue;
      std::optional<int64_t> id = IntStat(e, id_);
      if (!id) continue;
      RecordMetadata(*id, e);
      if (IsRootIteratorName(model_.Str(plane_.EventName(e)))) root_events[*id].push_back(e);
    }
    for (uint32_t e : forest_.Order()) {
      if (forest_.Type(e) != TfDataEventType::kDeviceSecondIterator) continue;
      std::optional<int64_t> id = IntStat(e, id_);
      if (!id) continue;
      if (RecordMetadata(*id, e)) {
        if (std::optional<int64_t> parent = IntStat(e, parent_id_)) device_pipeline_ids.insert(*parent);
      }
    }

    std::vector<TfDataPipeline> pipelines;
    int64_t num_host = 0, num_device = 0;
    for (auto& [root_id, events] : root_events) {
      std::stable_sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
        return plane_.events[a].duration_ps > plane_.events[b].duration_ps;
      });
      TfDataPipeline pipeline;
      pipeline.id = root_id;
      pipeline.is_device = device_pipeline_ids.count(root_id) > 0;
      pipeline.name = pipeline.is_device ? "Device:" + std::to_string(num_device++)
                                         : "Host:" + std::to_string(num_host++);
      int64_t sum = 0;
      pipeline.min_latency_ps = INT64_MAX;
      for (uint32_t e : events) {
        pipeline.calls.push_back(AnalyzeCall(e));
        int64_t latency = plane_.events[e].duration_ps;
        sum += latency;
        pipeline.min_latency_ps = std::min(pipeline.min_latency_ps, latency);
        pipeline.max_latency_ps = std::max(pipeline.max_latency_ps, latency);
        if (latency > kTfDataSlowCallThresholdPs) ++pipeline.num_slow_calls;
      }
      pipeline.num_calls = static_cast<int64_t>(events.size());
      pipeline.avg_latency_ps = sum / pipeline.num_calls;
      pipelines.push_back(std::move(pipeline));
    }
    return pipelines;
  }

 private:
  std::optional<int64_t> IntStat(uint32_t e, StrId name) const {
    const Stat* s = plane_.FindEventOrMetadataStat(e, name);
    if (s == nullptr) return std::nullopt;
    return s->IntValue();
  }

  // Metadata comes from the first event seen for an id; returns whether it was new.
  bool RecordMetadata(int64_t id, uint32_t e) {
    auto [it, inserted] = metadata_.try_emplace(id);
    if (!inserted) return false;
    IteratorMetadata& m = it->second;
    m.id = id;
    m.parent_id = IntStat(e, parent_id_);
    m.long_name = std::string(model_.Str(plane_.EventName(e)));
    m.name = std::string(IteratorName(m.long_name));
    m.is_async = IsAsyncIterator(m.name);
    return true;
  }

  // ProcessIteratorEvent: accumulates one event into `stats`, then its tf.data children.
  void Visit(uint32_t e, std::map<int64_t, TfDataIteratorStat>& stats, bool is_blocking, int level) {
    if (level > kMaxIteratorDepth || ++visits_ > kMaxVisitsPerCall) return;
    std::optional<int64_t> id = IntStat(e, id_);
    if (!id) return;
    const Event& ev = plane_.events[e];
    auto [it, inserted] = stats.try_emplace(*id);
    if (inserted) {
      it->second.id = *id;
      it->second.start_time_ps = ev.begin_ps;
    }
    it->second.duration_ps += ev.duration_ps;
    int64_t self_time = ev.duration_ps;
    for (uint32_t child : forest_.Children(e)) {
      if (!IsTfDataEventName(model_.Str(plane_.EventName(child)))) continue;
      const Event& c = plane_.events[child];
      // Timespan::OverlappedDurationPs: inclusive overlap test, then min(end) - max(begin).
      int64_t overlap = 0;
      if (ev.begin_ps <= c.end_ps() && c.begin_ps <= ev.end_ps()) {
        overlap = std::min(ev.end_ps(), c.end_ps()) - std::max(ev.begin_ps, c.begin_ps);
      }
      // A child that ran without overlapping its parent (an async producer that
      // ran ahead) is off the critical path.
      Visit(child, stats, is_blocking && overlap != 0, level + 1);
      self_time -= overlap;  // xprof assumes children do not overlap each other
    }
    // std::map iterators survive the insertions the recursion made.
    it->second.self_time_ps += self_time;
    it->second.is_blocking = it->second.is_blocking || is_blocking;
    it->second.num_calls += 1;
  }

  TfDataPipelineCall AnalyzeCall(uint32_t root_event) {
    std::map<int64_t, TfDataIteratorStat> stats;
    visits_ = 0;
    Visit(root_event, stats, /*is_blocking=*/true, 0);
    TfDataPipelineCall call;
    call.duration_ps = plane_.events[root_event].duration_ps;
    for (auto& [id, stat] : stats) {
      auto m = metadata_.find(id);
      if (m != metadata_.end()) {
        stat.parent_id = m->second.parent_id.value_or(-1);
        stat.name = m->second.name;
        stat.long_name = m->second.long_name;
        stat.is_async = m->second.is_async;
      }
      // The blocking iterator with the largest self time (strictly, from 0).
      if (stat.is_blocking && stat.self_time_ps > call.bottleneck_iterator_latency_ps) {
        call.bottleneck_iterator_id = id;
        call.bottleneck_iterator_latency_ps = stat.self_time_ps;
      }
      call.iterators.push_back(std::move(stat));
    }
    return call;
  }

  const XSpaceModel& model_;
  const XPlaneModel& plane_;
  EventForest forest_;
  StrId id_ = kNoStr, parent_id_ = kNoStr;
  std::map<int64_t, IteratorMetadata> metadata_;
  int64_t visits_ = 0;  // Visit calls in the current call's walk
};

// Python's int(ps / 1000_000) for the non-negative values here.
int64_t PsToUs(int64_t ps) { return ps / 1000000; }

// Python's "{:,}" thousands grouping.
std::string WithThousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out += digits[i];
    if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
  }
  return v < 0 ? "-" + out : out;
}

struct Column {
  const char* id;
  const char* type;
  const char* label;
};

// Opens a table: its columns, the host and the input pipeline first in every
// table, then `cols`.
void AppendCols(std::string& out, std::initializer_list<Column> cols) {
  out += "{\"cols\":[";
  bool first = true;
  std::vector<Column> all = {{"host", "string", "Host"}, {"input_pipeline", "string", "Input Pipeline"}};
  all.insert(all.end(), cols.begin(), cols.end());
  for (const Column& c : all) {
    if (!first) out += ',';
    first = false;
    out += "{\"id\":\"";
    out += c.id;
    out += "\",\"label\":\"";
    out += c.label;
    out += "\",\"type\":\"";
    out += c.type;
    out += "\"}";
  }
  out += "],\"rows\":[";
}

// Cells: numbers are emitted as integers, strings escaped.
void AppendStrCell(std::string& out, std::string_view v) {
  AppendJsonStringMember(out, "{\"v\":", v);
  out += '}';
}
void AppendNumCell(std::string& out, int64_t v) {
  out += "{\"v\":";
  out += std::to_string(v);
  out += '}';
}

// Opens a row of one of the tables, all of which start with the host and the
// input pipeline; rows are separated by commas.
void BeginRow(std::string& out, bool& first_row, std::string_view host, std::string_view pipeline) {
  if (!first_row) out += ',';
  first_row = false;
  out += "{\"c\":[";
  AppendStrCell(out, host);
  out += ',';
  AppendStrCell(out, pipeline);
}

std::string FormatIteratorStat(const TfDataIteratorStat& s) {
  return "<div style='padding: 1px;'><b>" + s.name +
         "</b><br/><div style='text-align: left;'>Start Time: " + std::to_string(PsToUs(s.start_time_ps)) +
         " us<br/>Total Duration: " + std::to_string(PsToUs(s.duration_ps)) +
         " us<br/>Self Duration: " + std::to_string(PsToUs(s.self_time_ps)) +
         " us<br/># Calls: " + std::to_string(s.num_calls) + "</div></div>";
}

std::string FormatBottleneck(const TfDataBottleneck& b) {
  return "<u>Iterator Type</u>: <b>" + b.iterator_name + "</b><br/><u>Long Name</u>: " + b.iterator_long_name +
         "<br/><u>Latency</u>: " + WithThousands(PsToUs(b.iterator_latency_ps)) + " us";
}

std::string Anchor(std::string_view url, std::string_view text) {
  return "<a href=\"" + std::string(url) + "\" target=\"_blank\">" + std::string(text) + "</a>";
}

}  // namespace

std::string TfDataHostName(const XSpaceModel& model, const std::string& file_host) {
  if (!model.hostnames.empty() && !model.hostnames[0].empty()) return model.hostnames[0];
  return file_host;
}

std::string_view TfDataBottleneckType(std::string_view iterator_name) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      // Read from storage or local memory.
      {"TFRecord", "kSlowSource"}, {"SSTable", "kSlowSource"}, {"RecordIO", "kSlowSource"},
      {"Spanner", "kSlowSource"}, {"TFColumn", "kSlowSource"}, {"SleepwalkRemoteDataset", "kSlowSource"},
      {"TextLine", "kSlowSource"}, {"StitchedTimelineDataset", "kSlowSource"}, {"DateKeyDataset", "kSlowSource"},
      {"CapacitorProto", "kSlowSource"}, {"LMDB", "kSlowSource"}, {"ExternalDataset", "kSlowSource"},
      {"PearModel", "kSlowSource"}, {"FixedLengthRecordV2", "kSlowSource"}, {"FromTensor", "kSlowSource"},
      {"TensorSlice", "kSlowSource"}, {"Generator", "kSlowSource"}, {"SyntheticDatasetOp", "kSlowSource"},
      {"DataService", "kSlowDataService"},
      // Read from remote memory.
      {"GuzzlerDataGuzzlerRemoteDataset", "kSlowRemoteSource"}, {"ReverbDataset", "kSlowRemoteSource"},
      {"DatasetSampleGame", "kSlowRemoteSource"}, {"Courier", "kSlowRemoteSource"},
      {"ReverbEpisodeDataset", "kSlowRemoteSource"},
      {"Map", "kSlowTransformationWithParallelVersion"}, {"Interleave", "kSlowTransformationWithParallelVersion"},
      {"Filter", "kSlowTransformationWithoutParallelVersion"}, {"Batch", "kSlowTransformationWithoutParallelVersion"},
      {"Unbatch", "kSlowTransformationWithoutParallelVersion"}};
  auto it = kTypes.find(iterator_name);
  return it == kTypes.end() ? std::string_view("kOther") : it->second;
}

std::string TfDataSuggestion(std::string_view type) {
  constexpr std::string_view kPlaybook = "https://www.tensorflow.org/guide/data_performance_analysis";
  constexpr std::string_view kPlaybookSource =
      "https://www.tensorflow.org/guide/data_performance_analysis#source_datasets";
  constexpr std::string_view kPlaybookCpu =
      "https://www.tensorflow.org/guide/data_performance_analysis#3_are_you_reaching_high_cpu_utilization";
  constexpr std::string_view kPlaybookTransformation =
      "https://www.tensorflow.org/guide/data_performance_analysis#transformation_datasets";
  constexpr std::string_view kGuideParallelExtraction =
      "https://www.tensorflow.org/guide/data_performance#parallelizing_data_extraction";
  constexpr std::string_view kGuideParallelTransformation =
      "https://www.tensorflow.org/guide/data_performance#parallelizing_data_transformation";
  constexpr std::string_view kGuideCache = "https://www.tensorflow.org/guide/data_performance#caching";
  constexpr std::string_view kDataService =
      "https://www.tensorflow.org/api_docs/python/tf/data/experimental/service?version=nightly";
  const std::string cache_advice =
      "2. Consider adding <code>cache</code> after this transformation if your data fits into memory and it is "
      "appropriate (e.g., there is no randomness in upstream transformations like <code>shuffle</code>). See " +
      Anchor(kGuideCache, "this") + " for more details.<br/>";
  if (type == "kSlowSource") {
    return "1. Check the locality of a host and input data. Ideally, they should be in the same cell (or very "
           "close, like the same region).<br/>2. Parallelize reading from this dataset source. See " +
           Anchor(kPlaybookSource, "here") + " and " + Anchor(kGuideParallelExtraction, "here") +
           " for more details.<br/>";
  }
  if (type == "kSlowDataService") {
    return "1. Fetching data from tf.data service took a while. Profile the tf.data service worker to analyze "
           "the issue further.<br/>2. See " +
           Anchor(kDataService, "this") + " for more details on tf.data service.<br/>3. See " +
           Anchor(kPlaybook, "this") + " for other suggestions.";
  }
  if (type == "kSlowRemoteSource") {
    return "1. The remote data source is slow. Profile its host to analyze the issue further.<br/>2. See " +
           Anchor(kPlaybook, "this") + " for other suggestions.";
  }
  if (type == "kSlowTransformationWithParallelVersion") {
    return "1. Parallelize this transformation by setting "
           "<code>num_parallel_calls=tf.data.experimental.AUTOTUNE</code>. See " +
           Anchor(kGuideParallelTransformation, "this") + " for more details.<br/>" + cache_advice +
           "3. Find more resources " + Anchor(kPlaybookTransformation, "here") + ".";
  }
  if (type == "kSlowTransformationWithoutParallelVersion") {
    return "1. This transformation is inherently sequential. Add outer parallelism by running multiple copies "
           "of the input pipeline over sharded inputs and combining the results. See " +
           Anchor(kPlaybookTransformation, "this") + " for more details.<br/>" + cache_advice +
           "3. Find more resources " + Anchor(kPlaybookCpu, "here") + ".";
  }
  return "See " + Anchor(kPlaybook, "this") + " for suggestions.";
}

StatusOr<TfDataStats> ComputeTfDataStats(const std::vector<std::pair<std::string, const XSpaceModel*>>& hosts) {
  TfDataStats out;
  for (const auto& [host, model] : hosts) {
    if (model == nullptr) return InvalidArgument("tf.data analysis: no model for host '" + host + "'");
    TfDataHostStats host_stats;
    host_stats.host = host;
    const XPlaneModel* plane = model->FindPlane(schema::kHostPlane);
    if (plane == nullptr) return InvalidArgument("Could not find host XPlane for tf data stats: " + host);
    host_stats.pipelines = HostAnalyzer(*model, *plane).Run();
    out.hosts.push_back(std::move(host_stats));
  }

  // SetBottleneckAnalysis: the slowest call of every host pipeline, slowest pipeline first.
  for (const TfDataHostStats& h : out.hosts) {
    for (const TfDataPipeline& p : h.pipelines) {
      if (p.is_device || p.calls.empty()) continue;
      const TfDataPipelineCall& slowest = p.calls.front();
      TfDataBottleneck b;
      b.host = h.host;
      b.input_pipeline = p.name;
      b.max_latency_ps = p.max_latency_ps;
      b.iterator_latency_ps = slowest.bottleneck_iterator_latency_ps;
      for (const TfDataIteratorStat& it : slowest.iterators) {
        if (it.id == slowest.bottleneck_iterator_id) {
          b.iterator_name = it.name;
          b.iterator_long_name = it.long_name;
        }
      }
      b.bottleneck_type = std::string(TfDataBottleneckType(b.iterator_name));
      b.suggestion = TfDataSuggestion(b.bottleneck_type);
      out.bottlenecks.push_back(std::move(b));
    }
  }
  std::stable_sort(out.bottlenecks.begin(), out.bottlenecks.end(),
                   [](const TfDataBottleneck& a, const TfDataBottleneck& b) { return a.max_latency_ps > b.max_latency_ps; });

  int64_t max_latency_ps = out.bottlenecks.empty() ? 0 : out.bottlenecks.front().max_latency_ps;
  if (max_latency_ps > kTfDataSlowCallThresholdPs) {
    out.is_input_bound = true;
    out.summary =
        "Your profile has a tf.data input pipeline slower than 50 us. For each slow input pipeline, below shows a "
        "bottleneck in the input pipeline and a suggestion on how to fix it.";
  } else if (max_latency_ps > 0) {
    out.summary =
        "Your profile does not have any tf.data input pipeline slower than 50 us. Your job could be still input "
        "bound if this profile didn't capture all workers.";
  } else if (std::any_of(out.hosts.begin(), out.hosts.end(), [](const TfDataHostStats& h) {
               return std::any_of(h.pipelines.begin(), h.pipelines.end(),
                                  [](const TfDataPipeline& p) { return p.is_device && !p.calls.empty(); });
             })) {
    // xprof says "no tf.data activity" here, above a table of the device pipelines' calls.
    out.only_device_pipelines = true;
    out.summary =
        "Only device input pipelines were captured (tf.data iterators feeding the device); the bottleneck analysis "
        "reads host input pipelines, so it gives no input-bound verdict here. Their calls are listed below; the "
        "input pipeline analyzer's verdict, from the share of step time spent waiting for input, still applies.";
  } else {
    out.summary =
        "No tf.data activity captured in your profile. If your job uses tf.data, try to capture a longer profile.";
  }
  return out;
}

std::string TfDataStatsToJson(const TfDataStats& stats) {
  std::string out = "[";
  // Graph table: one row per iterator of every call; rank = the call's rank by duration.
  AppendCols(out, {{"rank", "number", "Rank"},
                   {"name", "string", "Name"},
                   {"parent", "string", "Parent"},
                   {"type", "number", "Type"}});
  bool first_row = true;
  for (const TfDataHostStats& h : stats.hosts) {
    for (const TfDataPipeline& p : h.pipelines) {
      int64_t rank = 0;
      for (const TfDataPipelineCall& call : p.calls) {
        for (const TfDataIteratorStat& it : call.iterators) {
          // 0: off the critical path, 1: blocking, 2: the call's bottleneck.
          int64_t type = !it.is_blocking ? 0 : (it.id == call.bottleneck_iterator_id ? 2 : 1);
          BeginRow(out, first_row, h.host, p.name);
          out += ',';
          AppendNumCell(out, rank);
          AppendJsonStringMember(out, ",{\"v\":", std::to_string(it.id));
          AppendJsonStringMember(out, ",\"f\":", FormatIteratorStat(it));
          out += "},";
          AppendStrCell(out, it.parent_id > 0 || it.parent_id < -1 ? std::to_string(it.parent_id) : "");
          out += ',';
          AppendNumCell(out, type);
          out += "]}";
        }
        ++rank;
      }
    }
  }
  out += "]},";

  AppendCols(out, {{"min", "number", "Min (us)"},
                   {"mean", "number", "Avg (us)"},
                   {"max", "number", "Max (us)"},
                   {"num_calls", "number", "# calls"},
                   {"num_slow_calls", "number", "# slow calls"}});
  first_row = true;
  for (const TfDataHostStats& h : stats.hosts) {
    for (const TfDataPipeline& p : h.pipelines) {
      BeginRow(out, first_row, h.host, p.name);
      for (int64_t v : {PsToUs(p.min_latency_ps), PsToUs(p.avg_latency_ps), PsToUs(p.max_latency_ps),
                        static_cast<int64_t>(p.calls.size()), p.num_slow_calls}) {
        out += ',';
        AppendNumCell(out, v);
      }
      out += "]}";
    }
  }
  out += "]},";

  AppendCols(out, {{"max_latency", "number", "Max Latency (us)"},
                   {"bottleneck", "string", "Bottleneck"},
                   {"suggestion", "string", "Suggestion"}});
  first_row = true;
  for (const TfDataBottleneck& b : stats.bottlenecks) {
    BeginRow(out, first_row, b.host, b.input_pipeline);
    out += ',';
    AppendNumCell(out, PsToUs(b.max_latency_ps));
    out += ',';
    AppendStrCell(out, FormatBottleneck(b));
    out += ',';
    AppendStrCell(out, b.suggestion);
    out += "]}";
  }
  out += "],\"p\":{\"is_input_bound\":";
  out += stats.only_device_pipelines ? "\"\"" : stats.is_input_bound ? "\"true\"" : "\"false\"";
  AppendJsonStringMember(out, ",\"summary_message\":", stats.summary);
  out += "}}]";
  return out;
}

}  // namespace tbprof
