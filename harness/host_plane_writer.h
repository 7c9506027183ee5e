// Turns a tracer session into the XSpace TensorFlow's profiler would write
// after its single-host post-processing: a `/host:CPU` plane with one line per
// thread (events sorted outer-before-inner, timestamps relative to the profile
// start), and a `Task Environment` plane with the session's wall-clock bounds.
#pragma once

#include <string>

#include "convert/base/status.h"
#include "tracer/host_tracer.h"
#include "proto/xplane.pb.h"

namespace tbprof::harness {

tensorflow::profiler::XSpace SessionToXSpace(const TraceSession& session, const std::string& hostname);

// "<logdir>/plugins/profile/<run_name>", or "<YYYY_MM_DD_HH_MM_SS>" for the
// session's start (UTC) when no name is given; a suffix `_<n>` is added when
// that run directory already exists.
std::string RunDirectoryFor(const std::string& logdir, int64_t start_walltime_ns, const std::string& run_name = "");

// Writes `space` to <run_dir>/<hostname>.xplane.pb, creating directories.
// Returns the file path.
StatusOr<std::string> WriteXSpace(const tensorflow::profiler::XSpace& space, const std::string& run_dir,
                                  const std::string& hostname);

// The machine's host name (gethostname), or "localhost".
std::string LocalHostname();

}  // namespace tbprof::harness
