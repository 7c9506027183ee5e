#include "convert/analysis/tfprof/tfprof_timeline.h"

#include <set>

#include "convert/base/json.h"

namespace tbprof::tfprof {
namespace {

// Any view tree seen as (name, total time, children).
template <typename Proto>
void Lay(const Proto& node, int depth, int64_t start, std::string& events, std::set<int>& depths) {
  depths.insert(depth);
  if (!events.empty()) events += ',';
  events += "{\"ph\":\"X\",\"cat\":\"Op\",\"pid\":" + std::to_string(depth) + ",\"tid\":0,\"ts\":" +
            std::to_string(start) + ",\"dur\":" + std::to_string(node.total_exec_micros()) + ",\"name\":";
  AppendJsonString(events, node.name());
  events += ",\"args\":{\"name\":";
  AppendJsonString(events, node.name());
  events += "}}";
  int64_t at = start;
  for (const auto& child : node.children()) {
    if (child.total_exec_micros() <= 0) continue;
    Lay(child, depth + 1, at, events, depths);
    at += child.total_exec_micros();
  }
}

}  // namespace

StatusOr<std::string> IcicleTimelineJson(const ViewResult& result) {
  std::string events;
  std::set<int> depths;
  if (result.view == "scope") {
    Lay(result.graph, 0, 0, events, depths);
  } else if (result.view == "code") {
    Lay(result.multi_graph, 0, 0, events, depths);
  } else {
    return InvalidArgument("-output timeline is available for the scope and code views, not the " + result.view +
                           " view");
  }
  std::string out = "{\"traceEvents\":[";
  for (int depth : depths) {
    out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(depth) +
           ",\"args\":{\"name\":\"Scope:" + std::to_string(depth) + "\"}},";
  }
  out += events + "]}";
  return out;
}

}  // namespace tbprof::tfprof
