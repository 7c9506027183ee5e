#include "convert/analysis/tf_op_utils.h"

#include <cctype>

namespace tbprof {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// [A-Za-z0-9.][A-Za-z0-9_./>-]*
bool IsTfOpName(std::string_view s) {
  if (s.empty() || !(IsAlnum(s[0]) || s[0] == '.')) return false;
  for (char c : s.substr(1)) {
    if (!(IsAlnum(c) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-')) return false;
  }
  return true;
}

// [A-Z_][a-zA-Z0-9_]*
bool IsTfOpType(std::string_view s) {
  if (s.empty() || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
  for (char c : s.substr(1)) {
    if (!(IsAlnum(c) || c == '_')) return false;
  }
  return true;
}

// [a-z_][a-z0-9_]*(\[.*\])?
bool IsJaxOpType(std::string_view s) {
  size_t bracket = s.find('[');
  std::string_view head = s.substr(0, bracket);
  if (bracket != std::string_view::npos && s.back() != ']') return false;
  if (head.empty() || !((head[0] >= 'a' && head[0] <= 'z') || head[0] == '_')) return false;
  for (char c : head.substr(1)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::string DeriveOpType(std::string_view full_op_name) {
  size_t slash = full_op_name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? full_op_name : full_op_name.substr(slash + 1);
  size_t underscore = last.rfind('_');
  if (underscore != std::string_view::npos && underscore + 1 < last.size()) {
    bool digits = true;
    for (char c : last.substr(underscore + 1)) digits &= c >= '0' && c <= '9';
    if (digits) last = last.substr(0, underscore);
  }
  return std::string(last);
}

TfOp ParseTfOpFullname(std::string_view fullname) {
  TfOp op;
  size_t colon = fullname.find(':');
  if (colon == std::string_view::npos) {
    struct Memcpy {
      std::string_view prefix;
      TfOpCategory category;
    };
    static constexpr Memcpy kMemcpy[] = {{"MEMCPYHToD", TfOpCategory::kMemcpyHToD},
                                         {"MEMCPYDToH", TfOpCategory::kMemcpyDToH},
                                         {"MEMCPYDToD", TfOpCategory::kMemcpyDToD},
                                         {"MEMCPYHToH", TfOpCategory::kMemcpyHToH}};
    static constexpr std::string_view kTypes[] = {"MemcpyHToD", "MemcpyDToH", "MemcpyDToD", "MemcpyHToH"};
    for (size_t i = 0; i < 4; ++i) {
      if (StartsWithIgnoreCase(fullname, kMemcpy[i].prefix)) {
        op.category = kMemcpy[i].category;
        op.name = std::string(fullname);
        op.type = std::string(kTypes[i]);
        return op;
      }
    }
    op.name = std::string(fullname);
    return op;
  }
  std::string_view name = fullname.substr(0, colon);
  std::string_view type = fullname.substr(colon + 1);
  if (name == "Iterator") {
    op.category = TfOpCategory::kTfData;
    op.name = std::string(fullname);
    op.type = "Dataset";
    return op;
  }
  if (IsTfOpName(name) && IsTfOpType(type)) {
    op.category = TfOpCategory::kTensorFlow;
    op.name = std::string(name);
    op.type = std::string(type);
    return op;
  }
  std::string op_type = type.empty() ? DeriveOpType(name) : std::string(type);
  if (IsJaxOpType(op_type)) {
    op.category = TfOpCategory::kJax;
    op.name = std::string(name);
    op.type = op_type.substr(0, op_type.find('['));
    return op;
  }
  if (type.empty()) {
    op.category = TfOpCategory::kTensorFlow;
    op.name = std::string(name);
    op.type = op_type;
    return op;
  }
  op.name = std::string(fullname);
  return op;
}

bool IsKernelUsingTensorCore(std::string_view kernel_name) {
  static constexpr std::string_view kPatterns[] = {
      "16816",      "c1688",          "conv1x1",          "conv2d_c1_k1",
      "dgrad_1x1_stride_2x2", "direct_group", "first_layer_wgrad_kernel", "h1688",
      "h884",       "hmma",           "i16832",           "i8816",
      "s884",       "s1688",          "xmma_gemm",        "xmma_implicit_gemm",
      "xmma_sparse_conv", "xmma_sparse_gemm", "xmma_warp_specialized_implicit_gemm"};
  for (std::string_view p : kPatterns) {
    if (Contains(kernel_name, p)) return true;
  }
  return false;
}

bool IsOpTensorCoreEligible(std::string_view n) {
  return EndsWith(n, "Conv2D") || EndsWith(n, "Conv2DBackpropFilter") || EndsWith(n, "Conv2DBackpropInput") ||
         EndsWith(n, "Conv3D") || EndsWith(n, "DepthwiseConv2dNative") ||
         EndsWith(n, "DepthwiseConv2dNativeBackpropFilter") || EndsWith(n, "DepthwiseConv2dNativeBackpropInput") ||
         Contains(n, "BatchMatMul") || EndsWith(n, "/MatMul") || EndsWith(n, "FusedMatMul") ||
         EndsWith(n, "/CudnnRNN") || Contains(n, "CudnnRNNV") || Contains(n, "CudnnRNNForward") ||
         Contains(n, "CudnnRNNBackprop") || EndsWith(n, "XlaDot") || EndsWith(n, "XlaDotV2");
}

bool IsEinsumTensorCoreEligible(std::string_view equation) {
  if (equation.empty()) return false;
  size_t arrow = equation.find("->");
  if (arrow == std::string_view::npos || equation.find("->", arrow + 2) != std::string_view::npos) return false;
  std::string_view lhs = equation.substr(0, arrow);
  size_t commas = 0;
  for (char c : lhs) commas += c == ',';
  return commas == 1;
}

}  // namespace tbprof
