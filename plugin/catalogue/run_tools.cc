#include "plugin/catalogue/run_tools.h"

#include <algorithm>
#include <optional>

#include "convert/load/profile_summary.h"
#include "convert/tools/tfprof_tools.h"

namespace tbprof {
namespace {

void SortTools(std::vector<std::string>& tools) {
  std::sort(tools.begin(), tools.end(), [](const std::string& a, const std::string& b) {
    size_t ra = ToolMenuRank(a), rb = ToolMenuRank(b);
    return ra != rb ? ra < rb : a < b;
  });
}

// The summary tools are listed by: xprof reads the run's first profile; a file that cannot be summarised
// (empty, damaged, cut short) gives way to the next, so one damaged host does not take its run's tools away.
ProfileSummary SummaryOfRun(const std::vector<RunFile>& profiles) {
  for (const RunFile& f : profiles) {
    if (!f.problem.empty()) continue;
    if (auto s = SummarizeProfile(f.path, f.format); s.ok()) return *s;
  }
  return ProfileSummary{};
}

// Whether `t` is listed for a run of `format` with `profiles` (their summary read at most once, and only
// when a tool's listing needs it).
bool Listed(const ToolSpec& t, ProfileFormat format, const std::vector<RunFile>& profiles,
            std::optional<ProfileSummary>& summary) {
  if (!t.formats.Has(format) || t.listing == Listing::kNever) return false;
  if (t.listing == Listing::kAlways || t.listed_if == nullptr) return true;
  if (profiles.empty()) return false;
  if (!summary) summary = SummaryOfRun(profiles);
  return t.listed_if(*summary);
}

}  // namespace

bool SupportsAllHosts(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->hosts_entry != AllHostsEntry::kNone;
}
bool IsAllHostsOnly(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->hosts_entry == AllHostsEntry::kOnly;
}
bool SelectsHostsByList(std::string_view tool) {
  const ToolSpec* t = FindProfileTool(tool);
  return t != nullptr && t->host_list;
}

ProfileFormat RunFormat(const RunContents& contents) {
  if (!contents.profiles.empty()) return contents.profiles.front().format;
  if (!contents.tfprof_profiles.empty()) return ProfileFormat::kTfprofProfile;
  if (!contents.legacy.empty()) return ProfileFormat::kLegacyToolFile;
  return ProfileFormat::kUnknown;
}

bool AllHostsOnlyInRun(std::string_view tool, const RunContents& contents) {
  for (const RunFile& f : contents.profiles) {
    if (f.format == ProfileFormat::kKinetoTrace) return false;
  }
  return IsAllHostsOnly(tool);
}

bool IsServableLegacy(const RunFile& f) { return FindLegacySuffix(f.suffix) != nullptr; }

std::string LegacyToolOf(const RunFile& f) {
  const LegacyToolSpec* l = FindLegacySuffix(f.suffix);
  return l == nullptr ? std::string() : l->tool;
}

bool LegacyFileServesTag(const RunFile& f, std::string_view tag) {
  const LegacyToolSpec* l = FindLegacySuffix(f.suffix);
  return l != nullptr && (l->tool == tag || l->alias == tag);
}

std::vector<std::string> ToolsOfRun(const RunContents& contents) {
  std::vector<std::string> tools;
  auto add = [&](const std::string& t) {
    if (std::find(tools.begin(), tools.end(), t) == tools.end()) tools.push_back(t);
  };
  // Whole profiles, else tfprof's own files: the tools their format fills.
  const ProfileFormat format = RunFormat(contents);
  std::optional<ProfileSummary> summary;
  if (format != ProfileFormat::kUnknown) {
    for (const ToolSpec& t : ProfileTools()) {
      if (Listed(t, format, contents.profiles, summary)) add(t.name);
    }
  }
  for (const RunFile& f : contents.legacy) {
    if (IsServableLegacy(f)) add(LegacyToolOf(f));
  }
  SortTools(tools);
  return tools;
}

std::vector<std::string> HostsOfRun(const RunContents& contents, std::string_view tag) {
  std::vector<std::string> hosts;
  if (!contents.profiles.empty()) {
    for (const RunFile& f : contents.profiles) {
      if (!f.host.empty() && std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) hosts.push_back(f.host);
    }
    const ToolSpec* spec = FindProfileTool(tag);
    if (hosts.size() < 2 && spec != nullptr && spec->offered_with_several_hosts_only) return {};
    if (hosts.size() > 1) {
      if (AllHostsOnlyInRun(tag, contents)) {
        hosts = {std::string(kAllHosts)};
      } else if (SupportsAllHosts(tag)) {
        hosts.emplace_back(kAllHosts);
      }
    }
  } else if (!contents.tfprof_profiles.empty() && (tag.empty() || tag == kTfprofToolName)) {
    // tfprof's files: each profile_<N> (one dump step) on its own.
    for (const RunFile& f : contents.tfprof_profiles) hosts.push_back(f.host);
  } else {
    // Legacy runs (TBP ≤2.18): the hosts that have a file for this tool.
    for (const RunFile& f : contents.legacy) {
      if ((tag.empty() || LegacyFileServesTag(f, tag)) && IsServableLegacy(f) &&
          std::find(hosts.begin(), hosts.end(), f.host) == hosts.end()) {
        hosts.push_back(f.host);
      }
    }
  }
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

StatusOr<CompareSide> CompareSideOfRun(const RunContents& contents, std::string& host,
                                       std::vector<const RunFile*>* files) {
  const auto& profiles = contents.profiles;
  if ((host.empty() || host == kAllHosts) && !profiles.empty() &&
      profiles.front().format == ProfileFormat::kKinetoTrace) {
    host = profiles.front().host;
  }
  const bool every_host = host.empty() || host == kAllHosts;
  CompareSide side;
  std::vector<const RunFile*> read;
  for (const RunFile& f : profiles) {
    if (every_host || f.host == host) {
      read.push_back(&f);
      side.hosts.push_back(f.host);
      side.profile_paths.push_back(f.path);
    }
  }
  if (profiles.empty()) {
    for (const RunFile& f : contents.legacy) {
      if (!CompareReadsLegacySuffix(f.suffix) || !IsServableLegacy(f)) continue;
      // Without a host named, the legacy files of the first host that has them.
      if ((every_host && (side.legacy_paths.empty() || f.host == side.hosts.front())) || f.host == host) {
        if (side.legacy_paths.empty()) side.hosts.push_back(f.host);
        read.push_back(&f);
        side.legacy_paths.push_back(f.path);
      }
    }
  }
  if (read.empty()) {
    return NotFound("No profile that compare reads found" + (every_host ? std::string() : " for host: " + host));
  }
  if (files != nullptr) *files = std::move(read);
  return side;
}

}  // namespace tbprof
