#include "convert/analysis/trace_viewer/file_group_args.h"

#include <algorithm>

namespace tbprof {

const std::string* FileGroupArgs::StepName(size_t plane, uint32_t event) const {
  if (plane >= named_roots.size() || !std::binary_search(named_roots[plane].begin(), named_roots[plane].end(), event)) {
    return nullptr;
  }
  auto it = names.find(group[plane].Find(event, kNoGroup));
  return it == names.end() ? nullptr : &it->second;
}

size_t FileGroupArgs::MemoryBytes() const {
  size_t bytes = 0;
  for (const GroupRuns& runs : group) bytes += runs.MemoryBytes();
  for (const GroupRuns& runs : eager) bytes += runs.MemoryBytes();
  for (const auto& roots : named_roots) bytes += roots.capacity() * sizeof(uint32_t);
  for (const auto& [id, name] : names) bytes += name.capacity() + 64;
  return bytes;
}

FileGroupArgs MakeFileGroupArgs(const XSpaceModel& space, const EventGroups& groups) {
  FileGroupArgs args;
  if (!groups.computed) return args;
  args.present = true;
  args.group.resize(space.planes.size());
  args.named_roots.resize(space.planes.size());
  args.eager.resize(space.planes.size());
  for (size_t p = 0; p < space.planes.size(); ++p) {
    if (p < groups.group_of.size()) args.group[p] = GroupRuns::Of(groups.group_of[p]);
    if (p < groups.has_step_name.size()) {
      const std::vector<uint8_t>& named = groups.has_step_name[p];
      for (uint32_t e = 0; e < named.size(); ++e) {
        if (named[e]) args.named_roots[p].push_back(e);
      }
    }
    if (groups.IsEagerPlane(p)) args.eager[p] = GroupRuns::Of(groups.is_eager[p]);
  }
  args.names = groups.group_names;
  return args;
}

}  // namespace tbprof
