// The reader against libprotobuf on real profiles, and on bad input.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "tests/convert/xplane/xspace_equivalence.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using tensorflow::profiler::XSpace;

const fs::path kTestdata = TBPROF_TESTDATA;

using test_files::ReadAll;

// Every `step`-th prefix of a real file: our reader accepts it exactly when
// libprotobuf does, and a refusal says where the bytes went wrong.
void ExpectPrefixesParseLikeLibprotobuf(size_t step, const LoadOptions& options) {
  auto files = test_files::RealXPlaneFiles();
  if (files.empty()) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  const std::string bytes = ReadAll(files.front());
  for (size_t n = 1; n < bytes.size(); n += step) {
    std::string prefix = bytes.substr(0, n);
    XSpace space;
    auto ours = ParseXSpace(prefix, "real-prefix", options);
    ASSERT_EQ(ours.ok(), space.ParseFromString(prefix)) << n;
    if (!ours.ok()) {
      EXPECT_NE(ours.status().message().find("byte offset"), std::string::npos);
    }
  }
}

fs::path TempPath(const std::string& name) {
  return fs::temp_directory_path() / ("tbprof_reader_test_" + std::to_string(getpid()) + "_" + name);
}

// A small XSpace with every kind of field: stats of each value kind, metadata
// stats, an aggregated event, two planes, hostnames.
std::string SmallSpaceBytes() {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Str("plane_note", "hello");
  auto line = host.AddLine(17, "python3", 5);
  line.AddEvent("train", 1000, 9000).Int("_r", 1).Int("step_num", 3).Uint("u", 1ull << 63).Double("d", 0.25);
  line.AddEvent("op:MatMul", 2000, 100).Str("s", "text").Ref("kernel_details", "regs:32").Bytes("b", std::string("\0\1", 2));
  host.EventMetadata("op:MatMul")->set_display_name("MatMul");
  XPlaneBuilder dev = AddPlane(space, "/device:GPU:0", 0);
  dev.Int("core_count", 108);
  dev.AddLine(7, "Stream #7(Compute)").AddAggregatedEvent("kernel", 12, 500).Int("correlation_id", 9);
  space.add_hostnames("worker0");
  return space.SerializeAsString();
}

TEST(ReaderRealFiles, MatchLibprotobufEventByEvent) {
  auto files = test_files::RealXPlaneFiles();
  if (files.empty()) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  ASSERT_GE(files.size(), 4u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::string bytes = ReadAll(f);
    XSpace space;
    ASSERT_TRUE(space.ParseFromString(bytes));
    auto loaded = LoadXSpaceFile(f);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const auto counts = testing::CountProto(space);
    size_t lines = 0, events = 0, stats = 0, stat_md = 0, plane_stats = 0;
    for (const auto& p : (*loaded)->planes) {
      lines += p.lines.size();
      events += p.events.size();
      stats += p.event_stats.size();
      stat_md += p.stat_metadata.size();
      plane_stats += p.plane_stats.size();
    }
    EXPECT_EQ((*loaded)->planes.size(), counts.planes);
    EXPECT_EQ(lines, counts.lines);
    EXPECT_EQ(events, counts.events);
    EXPECT_EQ((*loaded)->NumEvents(), counts.events);
    EXPECT_EQ(stats, counts.event_stats);
    EXPECT_EQ(stat_md, counts.stat_metadata);
    EXPECT_EQ(plane_stats, counts.plane_stats);
    testing::ExpectSameSpace(space, **loaded);
  }
}

TEST(ReaderRealFiles, TpuFileHasTheDocumentedShape) {
  fs::path f = kTestdata / "xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";
  if (!fs::exists(f)) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  auto loaded = LoadXSpaceFile(f.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // testdata/README.md: 7 planes, 26,723 events.
  EXPECT_EQ((*loaded)->planes.size(), 7u);
  EXPECT_EQ((*loaded)->NumEvents(), 26723u);
}

TEST(ReaderBadInput, CorruptFileIsRejectedWithFileAndOffset) {
  fs::path f = kTestdata / "xplane/corrupt/utf8_mangled.xplane.pb";
  if (!fs::exists(f)) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  XSpace space;
  ASSERT_FALSE(space.ParseFromString(ReadAll(f)));  // libprotobuf agrees it is broken
  auto loaded = LoadXSpaceFile(f.string());
  ASSERT_FALSE(loaded.ok());
  // Named by its file name only: the message is shown to clients, who must not learn the server's paths.
  EXPECT_EQ(loaded.status().message().find(f.string()), std::string::npos) << loaded.status().message();
  EXPECT_EQ(loaded.status().message().rfind("utf8_mangled.xplane.pb: this profile file is damaged or incomplete (" +
                                                std::to_string(fs::file_size(f)) + " bytes; ",
                                            0),
            0u)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("byte offset"), std::string::npos) << loaded.status().message();
}

TEST(ReaderBadInput, EmptyInputAndEmptyFile) {
  // An XSpace with nothing set serialises to zero bytes: as bytes, it is an
  // empty profile (as xprof reads it), not a broken one.
  XSpace empty;
  ASSERT_TRUE(empty.SerializeAsString().empty());
  auto parsed = ParseXSpace("", "mem.xplane.pb");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE((*parsed)->planes.empty());
  fs::path p = TempPath("empty.xplane.pb");
  { std::ofstream(p, std::ios::binary); }
  // A file of 0 bytes, though, is a capture that wrote nothing: it is named empty.
  auto loaded = LoadXSpaceFile(p.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::kDataLoss);
  EXPECT_EQ(loaded.status().message(),
            p.filename().string() + ": this profile file is empty (0 bytes): the profiler wrote nothing into it; re-capture it");
  fs::remove(p);
  auto missing = LoadXSpaceFile("/nonexistent/dir/x.xplane.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/dir/x.xplane.pb"), std::string::npos);
}

// Every prefix of a small file either fails with an offset, or parses exactly
// when libprotobuf also accepts it (a cut at a field boundary) and then holds the same.
TEST(ReaderBadInput, EveryPrefixFailsCleanlyOrMatchesLibprotobuf) {
  const std::string bytes = SmallSpaceBytes();
  ASSERT_GT(bytes.size(), 100u);
  int accepted = 0;
  for (size_t n = 1; n <= bytes.size(); ++n) {
    std::string prefix = bytes.substr(0, n);
    XSpace space;
    bool proto_ok = space.ParseFromString(prefix);
    auto ours = ParseXSpace(prefix, "prefix");
    ASSERT_EQ(ours.ok(), proto_ok) << "prefix of " << n << " bytes: "
                                   << (ours.ok() ? "" : ours.status().message());
    if (ours.ok()) {
      ++accepted;
      testing::ExpectSameSpace(space, **ours);
    } else {
      EXPECT_NE(ours.status().message().find("prefix: "), std::string::npos);
      EXPECT_NE(ours.status().message().find("byte offset"), std::string::npos) << ours.status().message();
    }
  }
  EXPECT_GE(accepted, 3);  // the plane boundaries and the hostname
  EXPECT_LT(accepted, 10);
}

TEST(ReaderBadInput, PrefixesOfARealFile) { ExpectPrefixesParseLikeLibprotobuf(997, LoadOptions()); }

// Legacy per-tool .pb files (OverviewPage, InputPipelineAnalysisResult,
// TfStatsDatabase) and gzip'ed JSON traces are not XSpaces.
TEST(ReaderBadInput, WrongMessageTypes) {
  int checked = 0;
  for (const char* dir : {"legacy_logdir_tf22", "legacy_logdir_tf23_cpu"}) {
    if (!fs::exists(kTestdata / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kTestdata / dir)) {
      const std::string path = e.path().string();
      if (!e.is_regular_file() || fs::file_size(e.path()) == 0) continue;
      if (!path.ends_with(".pb") && !path.ends_with(".trace.json.gz")) continue;
      SCOPED_TRACE(path);
      if (path.ends_with(".pb")) {
        XSpace space;
        EXPECT_FALSE(space.ParseFromString(ReadAll(e.path())));  // libprotobuf agrees
      }
      auto r = LoadXSpaceFile(path);
      ASSERT_FALSE(r.ok()) << "taken for an XSpace";
      EXPECT_NE(r.status().message().find(e.path().filename().string() + ": "), std::string::npos)
          << r.status().message();
      EXPECT_NE(r.status().message().find("byte offset"), std::string::npos) << r.status().message();
      ++checked;
    }
  }
  if (checked == 0) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  EXPECT_GE(checked, 8);
  ASSERT_FALSE(ParseXSpace("this is plain text, not a protobuf", "text").ok());
}

TEST(ReaderBadInput, AbsurdLengthsAndVarints) {
  // XSpace.planes with a length of 2^40.
  std::string huge = "\x0a\x80\x80\x80\x80\x80\x20";
  auto r = ParseXSpace(huge, "huge");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("huge: "), std::string::npos);
  EXPECT_NE(r.status().message().find("byte offset 1"), std::string::npos) << r.status().message();
  // An 11-byte varint.
  std::string long_varint = "\x08" + std::string(10, '\xff') + "\x01";
  ASSERT_FALSE(ParseXSpace(long_varint, "varint").ok());
  // A plane whose event claims more bytes than its line holds.
  std::string nested = "\x0a\x06\x1a\x04\x22\x7f\x08\x01";
  auto n = ParseXSpace(nested, "nested");
  ASSERT_FALSE(n.ok());
  // Not cut short (the plane holds its 6 bytes), but wrong inside: where it stops being readable.
  EXPECT_NE(n.status().message().find("damaged or incomplete (8 bytes; unreadable from byte offset 5)"),
            std::string::npos)
      << n.status().message();
  // Group wire types are not XSpace.
  ASSERT_FALSE(ParseXSpace("\x0b\x0c", "group").ok());
}

TEST(ReaderBadInput, FileOverFourGiBIsRejectedBeforeReading) {
  fs::path p = TempPath("sparse.xplane.pb");
  int fd = open(p.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kMaxXSpaceBytes + 1)), 0);  // sparse: no data written
  close(fd);
  auto r = LoadXSpaceFile(p.string());
  fs::remove(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p.string()), std::string::npos);
  EXPECT_NE(r.status().message().find("not supported"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("protobuf writes at most 2 GiB"), std::string::npos) << r.status().message();
}

TEST(ReaderGzip, GzippedFileLoadsTheSame) {
  const std::string bytes = SmallSpaceBytes();
  fs::path p = TempPath("small.xplane.pb.gz");
  gzFile gz = gzopen(p.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(gz);
  auto r = LoadXSpaceFile(p.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(bytes));
  testing::ExpectSameSpace(space, **r);
  // A truncated gzip stream is an error, not a partial model.
  std::string gz_bytes = ReadAll(p);
  { std::ofstream(p, std::ios::binary | std::ios::trunc).write(gz_bytes.data(), gz_bytes.size() / 2); }
  auto t = LoadXSpaceFile(p.string());
  fs::remove(p);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(p.filename().string() + ": this profile file is damaged or incomplete ("), std::string::npos)
      << t.status().message();
}

TEST(ReaderSmallSpace, ValuesAndLookups) {
  auto r = ParseXSpace(SmallSpaceBytes(), "small");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const XSpaceModel& m = **r;
  const XPlaneModel* host = m.FindPlane("/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->events.size(), 2u);
  EXPECT_EQ(host->events[0].begin_ps, 5 * 1000 + 1000);  // line timestamp_ns * 1000 + offset
  const Stat* step = host->FindStat(0, m.Find("step_num"));
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->IntValue(), 3);
  EXPECT_EQ(host->FindStat(0, m.Find("u"))->u64, 1ull << 63);
  EXPECT_EQ(host->FindStat(0, m.Find("d"))->f64, 0.25);
  EXPECT_EQ(m.Str(host->FindStat(1, m.Find("kernel_details"))->str), "regs:32");
  EXPECT_EQ(m.Str(host->event_metadata[host->events[1].metadata].display_name), "MatMul");
  const XPlaneModel* dev = m.FindPlane("/device:GPU:0");
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->NumOccurrences(0), 12);
  EXPECT_EQ(dev->FindPlaneStat(m.Find("core_count"))->IntValue(), 108);
  EXPECT_EQ(m.hostnames, std::vector<std::string>{"worker0"});
}

TEST(ReaderInspectCommand, PrintsPlanesAndCountsOfARealFile) {
  fs::path f = kTestdata / "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb";
  if (!fs::exists(f)) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(ReadAll(f)));
  const auto counts = testing::CountProto(space);
  auto [status, out] = test_files::RunCommand(std::string(TBPROF_BINARY) + " inspect " + f.string() + " 2>&1");
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find(std::to_string(counts.planes) + " planes, " + std::to_string(counts.events) + " events"),
            std::string::npos)
      << out;
  for (const auto& p : space.planes()) EXPECT_NE(out.find("\"" + p.name() + "\""), std::string::npos) << p.name();
  EXPECT_NE(out.find("hostname: " + space.hostnames(0)), std::string::npos);
  EXPECT_NE(out.find("kernel_details"), std::string::npos);
}

LoadOptions TwoThreads() {
  LoadOptions o;
  o.parallel_min_bytes = 0;  // split the planes of even a small file between two threads
  return o;
}

TEST(ReaderTwoThreads, RealFilesMatchLibprotobuf) {
  auto files = test_files::RealXPlaneFiles();
  if (files.empty()) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    XSpace space;
    ASSERT_TRUE(space.ParseFromString(ReadAll(f)));
    auto loaded = LoadXSpaceFile(f, TwoThreads());
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    testing::ExpectSameSpace(space, **loaded);
  }
}

TEST(ReaderTwoThreads, PrefixesFailLikeLibprotobuf) {
  ExpectPrefixesParseLikeLibprotobuf(1499, TwoThreads());
  const std::string small = SmallSpaceBytes();
  for (size_t n = 1; n <= small.size(); ++n) {
    XSpace space;
    bool proto_ok = space.ParseFromString(small.substr(0, n));
    auto ours = ParseXSpace(small.substr(0, n), "prefix", TwoThreads());
    ASSERT_EQ(ours.ok(), proto_ok) << n;
    if (ours.ok()) {
      testing::ExpectSameSpace(space, **ours);
    }
  }
}

TEST(ReaderTwoThreads, CorruptFileIsRejected) {
  fs::path f = kTestdata / "xplane/corrupt/utf8_mangled.xplane.pb";
  if (!fs::exists(f)) GTEST_FAIL() << "required: no testdata at " << kTestdata;
  auto loaded = LoadXSpaceFile(f.string(), TwoThreads());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("byte offset"), std::string::npos) << loaded.status().message();
}

// One plane whose lines are shared out between the two threads (the split
// falls inside it): every kind of stat value and aggregated events on both
// sides of the split, and metadata a later line alone uses.
TEST(ReaderTwoThreads, LinesOfOnePlaneAreSharedOut) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Str("plane_note", "shared");
  for (int l = 0; l < 6; ++l) {
    auto line = host.AddLine(100 + l, "thread_" + std::to_string(l), 1000 * l);
    for (int e = 0; e < 40; ++e) {
      std::string name = "op" + std::to_string((l * 7 + e) % 11) + ":MatMul";
      line.AddEvent(name, 10 * e, 5).Int("step_num", e).Str("tf_op", "scope/" + std::to_string(e % 3))
          .Ref("kernel_details", "regs:" + std::to_string(l)).Bytes("b", std::string(1, static_cast<char>(e)));
      if (e % 9 == 0) line.AddAggregatedEvent("agg" + std::to_string(l), 3, 40);
    }
    if (l == 5) line.AddEvent("only_in_the_last_line", 1, 1).Double("d", 0.5);
  }
  XPlaneBuilder dev = AddPlane(space, "/device:GPU:0", 0);
  dev.AddLine(7, "Stream #7(Compute)").AddEvent("kernel", 3, 4).Int("correlation_id", 1);
  space.add_hostnames("worker0");
  const std::string bytes = space.SerializeAsString();
  auto ours = ParseXSpace(bytes, "shared", TwoThreads());
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  testing::ExpectSameSpace(space, **ours);
  ASSERT_EQ((*ours)->planes.size(), 2u);
  EXPECT_EQ((*ours)->planes[0].lines.size(), 6u);
}

// A stat narrowed by event name is stored only on the events whose name keeps
// it, on the planes where it is narrowed; the plane's other stats are untouched.
// Counted by hand: on the host, "x" keeps its 2 "op" stats, "alloc" loses its
// 1; the device plane is not narrowed and keeps its "op" stat.
TEST(ReaderProjection, StatNarrowedByEventName) {
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  auto line = host.AddLine(1, "t");
  line.AddEvent("x", 0, 10).Str("op", "a").Int("n", 1);
  line.AddEvent("alloc", 5, 0).Str("op", "b").Int("n", 2);
  line.AddEvent("x", 20, 10).Str("op", "c");
  XPlaneBuilder dev = AddPlane(space, "/device:GPU:0", 1);
  dev.AddLine(2, "s").AddEvent("alloc", 0, 5).Str("op", "d");
  LoadOptions options;
  options.keep_event_stat = [](std::string_view, std::string_view) { return true; };
  options.narrowed_event_stat = [](std::string_view plane, std::string_view stat) {
    return plane == "/host:CPU" && stat == "op";
  };
  options.keeps_narrowed_stats = [](std::string_view, std::string_view event) { return event != "alloc"; };
  auto model = ParseXSpace(space.SerializeAsString(), "narrowed", options);
  ASSERT_TRUE(model.ok()) << model.status().message();
  const XSpaceModel& m = **model;
  ASSERT_EQ(m.planes.size(), 2u);
  auto stats_of = [&](const XPlaneModel& p, uint32_t e) {
    std::vector<std::string> names;
    auto [b, end] = p.StatsOf(e);
    for (const Stat* st = b; st != end; ++st) names.emplace_back(m.Str(st->name));
    return names;
  };
  const XPlaneModel& h = m.planes[0];
  ASSERT_EQ(h.events.size(), 3u);
  EXPECT_EQ(stats_of(h, 0), (std::vector<std::string>{"op", "n"}));
  EXPECT_EQ(stats_of(h, 1), (std::vector<std::string>{"n"}));
  EXPECT_EQ(stats_of(h, 2), (std::vector<std::string>{"op"}));
  EXPECT_EQ(h.event_stats.size(), 4u);
  EXPECT_EQ(h.event_stats.capacity(), 4u);  // sized by the count, no slack
  EXPECT_EQ(stats_of(m.planes[1], 0), (std::vector<std::string>{"op"}));
}

// One plane, one line, one event (with a stat when `with_stat`), written by
// libprotobuf, so the last bytes on the wire are known from the field order:
// the plane's lines come last in the plane (no metadata), the line's events
// last in the line, and the event's stats last in the event.
std::string OneEventSpace(bool with_stat) {
  XSpace space;
  auto* plane = space.add_planes();
  plane->set_id(1);
  plane->set_name("/host:CPU");
  auto* line = plane->add_lines();
  line->set_id(7);
  line->set_name("thread");
  auto* event = line->add_events();
  event->set_metadata_id(3);
  event->set_offset_ps(1000);
  event->set_duration_ps(123456789);
  if (with_stat) {
    auto* stat = event->add_stats();
    stat->set_metadata_id(4);
    stat->set_uint64_value(987654321);
  }
  return space.SerializeAsString();
}

TEST(ReaderBadInput, CutShortFileSaysWhereItEnds) {
  for (bool with_stat : {false, true}) {
    std::string whole = OneEventSpace(with_stat);
    std::string cut = whole.substr(0, whole.size() - 1);
    XSpace check;
    ASSERT_FALSE(check.ParseFromString(cut));  // libprotobuf agrees it is broken
    auto r = ParseXSpace(cut, "/srv/logs/run/worker.xplane.pb");
    ASSERT_FALSE(r.ok());
    const std::string& msg = r.status().message();
    EXPECT_EQ(r.status().code(), ErrorCode::kDataLoss);
    EXPECT_EQ(msg.rfind("worker.xplane.pb: this profile file is damaged or incomplete (" + std::to_string(cut.size()) +
                            " bytes; it ends inside " + (with_stat ? "a stat" : "an event") + ", ",
                        0),
              0u)
        << msg;
    EXPECT_NE(msg.find("re-capture it"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("/srv/"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("exceeds"), std::string::npos) << msg;  // no decoder internals
  }
}

}  // namespace
}  // namespace tbprof
