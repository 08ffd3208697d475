// Parsing, planning and CUDA C++ generation for ek_elementwise_* (see
// elementwise_codegen.hpp). Generated code needs no headers: f16 goes through
// the PTX cvt instructions, bf16 through bit operations, so NVRTC runs
// without an include path.
#include "jit/elementwise_codegen.hpp"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <set>

#include "ops/tensor_desc.hpp"

namespace ek {
namespace ewgen {

const char kWaitPrior[] =
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
    "  asm volatile(\"griddepcontrol.launch_dependents;\" :::);\n"
    "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "#endif\n";
const char kNoWaitSuffix[] = "_nowait";
namespace {

// Indexed by dtype code (tensor_desc.hpp): names as ek_dtype_name, the type
// an element is stored as, and the type the body sees.
const char *const kNames[kNumDTypes] = {"bool",    "uint8",    "int8",    "int16",   "int32",
                                        "int64",   "float16",  "bfloat16", "float32", "float64",
                                        "uint16",  "uint32",   "uint64"};
const char *const kStorage[kNumDTypes] = {
    "unsigned char",  "unsigned char",  "signed char", "short", "int",
    "long long",      "unsigned short", "unsigned short", "float", "double",
    "unsigned short", "unsigned int",   "unsigned long long"};
const char *const kValue[kNumDTypes] = {"bool",      "unsigned char", "signed char", "short", "int",
                                        "long long", "float",         "float",       "float", "double",
                                        "unsigned short", "unsigned int", "unsigned long long"};

const char *const kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await",
    "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
    "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
    "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
    "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // CUDA built-in variables: the kernel reads them in the body's scope.
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_ws(const std::string &s) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
  return tokens;
}

bool is_identifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

const char *reserved_reason(const std::string &name) {
  if (name == "i") return "the element index";
  if (name.compare(0, 4, "ekw_") == 0) return "the prefix ekw_ belongs to the generated code";
  if (name.compare(0, 2, "__") == 0 || (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
    return "names starting __ or _ and a capital are reserved in C++";
  for (const char *k : kKeywords)
    if (name == k) return "a C++ or CUDA reserved word";
  return nullptr;
}

bool check_name(const std::string &name, const std::string &item, std::string *error) {
  if (!is_identifier(name)) {
    *error = item == name ? format("'%s' is not a C identifier", name.c_str())
                          : format("'%s' in '%s' is not a C identifier", name.c_str(), item.c_str());
    return false;
  }
  if (const char *why = reserved_reason(name)) {
    *error = format("'%s' is reserved (%s)", name.c_str(), why);
    return false;
  }
  return true;
}

bool parse_one(const std::string &item, std::vector<Param> *out, std::string *error) {
  if (item.empty()) {
    *error = "empty parameter (a stray comma?)";
    return false;
  }
  std::vector<std::string> tokens = split_ws(item);
  if (tokens.size() != 2) {
    *error = format("'%s' is not '<dtype> <name>'", item.c_str());
    return false;
  }
  int dt = dtype_from_name(tokens[0]);
  if (dt < 0) {
    *error = format("unknown type '%s' in '%s' (types: bool, int8, uint8, int16, uint16, int32, "
                    "uint32, int64, uint64, float16, bfloat16, float32, float64)", tokens[0].c_str(), item.c_str());
    return false;
  }
  if (!check_name(tokens[1], item, error)) return false;
  out->push_back(Param{dt, tokens[1]});
  return true;
}

// ---- generation helpers

// The body's value of a stored element, and back.
std::string load_expr(int dt, const std::string &raw) {
  if (dt == kBool) return "(" + raw + " != 0)";
  if (dt == kF16) return "ekw_h2f(" + raw + ")";
  if (dt == kBF16) return "ekw_b2f(" + raw + ")";
  return raw;
}

std::string store_expr(int dt, const std::string &value) {
  if (dt == kBool) return "(unsigned char)(" + value + " ? 1 : 0)";
  if (dt == kF16) return "ekw_f2h(" + value + ")";
  if (dt == kBF16) return "ekw_f2b(" + value + ")";
  return value;
}

std::vector<Param> all_params(const Signature &sig) {
  std::vector<Param> all = sig.in;
  all.insert(all.end(), sig.out.begin(), sig.out.end());
  return all;
}

int count_lines(const std::string &s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// f16 through PTX cvt (round to nearest even; exact widening), a NaN's sign
// OR-ed back in (the hardware drops it), as ek's own converters
// (util/half.hpp); bf16 widens by a shift and narrows with round to nearest
// even on the bits (NaN stays NaN).
void emit_conversions(const std::vector<Param> &all, std::string &s) {
  bool f16 = false, bf16 = false;
  for (const Param &p : all) {
    f16 = f16 || p.dtype == kF16;
    bf16 = bf16 || p.dtype == kBF16;
  }
  if (f16)
    s += "static __device__ __forceinline__ float ekw_h2f(unsigned short h) {\n"
         "  float f;\n  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n"
         "  return __uint_as_float(__float_as_uint(f) | ((unsigned)(h & 0x8000u) << 16));\n}\n"
         "static __device__ __forceinline__ unsigned short ekw_f2h(float f) {\n"
         "  unsigned short h;\n  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f));\n"
         "  return h | (unsigned short)((__float_as_uint(f) >> 16) & 0x8000u);\n}\n";
  if (bf16)
    s += "static __device__ __forceinline__ float ekw_b2f(unsigned short b) {\n"
         "  return __uint_as_float((unsigned)b << 16);\n}\n"
         "static __device__ __forceinline__ unsigned short ekw_f2b(float f) {\n"
         "  const unsigned u = __float_as_uint(f);\n"
         "  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);\n"
         "  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n";
}

void emit_args_struct(int nparams, int scalars, std::string &s) {
  s += format("struct ekw_args {\n  void *p[%d];\n  long long n;\n  long long shape[%d];\n"
              "  long long st[%d][%d];\n",
              nparams, kMaxRank, nparams, kMaxRank);
  if (scalars > 0) s += format("  unsigned long long sc[%d];\n", scalars);
  s += format("};\nstatic_assert(sizeof(ekw_args) == %zu, \"ekw_args layout\");\n",
              args_struct_bytes(nparams, scalars));
}

// The body runs in ekw_element on locals named after the parameters: inputs
// const, outputs starting from the element's current value (CuPy semantics;
// the load is dead code, removed, when the body only assigns the output).
void emit_element(const Signature &sig, const std::string &program, std::string &s) {
  s += "static __device__ __forceinline__ void ekw_element(const long long i";
  for (size_t k = 0; k < sig.in.size(); ++k)
    s += format(", const %s ekw_in%zu", kStorage[sig.in[k].dtype], k);
  for (size_t k = 0; k < sig.out.size(); ++k)
    s += format(", %s &ekw_out%zu", kStorage[sig.out[k].dtype], k);
  if (sig.scalars > 0) s += ", const unsigned long long *ekw_sc";
  s += ") {\n  (void)i;\n";
  // Names are concatenated, not formatted: they may be long.
  for (size_t k = 0; k < sig.in.size(); ++k)
    s += std::string("  const ") + kValue[sig.in[k].dtype] + " " + sig.in[k].name + " = " +
         load_expr(sig.in[k].dtype, "ekw_in" + std::to_string(k)) + ";\n";
  for (size_t k = 0; k < sig.out.size(); ++k)
    s += std::string("  ") + kValue[sig.out[k].dtype] + " " + sig.out[k].name + " = " +
         load_expr(sig.out[k].dtype, "ekw_out" + std::to_string(k)) + ";\n";
  // #line: compiler messages point at the user's body lines, then back here.
  s += "  {\n#line 1 \"" + sig.name + ":body\"\n" + sig.body + "\n;}\n";
  s += "#line " + std::to_string(count_lines(s) + 2) + " \"" + program + "\"\n";
  for (size_t k = 0; k < sig.out.size(); ++k)
    s += "  ekw_out" + std::to_string(k) + " = " + store_expr(sig.out[k].dtype, sig.out[k].name) +
         ";\n";
  s += "}\n";
}

// "ekw_element(i, <arg 0>, <arg 1>, ...)" with each argument from expr(k).
template <typename F>
std::string element_call(const std::string &index, int nparams, int scalars, F expr) {
  std::string c = "ekw_element((long long)(" + index + ")";
  for (int k = 0; k < nparams; ++k) c += ", " + expr(k);
  return c + (scalars > 0 ? ", ekw_a.sc);\n" : ");\n");
}

void emit_index_types(const Spec &spec, std::string &s) {
  s += spec.index32 ? "  typedef unsigned int ekw_idx;\n  typedef int ekw_off;\n"
                    : "  typedef unsigned long long ekw_idx;\n  typedef long long ekw_off;\n";
}

// (a name may be long: no format())
std::string kernel_head(const std::string &name, int max_threads, bool wait_prior) {
  return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(max_threads) + ") " + name +
         "(const ekw_args ekw_a) {\n" + (wait_prior ? kWaitPrior : "");
}

// Contiguous and aligned: each thread loads `chunks` vectors of spec.vec
// elements per operand (all loads first, so they are in flight together),
// runs the body on each element, stores the output vectors. The last
// n % spec.vec elements go to the first threads of block 0. Any block size
// up to sig.max_threads works (blockDim.x), so a launch may pick its own.
void emit_vector_kernel(const Signature &sig, const Spec &spec, int chunks, const std::string &name,
                        bool wait_prior, std::string &s) {
  const std::vector<Param> all = all_params(sig);
  const int np = static_cast<int>(all.size()), nin = static_cast<int>(sig.in.size());
  const int vec = spec.vec;
  s += kernel_head(name, sig.max_threads, wait_prior);
  emit_index_types(spec, s);
  s += format("  const ekw_idx n = (ekw_idx)ekw_a.n, ekw_nvec = n / %du;\n", vec);
  for (int k = 0; k < np; ++k)
    s += format("  %sekw_vec<%s> *ekw_p%d = (%sekw_vec<%s> *)ekw_a.p[%d];\n", k < nin ? "const " : "",
                kStorage[all[k].dtype], k, k < nin ? "const " : "", kStorage[all[k].dtype], k);
  s += format("  const ekw_idx ekw_nt = blockDim.x, ekw_per_block = ekw_nt * %d;\n", chunks);
  s += "  for (ekw_idx ekw_base = (ekw_idx)blockIdx.x * ekw_per_block + threadIdx.x; ekw_base < ekw_nvec;\n"
       "       ekw_base += (ekw_idx)gridDim.x * ekw_per_block) {\n";
  for (int k = 0; k < np; ++k)
    s += format("    ekw_vec<%s> ekw_v%d[%d];\n", kStorage[all[k].dtype], k, chunks);
  s += format("#pragma unroll\n    for (int ekw_c = 0; ekw_c < %d; ++ekw_c) {\n", chunks);
  s += "      const ekw_idx ekw_j = ekw_base + ekw_c * ekw_nt;\n      if (ekw_j < ekw_nvec) {\n";
  for (int k = 0; k < np; ++k) s += format("        ekw_v%d[ekw_c] = ekw_p%d[ekw_j];\n", k, k);
  s += "      }\n    }\n";
  s += format("#pragma unroll\n    for (int ekw_c = 0; ekw_c < %d; ++ekw_c) {\n", chunks);
  s += "      const ekw_idx ekw_j = ekw_base + ekw_c * ekw_nt;\n      if (ekw_j >= ekw_nvec) continue;\n";
  s += format("#pragma unroll\n      for (int ekw_e = 0; ekw_e < %d; ++ekw_e)\n        ", vec);
  s += element_call(format("ekw_j * %d + ekw_e", vec), np, sig.scalars,
                    [](int k) { return format("ekw_v%d[ekw_c].e[ekw_e]", k); });
  for (int k = nin; k < np; ++k) s += format("      ekw_p%d[ekw_j] = ekw_v%d[ekw_c];\n", k, k);
  s += "    }\n  }\n";
  s += format("  const ekw_idx ekw_t = ekw_nvec * %du + (ekw_idx)blockIdx.x * ekw_nt + threadIdx.x;\n", vec);
  s += "  if (ekw_t < n) ";
  s += element_call("ekw_t", np, sig.scalars, [&](int k) {
    return format("((%s%s *)ekw_a.p[%d])[ekw_t]", k < nin ? "const " : "", kStorage[all[k].dtype], k);
  });
  s += "}\n";
}

// Any layout: one element per thread and loop step; offsets from the index
// by divisions over the shape, innermost dim first (dim 0 needs none).
void emit_strided_kernel(const Signature &sig, const Spec &spec, std::string &s) {
  const std::vector<Param> all = all_params(sig);
  const int np = static_cast<int>(all.size()), nin = static_cast<int>(sig.in.size());
  s += kernel_head(sig.name, kThreads, sig.wait_prior);
  emit_index_types(spec, s);
  s += "  const ekw_idx n = (ekw_idx)ekw_a.n;\n";
  s += format("  for (ekw_idx ekw_t = (ekw_idx)blockIdx.x * %d + threadIdx.x; ekw_t < n;\n"
              "       ekw_t += (ekw_idx)gridDim.x * %d) {\n", kThreads, kThreads);
  s += "    ekw_idx ekw_r = ekw_t;\n    ekw_off ekw_c;\n";
  for (int k = 0; k < np; ++k) s += format("    ekw_off ekw_o%d = 0;\n", k);
  for (int d = spec.rank - 1; d >= 0; --d) {
    if (d > 0)
      s += format("    { const ekw_idx ekw_s = (ekw_idx)ekw_a.shape[%d], ekw_q = ekw_r / ekw_s;\n"
                  "      ekw_c = (ekw_off)(ekw_r - ekw_q * ekw_s); ekw_r = ekw_q; }\n", d);
    else
      s += "    ekw_c = (ekw_off)ekw_r;\n";
    for (int k = 0; k < np; ++k) s += format("    ekw_o%d += ekw_c * (ekw_off)ekw_a.st[%d][%d];\n", k, k, d);
  }
  s += "    ";
  s += element_call("ekw_t", np, sig.scalars, [&](int k) {
    return format("((%s%s *)ekw_a.p[%d])[ekw_o%d]", k < nin ? "const " : "", kStorage[all[k].dtype], k, k);
  });
  s += "  }\n}\n";
}

bool vector_aligned(const std::vector<Operand> &ops, int vec) {
  for (const Operand &o : ops) {
    auto align = static_cast<uintptr_t>(o.elem_size * vec > 16 ? 16 : o.elem_size * vec);
    if (reinterpret_cast<uintptr_t>(o.data) % align != 0) return false;
  }
  return true;
}

}  // namespace

int dtype_from_name(const std::string &name) {
  for (int dt = 0; dt < kNumDTypes; ++dt)  // complex dtypes have no row: unknown here
    if (kNames[dt] && name == kNames[dt]) return dt;
  return -1;
}

bool is_reserved(const std::string &name) { return reserved_reason(name) != nullptr; }

bool parse_params(const char *text, std::vector<Param> *out, std::string *error) {
  out->clear();
  const std::string s = text ? text : "";
  if (trim(s).empty()) return true;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string item = trim(s.substr(start, comma == std::string::npos ? comma : comma - start));
    if (!parse_one(item, out, error)) return false;
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

bool check_signature(const std::vector<Param> &in, const std::vector<Param> &out,
                     std::string *error) {
  if (out.empty()) {
    *error = "out_params declares no outputs";
    return false;
  }
  if (in.size() + out.size() > static_cast<size_t>(kMaxParams)) {
    *error = format("%zu parameters; at most %d in all", in.size() + out.size(), kMaxParams);
    return false;
  }
  std::set<std::string> seen;
  for (const auto *list : {&in, &out})
    for (const Param &p : *list)
      if (!seen.insert(p.name).second) {
        *error = format("duplicate parameter name '%s'", p.name.c_str());
        return false;
      }
  return true;
}

bool check_kernel_name(const std::string &name, std::string *error) {
  return check_name(name, name, error);
}

std::string Spec::key() const {
  return (vectorized ? std::string("v") : "s" + std::to_string(rank) + "_") +
         (index32 ? "32" : "64");
}

Plan make_plan(int ndim, const int64_t *shape, const std::vector<Operand> &ops) {
  Plan p;
  p.nops = static_cast<int>(ops.size());
  for (int k = 0; k < p.nops; ++k) p.data[k] = ops[k].data;
  for (int d = 0; d < ndim; ++d) {
    p.shape[d] = shape[d];
    for (int k = 0; k < p.nops; ++k) p.strides[k][d] = ops[k].strides[d];
  }
  const int r = coalesce_dims(ndim, p.shape, p.strides, p.nops, true);
  p.rank = r;
  p.n = 1;
  for (int d = 0; d < r; ++d) p.n *= p.shape[d];
  bool contiguous = r == 1;
  for (int k = 0; contiguous && k < p.nops; ++k) contiguous = p.strides[k][0] == 1;
  int narrowest = 16;
  for (const Operand &o : ops) narrowest = std::min(narrowest, o.elem_size);
  p.spec.vec = vector_elems(narrowest);
  p.spec.vectorized = contiguous && vector_aligned(ops, p.spec.vec);
  p.spec.rank = p.spec.vectorized ? 1 : r;
  p.spec.index32 = fits_32bit_dims(r, p.shape, p.strides, p.nops);
  return p;
}

int vector_elems(int narrowest_elem_size) { return narrowest_elem_size >= 4 ? 2 : 4; }

int chunks_per_thread(const Signature &sig) {
  int narrowest = 16;
  for (const auto *list : {&sig.in, &sig.out})
    for (const Param &p : *list) narrowest = std::min(narrowest, static_cast<int>(dtype_size(p.dtype)));
  const int vec = vector_elems(narrowest);
  if (vec == 2) return 1;
  int bytes = 0;
  for (const Param &p : sig.in) bytes += vec * static_cast<int>(dtype_size(p.dtype));
  if (bytes == 0) return 4;
  int c = 32 / bytes;
  return c >= 4 ? 4 : (c >= 2 ? 2 : 1);
}

size_t args_bytes(int nparams) {
  return sizeof(uint64_t) * static_cast<size_t>(nparams + 1 + kMaxRank + nparams * kMaxRank);
}

size_t args_struct_bytes(int nparams, int scalars) {
  return args_bytes(nparams) + sizeof(uint64_t) * static_cast<size_t>(scalars);
}

std::vector<uint64_t> pack_args(const Plan &plan) {
  std::vector<uint64_t> w;
  w.reserve(args_bytes(plan.nops) / sizeof(uint64_t));
  for (int k = 0; k < plan.nops; ++k) w.push_back(reinterpret_cast<uintptr_t>(plan.data[k]));
  w.push_back(static_cast<uint64_t>(plan.n));
  for (int d = 0; d < kMaxRank; ++d) w.push_back(static_cast<uint64_t>(plan.shape[d]));
  for (int k = 0; k < plan.nops; ++k)
    for (int d = 0; d < kMaxRank; ++d) w.push_back(static_cast<uint64_t>(plan.strides[k][d]));
  return w;
}

unsigned grid_blocks(const Plan &plan, int chunks, int threads) {
  const int64_t items = plan.spec.vectorized ? plan.n / plan.spec.vec : plan.n;
  const int64_t per_block = plan.spec.vectorized ? int64_t(threads) * chunks : kThreads;
  return grid_for(items, per_block);  // at least 1: the vector kernel's tail runs in block 0
}

std::string generate_element(const Signature &sig, const std::string &program, const std::string &head) {
  const std::vector<Param> all = all_params(sig);
  std::string s = head;
  emit_conversions(all, s);
  s += sig.prelude;
  emit_args_struct(static_cast<int>(all.size()), sig.scalars, s);
  emit_element(sig, program, s);
  return s;
}

std::string generate_source(const Signature &sig, const Spec &spec, int chunks,
                            const std::string &program) {
  std::string s = generate_element(sig, program, "// libek elementwise kernel " + sig.name +
                                                    ", specialisation " + spec.key() + " (generated)\n");
  if (!spec.vectorized) {
    emit_strided_kernel(sig, spec, s);
    return s;
  }
  s += format("template <typename T> struct alignas(sizeof(T) * %d > 16 ? 16 : sizeof(T) * %d) "
              "ekw_vec { T e[%d]; };\n", spec.vec, spec.vec, spec.vec);
  emit_vector_kernel(sig, spec, chunks, sig.name, sig.wait_prior, s);
  if (sig.wait_prior) emit_vector_kernel(sig, spec, chunks, sig.name + kNoWaitSuffix, false, s);
  return s;
}

}  // namespace ewgen
}  // namespace ek
