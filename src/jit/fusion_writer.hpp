// The element code of fused kernels (fusion_codegen.cpp, fusion_rows.cpp):
// Writer turns a run of a pending group's nodes into the body of a generated
// element function, with the operands it reads and writes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/fusion.hpp"
#include "jit/elementwise_codegen.hpp"

namespace ek {
namespace fusion {

// The dtype a tensor travels as: its bits, never converted by the generator.
inline int carrier(int dt) {
  if (dt == kF16 || dt == kBF16) return kU16;
  return dt == kBool ? kU8 : dt;
}

inline const char *carrier_type(int dt) {
  switch (carrier(dt)) {
    case kU8: return "uint8_t";
    case kU16: return "uint16_t";
    case kI32: return "int32_t";
    case kI64: return "int64_t";
    case kF32: return "float";
    default: return "double";
  }
}

inline const char *compute_type(int compute) {
  return compute == ew::kCF64 ? "double" : (compute == ew::kCF32 ? "float" : "long long");
}

inline bool is_half(int dt) { return dt == kF16 || dt == kBF16; }

// Operand k's element at offset `off` in the argument struct a (its p[k]
// as the dtype's carrier), as an lvalue.
inline std::string operand_at(int dtype, size_t k, const std::string &off, bool in) {
  return std::string("((") + (in ? "const " : "") + carrier_type(dtype) + " *)a.p[" + std::to_string(k) + "])[" +
         off + "]";
}

// Generated statements that split the index in variable `index` over dims
// top, ..., 0 of the argument struct's shape (innermost first, into `c`)
// and add each coordinate times operand k's stride to target(k), for the
// nops operands: the divisions a flat index needs to reach strided operands.
inline std::string offsets_code(int top, size_t nops, const std::string &index,
                                const std::function<std::string(size_t)> &target, const std::string &indent) {
  std::string s;
  for (int d = top; d >= 0; --d) {
    const std::string dd = std::to_string(d);
    s += indent + (d > 0 ? "c = " + index + " % a.shape[" + dd + "]; " + index + " /= a.shape[" + dd + "];\n"
                         : "c = " + index + ";\n");
    for (size_t k = 0; k < nops; ++k) s += indent + target(k) + " += c * a.st[" + std::to_string(k) + "][" + dd + "];\n";
  }
  return s;
}

// Writes nodes [begin, end) of g as one element's code: the signature
// (params, body, scalar count) and the operands, inputs then outputs. A value
// computed before begin is read from memory, as an input. The outputs are
// the nodes `stored` selects (by default every node whose value someone reads
// after the kernel), then, when reduced >= 0, that node's value again as the
// last output (a fused reduction's element, never stored).
class Writer {
 public:
  using Stored = std::function<bool(size_t k)>;
  Writer(const Group &g, size_t count, int reduced = -1) : Writer(g, 0, count, reduced, nullptr) {}
  Writer(const Group &g, size_t begin, size_t end, int reduced, Stored stored)
      : g_(g), begin_(begin), count_(end), reduced_(reduced), stored_(std::move(stored)) {}

  void write() {
    for (size_t k = begin_; k < count_; ++k) node(static_cast<int>(k));
    for (size_t k = begin_; k < count_; ++k)
      if (stored_ ? stored_(k) : read_after(k)) output(static_cast<int>(k));
    if (reduced_ >= 0) output(reduced_);
    sig.scalars = static_cast<int>(scalars.size());
    sig.body = body_;
  }
  size_t inputs() const { return inputs_; }

  ewgen::Signature sig;
  std::vector<TensorDesc> operands;  // inputs, then outputs
  std::vector<int> out_nodes;        // the node of each output
  std::vector<uint64_t> scalars;

 private:
  std::string n(int k) { return std::to_string(k); }

  // The expression of operand d loaded into compute type T (a C type name).
  std::string load(const TensorDesc &d, const char *T, int round, int k) {
    for (int j = k - 1; j >= static_cast<int>(begin_); --j) {
      if (!same_desc(g_.nodes[j].out(), d)) continue;
      if (g_.mode == EK_FUSION_ON && is_half(d.dtype)) return "(" + std::string(T) + ")ekf_f" + n(j);
      return format_load(T, "ekf_b" + n(j), d.dtype, round);
    }
    return format_load(T, "(const char *)&ekw_in" + n(input(d)), d.dtype, round);
  }
  static std::string format_load(const char *T, const std::string &ptr, int dt, int round) {
    return std::string("ek::ew::load_operand<") + T + ">(" + ptr + ", " + std::to_string(dt) + ", " +
           std::to_string(round) + ")";
  }

  int input(const TensorDesc &d) {
    for (size_t e = 0; e < inputs_; ++e)
      if (same_desc(operands[e], d)) return static_cast<int>(e);
    operands.push_back(d);
    sig.in.push_back(ewgen::Param{carrier(d.dtype), "ekf_i" + std::to_string(inputs_)});
    return static_cast<int>(inputs_++);
  }

  std::string scalar(const char *T, bool is_int, double f, int64_t i) {
    uint64_t w = 0;
    if (is_int) w = static_cast<uint64_t>(i);
    else std::memcpy(&w, &f, sizeof w);
    scalars.push_back(w);
    const std::string word = "ekw_sc[" + std::to_string(scalars.size() - 1) + "]";
    if (is_int) return "(long long)" + word;
    return "(" + std::string(T) + ")__longlong_as_double((long long)" + word + ")";
  }

  void node(int k) {
    const Node &nd = g_.nodes[k];
    const TensorDesc &out = nd.out();
    body_ += "alignas(8) char ekf_b" + n(k) + "[8];\n";
    if (nd.kind == kCast) {
      body_ += "ek::detail::store_scalar(ekf_b" + n(k) + ", " + n(out.dtype) + ", ek::detail::load_scalar(" +
               raw_ptr(nd.src, k) + ", " + n(nd.src.dtype) + "));\n";
      if (is_half(out.dtype))
        body_ += "const float ekf_f" + n(k) + " = ek::ew::load_as<float>(ekf_b" + n(k) + ", " + n(out.dtype) + ");\n";
      return;
    }
    const int compute = nd.kind == kTernary ? nd.tern.compute : nd.ew.compute;
    const char *T = compute_type(compute);
    const bool is_int = compute == ew::kCI64;
    std::string value;
    if (nd.kind == kUnary) {
      value = std::string("ek::ew::unary_op<") + T + ">(" + n(nd.ew.op) + ", " + load(nd.ew.a, T, nd.ew.round, k) + ")";
    } else if (nd.kind == kBinary) {
      const std::string s = nd.ew.scalar != ew::kNoScalar ? scalar(T, is_int, nd.ew.sf, nd.ew.si) : "";
      const std::string a = nd.ew.scalar == ew::kScalarA ? s : load(nd.ew.a, T, nd.ew.round, k);
      const std::string b = nd.ew.scalar == ew::kScalarB ? s : load(nd.ew.b, T, nd.ew.round, k);
      value = std::string("ek::ew::binary_op<") + T + ">(" + n(nd.ew.op) + ", " + a + ", " + b + ")";
    } else {
      value = ternary(nd.tern, T, is_int, k);
    }
    body_ += std::string("const ") + T + " ekf_v" + n(k) + " = " + value + ";\n";
    body_ += std::string("ek::ew::store_as<") + T + ">(ekf_b" + n(k) + ", " + n(out.dtype) + ", ekf_v" + n(k) + ");\n";
    if (is_half(out.dtype)) body_ += "const float ekf_f" + n(k) + " = float(ekf_v" + n(k) + ");\n";
  }

  // Eager's ternary element (kernels/ternary.cu's strided kernel): cond's
  // truth from its stored bits, x and y loaded without rounding.
  std::string ternary(const tern::Args &t, const char *T, bool is_int, int k) {
    const std::string c0 = scalar(T, is_int, t.cf[0], t.ci[0]);
    const std::string c1 = scalar(T, is_int, t.cf[1], t.ci[1]);
    const std::string cond = t.cond.data ? "ek::tern::is_true(" + raw_ptr(t.cond, k) + ", " + n(t.cond.dtype) + ")" : "false";
    const std::string x = load(t.x, T, ew::kRoundNone, k);
    const std::string y = t.y.data ? load(t.y, T, ew::kRoundNone, k) : "(" + std::string(T) + ")0";  // not T(0): T may be "long long"
    return std::string("ek::tern::apply<") + T + ">(" + n(t.op) + ", " + cond + ", " + x + ", " + y + ", " + c0 +
           ", " + c1 + ")";
  }

  // A pointer to operand d's stored bits (for functions that read bits).
  // Under EK_FUSION_ON a half intermediate is re-stored from its float value.
  std::string raw_ptr(const TensorDesc &d, int k) {
    for (int j = k - 1; j >= static_cast<int>(begin_); --j) {
      if (!same_desc(g_.nodes[j].out(), d)) continue;
      if (g_.mode != EK_FUSION_ON || !is_half(d.dtype)) return "ekf_b" + n(j);
      body_ += "alignas(8) char ekf_r" + n(k) + "[8];\nek::ew::store_as<float>(ekf_r" + n(k) + ", " +
               n(d.dtype) + ", ekf_f" + n(j) + ");\n";
      return "ekf_r" + n(k);
    }
    return "(const char *)&ekw_in" + n(input(d));
  }

  // Whether someone reads node k's value after the kernel: its storage is
  // held (the group's own reference aside) or a node after count_ (a
  // reduction not fused here) reads it; not when a later node of the kernel
  // overwrites that view (in place).
  bool read_after(size_t k) const {
    bool read = g_.written[k]->refs.load(std::memory_order_acquire) > 1;
    if (reduced_ < 0)
      for (size_t j = count_; j < g_.nodes.size(); ++j) read = read || same_desc(g_.nodes[j].src, g_.nodes[k].out());
    for (size_t j = k + 1; j < count_; ++j) read = read && !same_desc(g_.nodes[j].out(), g_.nodes[k].out());
    return read;
  }
  void output(int k) {
    const TensorDesc &d = g_.nodes[k].out();
    const std::string name = "ekf_o" + std::to_string(sig.out.size());
    sig.out.push_back(ewgen::Param{carrier(d.dtype), name});
    operands.push_back(d);
    out_nodes.push_back(k);
    body_ += name + " = ek::detail::ld<" + carrier_type(d.dtype) + ">(ekf_b" + n(k) + ");\n";
  }

  const Group &g_;
  size_t begin_, count_;
  int reduced_;
  Stored stored_;
  size_t inputs_ = 0;
  std::string body_;
};

}  // namespace fusion
}  // namespace ek
