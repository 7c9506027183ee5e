#include "convert/analysis/trace_analysis/op_shape_cost.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

namespace tbprof::trace_analysis {
namespace {

// A cursor over one JSON array text as the profiler writes its args.
class ArrayText {
 public:
  explicit ArrayText(std::string_view s) : s_(s) {}
  void Skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool Eat(char c) {
    Skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    Skip();
    return i_ < s_.size() && s_[i_] == c;
  }
  bool Int(int64_t* v) {
    Skip();
    auto [p, ec] = std::from_chars(s_.data() + i_, s_.data() + s_.size(), *v);
    if (ec != std::errc()) return false;
    i_ = static_cast<size_t>(p - s_.data());
    return true;
  }
  // A string without escapes (dtype names and the concrete values have none);
  // one with escapes is returned raw, which no formula reads.
  bool Str(std::string_view* out) {
    if (!Eat('"')) return false;
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) return false;
    *out = s_.substr(start, i_ - start);
    ++i_;
    return true;
  }
  // Skips one value of any kind (nested lists, strings, numbers).
  bool SkipValue() {
    Skip();
    int depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        std::string_view ignored;
        if (!Str(&ignored)) return false;
        if (depth == 0) return true;
        continue;
      }
      if (c == '[') ++depth;
      if (c == ']') {
        if (depth == 0) return true;
        if (--depth == 0) {
          ++i_;
          return true;
        }
      }
      if (c == ',' && depth == 0) return true;
      ++i_;
    }
    return depth == 0;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// One element of "Input Dims": a list of integers is a tensor's shape (the
// empty list is a scalar's); anything else (a list of lists) is no tensor.
bool ParseShape(ArrayText& t, OpArgShape* arg) {
  if (!t.Eat('[')) return t.SkipValue();
  if (t.Eat(']')) return true;
  if (t.Peek('[')) {
    while (true) {
      if (!t.SkipValue()) return false;
      if (t.Eat(']')) return true;
      if (!t.Eat(',')) return false;
    }
  }
  arg->tensor = true;
  while (true) {
    int64_t v = 0;
    if (!t.Int(&v)) return false;
    arg->dims.push_back(v);
    if (t.Eat(']')) return true;
    if (!t.Eat(',')) return false;
  }
}

double Numel(const OpArgShape& a) {
  double n = 1;
  for (int64_t d : a.dims) n *= static_cast<double>(d);
  return n;
}

bool IsTensor(const std::vector<OpArgShape>& args, size_t i) { return i < args.size() && args[i].tensor && args[i].dtype_bytes > 0; }

std::string_view Concrete(const std::vector<std::string_view>& c, size_t i) { return i < c.size() ? c[i] : std::string_view(); }

// A concrete list of integers ("[1, 1]"); empty when it is not one.
std::vector<int64_t> IntList(std::string_view text) {
  std::vector<int64_t> out;
  ArrayText t(text);
  if (!t.Eat('[')) return out;
  if (t.Eat(']')) return out;
  while (true) {
    int64_t v = 0;
    if (!t.Int(&v)) return {};
    out.push_back(v);
    if (t.Eat(']')) return out;
    if (!t.Eat(',')) return {};
  }
}

std::optional<bool> BoolText(std::string_view s) {
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  return std::nullopt;
}

std::optional<int64_t> IntText(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// C[M,N] = A[M,K]·B[K,N], `batch` times, plus `bias` elements added.
OpCost Gemm(double batch, double m, double n, double k, double bias, int dtype_bytes) {
  OpCost c;
  c.flops = batch * 2 * m * n * k + (bias > 0 ? batch * m * n : 0);
  c.bytes = (batch * (m * k + k * n + m * n) + bias) * dtype_bytes;
  return c;
}

OpCost GemmCost(std::string_view name, const std::vector<OpArgShape>& a) {
  auto dims = [&](size_t i) -> const std::vector<int64_t>& { return a[i].dims; };
  if (name == "aten::mm" && IsTensor(a, 0) && IsTensor(a, 1) && dims(0).size() == 2 && dims(1).size() == 2) {
    return Gemm(1, dims(0)[0], dims(1)[1], dims(0)[1], 0, a[0].dtype_bytes);
  }
  if (name == "aten::addmm" && IsTensor(a, 0) && IsTensor(a, 1) && IsTensor(a, 2) && dims(1).size() == 2 &&
      dims(2).size() == 2) {
    return Gemm(1, dims(1)[0], dims(2)[1], dims(1)[1], Numel(a[0]), a[1].dtype_bytes);
  }
  if (name == "aten::bmm" && IsTensor(a, 0) && IsTensor(a, 1) && dims(0).size() == 3 && dims(1).size() == 3) {
    return Gemm(dims(0)[0], dims(0)[1], dims(1)[2], dims(0)[2], 0, a[0].dtype_bytes);
  }
  if (name == "aten::baddbmm" && IsTensor(a, 0) && IsTensor(a, 1) && IsTensor(a, 2) && dims(1).size() == 3 &&
      dims(2).size() == 3) {
    return Gemm(dims(1)[0], dims(1)[1], dims(2)[2], dims(1)[2], Numel(a[0]), a[1].dtype_bytes);
  }
  if (name == "aten::linear" && IsTensor(a, 0) && IsTensor(a, 1) && !dims(0).empty() && dims(1).size() == 2 &&
      dims(0).back() > 0) {
    const double k = static_cast<double>(dims(0).back());
    const double bias = IsTensor(a, 2) ? Numel(a[2]) : 0;
    return Gemm(1, Numel(a[0]) / k, dims(1)[0], k, bias, a[0].dtype_bytes);
  }
  if (name == "aten::matmul" && IsTensor(a, 0) && IsTensor(a, 1) && dims(0).size() >= 2 && dims(1).size() >= 2 &&
      dims(0).back() > 0) {
    const double k = static_cast<double>(dims(0).back()), n = static_cast<double>(dims(1).back());
    if (dims(1).size() == 2) return Gemm(1, Numel(a[0]) / k, n, k, 0, a[0].dtype_bytes);
    const double m = static_cast<double>(dims(0)[dims(0).size() - 2]);
    return Gemm(Numel(a[0]) / (m * k), m, n, k, 0, a[0].dtype_bytes);
  }
  return {};
}

// Where a convolution op keeps stride, padding, dilation and groups in its
// arguments (aten's schemas); transposed convolutions are left unknown.
struct ConvArgs {
  int stride, padding, dilation, groups, transposed;  // -1: not an argument
};
std::optional<ConvArgs> ConvArgsOf(std::string_view name) {
  if (name == "aten::convolution" || name == "aten::_convolution") return ConvArgs{3, 4, 5, 8, 6};
  if (name == "aten::conv1d" || name == "aten::conv2d" || name == "aten::conv3d") return ConvArgs{3, 4, 5, 6, -1};
  if (name == "aten::cudnn_convolution") return ConvArgs{3, 2, 4, 5, -1};
  return std::nullopt;
}

OpCost ConvCost(const ConvArgs& at, const std::vector<OpArgShape>& a, const std::vector<std::string_view>& c) {
  if (!IsTensor(a, 0) || !IsTensor(a, 1)) return {};
  const std::vector<int64_t>& in = a[0].dims;
  const std::vector<int64_t>& w = a[1].dims;
  if (in.size() < 3 || w.size() != in.size()) return {};
  const size_t spatial = in.size() - 2;
  if (at.transposed >= 0 && BoolText(Concrete(c, at.transposed)).value_or(true)) return {};
  const std::vector<int64_t> stride = IntList(Concrete(c, at.stride)), padding = IntList(Concrete(c, at.padding)),
                             dilation = IntList(Concrete(c, at.dilation));
  const std::optional<int64_t> groups = IntText(Concrete(c, at.groups));
  auto pick = [](const std::vector<int64_t>& v, size_t i) { return v.size() == 1 ? v[0] : v[i]; };
  auto fits = [&](const std::vector<int64_t>& v) { return v.size() == 1 || v.size() == spatial; };
  if (!fits(stride) || !fits(padding) || !fits(dilation) || !groups || *groups <= 0) return {};
  double output_spatial = 1, kernel_spatial = 1;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t s = pick(stride, i);
    if (s <= 0) return {};
    const int64_t out = (in[i + 2] + 2 * pick(padding, i) - pick(dilation, i) * (w[i + 2] - 1) - 1) / s + 1;
    if (out <= 0) return {};
    output_spatial *= static_cast<double>(out);
    kernel_spatial *= static_cast<double>(w[i + 2]);
  }
  const double batch = static_cast<double>(in[0]), out_channels = static_cast<double>(w[0]);
  const double in_channels_per_group = static_cast<double>(w[1]);
  const bool bias = at.groups != 5 && IsTensor(a, 2);  // cudnn_convolution takes no bias
  const double output = batch * out_channels * output_spatial;
  OpCost cost;
  cost.flops = 2 * output * in_channels_per_group * kernel_spatial + (bias ? output : 0);
  cost.bytes = (Numel(a[0]) + Numel(a[1]) + (bias ? Numel(a[2]) : 0) + output) * a[0].dtype_bytes;
  return cost;
}

// Attention ops: whether Q is laid out [B, H, N, d] (else [B, N, H, d]) and
// which concrete argument says causal.
struct AttentionArgs {
  bool bhnd;
  int causal;
  bool causal_is_mask_type;  // _efficient_attention_forward: a mask type, 0 = none
};
std::optional<AttentionArgs> AttentionArgsOf(std::string_view name) {
  if (name == "aten::scaled_dot_product_attention") return AttentionArgs{true, 5, false};
  if (name == "aten::_scaled_dot_product_flash_attention") return AttentionArgs{true, 4, false};
  if (name == "aten::_scaled_dot_product_efficient_attention") return AttentionArgs{true, 6, false};
  if (name == "aten::_scaled_dot_product_cudnn_attention") return AttentionArgs{true, 6, false};
  if (name == "aten::_flash_attention_forward") return AttentionArgs{false, 8, false};
  if (name == "aten::_efficient_attention_forward") return AttentionArgs{false, 9, true};
  return std::nullopt;
}

OpCost AttentionCost(const AttentionArgs& at, const std::vector<OpArgShape>& a, const std::vector<std::string_view>& c) {
  for (size_t i = 0; i < 3; ++i) {
    if (!IsTensor(a, i) || a[i].dims.size() != 4) return {};
  }
  const size_t h = at.bhnd ? 1 : 2, n = at.bhnd ? 2 : 1;
  auto d = [&](size_t arg, size_t axis) { return static_cast<double>(a[arg].dims[axis]); };
  const double batch = d(0, 0), heads_q = d(0, h), n_q = d(0, n), d_qk = d(0, 3);
  const double heads_kv = d(1, h), n_kv = d(1, n), d_v = d(2, 3);
  if (d(1, 3) != d_qk || d(2, n) != n_kv) return {};
  std::optional<bool> causal;
  if (at.causal_is_mask_type) {
    if (std::optional<int64_t> mask = IntText(Concrete(c, at.causal))) causal = *mask != 0;
  } else {
    causal = BoolText(Concrete(c, at.causal));
  }
  if (!causal || (*causal && n_q != n_kv)) return {};
  OpCost cost;
  cost.flops = batch * heads_q * 2 * n_q * n_kv * (d_qk + d_v) / (*causal ? 2 : 1);
  cost.bytes = batch * (n_q * heads_q * d_qk + n_kv * heads_kv * (d_qk + d_v) + n_q * heads_q * d_v) * a[0].dtype_bytes;
  return cost;
}

constexpr std::array<std::string_view, 22> kUnary = {
    "relu", "gelu", "silu", "sigmoid", "tanh", "exp", "log", "neg", "abs", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "erf", "hardswish", "hardsigmoid", "leaky_relu", "elu", "softplus", "clamp", "square"};
constexpr std::array<std::string_view, 20> kBinary = {
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "gt", "le", "ge",
    "threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward", "rsub", "where"};
constexpr std::array<std::string_view, 6> kComparisons = {"eq", "ne", "lt", "gt", "le", "ge"};

// The aten name without its namespace and in-place underscore; empty when not an elementwise op.
std::string_view ElementwiseBase(std::string_view name) {
  if (!name.starts_with("aten::")) return {};
  name.remove_prefix(6);
  if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') name.remove_suffix(1);
  const bool known = std::find(kUnary.begin(), kUnary.end(), name) != kUnary.end() ||
                     std::find(kBinary.begin(), kBinary.end(), name) != kBinary.end();
  return known ? name : std::string_view();
}

OpCost ElementwiseCost(std::string_view base, const std::vector<OpArgShape>& a) {
  std::vector<int64_t> out;  // the inputs' shapes broadcast together
  double read = 0;
  int dtype_bytes = 0;
  for (const OpArgShape& arg : a) {
    if (!arg.tensor || arg.dtype_bytes == 0) continue;
    if (dtype_bytes == 0) dtype_bytes = arg.dtype_bytes;
    read += Numel(arg) * arg.dtype_bytes;
    if (arg.dims.size() > out.size()) out.insert(out.begin(), arg.dims.size() - out.size(), 1);
    for (size_t i = 0; i < arg.dims.size(); ++i) {
      int64_t& o = out[out.size() - arg.dims.size() + i];
      if (o == 1) o = arg.dims[i];
    }
  }
  if (dtype_bytes == 0) return {};
  double elements = 1;
  for (int64_t d : out) elements *= static_cast<double>(d);
  const bool comparison = std::find(kComparisons.begin(), kComparisons.end(), base) != kComparisons.end();
  OpCost cost;
  cost.flops = elements;
  cost.bytes = read + elements * (comparison ? 1 : dtype_bytes);
  return cost;
}

}  // namespace

int DtypeBytes(std::string_view t) {
  if (t == "c10::BFloat16" || t == "c10::Half" || t == "short int") return 2;
  if (t == "float" || t == "int" || t == "unsigned int" || t == "c10::complex<c10::Half>") return 4;
  if (t == "double" || t == "long int" || t == "c10::complex<float>") return 8;
  if (t == "bool" || t == "unsigned char" || t == "signed char" || t.starts_with("c10::Float8")) return 1;
  if (t == "c10::complex<double>") return 16;
  return 0;
}

FloatType FloatTypeOf(std::string_view t) {
  if (t == "float") return FloatType::kFp32;
  if (t == "c10::Half") return FloatType::kFp16;
  if (t == "c10::BFloat16") return FloatType::kBf16;
  return FloatType::kNone;
}

std::vector<OpArgShape> ParseOpArgs(std::string_view input_dims, std::string_view input_types) {
  std::vector<OpArgShape> args;
  ArrayText dims(input_dims);
  if (!dims.Eat('[')) return {};
  if (!dims.Eat(']')) {
    while (true) {
      args.emplace_back();
      if (!ParseShape(dims, &args.back())) return {};
      if (dims.Eat(']')) break;
      if (!dims.Eat(',')) return {};
    }
  }
  ArrayText types(input_types);
  if (types.Eat('[') && !types.Eat(']')) {
    for (size_t i = 0;; ++i) {
      std::string_view type;
      if (!types.Str(&type)) break;
      if (i < args.size()) args[i].dtype_bytes = DtypeBytes(type), args[i].float_type = FloatTypeOf(type);
      if (!types.Eat(',')) break;
    }
  }
  return args;
}

std::vector<std::string_view> ParseConcreteInputs(std::string_view concrete_inputs) {
  std::vector<std::string_view> out;
  ArrayText t(concrete_inputs);
  if (!t.Eat('[') || t.Eat(']')) return out;
  while (true) {
    std::string_view v;
    if (!t.Str(&v)) return out;
    out.push_back(v);
    if (!t.Eat(',')) return out;
  }
}

CostClass CostClassOf(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kGemm = {"aten::mm",      "aten::addmm",  "aten::bmm",
                                                            "aten::baddbmm", "aten::linear", "aten::matmul"};
  if (std::find(kGemm.begin(), kGemm.end(), name) != kGemm.end()) return CostClass::kGemm;
  if (ConvArgsOf(name)) return CostClass::kConvolution;
  if (AttentionArgsOf(name)) return CostClass::kAttention;
  if (!ElementwiseBase(name).empty()) return CostClass::kElementwise;
  return CostClass::kNone;
}

bool HasCostFormula(std::string_view name) { return CostClassOf(name) != CostClass::kNone; }

FloatType FloatTypeOfArgs(const std::vector<OpArgShape>& args) {
  for (const OpArgShape& a : args) {
    if (a.tensor && a.dtype_bytes > 0) return a.float_type;
  }
  return FloatType::kNone;
}

OpCost OpCostOf(std::string_view name, const std::vector<OpArgShape>& args,
                const std::vector<std::string_view>& concrete) {
  if (args.empty()) return {};
  if (std::optional<ConvArgs> conv = ConvArgsOf(name)) return ConvCost(*conv, args, concrete);
  if (std::optional<AttentionArgs> attention = AttentionArgsOf(name)) return AttentionCost(*attention, args, concrete);
  if (std::string_view base = ElementwiseBase(name); !base.empty()) return ElementwiseCost(base, args);
  return GemmCost(name, args);
}

}  // namespace tbprof::trace_analysis
