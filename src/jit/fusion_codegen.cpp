// Fused kernels for pending groups (core/fusion.hpp), through the
// elementwise code generator (elementwise_codegen.hpp) and the module layer's
// memory and disk caches.
//
// Bit equality with eager: each node's element code is the eager kernels'
// own, from the same headers (embedded for NVRTC by
// tools/embed/embed_headers.py): operands load with ew::load_operand from
// their stored form, the op is ew::unary_op / binary_op / tern::apply in the
// node's compute type, the result is stored with ew::store_as (casts:
// detail::load_scalar / store_scalar) into an 8-byte local the next node
// loads from, as it would from memory. The eager elementwise and ternary
// kernels and these are compiled without contraction (-fmad=false). Under
// EK_FUSION_ON a float16/bfloat16 result is read by later nodes as its
// float32 value instead. Tensors move as raw bits (float16 and bfloat16 as
// uint16, bool as uint8), so no conversion of the generator's touches them.
//
// The source depends on the chain's structure only: scalars are kernel
// parameters (words after the strides), sizes and addresses launch arguments.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <string>

#include "core/fusion.hpp"
#include "core/profiler.hpp"
#include "kernels/reduce_config.hpp"
#include "jit/elementwise_codegen.hpp"
#include "jit/fusion_build.hpp"
#include "jit/fusion_writer.hpp"
#include "jit/module.hpp"

extern const char kFusionHeaders[];  // generated from the headers (meson.build)
extern const char kFusionReduceHeaders[];  // and the reductions' device code

namespace ek {
namespace fusion {

class KernelCache {
 public:
  std::map<std::string, Kernels> kernels;  // by signature text and specialisation
};

int64_t cached_objects(ek_context ctx) {
  if (!ctx->fusion || !ctx->fusion->kernels) return 0;
  int64_t n = 0;
  for (const auto &e : ctx->fusion->kernels->kernels)  // the kernels and the module
    n += 2 + (e.second.combine ? 1 : 0) + (e.second.nowait ? 1 : 0);
  return n;
}

void destroy_state(ek_context ctx) {
  if (!ctx->fusion) return;
  if (ctx->fusion->kernels)
    for (auto &e : ctx->fusion->kernels->kernels) {
      ek_kernel_release(e.second.main);
      ek_kernel_release(e.second.combine);
      ek_kernel_release(e.second.nowait);
      delete e.second.tuner;
    }
  delete ctx->fusion->kernels;
  delete ctx->fusion;
  ctx->fusion = nullptr;
}

namespace {

ewgen::Operand operand_of(const TensorDesc &d) {
  ewgen::Operand op{d.data, static_cast<int>(dtype_size(d.dtype)), {}};
  std::copy(d.strides, d.strides + d.ndim, op.strides);
  return op;
}

ek_status load_kernels(ek_context ctx, const Build &b, ek_module_origin *origin, Kernels *out) {
  // -default-device: ek.h's declarations in the embedded headers are host
  // functions otherwise, which NVRTC refuses; 177: its unused static inlines.
  const char *options[] = {"--std=c++17", "--fmad=false", "-default-device", "-diag-suppress=177"};
  const std::string source = b.source();
  ek_module m = nullptr;
  EK_FORWARD(ek_module_from_source(ctx, source.c_str(), b.program.c_str(), options, 4, &m));
  ek_status status = module_kernel(m, b.name.c_str(), &b.main, &out->main);
  if (status == EK_SUCCESS && !b.combine.sizes.empty())
    status = module_kernel(m, (b.name + "_combine").c_str(), &b.combine, &out->combine);
  if (status == EK_SUCCESS && b.tuned)
    status = module_kernel(m, (b.name + ewgen::kNoWaitSuffix).c_str(), &b.main, &out->nowait);
  if (status == EK_SUCCESS) ek_module_get_origin(m, origin);
  ek_module_release(m);  // the kernels keep it loaded
  if (status != EK_SUCCESS) {
    ek_kernel_release(out->main);
    ek_kernel_release(out->combine);
    *out = Kernels{};
  }
  return status;
}

}  // namespace

ek_status kernel_for(ek_context ctx, const Group &g, const Build &b, Kernels *out) {
  State &st = *ctx->fusion;
  if (!st.kernels) st.kernels = new KernelCache;
  auto it = st.kernels->kernels.find(b.key);
  if (it != st.kernels->kernels.end()) {
    st.stats.cache_hits_memory++;
    *out = it->second;
    return EK_SUCCESS;
  }
  *out = Kernels{};
  if (captures_underway() > 0) {  // the module layer refuses NVRTC during any capture
    st.stats.fallbacks_capture++;
    return EK_SUCCESS;
  }
  if (static_cast<int64_t>(st.kernels->kernels.size()) >= ctx->config.fusion_max_kernels) {
    st.stats.fallbacks_cap++;
    if (!st.cap_logged) {
      st.cap_logged = true;
      log_message(EK_LOG_WARN, ctx->config.log_level,
                  "fusion: %lld fused kernels compiled (config.fusion_max_kernels); groups that need "
                  "another run eagerly", static_cast<long long>(ctx->config.fusion_max_kernels));
    }
    return EK_SUCCESS;
  }
  OpProfile profile("fusion", "compile", ctx, g.s, {}, {});  // a profiler record per build
  const auto start = std::chrono::steady_clock::now();
  ek_module_origin origin = EK_MODULE_COMPILED;
  Kernels k;
  EK_FORWARD(load_kernels(ctx, b, &origin, &k));
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  st.stats.compile_ns += static_cast<uint64_t>(ns.count());
  st.stats.kernels_compiled++;
  if (origin == EK_MODULE_DISK_CACHE) st.stats.cache_hits_disk++;
  log_message(EK_LOG_INFO, ctx->config.log_level, "fusion: kernel %zu of %zu ops built in %.1f ms (%s)",
              st.kernels->kernels.size() + 1, g.nodes.size(), ns.count() / 1e6,
              origin == EK_MODULE_DISK_CACHE ? "disk cache" : "compiled");
  if (b.tuned)
    k.tuner = new jit::LaunchTuner(ctx, "fusion: kernel " + std::to_string(st.kernels->kernels.size() + 1));
  st.kernels->kernels.emplace(b.key, k);
  *out = k;
  return EK_SUCCESS;
}


const char *family(int kind) {
  if (kind == kRProd) return "ek::cuda::kMul";
  return kind >= kRMax ? "ek::cuda::kExt" : "ek::cuda::kAdd";
}

std::string reduce_prelude() {
  std::string s = "namespace ek {\nconstexpr int kThreads = " + std::to_string(kThreads) +
                  ";\nnamespace cuda {\nconstexpr int kUnroll = " + std::to_string(cuda::kUnroll) +
                  ";\ntemplate <typename T> __device__ __forceinline__ T to_acc(T v) { return v; }\n}\n}\n";
  s += kFusionReduceHeaders;
  s += "static_assert(sizeof(ek::ReducePlan) == " + std::to_string(sizeof(ReducePlan)) + ", \"ReducePlan layout\");\n";
  return s + "template <typename T, int N> struct alignas(sizeof(T) * N > 16 ? 16 : sizeof(T) * N) ekf_vec { T v[N]; };\n";
}

ek_status run_fused(ek_context ctx, const Group &g, size_t count, bool *done) {
  *done = false;
  Writer w(g, count);
  w.write();
  State &st = *ctx->fusion;
  if (w.sig.out.empty() || w.operands.size() > static_cast<size_t>(ewgen::kMaxParams)) {
    st.stats.fallbacks_unsupported++;
    return EK_SUCCESS;
  }
  w.sig.name = "ek_fused";
  w.sig.prelude = kFusionHeaders;
  w.sig.wait_prior = true;
  w.sig.max_threads = static_cast<int>(jit::LaunchTuner::max_threads());
  std::vector<ewgen::Operand> ops;
  for (const TensorDesc &d : w.operands) ops.push_back(operand_of(d));
  const TensorDesc &shape = g.nodes.front().out();
  const ewgen::Plan plan = ewgen::make_plan(shape.ndim, shape.shape, ops);
  const int chunks = ewgen::chunks_per_thread(w.sig);
  std::string key = plan.spec.key() + "|";
  for (const auto *list : {&w.sig.in, &w.sig.out})
    for (const ewgen::Param &p : *list) key += std::to_string(p.dtype) + ",";
  key += "|" + w.sig.body;
  std::vector<uint64_t> words = ewgen::pack_args(plan);
  words.insert(words.end(), w.scalars.begin(), w.scalars.end());
  Build b;
  b.key = key;
  b.name = w.sig.name;
  b.program = w.sig.name + "_" + plan.spec.key() + ".cu";
  b.source = [&] { return ewgen::generate_source(w.sig, plan.spec, chunks, b.program); };
  b.main = one_param(words.size() * sizeof(uint64_t));  // the argument struct, as generated
  b.tuned = plan.spec.vectorized;
  Kernels k;
  EK_FORWARD(kernel_for(ctx, g, b, &k));
  if (!k.main) return EK_SUCCESS;  // counted: the caller replays the nodes
  const ek_kernel_arg arg{words.data(), words.size() * sizeof(uint64_t)};
  OpProfile profile("fusion", "launch", ctx, g.s, {}, {});  // and per fused launch
  auto launch = [&](const jit::LaunchShape &shape) {
    const unsigned grid[3] = {ewgen::grid_blocks(plan, chunks, static_cast<int>(shape.threads)), 1, 1};
    const unsigned block[3] = {shape.threads, 1, 1};
    return launch_generated(g.s, shape.waits ? k.main : k.nowait, grid, block, 0, &arg, 1,
                            shape.waits && dependent_launch(g.s));
  };
  static_assert(jit::LaunchTuner::kShapes[0].threads == kThreads, "the strided kernel's blocks");
  EK_FORWARD(k.tuner ? k.tuner->run(g.s, plan.n, launch) : launch(jit::LaunchTuner::kShapes[0]));
  st.stats.fused_launches++;
  *done = true;
  return EK_SUCCESS;
}

namespace {

// ---- fused reductions: the row kernel of kernels/reduce.cu (row_reduce,
// reduce_device.cuh) over a line whose elements the chain computes.



// Element i of the chain in the argument struct's layout: every operand at
// offset i (vectorized spec), or at offsets by divisions over the shape.
// The last output is the reduced value, returned; the others are the
// chain's values someone holds, stored at i as the row kernel visits each
// element once.
std::string element_at(const ewgen::Signature &sig, const ewgen::Spec &spec, const char *T) {
  const size_t nin = sig.in.size(), nside = sig.out.size() - 1, nmem = nin + nside;
  std::string s = std::string("static __device__ __forceinline__ ") + T +
                  " ekf_at(const ekw_args &a, const long long i) {\n";
  std::vector<std::string> off(nmem, "i");
  if (!spec.vectorized) {
    s += "  long long r = i, c;\n";
    for (size_t k = 0; k < nmem; ++k) s += "  long long o" + std::to_string(k) + " = 0;\n";
    s += offsets_code(spec.rank - 1, nmem, "r", [](size_t k) { return "o" + std::to_string(k); }, "  ");
    for (size_t k = 0; k < nmem; ++k) off[k] = "o" + std::to_string(k);
  }
  s += std::string("  ") + T + " v = 0;\n  ekw_element(i";
  for (size_t k = 0; k < nin; ++k) s += ", " + operand_at(sig.in[k].dtype, k, off[k], true);
  for (size_t k = nin; k < nmem; ++k) s += ", " + operand_at(sig.out[k - nin].dtype, k, off[k], false);
  s += std::string(", v") + (sig.scalars > 0 ? ", a.sc" : "") + ");\n  return v;\n}\n";
  return s;
}

// The V elements from 16-byte aligned i: one load of each input when
// `wide` (contiguous operands aligned for it), else element by element.
std::string vector_at(const ewgen::Signature &sig, bool wide, const char *T, int V) {
  const std::string v = std::to_string(V), vec = std::string("ekf_vec<") + T + ", " + v + ">";
  std::string s = "static __device__ __forceinline__ " + vec + " ekf_vec_at(const ekw_args &a, const long long i) {\n  " +
                  vec + " r;\n";
  if (!wide) return s + "#pragma unroll\n  for (int e = 0; e < " + v + "; ++e) r.v[e] = ekf_at(a, i + e);\n  return r;\n}\n";
  const size_t nin = sig.in.size();
  for (size_t k = 0; k < nin; ++k) {
    const std::string t = carrier_type(sig.in[k].dtype), kk = std::to_string(k);
    s += "  const ekf_vec<" + t + ", " + v + "> x" + kk + " = *(const ekf_vec<" + t + ", " + v + "> *)((const " + t +
         " *)a.p[" + kk + "] + i);\n";
  }
  s += "#pragma unroll\n  for (int e = 0; e < " + v + "; ++e) {\n    r.v[e] = 0;\n    ekw_element(i + e";
  for (size_t k = 0; k < nin; ++k) s += ", x" + std::to_string(k) + ".v[e]";
  for (size_t k = nin; k + 1 < nin + sig.out.size(); ++k) s += ", " + operand_at(sig.out[k - nin].dtype, k, "i + e", false);
  return s + ", r.v[e]" + (sig.scalars > 0 ? ", a.sc" : "") + ");\n  }\n  return r;\n}\n";
}

// The line types row_reduce walks (ekf_vectors, ekf_line, ekf_lines) over
// element i of the chain at flat index i (ekf_at, ekf_vec_at).
std::string flat_line_types(const std::string &t, int V) {
  const std::string vec = "ekf_vec<" + t + ", " + std::to_string(V) + ">";
  return "struct ekf_vectors {\n  const ekw_args &a;\n  long long from;\n"
         "  __device__ __forceinline__ " + vec + " operator[](long long k) const { return ekf_vec_at(a, from + k * " +
         std::to_string(V) + "); }\n};\n"
         "struct ekf_line {\n  typedef " + vec + " Vector;\n  const ekw_args &a;\n  long long base;\n  unsigned long long addr0;\n"
         "  __device__ __forceinline__ " + t + " at(long long j) const { return ekf_at(a, base + j); }\n"
         "  __device__ __forceinline__ ekf_vectors vectors(long long j) const { return ekf_vectors{a, base + j}; }\n"
         "  __device__ __forceinline__ unsigned long long addr(long long j) const { return addr0 + j * sizeof(" + t + "); }\n};\n"
         "struct ekf_lines {\n  const ekw_args &a;\n  const ek::ReducePlan &p;\n"
         "  __device__ __forceinline__ ekf_line operator()(long long row) const {\n"
         "    return ekf_line{a, row * p.r, (unsigned long long)p.in + row * p.r * sizeof(" + t + ")};\n  }\n};\n";
}

// Line mode (strided operands, each reduced line inside one run of the
// innermost dim): the divisions over the shape run once per line, giving
// every operand's offset o[k] of the line's first element; element j of the
// line is then at o[k] + j * (innermost stride), without a division.
std::string element_in_line(const ewgen::Signature &sig, const ewgen::Spec &spec, const char *T) {
  const size_t nin = sig.in.size(), nmem = nin + sig.out.size() - 1;
  const std::string last = std::to_string(spec.rank - 1);
  std::string s = std::string("static __device__ __forceinline__ ") + T +
                  " ekf_at_line(const ekw_args &a, const long long *o, const long long i, const long long j) {\n  " + T +
                  " v = 0;\n  ekw_element(i";
  for (size_t k = 0; k < nmem; ++k) {
    const std::string kk = std::to_string(k), off = "o[" + kk + "] + j * a.st[" + kk + "][" + last + "]";
    s += ", " + (k < nin ? operand_at(sig.in[k].dtype, k, off, true) : operand_at(sig.out[k - nin].dtype, k, off, false));
  }
  return s + ", v" + (sig.scalars > 0 ? ", a.sc" : "") + ");\n  return v;\n}\n";
}

// The line types of line mode; ekf_lines computes each line's offsets.
std::string line_types(const ewgen::Signature &sig, const ewgen::Spec &spec, const std::string &t, int V) {
  const size_t nmem = sig.in.size() + sig.out.size() - 1;
  const std::string vec = "ekf_vec<" + t + ", " + std::to_string(V) + ">", v = std::to_string(V);
  std::string s = "struct ekf_vectors {\n  const ekw_args &a;\n  const long long *o;\n  long long base, from;\n"
                  "  __device__ __forceinline__ " + vec + " operator[](long long k) const {\n    " + vec + " r;\n"
                  "#pragma unroll\n    for (int e = 0; e < " + v + "; ++e) r.v[e] = ekf_at_line(a, o, base + from + k * " + v +
                  " + e, from + k * " + v + " + e);\n    return r;\n  }\n};\n";
  s += "struct ekf_line {\n  typedef " + vec + " Vector;\n  const ekw_args &a;\n  long long base;\n  unsigned long long addr0;\n"
       "  long long o[" + std::to_string(nmem) + "];\n"
       "  __device__ __forceinline__ " + t + " at(long long j) const { return ekf_at_line(a, o, base + j, j); }\n"
       "  __device__ __forceinline__ ekf_vectors vectors(long long j) const { return ekf_vectors{a, o, base, j}; }\n"
       "  __device__ __forceinline__ unsigned long long addr(long long j) const { return addr0 + j * sizeof(" + t + "); }\n};\n";
  s += "struct ekf_lines {\n  const ekw_args &a;\n  const ek::ReducePlan &p;\n"
       "  __device__ __forceinline__ ekf_line operator()(long long row) const {\n"
       "    ekf_line l{a, row * p.r, (unsigned long long)p.in + row * p.r * sizeof(" + t + "), {}};\n"
       "    long long r = l.base, c;\n";
  s += offsets_code(spec.rank - 1, nmem, "r", [](size_t k) { return "l.o[" + std::to_string(k) + "]"; }, "    ");
  return s + "    (void)r;\n    return l;\n  }\n};\n";
}

// The kernels around the element function: ek_fused_reduce (row_reduce over
// lines of the chain's values, at the addresses of the unwritten result)
// and ek_fused_reduce_combine (combine_all), each taking one struct whose
// size the host checks against its own (static_assert).
std::string reduce_kernels(const ewgen::Signature &sig, const ewgen::Spec &spec, bool wide, bool line_mode, int dtype,
                           int kind, size_t args_bytes) {
  const char *T = carrier_type(dtype);
  const int V = 16 / static_cast<int>(dtype_size(dtype));
  const std::string fam = family(kind), t = T;
  std::string s = reduce_prelude();
  s += line_mode ? element_in_line(sig, spec, T) + line_types(sig, spec, t, V)
                 : element_at(sig, spec, T) + vector_at(sig, wide, T, V) + flat_line_types(t, V);
  s += "struct ekf_rargs { ekw_args a; ek::ReducePlan p; long long group, chunk; void *partial; unsigned *done; };\n"
       "static_assert(sizeof(ekf_rargs) == " + std::to_string(args_bytes + sizeof(ReducePlan) + 32) + ", \"ekf_rargs layout\");\n";
  s += "struct ekf_cargs { ek::ReducePlan p; long long splits; const void *partial; };\n";
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kThreads) + ") ek_fused_reduce(const ekf_rargs r) {\n" +
       std::string(ewgen::kWaitPrior) + "  ek::cuda::row_reduce<" + t + ", " + t + ", " + fam + ">(r.p, (int)r.group, r.chunk, (ek::cuda::State<" + t +
       "> *)r.partial, r.done, ekf_lines{r.a, r.p});\n}\n";
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kThreads) + ") ek_fused_reduce_combine(const ekf_cargs c) {\n" +
       std::string(ewgen::kWaitPrior) + "  ek::cuda::combine_all<" + t + ", " + fam + ">(c.p, c.splits, (const ek::cuda::State<" + t + "> *)c.partial);\n}\n";
  return s;
}

// Whether every input is contiguous and aligned for V-element vector loads
// at the 16-byte aligned elements of the result (which must itself be).
bool wide_loads(const ewgen::Plan &plan, const std::vector<TensorDesc> &operands, int V) {
  if (!plan.spec.vectorized) return false;
  for (const TensorDesc &d : operands) {
    const uintptr_t align = std::min<uintptr_t>(16, dtype_size(d.dtype) * V);
    if (reinterpret_cast<uintptr_t>(d.data) % align != 0) return false;
  }
  return reinterpret_cast<uintptr_t>(operands.back().data) % 16 == 0;
}

// The node of g that writes what its reduction reads (the last to write
// that view), or -1.
int reduced_node(const Group &g) {
  const size_t last = g.nodes.size() - 1;
  int found = -1;
  for (size_t k = 0; k < last; ++k)
    if (same_desc(g.nodes[k].out(), g.nodes[last].src)) found = static_cast<int>(k);
  return found;
}

}  // namespace

ek_status run_fused_reduce(ek_context ctx, const Group &g, bool *done) {
  *done = false;
  const Node &red = g.nodes.back();
  const int dt = red.src.dtype, reduced = reduced_node(g);
  if ((dt != kF32 && dt != kF64) || red.red.inner != 1 || reduced < 0 ||
      red.red.outer * red.red.r < kMinFusedReduceElements)
    return EK_SUCCESS;
  Writer w(g, g.nodes.size() - 1, reduced);
  w.write();
  if (w.operands.size() > static_cast<size_t>(ewgen::kMaxParams)) return EK_SUCCESS;
  w.sig.name = "ek_fused_reduce";
  w.sig.prelude = kFusionHeaders;
  std::vector<ewgen::Operand> ops;
  for (const TensorDesc &d : w.operands) ops.push_back(operand_of(d));  // the last: the reduced line, never written
  const TensorDesc &shape = red.src;
  const ewgen::Plan plan = ewgen::make_plan(shape.ndim, shape.shape, ops);
  const int V = 16 / static_cast<int>(dtype_size(dt));
  const bool wide = wide_loads(plan, w.operands, V);
  const ReducePlan &p = red.red;
  const bool line_mode = !plan.spec.vectorized && plan.rank >= 1 && p.r > 0 && plan.shape[plan.rank - 1] % p.r == 0;
  std::string key = std::string("reduce|") + family(p.kind) + (wide ? "|w" : (line_mode ? "|l" : "|n")) +
                    plan.spec.key() + "|";
  for (const auto *list : {&w.sig.in, &w.sig.out})
    for (const ewgen::Param &q : *list) key += std::to_string(q.dtype) + ",";
  key += std::to_string(dt) + "|" + w.sig.body;
  std::vector<uint64_t> words = ewgen::pack_args(plan);
  words.insert(words.end(), w.scalars.begin(), w.scalars.end());
  const size_t args_bytes = words.size() * sizeof(uint64_t);
  Build b;
  b.key = key;
  b.name = w.sig.name;
  b.program = w.sig.name + "_" + plan.spec.key() + ".cu";
  b.source = [&] {
    return ewgen::generate_element(w.sig, b.program, "// libek fused reduction (generated)\n") +
           reduce_kernels(w.sig, plan.spec, wide, line_mode, dt, p.kind, args_bytes);
  };
  b.main = one_param(args_bytes + sizeof(ReducePlan) + 32);
  b.combine = one_param(sizeof(ReducePlan) + 16);
  Kernels k;
  EK_FORWARD(kernel_for(ctx, g, b, &k));
  if (!k.main) return EK_SUCCESS;  // counted: the caller evaluates the nodes
  // The eager row kernel's launch shape and partials (reduce.cu's launch).
  const cuda::Config c = cuda::configure(p);
  Scratch work(ctx, g.s);
  EK_FORWARD(work.allocate(cuda::workspace_bytes(p, c)));
  void *tail = nullptr;
  if (c.tail) EK_FORWARD(stream_scratch(g.s, &tail));
  void *partial = c.splits == 1 ? nullptr : (c.tail ? static_cast<char *>(tail) + cuda::kTailPartials : work.get());
  append(&words, p);
  words.push_back(static_cast<uint64_t>(c.group));
  words.push_back(static_cast<uint64_t>(c.chunk));
  words.push_back(reinterpret_cast<uintptr_t>(partial));
  words.push_back(reinterpret_cast<uintptr_t>(c.tail ? tail : nullptr));
  const ek_kernel_arg arg{words.data(), words.size() * sizeof(uint64_t)};
  const unsigned grid[3] = {static_cast<unsigned>(c.blocks), static_cast<unsigned>(c.splits), 1};
  const unsigned block[3] = {static_cast<unsigned>(kThreads), 1, 1};
  OpProfile profile("fusion", "launch", ctx, g.s, {}, {});
  EK_FORWARD(launch_generated(g.s, k.main, grid, block, 0, &arg, 1, dependent_launch(g.s)));
  if (partial && !c.tail) {
    std::vector<uint64_t> cw;
    append(&cw, p);
    cw.push_back(static_cast<uint64_t>(c.splits));
    cw.push_back(reinterpret_cast<uintptr_t>(partial));
    const ek_kernel_arg carg{cw.data(), cw.size() * sizeof(uint64_t)};
    const unsigned cgrid[3] = {grid_for(p.outer * p.inner, kThreads / 32), 1, 1};
    EK_FORWARD(launch_generated(g.s, k.combine, cgrid, block, 0, &carg, 1, dependent_launch(g.s)));
  }
  ctx->fusion->stats.fused_launches++;
  ctx->fusion->stats.prologue_fusions++;
  *done = true;
  return EK_SUCCESS;
}

}  // namespace fusion
}  // namespace ek
