// The context's memory: one Pool (src/core/pool.cpp) over device or host memory,
// and the public ek_malloc / ek_free / statistics / snapshot entry points.
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "core/gpu.hpp"
#include "core/internal.hpp"

namespace ek {

// Raw memory for the pool: cudaMalloc on CUDA, aligned host memory on CPU.
class PoolMemory final : public RawMemory {
 public:
  // device < 0: host memory. The device is made current here, not on every
  // ek_malloc: the pool's cached path touches no CUDA API.
  explicit PoolMemory(int device) : device_(device) {}
  bool allocate(size_t bytes, void **ptr) override {
    if (device_ >= 0)
      return gpu::set_device(device_) == EK_SUCCESS &&
             gpu::malloc_device(bytes, ptr) == EK_SUCCESS;
    // Large blocks on 2 MiB boundaries, marked for transparent huge pages
    // (where THP is "madvise", as NumPy does): streaming through tens of MiB
    // of 4 KiB pages costs the CPU's hot loops TLB misses (~5-10%).
    constexpr size_t kHuge = size_t(2) << 20;
    const bool huge = bytes >= 2 * kHuge;
    // aligned_alloc wants a size that is a multiple of the alignment (pool
    // sizes are multiples of 512; a huge block's tail is rounded up).
    const size_t align = huge ? kHuge : 512;
    *ptr = std::aligned_alloc(align, (bytes + align - 1) / align * align);
#ifdef MADV_HUGEPAGE
    if (huge && *ptr) madvise(*ptr, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
    return *ptr != nullptr;
  }
  void release(void *ptr, size_t) override {
    if (device_ < 0) {
      std::free(ptr);
      return;
    }
    gpu::set_device(device_);
    gpu::free_device(ptr);
  }
  void mem_info(size_t *free_bytes, size_t *total_bytes) override {
    *free_bytes = *total_bytes = 0;
    if (device_ >= 0) {
      if (gpu::set_device(device_) == EK_SUCCESS) gpu::mem_info(free_bytes, total_bytes);
      return;
    }
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    *free_bytes = static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page;
    *total_bytes = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page;
  }

 private:
  int device_;
};

// Stream ordering for the pool. CPU work is synchronous: nothing to wait for.
// On CUDA, tokens are cudaEvent_t values, recycled through a free list.
class PoolSync final : public StreamSync {
 public:
  explicit PoolSync(int device) : device_(device) {}
  ~PoolSync() override {
    for (void *e : free_events_) gpu::event_destroy(e);
  }
  // Several handles may share one native stream (ek_stream_wrap of a created
  // stream, or of the default stream's handle): the id stays known until the
  // last of them goes.
  void add_stream(uint64_t id, void *native) {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.emplace(id, native);  // keeps the first registration's handle
    ++refs_[id];
  }
  // True when this was the last handle of the id (the id stays until remove_stream).
  bool release_stream(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = refs_.find(id);
    if (it == refs_.end() || --it->second > 0) return it == refs_.end();
    refs_.erase(it);
    return true;
  }
  void *native_of(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second;
  }
  void remove_stream(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(id);
  }
  uint64_t record(uint64_t stream_id) override {
    if (device_ < 0) return 0;
    void *native = nullptr, *event = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = streams_.find(stream_id);
      if (it == streams_.end()) return 0;  // a destroyed stream has finished its work
      native = it->second;
      if (!free_events_.empty()) {
        event = free_events_.back();
        free_events_.pop_back();
      }
    }
    if (!event && (gpu::set_device(device_) != EK_SUCCESS ||
                   gpu::event_create(false, &event) != EK_SUCCESS)) {
      gpu::stream_synchronize(native);  // no event: make the work finished instead
      return 0;
    }
    gpu::event_record(event, native);
    return reinterpret_cast<uint64_t>(event);
  }
  bool query(uint64_t event) override {
    bool done = true;
    if (event) gpu::event_query(reinterpret_cast<void *>(event), &done);
    return done;
  }
  void wait(uint64_t stream_id, uint64_t event) override {
    if (!event) return;
    void *native = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = streams_.find(stream_id);
      if (it == streams_.end()) return;
      native = it->second;
    }
    gpu::stream_wait_event(native, reinterpret_cast<void *>(event));
  }
  void synchronize(uint64_t event) override {
    if (event) gpu::event_synchronize(reinterpret_cast<void *>(event));
  }
  void destroy(uint64_t event) override {
    if (!event) return;
    std::lock_guard<std::mutex> lock(mutex_);
    free_events_.push_back(reinterpret_cast<void *>(event));
  }

 private:
  int device_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, void *> streams_;
  std::unordered_map<uint64_t, int> refs_;  // handles per stream id
  std::vector<void *> free_events_;
};

namespace {

uint64_t total_memory(ek_context ctx) {
  size_t free_bytes = 0, total_bytes = 0;
  ctx->memory->mem_info(&free_bytes, &total_bytes);
  return total_bytes;
}

// A positive fraction must give a limit of at least one byte: 0 means none.
ek_status fraction_limit(ek_context ctx, const char *what, double fraction, uint64_t *bytes) {
  uint64_t total = total_memory(ctx);
  *bytes = static_cast<uint64_t>(fraction * static_cast<double>(total));
  EK_CHECK(*bytes > 0, EK_ERROR_INVALID_ARGUMENT,
           "%s %g of %s of device memory is less than one byte (a limit of 0 would mean no "
           "limit)", what, fraction, format_bytes(total).c_str());
  return EK_SUCCESS;
}

ek_status configured_limit(ek_context ctx, uint64_t *limit) {
  *limit = ctx->config.memory_limit;
  if (!(ctx->config.memory_fraction > 0)) return EK_SUCCESS;
  uint64_t by_fraction = 0;
  EK_FORWARD(fraction_limit(ctx, "memory fraction (config->memory_fraction or EK_MEMORY_FRACTION)",
                            ctx->config.memory_fraction, &by_fraction));
  if (*limit == 0 || by_fraction < *limit) *limit = by_fraction;
  return EK_SUCCESS;
}

// Set while this thread runs a memory callback: memory events it causes
// meanwhile (the callback allocates, and that runs out of memory too) do not
// call a callback again, which would recurse until the stack overflows.
thread_local bool t_in_memory_callback = false;

void notify(ek_context ctx, ek_memory_event event, uint64_t bytes) {
  if (t_in_memory_callback) return;
  ek_memory_callback cb;
  void *user;
  {
    std::lock_guard<std::mutex> lock(ctx->callback_mutex);
    cb = ctx->callback;
    user = ctx->callback_user;
  }
  if (!cb) return;
  t_in_memory_callback = true;
  cb(ctx, event, bytes, user);
  t_in_memory_callback = false;
}

const char *device_kind(ek_context ctx) { return ctx->is_cuda() ? "cuda" : "cpu"; }

// INFO: segments come from and go back to the device (installed only when
// the context logs at INFO or more, so that otherwise the pool records nothing).
void log_pool_event(ek_context ctx, const PoolEvent &e) {
  if (e.kind == PoolEvent::segment_reserved) {
    log_message(EK_LOG_INFO, ctx->config.log_level,
                "pool %s:%d: reserved a new segment of %s from the device; reserved now %s",
                device_kind(ctx), ctx->device.index, format_bytes(e.bytes).c_str(),
                format_bytes(e.reserved).c_str());
    return;
  }
  log_message(EK_LOG_INFO, ctx->config.log_level,
              "pool %s:%d: released %" PRIu64 " cached segment%s (%s) to the device %s; "
              "reserved now %s",
              device_kind(ctx), ctx->device.index, e.segments, e.segments == 1 ? "" : "s",
              format_bytes(e.bytes).c_str(), e.why, format_bytes(e.reserved).c_str());
}

// WARN: the pool released its cache and still cannot serve the request; the
// memory callback runs next, then the last retry.
void log_out_of_memory(ek_context ctx, size_t requested, const std::string &cause) {
  if (!log_enabled(EK_LOG_WARN, ctx->config.log_level)) return;
  PoolStats st = ctx->pool->stats();
  uint64_t limit = ctx->pool->limit();
  log_message(EK_LOG_WARN, ctx->config.log_level,
              "pool %s:%d: out of memory for %s (%s; allocated %s, reserved %s, limit %s) after "
              "releasing the cache; retrying once after the memory callback",
              device_kind(ctx), ctx->device.index, format_bytes(requested).c_str(), cause.c_str(),
              format_bytes(st.allocated_bytes).c_str(), format_bytes(st.reserved_bytes).c_str(),
              limit ? format_bytes(limit).c_str() : "none");
}

ek_status map_pool_result(PoolResult r, const std::string &message) {
  switch (r) {
    case PoolResult::ok: return EK_SUCCESS;
    case PoolResult::out_of_memory: return fail(EK_ERROR_OUT_OF_MEMORY, "%s", message.c_str());
    case PoolResult::invalid: break;
  }
  return fail(EK_ERROR_INVALID_ARGUMENT, "%s", message.c_str());
}

}  // namespace

ek_status init_memory(ek_context ctx) {
  int device = ctx->is_cuda() ? ctx->device.index : -1;
  ctx->memory = std::make_unique<PoolMemory>(device);
  ctx->sync = std::make_unique<PoolSync>(device);
  ctx->sync->add_stream(ctx->default_stream.id, ctx->default_stream.native);
  PoolConfig cfg;
  EK_FORWARD(configured_limit(ctx, &cfg.limit_bytes));
  ctx->pool = std::make_unique<Pool>(*ctx->memory, *ctx->sync, cfg);
  ctx->pool->set_freeze_flag(capture_freeze_flag());
  ctx->graph_pools =
      std::make_unique<GraphPools>(*ctx->memory, *ctx->sync, capture_freeze_flag());
  ctx->pool->set_oom_callback([ctx](size_t requested, const std::string &cause) {
    log_out_of_memory(ctx, requested, cause);
    notify(ctx, EK_MEMORY_EVENT_OOM, requested);
  });
  if (log_enabled(EK_LOG_INFO, ctx->config.log_level))
    ctx->pool->set_event_callback([ctx](const PoolEvent &e) { log_pool_event(ctx, e); });
  return EK_SUCCESS;
}

void shutdown_memory(ek_context ctx) {
  ctx->graph_pools.reset();
  ctx->pool.reset();
  ctx->sync.reset();
  ctx->memory.reset();
}

void register_pool_stream(ek_context ctx, uint64_t id, void *native) {
  ctx->sync->add_stream(id, native);
}

void unregister_pool_stream(ek_context ctx, uint64_t id) {
  // Another handle still uses this stream: its frees must stay ordered on it.
  if (!ctx->sync->release_stream(id)) return;
  ctx->pool->stream_destroyed(id);
  ctx->sync->remove_stream(id);
}

ek_status pool_allocate(ek_context ctx, size_t bytes, ek_stream stream, void **ptr) {
  EK_CHECK(bytes <= (uint64_t{1} << 56), EK_ERROR_OVERFLOW,
           "request of %zu bytes exceeds the largest allocation (2^56 bytes)", bytes);
  std::string message;
  void *p = nullptr;  // the pool clears its output first; ours stays untouched on failure
  // While a capture is underway, a capturing stream allocates from its graph pool.
  GraphPool *graph = captures_underway() > 0 ? capture_pool(stream) : nullptr;
  Pool &pool = graph ? graph->pool : *ctx->pool;
  PoolResult r = pool.allocate(bytes, stream->id, &p, &message);
  if (r == PoolResult::ok) *ptr = p;
  return map_pool_result(r, message);
}

ek_status pool_record_stream(ek_context ctx, void *ptr, uint64_t stream_id) {
  std::string message;
  PoolResult graph_result;
  if (ctx->graph_pools->count() &&
      ctx->graph_pools->record_stream(ptr, stream_id, &graph_result, &message))
    return map_pool_result(graph_result, message);
  return map_pool_result(ctx->pool->record_stream(ptr, stream_id, &message), message);
}

ek_status pool_free(ek_context ctx, void *ptr, uint64_t stream_id) {
  std::string message;
  PoolResult graph_result;
  if (ctx->graph_pools->count() &&
      ctx->graph_pools->free(ptr, stream_id, &graph_result, &message))
    return map_pool_result(graph_result, message);
  // The capture's nodes may read the block in every replay: its graph keeps it.
  if (captures_underway() > 0 && ctx->pool->owns(ptr) &&
      capture_keeps(ctx, ctx->sync->native_of(stream_id), ptr, stream_id))
    return EK_SUCCESS;
  return map_pool_result(ctx->pool->free(ptr, stream_id, &message), message);
}

ek_memory_stats public_stats(const PoolStats &p, uint64_t limit) {
  ek_memory_stats s{};
  s.allocated_bytes = p.allocated_bytes;
  s.reserved_bytes = p.reserved_bytes;
  s.requested_bytes = p.requested_bytes;
  s.peak_allocated_bytes = p.peak_allocated_bytes;
  s.peak_reserved_bytes = p.peak_reserved_bytes;
  s.peak_requested_bytes = p.peak_requested_bytes;
  s.total_allocated_bytes = p.total_allocated_bytes;
  s.total_freed_bytes = p.total_freed_bytes;
  s.active_blocks = p.active_blocks;
  s.cached_blocks = p.cached_blocks;
  s.segments = p.segments;
  s.alloc_count = p.alloc_count;
  s.free_count = p.free_count;
  s.cache_hits = p.cache_hits;
  s.device_mallocs = p.device_mallocs;
  s.device_frees = p.device_frees;
  s.retries = p.retries;
  s.oom_count = p.oom_count;
  s.largest_free_block = p.largest_free_block;
  s.cached_free_bytes = p.cached_free_bytes;
  s.limit_bytes = limit;
  s.fragmentation = p.fragmentation;
  return s;
}

ek_status memcpy_any(ek_context ctx, void *dst, const void *src, size_t bytes, ek_stream s) {
  if (bytes == 0) return EK_SUCCESS;
  if (!ctx->is_cuda()) {
    std::memmove(dst, src, bytes);
    return EK_SUCCESS;
  }
  EK_FORWARD(activate(ctx));
  return gpu::memcpy_async(dst, src, bytes, s->native);
}

}  // namespace ek

ek_context_s::ek_context_s() = default;
ek_context_s::~ek_context_s() = default;

using namespace ek;

extern "C" {

EK_API ek_status ek_malloc(ek_stream stream, ek_context ctx, size_t bytes, void **ptr) {
  EK_API_ENTRY;
  EK_CHECK_NULL(ptr);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  if (bytes == 0) {
    *ptr = nullptr;
    return EK_SUCCESS;
  }
  return pool_allocate(ctx, bytes, s, ptr);
}

EK_API ek_status ek_free(ek_stream stream, ek_context ctx, void *ptr) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  if (!ptr) return EK_SUCCESS;
  return pool_free(ctx, ptr, s->id);
}

EK_API ek_status ek_record_stream(ek_stream stream, ek_context ctx, void *ptr) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_CHECK_NULL(ptr);
  EK_CHECK(!stream_capturing(s), EK_ERROR_CAPTURE,
           "stream is capturing a graph: the pool cannot record an event on it");
  return pool_record_stream(ctx, ptr, s->id);
}

EK_API ek_status ek_memcpy(ek_stream stream, ek_context ctx, const void *src, void *dst,
                           size_t bytes) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  if (bytes == 0) return EK_SUCCESS;
  EK_CHECK_NULL(dst);
  EK_CHECK_NULL(src);
  return memcpy_any(ctx, dst, src, bytes, s);
}

EK_API ek_status ek_memory_get_stats(ek_context ctx, ek_memory_stats *stats) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(stats);
  EK_CHECK_STRUCT(stats, ek_memory_stats);
  write_struct(stats, public_stats(ctx->pool->stats(), ctx->pool->limit()), stats->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_reset_peaks(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  ctx->pool->reset_peaks();
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_empty_cache(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK(captures_underway() == 0, EK_ERROR_CAPTURE,
           "a graph capture is underway: releasing cached memory (cudaFree) would invalidate it");
  EK_FORWARD(activate(ctx));
  ctx->pool->empty_cache();
  ctx->graph_pools->collect();
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_set_limit(ek_context ctx, uint64_t bytes) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  ctx->pool->set_limit(bytes);
  std::lock_guard<std::mutex> lock(ctx->config_mutex);
  ctx->config.memory_limit = bytes;
  ctx->config.memory_fraction = 0;
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_set_fraction(ek_context ctx, double fraction) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK(fraction > 0 && fraction <= 1, EK_ERROR_INVALID_ARGUMENT,
           "fraction %g is not in (0, 1]", fraction);
  uint64_t limit = 0;
  EK_FORWARD(fraction_limit(ctx, "fraction", fraction, &limit));
  ctx->pool->set_limit(limit);
  std::lock_guard<std::mutex> lock(ctx->config_mutex);
  ctx->config.memory_limit = 0;
  ctx->config.memory_fraction = fraction;
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_get_snapshot(ek_context ctx, ek_memory_block *blocks,
                                        size_t capacity, size_t *count) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(count);
  EK_CHECK(blocks || capacity == 0, EK_ERROR_NULL_POINTER,
           "blocks is NULL but capacity is %zu", capacity);
  const size_t stride = capacity ? blocks[0].struct_size : sizeof(ek_memory_block);
  if (capacity) EK_CHECK_STRUCT(blocks, ek_memory_block);
  size_t n = 0;
  for (const SegmentInfo &seg : ctx->pool->snapshot()) {
    for (const BlockInfo &b : seg.blocks) {
      if (n < capacity) {
        ek_memory_block out{};
        out.segment_address = seg.address;
        out.segment_size = seg.size;
        out.address = b.address;
        out.size = b.size;
        out.requested = b.allocated ? b.requested : 0;
        out.allocated = b.allocated ? 1 : 0;
        out.stream_id = b.stream_id;
        write_struct_at(blocks, stride, n, out);
      }
      ++n;
    }
  }
  *count = n;
  return EK_SUCCESS;
}

EK_API ek_status ek_memory_set_callback(ek_context ctx, ek_memory_callback callback,
                                        void *user_data, uint64_t threshold_bytes) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  {
    std::lock_guard<std::mutex> lock(ctx->callback_mutex);
    ctx->callback = callback;
    ctx->callback_user = user_data;
  }
  if (callback && threshold_bytes)
    ctx->pool->set_threshold_callback(threshold_bytes, [ctx](size_t reserved) {
      notify(ctx, EK_MEMORY_EVENT_THRESHOLD, reserved);
    });
  else
    ctx->pool->set_threshold_callback(0, nullptr);
  return EK_SUCCESS;
}

}  // extern "C"
