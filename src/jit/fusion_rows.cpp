// Fused row groups (core/fusion.hpp, rows mode): a group that goes on past
// its reductions, such as a layer norm's gelu(h + b), mean, h - mean, d * d,
// mean, rsqrt, d * rsqrt, runs as one kernel with a block per row.
//
// Bit equality with eager: every reduction here is one the eager row kernel
// runs with one warp per row in one launch (warp_per_row). The block's
// threads compute the values a phase reduces, as the fused kernels do, into
// shared memory; then its first warp combines them with that kernel's own
// code (reduce_device.cuh: span, group_reduce, store), over a line laid out
// at the alignment the reduced tensor has in memory, so in the same order.
// Values cross from one phase to the next through memory, as eagerly, after
// __syncthreads: a reduction's result stored by the first thread, a
// full-shaped value a later phase reads stored in its phase.
//
// Why not a warp per row for all of it: on the H100 that kernel was bound
// by one warp's instruction latency (4.7 cycles an instruction, 2,500
// instructions a warp for the layer-norm tail over [64, 512]: 5.9 us);
// only the combining needs the eager warp.
#include <algorithm>
#include <string>
#include <vector>

#include "core/profiler.hpp"
#include "jit/fusion_build.hpp"
#include "jit/fusion_writer.hpp"
#include "jit/module.hpp"
#include "kernels/reduce_config.hpp"

extern const char kFusionHeaders[];

namespace ek {
namespace fusion {

bool warp_per_row(const ReducePlan &p) {
  const cuda::Config c = cuda::configure(p);
  return p.inner == 1 && c.rows && c.group == 32 && c.splits == 1;
}

namespace {

// The block's size: a thread for about two elements of a row, from one
// warp to kThreads. (For rows of 512 on the H100 the step's replay took
// 44.4 us with 256 threads, 45.2 with 128.)
unsigned row_block_threads(int64_t r) {
  const int64_t warps = std::min<int64_t>(kThreads / 32, std::max<int64_t>(1, (r + 63) / 64));
  return static_cast<unsigned>(32 * warps);
}

// A rows kernel's shared memory: a row of the widest reduced type and 16
// bytes to align it as in memory. warp_per_row holds for rows shorter than
// kLongRow only, so it stays within the launch's default 48 KiB.
static_assert(cuda::kLongRow * 8 + 16 <= (48 << 10), "a row of reduced values fits in shared memory");

// A run of nodes [begin, end) of one index space: the full shape's elements
// (then `reduce`, when not -1, is the reduction ending the phase, `reduced`
// the node whose value it reduces) or the rows (a row value's elements).
struct Phase {
  size_t begin = 0, end = 0;
  bool rows = false;
  int reduce = -1, reduced = -1;
};

bool row_node(const Group &g, const Node &n) {
  return n.kind != kReduce && !desc_same_shape(n.out(), g.nodes.front().out());
}

std::vector<Phase> phases_of(const Group &g) {
  std::vector<Phase> out;
  for (size_t k = 0; k < g.nodes.size();) {
    Phase p;
    p.begin = k;
    p.rows = row_node(g, g.nodes[k]);
    while (k < g.nodes.size() && g.nodes[k].kind != kReduce && row_node(g, g.nodes[k]) == p.rows) ++k;
    p.end = k;
    if (!p.rows && k < g.nodes.size() && g.nodes[k].kind == kReduce) {
      p.reduce = static_cast<int>(k++);
      for (size_t j = p.begin; j < p.end; ++j)
        if (same_desc(g.nodes[j].out(), g.nodes[p.reduce].src)) p.reduced = static_cast<int>(j);
    }
    out.push_back(p);
  }
  return out;
}

// Whether node k's value must be in memory after its phase: someone holds it
// or a later phase reads it, and no later node of the phase overwrites it.
bool stored_after(const Group &g, const Phase &p, size_t k) {
  const TensorDesc &v = g.nodes[k].out();
  for (size_t j = k + 1; j < p.end; ++j)
    if (same_desc(g.nodes[j].out(), v)) return false;
  if (g.written[k]->refs.load(std::memory_order_acquire) > 1) return true;
  for (size_t j = p.end; j < g.nodes.size(); ++j)
    for (const TensorDesc &d : node_inputs(g.nodes[j]))
      if (d.data == v.data) return true;
  return false;
}

// The kernel's memory operands, each view once, with its strides over the
// full shape's R dims.
class Operands {
 public:
  explicit Operands(int rank) : rank_(rank) {}
  int slot(const TensorDesc &d) {
    for (size_t k = 0; k < descs.size(); ++k)
      if (same_desc(descs[k], d)) return static_cast<int>(k);
    descs.push_back(d);
    return static_cast<int>(descs.size() - 1);
  }
  // The expression of operand `slot`'s element j of the current row.
  std::string at(int slot, int dtype, bool in) const {
    const std::string k = std::to_string(slot);
    return operand_at(dtype, slot, "o[" + k + "] + j * a.st[" + k + "][" + std::to_string(rank_ - 1) + "]", in);
  }
  std::vector<TensorDesc> descs;

 private:
  int rank_;
};

// One phase's element functions: ekf_l<index>(a, o, j) loads element j's
// inputs (an ekf_ld<index>), ekf_c<index>(a, o, j, loaded) runs the Writer's
// body on them and stores, returning the reduced value (T) when the phase
// reduces, and ekf_p<index>(a, o, j) does both. A thread taking several
// elements loads them all before computing any: the compiler may not move a
// load above a store it cannot prove apart.
std::string phase_function(const Writer &w, const Phase &p, size_t index, Operands *ops, size_t scalar_offset,
                           const char *T) {
  const std::string i = std::to_string(index), ret = p.reduce >= 0 ? T : "void";
  const std::string args = "(const ekf_rows_args &a, const long long *o, const long long j";
  std::string ld = "struct ekf_ld" + i + " {\n", load = "static __device__ __forceinline__ ekf_ld" + i + " ekf_l" + i +
                   args + ") {\n  ekf_ld" + i + " l;\n  (void)a; (void)o; (void)j;\n";
  std::string s = "static __device__ __forceinline__ " + ret + " ekf_c" + i + args + ", const ekf_ld" + i + " &l) {\n" +
                  "  const unsigned long long *ekw_sc = a.sc + " + std::to_string(scalar_offset) + ";\n  (void)ekw_sc; (void)l;\n";
  for (size_t k = 0; k < w.inputs(); ++k) {
    const char *c = carrier_type(w.operands[k].dtype);
    const std::string in = "ekw_in" + std::to_string(k);
    ld += std::string("  ") + c + " " + in + ";\n";
    load += "  l." + in + " = " + ops->at(ops->slot(w.operands[k]), w.operands[k].dtype, true) + ";\n";
    s += std::string("  const ") + c + " " + in + " = l." + in + ";\n";
  }
  for (const ewgen::Param &q : w.sig.out) s += std::string("  ") + carrier_type(q.dtype) + " " + q.name + ";\n";
  s += "  {\n" + w.sig.body + "  }\n";
  const size_t stored = w.sig.out.size() - (p.reduce >= 0 ? 1 : 0);
  for (size_t m = 0; m < stored; ++m) {
    const TensorDesc &d = w.operands[w.inputs() + m];
    s += "  " + ops->at(ops->slot(d), d.dtype, false) + " = " + w.sig.out[m].name + ";\n";
  }
  if (p.reduce >= 0) s += "  return " + w.sig.out.back().name + ";\n";
  return ld + "};\n" + load + "  return l;\n}\n" + s + "}\n" + "static __device__ __forceinline__ " + ret + " ekf_p" + i +
         args + ") { return ekf_c" + i + "(a, o, j, ekf_l" + i + "(a, o, j)); }\n";
}

// Elements a thread loads ahead: at most 4, and about 64 registers of inputs.
int batch_elements(const Writer &w) {
  size_t bytes = 0;
  for (size_t k = 0; k < w.inputs(); ++k) bytes += std::max<size_t>(4, dtype_size(w.operands[k].dtype));
  int b = 4;
  while (b > 1 && static_cast<size_t>(b) * bytes > 256) b /= 2;
  return b;
}

// The line span() walks: a row of reduced values in shared memory, starting
// at the address's offset within 16 bytes (vectors where memory has them).
const char kSharedLine[] =
    "template <typename T> struct ekf_sline {\n"
    "  typedef ekf_vec<T, 16 / sizeof(T)> Vector;\n"
    "  const T *v;\n"
    "  unsigned long long addr0;\n"
    "  __device__ __forceinline__ T at(long long j) const { return v[j]; }\n"
    "  __device__ __forceinline__ const Vector *vectors(long long j) const { return (const Vector *)(v + j); }\n"
    "  __device__ __forceinline__ unsigned long long addr(long long j) const { return addr0 + j * sizeof(T); }\n"
    "};\n";

// The block's loop over a row's elements, `batch` a thread at a time (their
// loads first); `use` is the statement for each value (empty: none).
std::string element_loop(const std::string &i, int batch, const std::string &use) {
  const std::string b = std::to_string(batch), j = "j0 + blockDim.x * u";
  return "    for (long long j0 = threadIdx.x; j0 < r; j0 += blockDim.x * " + b + ") {\n      ekf_ld" + i + " l[" + b +
         "];\n#pragma unroll\n      for (int u = 0; u < " + b + "; ++u)\n        if (" + j + " < r) l[u] = ekf_l" + i +
         "(a, o, " + j + ");\n#pragma unroll\n      for (int u = 0; u < " + b + "; ++u)\n        if (" + j + " < r) " +
         (use.empty() ? "" : use + "[" + j + "] = ") + "ekf_c" + i + "(a, o, " + j + ", l[u]);\n    }\n";
}

// The statements of phase `index` in the row loop, and the barrier after it.
std::string phase_call(const Group &g, const Phase &p, size_t index, int red_slot, const char *T, int batch) {
  const std::string i = std::to_string(index), sync = "    __syncthreads();\n";
  if (p.rows) return "    if (threadIdx.x == 0) ekf_p" + i + "(a, o, 0);\n" + sync;
  if (p.reduce < 0) return element_loop(i, batch, "") + sync;
  const std::string t = T, fam = family(g.nodes[p.reduce].red.kind), red = "a.red[" + std::to_string(red_slot) + "]";
  return "    {\n      const unsigned long long addr = (unsigned long long)" + red + ".in + row * r * sizeof(" + t + ");\n"
         "      " + t + " *line = (" + t + " *)(ekf_smem + addr % 16);\n" + element_loop(i, batch, "line") + sync +
         "      if (threadIdx.x < 32) {\n        const ek::cuda::Op<" + t + ", " + fam + "> op{" + red + ".kind};\n"
         "        ek::cuda::State<" + t + "> s = ek::cuda::span<" + t + ", " + t + ", " + fam + ">(op, ekf_sline<" + t +
         ">{line, addr}, 0, r, lane, 32, " + t + "(0));\n"
         "        s = ek::cuda::group_reduce(op, s, 32);\n"
         "        if (lane == 0) ek::cuda::store<" + t + ", " + fam + ">(" + red + ", row, s);\n      }\n    }\n" + sync;
}

// The argument struct: the full shape, the row count, the operands'
// pointers and strides, the scalars and the reductions' plans.
std::string args_struct(int rank, size_t nops, size_t nscalars, size_t nred, size_t bytes) {
  return "struct ekf_rows_args {\n  long long shape[" + std::to_string(rank) + "];\n  long long outer;\n  void *p[" +
         std::to_string(nops) + "];\n  long long st[" + std::to_string(nops) + "][" + std::to_string(rank) +
         "];\n  unsigned long long sc[" + std::to_string(nscalars) + "];\n  ek::ReducePlan red[" + std::to_string(nred) +
         "];\n};\nstatic_assert(sizeof(ekf_rows_args) == " + std::to_string(bytes) + ", \"ekf_rows_args layout\");\n";
}

// Each operand's offset of the row's first element: the divisions over the
// outer dims run once per row.
std::string row_offsets(int rank, size_t nops) {
  return "    long long o[" + std::to_string(nops) + "] = {};\n    long long q = row, c;\n    (void)c;\n" +
         offsets_code(rank - 2, nops, "q", [](size_t k) { return "o[" + std::to_string(k) + "]"; }, "    ");
}

// A kernel to launch: its own code (after the headers every fused kernel
// shares), which names the group's structure only, and its arguments.
struct Kernel {
  std::string code;
  std::vector<uint64_t> words;
  int64_t outer = 0;
  int64_t line_bytes = 0;  // dynamic shared memory
  unsigned threads = 0;     // a block's (row_block_threads)
};

// The kernel: the argument struct, the phases' functions, the row loop.
std::string kernel_code(int rank, size_t nops, size_t nsc, size_t nred, size_t bytes,
                        const std::vector<std::string> &functions, const std::vector<std::string> &calls) {
  std::string s = args_struct(rank, nops, nsc, nred, bytes) + kSharedLine;
  for (const std::string &f : functions) s += f;
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kThreads) + ") ek_fused_rows(const ekf_rows_args a) {\n" +
       std::string(ewgen::kWaitPrior) + "  extern __shared__ __align__(16) unsigned char ekf_smem[];\n  const long long r = a.shape[" +
       std::to_string(rank - 1) + "];\n  const int lane = threadIdx.x % 32;\n  (void)lane;\n"
       "  for (long long row = blockIdx.x; row < a.outer; row += gridDim.x) {\n" + row_offsets(rank, nops);
  for (const std::string &c : calls) s += c;
  return s + "  }\n}\n";
}

// The argument struct's words (args_struct's layout).
std::vector<uint64_t> kernel_words(const TensorDesc &full, int64_t outer, const Operands &ops,
                                   std::vector<uint64_t> scalars, size_t nsc, const std::vector<ReducePlan> &reds) {
  std::vector<uint64_t> w;
  for (int d = 0; d < full.ndim; ++d) w.push_back(static_cast<uint64_t>(full.shape[d]));
  w.push_back(static_cast<uint64_t>(outer));
  for (const TensorDesc &d : ops.descs) w.push_back(reinterpret_cast<uintptr_t>(d.data));
  for (const TensorDesc &d : ops.descs)
    for (int k = 0; k < full.ndim; ++k) w.push_back(static_cast<uint64_t>(d.shape[k] == 1 ? 0 : d.strides[k]));
  scalars.resize(nsc);
  w.insert(w.end(), scalars.begin(), scalars.end());
  for (const ReducePlan &p : reds) append(&w, p);
  return w;
}

// The kernel's code and arguments; false when the group does not fit one
// (too many operands, a reduction of a value from an earlier phase).
bool write_kernel(const Group &g, Kernel *out) {
  const TensorDesc &full = g.nodes.front().out();
  const int rank = full.ndim;
  Operands ops(rank);
  std::vector<std::string> functions, calls;
  std::vector<uint64_t> scalars;
  std::vector<ReducePlan> reds;
  const std::vector<Phase> phases = phases_of(g);
  for (size_t i = 0; i < phases.size(); ++i) {
    const Phase &p = phases[i];
    if (p.reduce >= 0 && p.reduced < 0) return false;
    Writer w(g, p.begin, p.end, p.reduced, [&](size_t k) { return stored_after(g, p, k); });
    w.write();
    const int dt = p.reduce >= 0 ? g.nodes[p.reduce].src.dtype : kF32;
    functions.push_back(phase_function(w, p, i, &ops, scalars.size(), carrier_type(dt)));
    if (p.reduce >= 0) out->line_bytes = std::max<int64_t>(out->line_bytes, 16 + full.shape[rank - 1] * dtype_size(dt));
    calls.push_back(phase_call(g, p, i, static_cast<int>(reds.size()), carrier_type(dt), batch_elements(w)));
    if (p.reduce >= 0) reds.push_back(g.nodes[p.reduce].red);
    scalars.insert(scalars.end(), w.scalars.begin(), w.scalars.end());
  }
  const size_t nops = ops.descs.size(), nsc = scalars.empty() ? 1 : scalars.size();
  if (reds.empty() || nops > static_cast<size_t>(ewgen::kMaxParams)) return false;
  for (const TensorDesc &d : ops.descs)
    if (d.ndim != rank) return false;
  const size_t bytes = 8 * (rank + 1 + nops + nops * rank + nsc) + reds.size() * sizeof(ReducePlan);
  out->code = kernel_code(rank, nops, nsc, reds.size(), bytes, functions, calls);
  out->outer = desc_numel(full) / full.shape[rank - 1];
  out->threads = row_block_threads(full.shape[rank - 1]);
  out->words = kernel_words(full, out->outer, ops, scalars, nsc, reds);
  return out->words.size() * sizeof(uint64_t) == bytes;
}

}  // namespace

ek_status run_fused_rows(ek_context ctx, const Group &g, bool *done) {
  *done = false;
  Kernel k;
  if (!write_kernel(g, &k)) {
    ctx->fusion->stats.fallbacks_unsupported++;
    return EK_SUCCESS;
  }
  Build b;
  b.key = "rows|" + k.code;
  b.name = "ek_fused_rows";
  b.program = "ek_fused_rows.cu";
  b.source = [&] { return "// libek fused rows kernel (generated)\n" + std::string(kFusionHeaders) + reduce_prelude() + k.code; };
  b.main = one_param(k.words.size() * sizeof(uint64_t));
  Kernels kernels;
  EK_FORWARD(kernel_for(ctx, g, b, &kernels));
  if (!kernels.main) return EK_SUCCESS;  // counted: the caller replays the nodes
  const ek_kernel_arg arg{k.words.data(), k.words.size() * sizeof(uint64_t)};
  const unsigned grid[3] = {grid_for(k.outer, 1), 1, 1};
  const unsigned block[3] = {k.threads, 1, 1};
  OpProfile profile("fusion", "launch", ctx, g.s, {}, {});
  EK_FORWARD(launch_generated(g.s, kernels.main, grid, block, static_cast<size_t>(k.line_bytes), &arg, 1,
                              dependent_launch(g.s)));
  ctx->fusion->stats.fused_launches++;
  for (const Node &n : g.nodes) ctx->fusion->stats.prologue_fusions += n.kind == kReduce ? 1 : 0;
  *done = true;
  return EK_SUCCESS;
}

}  // namespace fusion
}  // namespace ek
