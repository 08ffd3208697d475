// CUDA graphs (ek_graph_*): capture, instantiation and replay; the registry
// of the captures underway, through which allocations on a capturing stream
// reach the capture's graph pool (src/core/pool.cpp, GraphPools); and the
// state a replay needs (the random generator's device word). ek.h's graphs
// section states the rules.
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "ops/gemm_plan.hpp"

namespace ek {
namespace {

constexpr uint32_t kGraphMagic = 0x454b4752;      // "EKGR"
constexpr uint32_t kGraphPoolMagic = 0x454b4750;  // "EKGP"

// Blocks of the context's pool freed during a capture: (pointer, stream id).
using Kept = std::vector<std::pair<void *, uint64_t>>;

}  // namespace
}  // namespace ek

struct ek_graph_pool_s {
  uint32_t magic = ek::kGraphPoolMagic;
  ek_context ctx = nullptr;
  ek::GraphPool *pool = nullptr;
};

struct ek_graph_s {
  uint32_t magic = ek::kGraphMagic;
  ek_context ctx = nullptr;
  void *exec = nullptr;  // cudaGraphExec_t
  ek::GraphPool *pool = nullptr;
  ek::Kept kept;
  uint64_t *rng_base = nullptr;  // from the graph pool; set before each replay
  uint64_t rng_used = 0;         // counters one replay draws
};

namespace ek {
namespace {

struct Capture {
  ek_context ctx = nullptr;
  ek_stream origin = nullptr;
  GraphPool *pool = nullptr;
  Kept kept;
  uint64_t *rng_base = nullptr;
  uint64_t rng_used = 0;
};

std::atomic<int> g_underway{0};
std::mutex g_mutex;                                 // guards g_captures
std::unordered_map<uint64_t, Capture> g_captures;  // by CUDA's capture id

// The capture id the native stream of ctx takes part in, 0 when none.
uint64_t capture_id(ek_context ctx, void *native) { return ctx->is_cuda() ? native_capture_id(native) : 0; }

ek_status check_graph(ek_graph g, const char *name) {
  return check_handle(g, kGraphMagic, "ek_graph", name);
}

ek_status check_graph_pool(ek_graph_pool p, const char *name) {
  return check_handle(p, kGraphPoolMagic, "ek_graph_pool", name);
}

ek_status cuda_only(ek_context ctx, const char *what) {
  EK_CHECK(ctx->is_cuda(), EK_ERROR_NOT_SUPPORTED,
           "%s needs a CUDA context: the CPU backend runs each call's work before it returns, "
           "so there is nothing to capture (run the step eagerly there)", what);
  return activate(ctx);
}

// What the capture needs of s is made before it begins: cudaMalloc and
// cudaHostAlloc are refused inside a global capture. cuBLAS's handle is made
// by an empty product (a context without cuBLAS just cannot capture products).
ek_status prepare_stream(ek_stream s) {
  std::string saved = last_error_message();
  if (s->ctx->backend->gemm(s->ctx, s, GemmPlan{}) != EK_SUCCESS)
    restore_last_error(std::move(saved));
  void *scratch = nullptr;
  EK_FORWARD(stream_scratch(s, &scratch));
  StreamPinned pinned(s);
  return pinned.init();
}

void free_kept(ek_context ctx, const Kept &kept) {
  for (const auto &k : kept) ctx->pool->free(k.first, k.second, nullptr);
}

// A capture that did not become a graph: what it held goes back.
void abandon(Capture &c) {
  free_kept(c.ctx, c.kept);
  if (c.rng_base) c.pool->pool.free(c.rng_base, c.origin->id, nullptr);
  c.ctx->graph_pools->end_capture(c.pool);
}

// Registers the capture begun on s; the pool reference passes to it.
ek_status begin_on(ek_stream s, GraphPool *pool, int mode) {
  g_underway.fetch_add(1, std::memory_order_acq_rel);  // frozen before the first captured call
  bool capturing = false;
  uint64_t id = 0;
  ek_status st = gpu::stream_begin_capture(s->native, mode);
  if (st == EK_SUCCESS) st = gpu::stream_capture_info(s->native, &capturing, &id);
  if (st != EK_SUCCESS) {
    g_underway.fetch_sub(1, std::memory_order_acq_rel);
    s->ctx->graph_pools->end_capture(pool);
    return st;
  }
  Capture c;
  c.ctx = s->ctx;
  c.origin = s;
  c.pool = pool;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_captures[id] = std::move(c);
  return EK_SUCCESS;
}

// Takes the capture begun on s out of the registry.
ek_status take_capture(ek_stream s, Capture *out) {
  bool capturing = false;
  uint64_t id = 0;
  EK_FORWARD(gpu::stream_capture_info(s->native, &capturing, &id));
  EK_CHECK(capturing, EK_ERROR_CAPTURE, "stream is not capturing a graph");
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_captures.find(id);
  EK_CHECK(it != g_captures.end() && it->second.origin == s, EK_ERROR_CAPTURE,
           "stream did not begin the capture it takes part in (it joined another stream's "
           "capture, or the capture was begun outside libek): end it on the stream that began it");
  *out = std::move(it->second);
  g_captures.erase(it);
  return EK_SUCCESS;
}

ek_status instantiate(ek_stream s, void **exec) {
  void *graph = nullptr;
  EK_FORWARD(gpu::stream_end_capture(s->native, &graph));
  ek_status st = gpu::graph_instantiate(graph, exec);
  gpu::graph_destroy(graph);
  return st;
}

// Each replay draws the counters after the generator's current offset, as the
// same calls run eagerly would.
ek_status set_rng_base(ek_graph g, ek_stream s) {
  ek_context ctx = g->ctx;
  uint64_t base = 0;
  {
    std::lock_guard<std::mutex> lock(ctx->rng_mutex);
    base = ctx->rng_offset;
    ctx->rng_offset += g->rng_used;
  }
  TensorDesc word{};
  word.data = g->rng_base;
  word.dtype = kI64;
  word.ndim = 0;
  return ctx->backend->fill(ctx, s, word, base);
}

}  // namespace

int captures_underway() { return g_underway.load(std::memory_order_acquire); }

uint64_t native_capture_id(void *native) {
  if (g_underway.load(std::memory_order_acquire) == 0) return 0;
  bool capturing = false;
  uint64_t id = 0;
  std::string saved = last_error_message();
  if (gpu::stream_capture_info(native, &capturing, &id) != EK_SUCCESS) {
    restore_last_error(std::move(saved));
    return 0;
  }
  return id;
}

const std::atomic<int> *capture_freeze_flag() { return &g_underway; }

bool stream_capturing(ek_stream s) { return capture_id(s->ctx, s->native) != 0; }

GraphPool *capture_pool(ek_stream s) {
  uint64_t id = capture_id(s->ctx, s->native);
  if (!id) return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_captures.find(id);
  return it == g_captures.end() || it->second.ctx != s->ctx ? nullptr : it->second.pool;
}

bool capture_keeps(ek_context ctx, void *native, void *ptr, uint64_t stream_id) {
  uint64_t id = capture_id(ctx, native);
  if (!id) return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_captures.find(id);
  if (it == g_captures.end() || it->second.ctx != ctx) return false;
  it->second.kept.emplace_back(ptr, stream_id);
  return true;
}

ek_status capture_random(ek_stream s, uint64_t n, uint64_t *offset, const uint64_t **base) {
  uint64_t id = capture_id(s->ctx, s->native);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_captures.find(id);
  EK_CHECK(id && it != g_captures.end(), EK_ERROR_CAPTURE,
           "the stream captures a graph that libek did not begin: the context's generator "
           "cannot advance in its replays (pass an explicit ek_philox_state)");
  Capture &c = it->second;
  if (!c.rng_base) {
    void *p = nullptr;
    std::string message;
    EK_CHECK(c.pool->pool.allocate(sizeof(uint64_t), s->id, &p, &message) == PoolResult::ok,
             EK_ERROR_OUT_OF_MEMORY, "%s", message.c_str());
    c.rng_base = static_cast<uint64_t *>(p);
  }
  *offset = c.rng_used;
  c.rng_used += n;
  *base = c.rng_base;
  return EK_SUCCESS;
}

ek_status refuse_capture(ek_stream s) {
  EK_CHECK(!stream_capturing(s), EK_ERROR_CAPTURE,
           "the stream is capturing a graph: this call waits for the device or reads a result "
           "back, which is not allowed until ek_graph_capture_end");
  return EK_SUCCESS;
}

ek_status pending_index_error(ek_stream s) {
  std::lock_guard<std::mutex> lock(s->pinned_mutex);
  if (!s->pinned_host) return EK_SUCCESS;
  auto *words = static_cast<volatile int64_t *>(s->pinned_host);
  const int64_t select = words[kWordBadIndexSelect], gather = words[kWordBadGather];
  if (select == 0 && gather == 0) return EK_SUCCESS;
  words[kWordBadIndexSelect] = 0;
  words[kWordBadGather] = 0;
  std::string what;
  if (select) what = "ek_index_select (or indexing by a tensor) met index " + std::to_string(select);
  if (select && gather) what += " and ";
  if (gather) what += "ek_gather met index " + std::to_string(gather);
  return fail(EK_ERROR_INDEX,
              "%s, out of range, on this stream since its last synchronization (the check was "
              "deferred: config.index_check EK_INDEX_CHECK_DEFERRED, the default on CUDA, or a "
              "graph replay); its output is not valid",
              what.c_str());
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_graph_pool_create(ek_context ctx, ek_graph_pool *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  EK_FORWARD(cuda_only(ctx, "a graph pool"));
  auto p = std::make_unique<ek_graph_pool_s>();
  p->ctx = ctx;
  p->pool = ctx->graph_pools->create();
  ctx->live_objects++;
  handle_created();
  *out = p.release();
  return EK_SUCCESS;
}

EK_API ek_status ek_graph_pool_destroy(ek_graph_pool pool) {
  EK_API_ENTRY;
  if (!pool) return EK_SUCCESS;
  EK_FORWARD(check_graph_pool(pool, "pool"));
  ek_context ctx = pool->ctx;
  EK_FORWARD(activate(ctx));
  ctx->graph_pools->release(pool->pool);
  pool->magic = kDeadMagic;
  delete pool;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

EK_API ek_status ek_graph_pool_get_stats(ek_graph_pool pool, ek_memory_stats *stats) {
  EK_API_ENTRY;
  EK_FORWARD(check_graph_pool(pool, "pool"));
  EK_CHECK_NULL(stats);
  EK_CHECK_STRUCT(stats, ek_memory_stats);
  write_struct(stats, public_stats(pool->pool->pool.stats(), 0), stats->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_graph_capture_begin(ek_stream stream, ek_graph_pool pool,
                                        ek_capture_mode mode) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  ek_context ctx = stream->ctx;
  if (pool) {
    EK_FORWARD(check_graph_pool(pool, "pool"));
    EK_CHECK(pool->ctx == ctx, EK_ERROR_INVALID_ARGUMENT,
             "pool belongs to another context than stream");
  }
  const int m = raw_enum(mode);
  EK_CHECK(m >= EK_CAPTURE_GLOBAL && m <= EK_CAPTURE_RELAXED, EK_ERROR_INVALID_ARGUMENT,
           "unknown capture mode %d (EK_CAPTURE_GLOBAL, _THREAD_LOCAL or _RELAXED)", m);
  EK_FORWARD(cuda_only(ctx, "graph capture"));
  bool capturing = false;
  uint64_t id = 0;
  EK_FORWARD(gpu::stream_capture_info(stream->native, &capturing, &id));
  EK_CHECK(!capturing, EK_ERROR_CAPTURE, "stream is capturing a graph already");
  EK_FORWARD(fusion::flush_stream(stream));  // ops called before the capture are not part of it
  EK_FORWARD(prepare_stream(stream));
  GraphPool *gp = pool ? pool->pool : ctx->graph_pools->create();
  if (!ctx->graph_pools->begin_capture(gp))
    return fail(EK_ERROR_CAPTURE,
                "pool %llu serves a capture underway on another stream: captures that share a "
                "pool run one after another", static_cast<unsigned long long>(gp->id));
  if (!pool) ctx->graph_pools->release(gp);  // the capture's reference remains
  return begin_on(stream, gp, m);
}

EK_API ek_status ek_graph_capture_end(ek_stream stream, ek_graph *out) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(out);
  ek_context ctx = stream->ctx;
  EK_FORWARD(cuda_only(ctx, "graph capture"));
  EK_FORWARD(fusion::flush_stream(stream));  // ops called during the capture are part of it
  Capture c;
  EK_FORWARD(take_capture(stream, &c));
  void *exec = nullptr;
  ek_status st = instantiate(stream, &exec);
  g_underway.fetch_sub(1, std::memory_order_acq_rel);
  if (st != EK_SUCCESS) {
    abandon(c);
    return st;
  }
  auto g = std::make_unique<ek_graph_s>();
  g->ctx = ctx;
  g->exec = exec;
  g->pool = c.pool;
  g->kept = std::move(c.kept);
  g->rng_base = c.rng_base;
  g->rng_used = c.rng_used;
  ctx->graph_pools->retain(c.pool);  // the graph's reference, before the capture's goes
  ctx->graph_pools->end_capture(c.pool);
  ctx->live_objects++;
  handle_created();
  *out = g.release();
  return EK_SUCCESS;
}

EK_API ek_status ek_graph_upload(ek_stream stream, ek_graph graph) {
  EK_API_ENTRY;
  EK_FORWARD(check_graph(graph, "graph"));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(graph->ctx, stream, &s));
  EK_FORWARD(activate(graph->ctx));
  return gpu::graph_upload(graph->exec, s->native);
}

EK_API ek_status ek_graph_launch(ek_stream stream, ek_graph graph) {
  EK_API_ENTRY;
  EK_FORWARD(check_graph(graph, "graph"));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(graph->ctx, stream, &s));
  EK_FORWARD(activate(graph->ctx));
  if (graph->rng_used) EK_FORWARD(set_rng_base(graph, s));
  return gpu::graph_launch(graph->exec, s->native);
}

EK_API ek_status ek_graph_destroy(ek_graph graph) {
  EK_API_ENTRY;
  if (!graph) return EK_SUCCESS;
  EK_FORWARD(check_graph(graph, "graph"));
  ek_context ctx = graph->ctx;
  EK_FORWARD(activate(ctx));
  // Its replays may still read the kept blocks; during another capture a
  // device-wide wait is illegal, and CUDA defers the graph's own release.
  if (captures_underway() == 0 && !graph->kept.empty()) EK_FORWARD(gpu::device_synchronize());
  gpu::graph_exec_destroy(graph->exec);
  free_kept(ctx, graph->kept);
  if (graph->rng_base) graph->pool->pool.free(graph->rng_base, ctx->default_stream.id, nullptr);
  ctx->graph_pools->release(graph->pool);
  graph->magic = kDeadMagic;
  delete graph;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

EK_API ek_status ek_stream_is_capturing(ek_stream stream, int *capturing) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(capturing);
  bool yes = false;
  if (stream->ctx->is_cuda()) {
    uint64_t id = 0;
    EK_FORWARD(activate(stream->ctx));
    EK_FORWARD(gpu::stream_capture_info(stream->native, &yes, &id));
  }
  *capturing = yes ? 1 : 0;
  return EK_SUCCESS;
}

}  // extern "C"
