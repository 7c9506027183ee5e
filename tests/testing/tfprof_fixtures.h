// ProfileProto fixtures for the tfprof tests, written with libprotobuf's
// generated classes (not with tbprof's reader), and TensorFlow's tfprof test
// model rebuilt from the answers its tests state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proto/tfprof_log.pb.h"

namespace tbprof::tfprof_fixtures {

// Writes ProfileProto nodes the way TensorFlow's TFStats::SerializeToString
// does: ids in insertion order, inputs as node ids, op_types including the
// canonical device of a node that ran.
class ProfileWriter {
 public:
  // Adds a graph node; `inputs` are names of nodes added before or after
  // (resolved by Build), each read at output slot 0.
  ProfileWriter& Node(const std::string& name, const std::string& op, std::vector<std::string> inputs = {});
  ProfileWriter& Shape(const std::string& name, std::vector<int64_t> shape);
  ProfileWriter& OutputShape(const std::string& name, std::vector<int64_t> shape);
  ProfileWriter& Types(const std::string& name, std::vector<std::string> types);
  ProfileWriter& FloatOps(const std::string& name, int64_t float_ops);
  ProfileWriter& StringAttr(const std::string& name, const std::string& key, const std::string& value);
  // The node's call stack, outermost first: {file, function, line}.
  struct Frame {
    std::string file;
    std::string function;
    int32_t line;
  };
  ProfileWriter& Trace(const std::string& name, const std::vector<Frame>& frames);

  struct Exec {
    std::string device;               // canonical device, e.g. /job:.../gpu:0
    int64_t start_micros = 1;         // start of the first execution
    std::vector<int64_t> cpu_micros;  // one execution on the canonical device each
    std::vector<int64_t> accelerator_micros;  // on <device>/stream:all
    int64_t requested_bytes = 0;
    int64_t peak_bytes = 0;
    int64_t residual_bytes = 0;
    int64_t output_bytes = 0;
  };
  ProfileWriter& Run(const std::string& name, int64_t step, const Exec& exec);

  tensorflow::tfprof::ProfileProto Build() const;
  std::string Serialize() const { return Build().SerializeAsString(); }

 private:
  tensorflow::tfprof::ProfileNode& At(const std::string& name);
  std::vector<std::string> order_;
  std::map<std::string, tensorflow::tfprof::ProfileNode> nodes_;
  std::map<std::string, std::vector<std::string>> inputs_;
  std::map<std::string, int64_t> strings_;
  std::vector<int64_t> steps_;
};

// TensorFlow's tfprof test model (core/profiler/internal/testdata: DW
// 3x3x3x6, DW2 2x2x6x12, ScalarW, two Conv2D) with the per-node figures
// stated by the expected outputs of tfprof_stats_test.cc (kStats) or of
// tfprof_show_test.cc (kShow); the two tests state figures of different
// recordings of the model (see the .cc for what comes from where).
enum class TfTestModel { kStats, kShow };
ProfileWriter TfTestModelWriter(TfTestModel which);
// TensorFlow's answer for kShow's scope view of its variables with every
// column (tfprof_show_test.cc, DumpScopeMode), as the library and the CLI give it.
inline constexpr char kShowModelScopeAnswer[] =
    "node name | # parameters | # float_ops | requested bytes | peak bytes | residual bytes | output bytes | "
    "total execution time | accelerator execution time | cpu execution time\n"
    "_TFProfRoot (--/451 params, --/0 flops, --/0B, --/0B, --/0B, --/2.56KB, --/13us, --/0us, --/13us)\n"
    "  DW (3x3x3x6, 162/162 params, 0/0 flops, 0B/0B, 0B/0B, 0B/0B, 1.28KB/1.28KB, 2us/2us, 0us/0us, "
    "2us/2us)\n"
    "  DW2 (2x2x6x12, 288/288 params, 0/0 flops, 0B/0B, 0B/0B, 0B/0B, 1.28KB/1.28KB, 11us/11us, 0us/0us, "
    "11us/11us)\n"
    "  ScalarW (1, 1/1 params, 0/0 flops, 0B/0B, 0B/0B, 0B/0B, 0B/0B, 0us/0us, 0us/0us, 0us/0us)\n";

// The two Conv2D nodes of advisor/tfprof_advisor_test.cc.
ProfileWriter AdvisorTestWriter();

// Code-view fixture: n1 (Conv2D) and n2 (MatMul) made by build() at model.py
// lines 20 and 30, called from main.py:10, and n1's gradient, made by
// train.py:5:<gradient_function>; they run 100, 50 and 40 us of cpu time on
// `device`, starting at 1, 200 and 300 us.
ProfileWriter CallStacksWriter(const std::string& device, const std::string& gradient_function);

}  // namespace tbprof::tfprof_fixtures
