// Pending groups of elementwise ops (fusion.hpp): recording, the rules that
// end a group, evaluation, the mode switches and the public fusion calls.
#include "core/fusion.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>

#include "core/backend.hpp"

namespace ek {
namespace fusion {
namespace {

// The api_depth() of the outermost fusible call in progress, 0 when none.
thread_local int t_fusible = 0;

bool deferring_here() { return t_fusible != 0 && t_fusible == api_depth(); }

bool fusible_dtype(int dt) {
  return dt == kF32 || dt == kF64 || dt == kF16 || dt == kBF16 || dt == kI32 || dt == kI64 ||
         dt == kBool;
}

bool contains(const std::vector<Storage *> &v, const Storage *st) {
  return std::find(v.begin(), v.end(), st) != v.end();
}

void hold(Group *g, Storage *st) {
  if (contains(g->storages, st)) return;
  st->refs.fetch_add(1, std::memory_order_relaxed);
  g->storages.push_back(st);
  st->fusion_group.store(g, std::memory_order_release);
}

// Detaches g from its stream and storages, replays or fuses it, then drops
// its references. Called with the context's fusion mutex held.
void discard(ek_context ctx, Group *g);

// Whether g went on past a reduction (rows mode).
bool past_reduction(const Group &g) {
  return std::any_of(g.nodes.begin(), g.nodes.end() - 1, [](const Node &m) { return m.kind == kReduce; });
}

// A group in rows mode runs as one kernel when it can, else op by op.
ek_status evaluate_rows(ek_context ctx, Group *g) {
  bool done = false;
  ek_status status = run_fused_rows(ctx, *g, &done);
  for (size_t k = 0; !done && status == EK_SUCCESS && k < g->nodes.size(); ++k)
    status = launch_node(ctx, g->s, g->nodes[k]);
  discard(ctx, g);
  return status;
}

// A group ending in a reduction runs as one kernel when it can; else its
// elementwise ops as one kernel and the reduction after them; else op by op.
ek_status evaluate(ek_context ctx, Group *g) {
  State &st = *ctx->fusion;
  st.stats.groups_evaluated++;
  if (ctx->is_cuda() && past_reduction(*g)) return evaluate_rows(ctx, g);
  const size_t n = g->nodes.size(), chain = n - (g->nodes.back().kind == kReduce ? 1 : 0);
  size_t next = 0;  // the first node not run yet
  bool done = false;
  ek_status status = EK_SUCCESS;
  if (ctx->is_cuda() && chain < n) status = run_fused_reduce(ctx, *g, &done);
  if (done) next = n;
  const bool chain_fusible = ctx->is_cuda() && chain > 1;  // run_fused counts why it does not fuse
  if (status == EK_SUCCESS && next == 0 && chain_fusible) status = run_fused(ctx, *g, chain, &done);
  if (done && next == 0) next = chain;
  if (next == 0 && !chain_fusible) st.stats.fallbacks_unsupported++;
  for (size_t k = next; status == EK_SUCCESS && k < n; ++k) status = launch_node(ctx, g->s, g->nodes[k]);
  discard(ctx, g);
  return status;
}

ek_status flush_group_of(ek_context ctx, const Storage *st) {
  Group *g = st->fusion_group.load(std::memory_order_acquire);
  return g ? evaluate(ctx, g) : EK_SUCCESS;
}

// Evaluates the groups (of any stream) that use any of these tensors.
ek_status flush_all(ek_context ctx, const ek_tensor_s *out,
                    std::initializer_list<const ek_tensor_s *> in) {
  if (out) EK_FORWARD(flush_group_of(ctx, out->storage));
  for (const ek_tensor_s *t : in)
    if (t) EK_FORWARD(flush_group_of(ctx, t->storage));
  return EK_SUCCESS;
}

// Foreign memory (ek_tensor_wrap, DLPack import) is seen by its owner too: a
// write into it runs at the call. A read of it may wait on CUDA, whose work is
// asynchronous anyway, but not on the CPU, whose callers expect it done.
bool node_fusible(const Node &n, const ek_tensor_s *out, std::initializer_list<const ek_tensor_s *> in) {
  if (!fusible_dtype(n.out().dtype) || !out->storage->pooled) return false;
  for (const TensorDesc &d : node_inputs(n))
    if (d.data && !fusible_dtype(d.dtype)) return false;
  for (const ek_tensor_s *t : in)
    if (t && (t->storage->ctx != out->storage->ctx || (!t->storage->pooled && !t->storage->ctx->is_cuda())))
      return false;
  return true;
}

// Whether pred(t, view) holds for every tensor operand t of a node, in[]
// in order, with ins = node_inputs(node), the view the node reads t
// through. A unary op's in[] has a nullptr slot more than its inputs.
template <typename Pred>
bool all_inputs(std::initializer_list<const ek_tensor_s *> in, const std::vector<TensorDesc> &ins, Pred pred) {
  size_t slot = 0;
  for (const ek_tensor_s *t : in) {
    const size_t k = slot++;
    if (t && !pred(t, ins[k])) return false;
  }
  return true;
}

// Whether writing out (as n.out()) into a storage g already uses keeps every
// element independent: each use of the storage, in g and in n's inputs, is
// that exact view, so one thread reads and writes each element, in order.
bool in_place_exact(const Group &g, const Node &n, const ek_tensor_s *out,
                    std::initializer_list<const ek_tensor_s *> in, const std::vector<TensorDesc> &ins) {
  for (const Group::Use &u : g.uses)
    if (u.storage == out->storage && !same_desc(u.view, n.out())) return false;
  return all_inputs(in, ins, [&](const ek_tensor_s *t, const TensorDesc &d) {
    return t->storage != out->storage || same_desc(d, n.out());
  });
}

// ---- rows mode (fusion.hpp)

bool reduces(const Group &g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node &m) { return m.kind == kReduce; });
}

// Whether d has the full shape with its last dim 1.
bool row_shaped(const TensorDesc &full, const TensorDesc &d) {
  if (d.ndim != full.ndim || full.ndim == 0 || full.shape[full.ndim - 1] < 2 || d.shape[d.ndim - 1] != 1) return false;
  return std::equal(d.shape, d.shape + d.ndim - 1, full.shape);
}

bool rows_reduction(const TensorDesc &full, const Node &n) {
  return n.kind == kReduce && (n.src.dtype == kF32 || n.src.dtype == kF64) && desc_same_shape(n.src, full) &&
         n.red.r == full.shape[full.ndim - 1] && row_shaped(full, n.dst) && warp_per_row(n.red);
}

// Whether d reads row value v of g broadcast over the full shape.
bool row_broadcast(const TensorDesc &full, const TensorDesc &v, const TensorDesc &d) {
  if (!row_shaped(full, v) || d.data != v.data || d.dtype != v.dtype || !desc_same_shape(d, full)) return false;
  return d.strides[d.ndim - 1] == 0 && std::equal(d.strides, d.strides + d.ndim - 1, v.strides);
}

// Whether n may join g, which has a reduction: every reduction fits rows
// mode, a new one reduces a value computed since the last reduction or row
// op, and an elementwise op has the full or the row shape.
bool rows_joins(const Group &g, const Node &n) {
  const TensorDesc &full = g.nodes.front().out();
  if (!g.s->ctx->is_cuda()) return false;
  for (const Node &m : g.nodes)
    if (m.kind == kReduce && !rows_reduction(full, m)) return false;
  if (n.kind != kReduce) return desc_same_shape(n.out(), full) || row_shaped(full, n.out());
  if (!rows_reduction(full, n)) return false;
  for (size_t k = g.nodes.size(); k-- > 0;) {
    if (same_desc(g.nodes[k].out(), n.src)) return true;
    if (g.nodes[k].kind == kReduce || row_shaped(full, g.nodes[k].out())) return false;
  }
  return false;
}

// Whether a node of g reads d as written: exactly, or in rows mode a row
// value broadcast.
bool reads_as_written(const Group &g, const TensorDesc &d, bool rows) {
  const TensorDesc &full = g.nodes.front().out();
  for (const Node &w : g.nodes)
    if (same_desc(w.out(), d) || (rows && row_broadcast(full, w.out(), d))) return true;
  return false;
}

// Whether node can join g: same shape (or rows mode's shapes), operands that
// g writes read as written, out written in place only as in_place_exact
// allows, and the limits. Counts new inputs into *added.
bool joins(const Group &g, const Node &n, const ek_tensor_s *out,
           std::initializer_list<const ek_tensor_s *> in, int *added) {
  if (g.nodes.size() >= static_cast<size_t>(kMaxNodes)) return false;
  if (n.kind == kReduce && g.nodes.empty()) return false;  // nothing to fuse it with
  const bool rows = reduces(g);
  if (rows && !rows_joins(g, n)) return false;
  if (!rows && n.kind != kReduce && !g.nodes.empty() && !desc_same_shape(g.nodes.front().out(), n.out()))
    return false;
  const std::vector<TensorDesc> ins = node_inputs(n);
  if (contains(g.storages, out->storage) && (n.kind == kReduce || !in_place_exact(g, n, out, in, ins)))
    return false;
  *added = 0;
  const bool read_as_written = all_inputs(in, ins, [&](const ek_tensor_s *t, const TensorDesc &d) {
    if (contains(g.written, t->storage)) return reads_as_written(g, d, rows);
    if (!contains(g.storages, t->storage)) ++*added;
    return true;
  });
  return read_as_written && g.inputs + *added <= kMaxInputs;
}

ek_status record(ek_context ctx, ek_stream s, const Node &n, const ek_tensor_s *out,
                 std::initializer_list<const ek_tensor_s *> in, int mode) {
  State &st = *ctx->fusion;
  // A group elsewhere that uses these tensors runs first (stream order).
  for (const ek_tensor_s *t : in)
    if (t && t->storage->fusion_group.load() && t->storage->fusion_group.load() != s->fusion_group)
      EK_FORWARD(flush_group_of(ctx, t->storage));
  if (out->storage->fusion_group.load() && out->storage->fusion_group.load() != s->fusion_group)
    EK_FORWARD(flush_group_of(ctx, out->storage));
  int added = 0;
  if (s->fusion_group && (s->fusion_group->mode != mode || !joins(*s->fusion_group, n, out, in, &added)))
    EK_FORWARD(evaluate(ctx, s->fusion_group));
  if (!s->fusion_group && n.kind == kReduce) {  // its input was produced elsewhere: run it now
    EK_FORWARD(flush_all(ctx, out, in));
    return launch_node(ctx, s, n);
  }
  if (!s->fusion_group) {
    auto *g = new Group;
    g->s = s;
    g->mode = mode;
    st.groups.push_back(g);
    s->fusion_group = g;
    joins(*g, n, out, in, &added);  // counts its inputs (an empty group takes any node)
  }
  Group *g = s->fusion_group;
  g->nodes.push_back(n);
  g->inputs += added;
  all_inputs(in, node_inputs(n), [&](const ek_tensor_s *t, const TensorDesc &d) {
    hold(g, t->storage);
    g->uses.push_back(Group::Use{g->nodes.size() - 1, t->storage, d});
    return true;
  });
  hold(g, out->storage);
  g->written.push_back(out->storage);
  g->uses.push_back(Group::Use{g->nodes.size() - 1, out->storage, n.out()});
  st.stats.ops_deferred++;
  return EK_SUCCESS;
}

// Forgets g, evaluated or emptied: its stream, its storages' marks and references.
void discard(ek_context ctx, Group *g) {
  State &st = *ctx->fusion;
  st.groups.erase(std::find(st.groups.begin(), st.groups.end(), g));
  g->s->fusion_group = nullptr;
  for (Storage *s : g->storages) s->fusion_group.store(nullptr, std::memory_order_release);
  for (Storage *s : g->storages) release_storage(s);
  delete g;
}

}  // namespace

void release_pending(Storage *st) {
  ek_context ctx = st->ctx;
  std::lock_guard<std::recursive_mutex> lock(ctx->fusion->mutex);
  Group *g = st->fusion_group.load(std::memory_order_acquire);
  release_storage(st);
  if (!g) return;
  // A last node's output that only the group holds is read by no node (later
  // ones would follow it) and by nobody else: the node need not run.
  while (!g->nodes.empty() && g->written.back()->refs.load(std::memory_order_acquire) == 1) {
    Storage *out = g->written.back();
    g->nodes.pop_back();
    g->written.pop_back();
    while (!g->uses.empty() && g->uses.back().node == g->nodes.size()) g->uses.pop_back();
    if (contains(g->written, out)) continue;
    bool read = false;
    for (const Node &n : g->nodes)
      for (const TensorDesc &d : node_inputs(n)) read = read || (d.data && d.data == out->data);
    if (read) continue;
    g->storages.erase(std::find(g->storages.begin(), g->storages.end(), out));
    out->fusion_group.store(nullptr, std::memory_order_release);
    release_storage(out);
  }
  if (g->nodes.empty()) discard(ctx, g);
}

State *create_state() { return new State; }

std::vector<TensorDesc> node_inputs(const Node &n) {
  switch (n.kind) {
    case kUnary: return {n.ew.a};
    case kBinary: return {n.ew.a, n.ew.b};
    case kTernary: return {n.tern.cond, n.tern.x, n.tern.y};
    default: return {n.src};
  }
}

FusibleCall::FusibleCall() : previous_(t_fusible) {
  if (api_depth() == 1) t_fusible = 1;
}
FusibleCall::~FusibleCall() { t_fusible = previous_; }

void forbid_in_call() { t_fusible = 0; }

int stream_mode(ek_stream s) {
  const int m = s->fusion_mode.load(std::memory_order_relaxed);
  return m ? m : static_cast<int>(s->ctx->config.fusion);
}

ek_status launch_node(ek_context ctx, ek_stream s, const Node &n) {
  switch (n.kind) {
    case kUnary: return ctx->backend->unary(ctx, s, n.ew);
    case kBinary: return ctx->backend->binary(ctx, s, n.ew);
    case kTernary: return ctx->backend->ternary(ctx, s, n.tern);
    case kReduce: return ctx->backend->reduce(ctx, s, n.red);
    default: return device_copy(ctx, s, n.dst, n.src);  // complex dtypes through their parts
  }
}

ek_status run_node(ek_context ctx, ek_stream s, const Node &n, const ek_tensor_s *out,
                   std::initializer_list<const ek_tensor_s *> in) {
  const bool defer = stream_mode(s) != EK_FUSION_OFF && deferring_here() && node_fusible(n, out, in);
  bool pending = out->storage->fusion_group.load(std::memory_order_acquire) != nullptr;
  for (const ek_tensor_s *t : in) pending = pending || (t && t->storage->fusion_group.load(std::memory_order_acquire));
  if (!defer && !pending) return launch_node(ctx, s, n);  // fusion off: no lock, as before
  std::lock_guard<std::recursive_mutex> lock(ctx->fusion->mutex);
  if (defer) return record(ctx, s, n, out, in, stream_mode(s));
  EK_FORWARD(flush_all(ctx, out, in));
  return launch_node(ctx, s, n);
}

bool pending_on(const ek_tensor_s *t, ek_stream s) {
  if (!t->storage->fusion_group.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::recursive_mutex> lock(s->ctx->fusion->mutex);
  return s->fusion_group && t->storage->fusion_group.load(std::memory_order_acquire) == s->fusion_group;
}

ek_status touch(const ek_tensor_s *t) {
  if (!t->storage->fusion_group.load(std::memory_order_acquire) || deferring_here()) return EK_SUCCESS;
  return flush_tensor(t);
}

ek_status flush_tensor(const ek_tensor_s *t) {
  ek_context ctx = t->storage->ctx;
  std::lock_guard<std::recursive_mutex> lock(ctx->fusion->mutex);
  return flush_group_of(ctx, t->storage);
}

ek_status flush_stream(ek_stream s) {
  ek_context ctx = s->ctx;
  std::lock_guard<std::recursive_mutex> lock(ctx->fusion->mutex);
  return s->fusion_group ? evaluate(ctx, s->fusion_group) : EK_SUCCESS;
}

ek_status flush_context(ek_context ctx) {
  std::lock_guard<std::recursive_mutex> lock(ctx->fusion->mutex);
  ek_status first = EK_SUCCESS;
  while (!ctx->fusion->groups.empty()) {
    const ek_status st = evaluate(ctx, ctx->fusion->groups.front());
    if (first == EK_SUCCESS) first = st;
  }
  return first;
}

}  // namespace fusion
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_stream_set_fusion(ek_stream stream, ek_fusion fusion) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  const int m = raw_enum(fusion);
  EK_CHECK(m == 0 || m == EK_FUSION_OFF || m == EK_FUSION_ON || m == EK_FUSION_ROUNDED,
           EK_ERROR_INVALID_ARGUMENT,
           "fusion %d is not an ek_fusion (EK_FUSION_OFF 1, EK_FUSION_ON 2, EK_FUSION_ROUNDED 3) "
           "or 0 (follow the context)", m);
  // Ops recorded under the old mode run as it said, before any op of the new one.
  EK_FORWARD(fusion::flush_stream(stream));
  stream->fusion_mode.store(m, std::memory_order_relaxed);
  return EK_SUCCESS;
}

EK_API ek_status ek_stream_get_fusion(ek_stream stream, ek_fusion *fusion) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(fusion);
  *fusion = static_cast<ek_fusion>(stream->fusion_mode.load(std::memory_order_relaxed));
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_eval(ek_tensor t) {
  EK_API_ENTRY;
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", "t"));
  return fusion::flush_tensor(t);
}

EK_API ek_status ek_stream_flush(ek_stream stream) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  return fusion::flush_stream(stream);
}

EK_API ek_status ek_context_get_fusion_stats(ek_context ctx, ek_fusion_stats *stats) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(stats);
  // Its fields up to fallbacks_unsupported are API 1.0's; later ones were appended.
  EK_FORWARD(check_struct_size(stats->struct_size, offsetof(ek_fusion_stats, prologue_fusions), "ek_fusion_stats"));
  const fusion::Stats &s = ctx->fusion->stats;
  ek_fusion_stats out{};
  out.ops_deferred = s.ops_deferred;
  out.groups_evaluated = s.groups_evaluated;
  out.fused_launches = s.fused_launches;
  out.kernels_compiled = s.kernels_compiled;
  out.cache_hits_memory = s.cache_hits_memory;
  out.cache_hits_disk = s.cache_hits_disk;
  out.compile_ns = s.compile_ns;
  out.fallbacks_cap = s.fallbacks_cap;
  out.fallbacks_capture = s.fallbacks_capture;
  out.fallbacks_unsupported = s.fallbacks_unsupported;
  out.prologue_fusions = s.prologue_fusions;
  write_struct(stats, out, stats->struct_size);
  return EK_SUCCESS;
}

}  // extern "C"
