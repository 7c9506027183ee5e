// The crafted inputs of the attack tours (issue 46), built the same way by the
// hostile soak and by the server's process tests: PyTorch traces of many
// devices or of one huge name, and a dense xplane of tiny events in one line.
// Header-only, so the tests use it too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <zlib.h>

#include "proto/tfprof_log.pb.h"
#include "proto/xspace_wire_writer.h"

namespace tbprof::bench {

// A gzip member of `head`, then `count` copies of `pattern`, then `tail`,
// streamed (never held inflated): bombs of any size.
inline void WriteGzipOfRepeats(const std::filesystem::path& path, const std::string& head, const std::string& pattern,
                               uint64_t count, const std::string& tail, int level = 1) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::vector<unsigned char> buf(1 << 16);
  const uint64_t per_block = std::max<uint64_t>(1, (uint64_t{1} << 20) / pattern.size());
  std::string block;
  for (uint64_t i = 0; i < per_block; ++i) block += pattern;
  auto feed = [&](const char* data, size_t n, int flush) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    zs.avail_in = static_cast<uInt>(n);
    do {
      zs.next_out = buf.data();
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size() - zs.avail_out));
    } while (zs.avail_out == 0);
  };
  feed(head.data(), head.size(), Z_NO_FLUSH);
  for (uint64_t left = count; left > 0;) {
    const uint64_t n = std::min<uint64_t>(left, per_block);
    feed(block.data(), n * pattern.size(), Z_NO_FLUSH);
    left -= n;
  }
  feed(tail.data(), tail.size(), Z_FINISH);
  deflateEnd(&zs);
}

// A gzip member of `head`, then `fill` bytes of `c`, then `tail`.
inline void WriteGzipStream(const std::filesystem::path& path, const std::string& head, uint64_t fill, char c,
                            const std::string& tail, int level = 1) {
  WriteGzipOfRepeats(path, head, std::string(1, c), fill, tail, level);
}

// One CPU operator whose args repeat `key` `count` times (`"key":1,` each),
// gzip'ed: 33 million repeats are 200 MB of JSON in well under 1 MB.
inline void WriteRepeatedArgsTrace(const std::filesystem::path& path, const std::string& key, uint64_t count) {
  WriteGzipOfRepeats(path,
                     "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\","
                     "\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":{",
                     "\"" + key + "\":1,", count, "\"External id\":1}}]}\n", 9);
}

// One kernel on each of `devices` devices (a plane each once imported).
inline std::string ManyDevicesTrace(int devices) {
  std::string json = "{\"traceEvents\": [\n";
  for (int d = 0; d < devices; ++d) {
    json += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":" + std::to_string(d) +
            ",\"tid\":\"stream 7\",\"ts\":" + std::to_string(d) + ",\"dur\":1,\"args\":{\"device\":" +
            std::to_string(d) + ",\"stream\":7}}" + (d + 1 < devices ? ",\n" : "\n");
  }
  return json + "]}";
}

// One CPU operator whose name is `name_bytes` long.
inline void WriteHugeNameTrace(const std::filesystem::path& path, uint64_t name_bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":1,"
         "\"dur\":20,\"args\":{\"External id\":1},\"name\":\"";
  const std::string block(1 << 20, 'a');
  for (uint64_t left = name_bytes; left > 0; left -= std::min<uint64_t>(left, block.size())) {
    out.write(block.data(), static_cast<std::streamsize>(std::min<uint64_t>(left, block.size())));
  }
  out << "\"}]}\n";
}

// An XSpace of one GPU plane whose one line holds `events` events of one
// name, each only its metadata id (4 bytes on disk, all at the line's start),
// so a small file decodes into many events; streamed.
inline void WriteDenseXPlane(const std::filesystem::path& path, uint64_t events) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  const std::string event = "\x22\x02\x08\x01";  // XLine.events { metadata_id: 1 }
  wire::Encoder meta, entry, line_head, plane_head;
  meta.Int(1, 1);
  meta.Bytes(2, "tiny_kernel");
  entry.Int(1, 1);
  entry.Message(2, meta);
  plane_head.Int(1, 1);
  plane_head.Bytes(2, "/device:GPU:0");
  plane_head.Message(4, entry);  // event_metadata {1: tiny_kernel}
  line_head.Int(1, 1);
  line_head.Bytes(2, "Stream #1");
  line_head.Int(3, 1'000'000'000);  // timestamp_ns
  const uint64_t line_bytes = line_head.size() + events * event.size();
  wire::Encoder head;
  head.Tag(1, wire::kLen);  // XSpace.planes
  const uint64_t plane_bytes = plane_head.size() + 1 + wire::Encoder::VarintSize(line_bytes) + line_bytes;
  head.Varint(plane_bytes);
  head.bytes() += plane_head.bytes();
  head.Tag(3, wire::kLen);  // XPlane.lines
  head.Varint(line_bytes);
  head.bytes() += line_head.bytes();
  out.write(head.bytes().data(), static_cast<std::streamsize>(head.size()));
  std::string block;
  for (int i = 0; i < 1 << 18; ++i) block += event;
  for (uint64_t left = events; left > 0;) {
    const uint64_t n = std::min<uint64_t>(left, uint64_t{1} << 18);
    out.write(block.data(), static_cast<std::streamsize>(n * event.size()));
    left -= n;
  }
}

// A tfprof ProfileProto (profile_<N>) of one op that ran 10 µs on a CPU,
// named `name`, whose code trace is `frames` calls deep (0: no trace).
inline std::string TfprofProfileBytes(const std::string& name, int frames) {
  tensorflow::tfprof::ProfileProto p;
  tensorflow::tfprof::ProfileNode& n = (*p.mutable_nodes())[1];
  n.set_name(name);
  n.set_op("MatMul");
  n.set_id(1);
  n.set_canonical_device("/job:w/replica:0/task:0/device:cpu:0");
  n.set_host_device("/job:w/replica:0/task:0/device:cpu:0");
  n.add_op_types("MatMul");
  (*p.mutable_id_to_string())[1] = "model.py";
  (*p.mutable_id_to_string())[2] = "f";
  for (int i = 0; i < frames; ++i) {
    auto* t = n.mutable_trace()->add_traces();
    t->set_file_id(1);
    t->set_function_id(2);
    t->set_lineno(i + 1);
  }
  p.set_has_trace(frames > 0);
  p.add_steps(0);
  auto& exec = (*n.mutable_execs())[0];
  exec.set_run_count(1);
  exec.set_all_start_micros(1);
  exec.set_latest_end_micros(11);
  auto* time = (*exec.mutable_cpu_execs())[n.canonical_device()].add_times();
  time->add_int64_values(1);
  time->add_int64_values(10);
  return p.SerializeAsString();
}

}  // namespace tbprof::bench
