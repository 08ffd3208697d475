// Automatic fusion of elementwise chains (ek.h, the fusion section): the
// fusible ops hand their fully planned launch to run_node, which either runs
// it now or records it in the stream's pending group; the group is evaluated
// (one generated kernel on CUDA, a replay of the recorded launches elsewhere)
// when anything else needs one of its tensors. Because every node's output
// memory is allocated at its call and its descriptors are final, replaying
// the nodes in order is exactly eager execution.
#pragma once

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "core/internal.hpp"
#include "ops/reduce_plan.hpp"
#include "ops/ternary_plan.hpp"

namespace ek {
namespace fusion {

// One recorded launch: the backend entry it would have called and its plan.
// A reduction (kReduce) reads the output of a node of the group, as written,
// as a contiguous (outer, r, 1) block; it ends the group unless rows mode
// (below) lets the group go on.
enum Kind : int { kUnary = 0, kBinary = 1, kTernary = 2, kCast = 3, kReduce = 4 };
struct Node {
  int kind = kUnary;
  ew::Args ew{};      // kUnary, kBinary
  tern::Args tern{};  // kTernary
  TensorDesc dst{}, src{};  // kCast: dst = src converted; kReduce: dst = reduce(src)
  ReducePlan red{};         // kReduce: the backend's plan (red.in = src, red.out = dst)
  const TensorDesc &out() const { return kind == kTernary ? tern.out : (kind == kCast || kind == kReduce ? dst : ew.out); }
};

// Whether a and b are the same view: data, dtype, shape and strides.
inline bool same_desc(const TensorDesc &a, const TensorDesc &b) {
  return a.data == b.data && a.dtype == b.dtype && desc_same_shape(a, b) &&
         std::equal(a.strides, a.strides + a.ndim, b.strides);
}

constexpr int kMaxNodes = 32;   // ops per group
constexpr int kMaxInputs = 8;   // distinct input layouts per group
constexpr int64_t kDefaultMaxKernels = 256;
// A reduction computes its chain's elements itself (run_fused_reduce) from
// this many elements up. Below, the row kernel runs a few blocks whose
// threads each walk a long stretch of a line, and the chain's latency adds
// to theirs: on the H100, mean over [64, 512] of gelu(h + b) took 6.1 us
// fused against 2.8 + 3.4 us for the chain's kernel and the reduction's
// alone, and the 36-op step of bench/graph_step replayed in 76.6 us against
// 60.8 with the two kernels, which overlap there as programmatic dependents.
// From 1M elements every reduction's grid has a few hundred blocks.
constexpr int64_t kMinFusedReduceElements = int64_t(1) << 20;
// The default mode when neither config.fusion nor EK_FUSION is set.
constexpr int64_t kDefaultMode = EK_FUSION_OFF;

struct Group {
  ek_stream s = nullptr;
  std::vector<Node> nodes;
  std::vector<Storage *> storages;  // each once, one reference held
  std::vector<Storage *> written;   // node k writes written[k]
  // Every tensor operand of every node: the node, the storage and the view
  // it reads or writes (an in-place write fuses only where all views agree).
  struct Use {
    size_t node;
    const Storage *storage;
    TensorDesc view;
  };
  std::vector<Use> uses;
  int inputs = 0;                   // distinct external input layouts
  int mode = EK_FUSION_ON;          // EK_FUSION_ON or _ROUNDED: how half intermediates round
};

struct Stats {
  std::atomic<uint64_t> ops_deferred{0}, groups_evaluated{0}, fused_launches{0},
      kernels_compiled{0}, cache_hits_memory{0}, cache_hits_disk{0}, compile_ns{0},
      fallbacks_cap{0}, fallbacks_capture{0}, fallbacks_unsupported{0}, prologue_fusions{0};
};

class KernelCache;  // fusion_codegen.cpp: fused kernels by source

// Per context: one mutex over every group of the context (and the storages'
// group pointers), the groups pending, the counters and compiled kernels.
struct State {
  std::recursive_mutex mutex;
  std::vector<Group *> groups;
  Stats stats;
  KernelCache *kernels = nullptr;
  bool cap_logged = false;
};

State *create_state();
void destroy_state(ek_context ctx);  // after flush_context; releases the kernels
// The live objects (ek_context_destroy's count) the context's fused kernels hold.
int64_t cached_objects(ek_context ctx);

// A fusible public op marks itself with a FusibleCall before checking its
// tensors: when it is the outermost call, check_tensor leaves its operands
// pending and run_node may defer its launch. Nested calls never defer.
class FusibleCall {
 public:
  FusibleCall();
  ~FusibleCall();
  FusibleCall(const FusibleCall &) = delete;
  FusibleCall &operator=(const FusibleCall &) = delete;

 private:
  int previous_;
};
// The rest of this call runs eagerly (an out that converts through a temporary).
void forbid_in_call();

// Runs node on s now or records it. out is the tensor node writes, in[] its
// tensor operands (nullptr where none). Eager runs evaluate first every group
// touching these tensors.
ek_status run_node(ek_context ctx, ek_stream s, const Node &node, const ek_tensor_s *out,
                   std::initializer_list<const ek_tensor_s *> in);
// Whether t is the output of a pending op of stream s (a reduction may join).
bool pending_on(const ek_tensor_s *t, ek_stream s);
// Runs node through the backend now, ignoring fusion.
ek_status launch_node(ek_context ctx, ek_stream s, const Node &node);

// check_tensor's hook: evaluates t's group unless the current call is a
// fusible one at the outermost level. One atomic load when t is not pending.
ek_status touch(const ek_tensor_s *t);
ek_status flush_tensor(const ek_tensor_s *t);  // unconditionally
// ek_tensor_release's hook, instead of release_storage for a pending storage:
// drops the group's last nodes whose outputs nobody can read any more.
void release_pending(Storage *st);
ek_status flush_stream(ek_stream s);
ek_status flush_context(ek_context ctx);
// The mode in force on s: EK_FUSION_OFF, _ON or _ROUNDED.
int stream_mode(ek_stream s);

// The input views of a node (data == nullptr where unused).
std::vector<TensorDesc> node_inputs(const Node &n);

// Rows mode: a group on CUDA may go on past a reduction when every
// reduction of it reduces a value of the group's first shape (the full
// shape) over its last dim into a row value (that shape with the last dim 1)
// with the eager row kernel's shape of one warp per row, in one launch
// (warp_per_row); later nodes are full-shaped (reading row values broadcast)
// or row-shaped. Such a group runs as one kernel (run_fused_rows).
bool warp_per_row(const ReducePlan &p);
ek_status run_fused_rows(ek_context ctx, const Group &g, bool *done);

// Evaluation of the first `count` nodes of g (at least two, no reduction)
// as one generated kernel (fusion_codegen.cpp). *done false: not fused (the
// caller replays), with the reason counted.
ek_status run_fused(ek_context ctx, const Group &g, size_t count, bool *done);
// Evaluation of a group ending in a reduction whose input nobody else reads
// as one kernel that computes the input's elements and reduces them.
// *done false: not fused (the caller evaluates the nodes another way).
ek_status run_fused_reduce(ek_context ctx, const Group &g, bool *done);

}  // namespace fusion
}  // namespace ek
