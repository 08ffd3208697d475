// Fused row groups (core/fusion.hpp, rows mode): a group that goes on past
// its reductions, such as a layer norm's gelu(h + b), mean, h - mean, d * d,
// mean, rsqrt, d * rsqrt, runs as one kernel with a block per row.
//
// Bit equality with eager: every reduction here is one the eager row kernel
// runs with one warp per row in one launch (warp_per_row). The block's
// threads compute the values a phase reduces, as the fused kernels do, into
// shared memory; then its first warp combines them with that kernel's own
// code (reduce_device.cuh: span, warp_reduce, final_value), over a line laid
// out at the alignment the reduced tensor has in memory, so in the same order.
//
// Values cross from one phase to the next in registers where the block's
// layout allows (Flow): thread t computes elements t, t + blockDim.x, ... of
// the row in every phase, so a full-shaped value a later phase reads through
// the same view stays in t's registers; a reduction's result reaches every
// thread through shared memory after its combining, and a rows phase (a row
// value's elements) runs in every thread, its first storing it. Other reads
// go through memory after __syncthreads, as eagerly. A value is stored when
// someone holds it or a later phase reads it.
//
// Why not a warp per row for all of it: on the H100 that kernel was bound
// by one warp's instruction latency (4.7 cycles an instruction, 2,500
// instructions a warp for the layer-norm tail over [64, 512]: 5.9 us);
// only the combining needs the eager warp. Why registers: with every value
// through memory and a rows phase in the first thread alone (a barrier
// either side), the 36-op step of bench/graph_step replayed in 36.8 us
// against 31.5 (bench/RESULTS.md, session 14).
#include <algorithm>
#include <memory>
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

constexpr int kMaxRowThreads = 1024;

// The block's size: a thread for about two elements of a row, from one
// warp to kMaxRowThreads. (For rows of 512 on the H100 the step's replay took
// 44.4 us with 256 threads, 45.2 with 128.)
unsigned row_block_threads(int64_t r) {
  const int64_t warps = std::min<int64_t>(kMaxRowThreads / 32, std::max<int64_t>(1, (r + 63) / 64));
  return static_cast<unsigned>(32 * warps);
}

// The elements of a row a thread takes at most: its registers hold that many
// of each value a later phase reads.
int row_elements(int64_t r) { return r <= 2 * kMaxRowThreads ? 2 : 4; }
static_assert(cuda::kLongRow <= 4 * kMaxRowThreads, "warp_per_row's rows fit a block's registers");

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

// Dim k's stride, 0 where the view broadcasts.
int64_t stride_of(const TensorDesc &d, int k) { return d.shape[k] == 1 ? 0 : d.strides[k]; }

// Whether view d reads, at every element of a row, that row's element of
// the row value p.
bool reads_row_value(const TensorDesc &p, const TensorDesc &d) {
  if (p.data != d.data || p.dtype != d.dtype || p.ndim != d.ndim || p.shape[p.ndim - 1] != 1 ||
      stride_of(d, d.ndim - 1) != 0)
    return false;
  for (int k = 0; k + 1 < d.ndim; ++k)
    if (stride_of(p, k) != stride_of(d, k)) return false;
  return true;
}

// How values cross the phases (the file comment): for each phase, the node
// whose registers give each of its Writer's inputs (-1: memory); for each
// node, whether a later phase reads its registers or its memory.
struct Flow {
  std::vector<Phase> phases;
  std::vector<size_t> phase_of;            // by node
  std::vector<std::vector<int>> from;      // by phase, by input
  std::vector<char> in_registers, in_memory;  // by node

  // Node n is a reduction (its value a row value), or a row value's element.
  bool reduction(size_t n) const { return phases[phase_of[n]].reduce == static_cast<int>(n); }
  bool row_value(size_t n) const { return phases[phase_of[n]].rows || reduction(n); }
};

// The node whose registers hold what phase q's input d reads, or -1: the
// last node before the phase writing d's memory, when d reads its value
// element for element (a full value through the same view, a row value
// broadcast along the row).
int register_source(const Group &g, const Flow &f, size_t q, const TensorDesc &d) {
  int n = -1;
  for (size_t k = f.phases[q].begin; k-- > 0 && n < 0;)
    if (g.nodes[k].out().data == d.data) n = static_cast<int>(k);
  if (n < 0) return -1;
  const Node &p = g.nodes[n];
  if (f.reduction(n)) return p.red.out == p.dst.data && reads_row_value(p.dst, d) ? n : -1;
  if (f.phases[f.phase_of[n]].rows) return reads_row_value(p.out(), d) ? n : -1;
  return !f.phases[q].rows && same_desc(p.out(), d) ? n : -1;
}

// A Flow with no reads marked yet.
Flow flow_frame(const Group &g, const std::vector<Phase> &phases) {
  Flow f;
  f.phases = phases;
  f.phase_of.assign(g.nodes.size(), 0);
  for (size_t i = 0; i < phases.size(); ++i) {
    for (size_t k = phases[i].begin; k < phases[i].end; ++k) f.phase_of[k] = i;
    if (phases[i].reduce >= 0) f.phase_of[phases[i].reduce] = i;
  }
  f.in_registers.assign(g.nodes.size(), 0);
  f.in_memory.assign(g.nodes.size(), 0);
  f.from.resize(phases.size());
  return f;
}

// Marks where phase q's inputs come from, and so which earlier nodes a
// later phase reads (from registers or memory).
void mark_reads(const Group &g, Flow *f, size_t q, const std::vector<TensorDesc> &inputs) {
  for (const TensorDesc &d : inputs) {
    const int n = register_source(g, *f, q, d);
    f->from[q].push_back(n);
    if (n >= 0) f->in_registers[n] = 1;
    for (size_t k = 0; n < 0 && k < f->phases[q].begin; ++k) f->in_memory[k] |= g.nodes[k].out().data == d.data;
  }
}

// Whether node k's value is in memory after the kernel: someone holds it or
// a later phase reads it (from memory or registers: then the kernel's code
// does not depend on whether its caller still holds it, and a capture that
// ends after the caller let go of such a value replays the kernel compiled
// while it held it).
bool stored(const Group &g, const Flow &f, size_t k) {
  return g.written[k]->refs.load(std::memory_order_acquire) > 1 || f.in_memory[k] || f.in_registers[k];
}

// Whether rows phase i needs a barrier after it: a later phase reads memory
// it writes, or writes memory it reads.
bool barrier_after_rows(const Group &g, const Flow &f, size_t i, const std::vector<TensorDesc> &inputs) {
  const Phase &p = f.phases[i];
  for (size_t k = p.begin; k < p.end; ++k)
    if (f.in_memory[k]) return true;
  for (size_t e = 0; e < inputs.size(); ++e)
    for (size_t k = p.end; f.from[i][e] < 0 && k < g.nodes.size(); ++k)
      if (g.nodes[k].out().data == inputs[e].data) return true;
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
  // The expression of operand d's element j of the current row.
  std::string at(const TensorDesc &d, bool in) {
    const int n = slot(d);
    const std::string k = std::to_string(n);
    return operand_at(d.dtype, n, "o[" + k + "] + j * a.st[" + k + "][" + std::to_string(rank_ - 1) + "]", in);
  }
  std::vector<TensorDesc> descs;

 private:
  int rank_;
};

// Node n's registers in the kernel's ekf_keep kp: an element's (u) of a full
// value, or a row value.
std::string registers(const Flow &f, int n) {
  return "kp.v" + std::to_string(n) + (f.row_value(n) ? "" : "[u]");
}

// The struct of the values later phases read from registers.
std::string keep_struct(const Group &g, const Flow &f, int elements) {
  std::string s = "struct ekf_keep {\n";
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (f.in_registers[n])
      s += std::string("  ") + carrier_type(g.nodes[n].out().dtype) + " v" + std::to_string(n) +
           (f.row_value(n) ? "" : "[" + std::to_string(elements) + "]") + ";\n";
  return s + "};\n";
}

// One phase's element functions: ekf_l<index>(a, o, j, kp, u) loads element
// j's inputs (an ekf_ld<index>) from memory or registers, ekf_c<index>(a, o,
// j, loaded, kp, u) runs the Writer's body on them, stores and keeps its
// values, returning the reduced value (T) when the phase reduces. A thread
// taking several elements loads them all before computing any: the
// compiler may not move a load above a store it cannot prove apart. A rows
// phase's element is its row's, computed by every thread, stored by the
// first.
std::string phase_function(const Group &g, const Flow &f, const Writer &w, size_t index, Operands *ops,
                           size_t scalar_offset, const char *T) {
  const Phase &p = f.phases[index];
  const std::string i = std::to_string(index), ret = p.reduce >= 0 ? T : "void";
  const std::string args = "(const ekf_rows_args &a, const long long *o, const long long j, ";
  std::string ld = "struct ekf_ld" + i + " {\n", load = "static __device__ __forceinline__ ekf_ld" + i + " ekf_l" + i +
                   args + "const ekf_keep &kp, const int u) {\n  ekf_ld" + i + " l;\n  (void)a; (void)o; (void)j; (void)kp; (void)u;\n";
  std::string s = "static __device__ __forceinline__ " + ret + " ekf_c" + i + args + "const ekf_ld" + i +
                  " &l, ekf_keep &kp, const int u) {\n  const unsigned long long *ekw_sc = a.sc + " +
                  std::to_string(scalar_offset) + ";\n  (void)ekw_sc; (void)l; (void)kp; (void)u;\n";
  for (size_t k = 0; k < w.inputs(); ++k) {
    const std::string in = "ekw_in" + std::to_string(k);
    const int n = f.from[index][k];
    ld += std::string("  ") + carrier_type(w.operands[k].dtype) + " " + in + ";\n";
    load += "  l." + in + " = " + (n >= 0 ? registers(f, n) : ops->at(w.operands[k], true)) + ";\n";
    s += std::string("  const ") + carrier_type(w.operands[k].dtype) + " " + in + " = l." + in + ";\n";
  }
  for (const ewgen::Param &q : w.sig.out) s += std::string("  ") + carrier_type(q.dtype) + " " + q.name + ";\n";
  s += "  {\n" + w.sig.body + "  }\n";
  const size_t outputs = w.sig.out.size() - (p.reduce >= 0 ? 1 : 0);
  for (size_t m = 0; m < outputs; ++m) {
    const int n = w.out_nodes[m];
    if (stored(g, f, n))
      s += std::string(p.rows ? "  if (threadIdx.x == 0) " : "  ") + ops->at(w.operands[w.inputs() + m], false) +
           " = " + w.sig.out[m].name + ";\n";
    if (f.in_registers[n]) s += "  " + registers(f, n) + " = " + w.sig.out[m].name + ";\n";
  }
  if (p.reduce >= 0) s += "  return " + w.sig.out.back().name + ";\n";
  return ld + "};\n" + load + "  return l;\n}\n" + s + "}\n";
}

// The line span() walks: a row of reduced values in shared memory, starting
// at the address's offset within 16 bytes (vectors where memory has them);
// and a combined row's final value stored in memory and, when slot is not
// null, in shared memory for the block.
const char kRowHelpers[] =
    "template <typename T> struct ekf_sline {\n"
    "  typedef ekf_vec<T, 16 / sizeof(T)> Vector;\n"
    "  const T *v;\n"
    "  unsigned long long addr0;\n"
    "  __device__ __forceinline__ T at(long long j) const { return v[j]; }\n"
    "  __device__ __forceinline__ const Vector *vectors(long long j) const { return (const Vector *)(v + j); }\n"
    "  __device__ __forceinline__ unsigned long long addr(long long j) const { return addr0 + j * sizeof(T); }\n"
    "};\n"
    "template <typename A, int Fam>\n"
    "static __device__ __forceinline__ void ekf_finish(const ek::ReducePlan &p, long long row,\n"
    "                                                  const ek::cuda::State<A> &s, const int dtype, void *slot) {\n"
    "  if (Fam == ek::cuda::kArg && p.indices) p.indices[row] = s.i;\n"
    "  if (!p.out) return;\n"
    "  const auto v = ek::cuda::final_value<A, Fam>(p, s);\n"
    "  ek::cuda::store_value<A>((char *)p.out + row * ek::cuda::elem_size(dtype), dtype, v);\n"
    "  if (slot) ek::cuda::store_value<A>(slot, dtype, v);\n"
    "}\n";

// The block's pass over a row's elements, `elements` a thread at a time
// (their loads first); `use` is the statement for each value (empty: none).
std::string element_loop(const std::string &i, int elements, const std::string &use) {
  const std::string e = std::to_string(elements), j = "        const long long j = threadIdx.x + (long long)u * blockDim.x;\n";
  return "    {\n      ekf_ld" + i + " l[" + e + "];\n#pragma unroll\n      for (int u = 0; u < " + e + "; ++u) {\n" + j +
         "        if (j < r) l[u] = ekf_l" + i + "(a, o, j, kp, u);\n      }\n#pragma unroll\n      for (int u = 0; u < " + e +
         "; ++u) {\n" + j + "        if (j < r) " + (use.empty() ? "" : use + "[j] = ") + "ekf_c" + i + "(a, o, j, l[u], kp, u);\n"
         "      }\n    }\n";
}

// The first warp's combining of phase p's line, in the eager row kernel's
// order (span's Whole form where the line is whole vectors from an aligned
// address), then (when a later phase reads the result from registers) every
// thread's copy of it from shared memory slot `slot`.
std::string combine_call(const Group &g, const Flow &f, const Phase &p, int red_slot, int slot, const char *T) {
  const Node &n = g.nodes[p.reduce];
  const std::string t = T, fam = family(n.red.kind), red = "a.red[" + std::to_string(red_slot) + "]";
  const std::string at = slot >= 0 ? "ekf_slots + " + std::to_string(16 * slot) : "nullptr";
  const std::string span = "ek::cuda::span<" + t + ", " + t + ", " + fam + ", ekf_sline<" + t + ">, int, 1, ";
  const std::string args = ">(op, ekf_sline<" + t + ">{line, addr}, 0, int(r), lane, 32, " + t + "(0))";
  std::string s = "      if (threadIdx.x < 32) {\n        const ek::cuda::Op<" + t + ", " + fam + "> op{" +
                  std::to_string(n.red.kind) + "};\n        ek::cuda::State<" + t + "> s = addr % 16 == 0 && r % (16 / sizeof(" +
                  t + ")) == 0 ? " + span + "true" + args + " : " + span + "false" + args + ";\n"
                  "        s = ek::cuda::warp_reduce(op, s);\n        if (lane == 0) ekf_finish<" + t + ", " +
                  fam + ">(" + red + ", row, s, " + std::to_string(n.red.out_dtype) + ", " + at + ");\n      }\n"
                  "      __syncthreads();\n";
  if (slot >= 0)
    s += "      " + registers(f, p.reduce) + " = *(const " + carrier_type(n.dst.dtype) + " *)(" + at + ");\n";
  return s;
}

// The statements of phase `index` in the row loop, and the barrier after it
// (none after the last: the row loop's own).
std::string phase_call(const Group &g, const Flow &f, size_t index, int red_slot, int *slots, const char *T,
                       int elements, bool barrier) {
  const Phase &p = f.phases[index];
  const std::string i = std::to_string(index), sync = barrier ? "    __syncthreads();\n" : "";
  if (p.rows) return "    ekf_c" + i + "(a, o, 0, ekf_l" + i + "(a, o, 0, kp, 0), kp, 0);\n" + sync;
  if (p.reduce < 0) return element_loop(i, elements, "") + sync;
  const int slot = f.in_registers[p.reduce] ? (*slots)++ : -1;
  return "    {\n      const unsigned long long addr = (unsigned long long)a.red[" + std::to_string(red_slot) +
         "].in + row * r * sizeof(" + T + ");\n      " + T + " *line = (" + T + " *)(ekf_smem + addr % 16);\n" +
         element_loop(i, elements, "line") + "      __syncthreads();\n" + combine_call(g, f, p, red_slot, slot, T) +
         "    }\n";
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

// The kernel's parts before its arguments are known.
struct Parts {
  std::string head;  // args_struct goes first
  std::vector<std::string> calls;
  unsigned bounds = 0;
  int slots = 0;
};

// The kernel: the argument struct, the phases' functions, the row loop.
std::string kernel_code(int rank, size_t nops, size_t nsc, size_t nred, size_t bytes, const Parts &parts) {
  std::string s = args_struct(rank, nops, nsc, nred, bytes) + parts.head;
  s += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(parts.bounds) +
       ") ek_fused_rows(const ekf_rows_args a) {\n" + std::string(ewgen::kWaitPrior) +
       "  extern __shared__ __align__(16) unsigned char ekf_smem[];\n";
  if (parts.slots > 0) s += "  __shared__ __align__(16) unsigned char ekf_slots[" + std::to_string(16 * parts.slots) + "];\n";
  s += "  const long long r = a.shape[" + std::to_string(rank - 1) + "];\n  const int lane = threadIdx.x % 32;\n  (void)lane;\n"
       "  for (long long row = blockIdx.x; row < a.outer; row += gridDim.x) {\n" + row_offsets(rank, nops) +
       "    ekf_keep kp;\n    (void)kp;\n";
  for (const std::string &c : parts.calls) s += c;
  return s + "    if (row + gridDim.x < a.outer) __syncthreads();\n  }\n}\n";
}

// The argument struct's words (args_struct's layout).
std::vector<uint64_t> kernel_words(const TensorDesc &full, int64_t outer, const Operands &ops,
                                   std::vector<uint64_t> scalars, size_t nsc, const std::vector<ReducePlan> &reds) {
  std::vector<uint64_t> w;
  for (int d = 0; d < full.ndim; ++d) w.push_back(static_cast<uint64_t>(full.shape[d]));
  w.push_back(static_cast<uint64_t>(outer));
  for (const TensorDesc &d : ops.descs) w.push_back(reinterpret_cast<uintptr_t>(d.data));
  for (const TensorDesc &d : ops.descs)
    for (int k = 0; k < full.ndim; ++k) w.push_back(static_cast<uint64_t>(stride_of(d, k)));
  scalars.resize(nsc);
  w.insert(w.end(), scalars.begin(), scalars.end());
  for (const ReducePlan &p : reds) append(&w, p);
  return w;
}

// A phase's Writer inputs (what it reads from before the phase).
std::vector<TensorDesc> inputs_of(const Writer &w) {
  return {w.operands.begin(), w.operands.begin() + static_cast<std::ptrdiff_t>(w.inputs())};
}

// The kernel's code and arguments; false when the group does not fit one
// (too many operands, a reduction of a value from an earlier phase).
bool write_kernel(const Group &g, Kernel *out) {
  const TensorDesc &full = g.nodes.front().out();
  const int rank = full.ndim;
  const int64_t r = full.shape[rank - 1];
  const int elements = row_elements(r);
  out->threads = row_block_threads(r);
  if (static_cast<int64_t>(out->threads) * elements < r) return false;
  const std::vector<Phase> phases = phases_of(g);
  for (const Phase &p : phases)
    if (p.reduce >= 0 && p.reduced < 0) return false;
  // Last phase first: what a phase stores depends on what later phases read.
  Flow f = flow_frame(g, phases);
  std::vector<std::unique_ptr<Writer>> writers(phases.size());
  for (size_t i = phases.size(); i-- > 0;) {
    const Phase &p = phases[i];
    writers[i] = std::make_unique<Writer>(g, p.begin, p.end, p.reduced, [&](size_t k) {
      for (size_t j = k + 1; j < p.end; ++j)
        if (same_desc(g.nodes[j].out(), g.nodes[k].out())) return false;  // overwritten in the phase
      return stored(g, f, k);
    });
    writers[i]->write();
    mark_reads(g, &f, i, inputs_of(*writers[i]));
  }
  Operands ops(rank);
  Parts parts;
  parts.bounds = out->threads <= static_cast<unsigned>(kThreads) ? kThreads : kMaxRowThreads;
  parts.head = std::string(kRowHelpers) + keep_struct(g, f, elements);
  std::vector<uint64_t> scalars;
  std::vector<ReducePlan> reds;
  for (size_t i = 0; i < phases.size(); ++i) {
    const Phase &p = phases[i];
    const Writer &w = *writers[i];
    const int dt = p.reduce >= 0 ? g.nodes[p.reduce].src.dtype : kF32;
    parts.head += phase_function(g, f, w, i, &ops, scalars.size(), carrier_type(dt));
    if (p.reduce >= 0) out->line_bytes = std::max<int64_t>(out->line_bytes, 16 + r * dtype_size(dt));
    const bool last = i + 1 == phases.size();
    const bool barrier = !last && (!p.rows || barrier_after_rows(g, f, i, inputs_of(w)));
    parts.calls.push_back(phase_call(g, f, i, static_cast<int>(reds.size()), &parts.slots, carrier_type(dt), elements, barrier));
    if (p.reduce >= 0) reds.push_back(g.nodes[p.reduce].red);
    scalars.insert(scalars.end(), w.scalars.begin(), w.scalars.end());
  }
  const size_t nops = ops.descs.size(), nsc = scalars.empty() ? 1 : scalars.size();
  if (reds.empty() || nops == 0 || nops > static_cast<size_t>(ewgen::kMaxParams)) return false;
  for (const TensorDesc &d : ops.descs)
    if (d.ndim != rank) return false;
  const size_t bytes = 8 * (rank + 1 + nops + nops * rank + nsc) + reds.size() * sizeof(ReducePlan);
  out->code = kernel_code(rank, nops, nsc, reds.size(), bytes, parts);
  out->outer = desc_numel(full) / r;
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
