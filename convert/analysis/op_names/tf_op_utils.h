// Framework-op naming rules shared by the step/op tools (xla tf_op_utils.cc,
// xprof kernel_stats_utils.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tbprof {

// kPyTorch: an operator of a PyTorch profile, which the Kineto importer names
// "<op>:<op>" ("aten::addmm:aten::addmm"), name and type both the operator.
enum class TfOpCategory { kUnknown, kTensorFlow, kJax, kTfData, kMemcpyHToD, kMemcpyDToH, kMemcpyDToD, kMemcpyHToH, kPyTorch };

struct TfOp {
  TfOpCategory category = TfOpCategory::kUnknown;
  std::string name;
  std::string type;
};

// Splits "name:type" at the first ':' and classifies it (ParseTfOpFullname).
TfOp ParseTfOpFullname(std::string_view fullname);
// The name a framework op's event shows in the trace (TfOpEventName): its
// type; a tf.data op's last component ("Iterator::<last>"); for names that
// are not ops the name itself, without trailing whitespace.
std::string TfOpEventName(const TfOp& op);
// Last '/' component without a trailing "_<digits>" (DeriveOpType).
std::string DeriveOpType(std::string_view full_op_name);

// The name patterns of TensorFlow op names ([A-Za-z0-9.][A-Za-z0-9_./>-]*),
// TensorFlow op types ([A-Z_][a-zA-Z0-9_]*) and JAX op types
// ([a-z_][a-z0-9_]*, optionally followed by "[…]").
bool IsTfOpName(std::string_view s);
bool IsTfOpType(std::string_view s);
bool IsJaxOpType(std::string_view s);
// Whether a kernel runs on TensorCores (AMD: Matrix Cores), by the name rules
// of one table in tf_op_utils.cc: xprof's, and the Hopper/Blackwell/AMD ones.
bool IsKernelUsingTensorCore(std::string_view kernel_name);
// The kernel name each rule of that table was seen on (for tests).
std::vector<std::string_view> TensorCoreKernelRuleExamples();
// Whether an op may run on TensorCores, by its name: TensorFlow's
// convolutions, matmuls and cuDNN RNNs (xprof's rule); JAX / XLA dots,
// convolutions and cuBLAS / cuDNN custom calls; PyTorch's convolution, GEMM
// and RNN-cell operators and their backward ops (the ATen ops autocast runs
// in 16-bit, as torch-tb-profiler lists them). A kernel seen using
// TensorCores makes its op eligible whatever the name (xspace_to_kernel_stats).
// And the two-operand einsum rule.
bool IsOpTensorCoreEligible(std::string_view op_name);
bool IsEinsumTensorCoreEligible(std::string_view equation);

}  // namespace tbprof
