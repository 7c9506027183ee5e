// The framework-op name parser's tests (tf_op_utils_test.cc of TensorFlow's
// profiler utils, kept in XLA's TSL for xprof), checked on our
// ParseTfOpFullname: category, name and type of each full name.
//
// Ported scenarios (test — status — result):
//   TfOpTest, InternalTfOpTest, TfOpWithPathTest, ShortDatasetOpTest, LongDatasetOpTest, TraceMeTest,
//   TraceMeWithColonTest, TraceMeWithDoubleColonTest, TraceMeWithTrailingWhitespaceTest, MemcpyHToDTest,
//   MemcpyDToHTest, JaxOpTest, OtherXlaOpTest, OpWithoutTypeTest, OpTypeWithUnderscoreTest, NameScopeTest
//                                    ported (category, name, type)  pass
//   Their TfOpEventName checks       ported (the name of a Framework Ops event)  pass; LongDatasetOpTest's
//                                    "Iterator::TfRecord" failed before this port (the event showed
//                                    "Iterator::Batch::Map::TfRecord") and was mended
//   JaxOpNameTest, JaxOpNameWithMetadataTest, OtherXlaOpNameTest (IsJaxOpNameAndType), NameScopeTest's
//   ParseTfNameScopes                left out: tbprof has no separate name-and-type or name-scope parser
//                                    (the derived timeline splits scopes itself)
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "convert/analysis/op_names/tf_op_utils.h"

namespace tbprof {
namespace {

struct Case {
  const char* fullname;
  TfOpCategory category;
  const char* name;  // nullptr: the full name itself
  const char* type;
};

TEST(XprofTfOpUtilsPorts, ParseTfOpFullname) {
  using C = TfOpCategory;
  const Case cases[] = {
      {"OpName:OpType", C::kTensorFlow, "OpName", "OpType"},
      {"OpName:_InternalOpType", C::kTensorFlow, "OpName", "_InternalOpType"},
      {"path/to/name:OpType", C::kTensorFlow, "path/to/name", "OpType"},
      {"Iterator::Batch", C::kTfData, nullptr, "Dataset"},
      {"Iterator::Batch::Map::TfRecord", C::kTfData, nullptr, "Dataset"},
      {"MyTraceMe", C::kUnknown, nullptr, ""},
      {"RunStep/Server:54635", C::kUnknown, nullptr, ""},  // a number is not an op type
      {"XLA::StartProgram", C::kUnknown, nullptr, ""},
      {"SessionRun ", C::kUnknown, nullptr, ""},
      {"MemcpyHToD", C::kMemcpyHToD, nullptr, "MemcpyHToD"},
      {"MemcpyDToH", C::kMemcpyDToH, nullptr, "MemcpyDToH"},
      {"op_name:op_type", C::kJax, "op_name", "op_type"},
      {"namescope.1/namespace__opname2d:namespace__opname2d", C::kJax, "namescope.1/namespace__opname2d",
       "namespace__opname2d"},
      // Without a type, the type is the last name component less a numeric suffix.
      {"namescope/OpName_1:", C::kTensorFlow, "namescope/OpName_1", "OpName"},
      {"namescope/OpName_a:", C::kTensorFlow, "namescope/OpName_a", "OpName_a"},
      {"scope-1/scope2/OpName:OpType", C::kTensorFlow, "scope-1/scope2/OpName", "OpType"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fullname);
    TfOp op = ParseTfOpFullname(c.fullname);
    EXPECT_EQ(op.category, c.category);
    EXPECT_EQ(op.name, c.name ? c.name : c.fullname);
    EXPECT_EQ(op.type, c.type);
  }
}

TEST(XprofTfOpUtilsPorts, TfOpEventName) {
  const std::pair<const char*, const char*> cases[] = {
      {"OpName:OpType", "OpType"},  // type only
      {"OpName:_InternalOpType", "_InternalOpType"},
      {"path/to/name:OpType", "OpType"},
      {"Iterator::Batch", "Iterator::Batch"},
      {"Iterator::Batch::Map::TfRecord", "Iterator::TfRecord"},  // the last component
      {"MyTraceMe", "MyTraceMe"},
      {"RunStep/Server:54635", "RunStep/Server:54635"},
      {"XLA::StartProgram", "XLA::StartProgram"},
      {"SessionRun ", "SessionRun"},  // trailing whitespace trimmed
      {"MemcpyHToD", "MemcpyHToD"},
      {"MemcpyDToH", "MemcpyDToH"},
      {"op_name:op_type", "op_type"},
      {"namescope.1/namespace__opname2d:namespace__opname2d", "namespace__opname2d"},
      {"namescope/OpName_1:", "OpName"},  // no ':', name scopes or numeric suffix
      {"namescope/OpName_a:", "OpName_a"},
  };
  for (const auto& [fullname, event_name] : cases) {
    SCOPED_TRACE(fullname);
    EXPECT_EQ(TfOpEventName(ParseTfOpFullname(fullname)), event_name);
  }
}

}  // namespace
}  // namespace tbprof
