// Streams and events. On CPU, work runs synchronously on the calling thread,
// so streams are always idle and events carry the host time they were recorded.
#include <chrono>

#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"

namespace ek {
namespace {

double host_now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

ek_status register_stream(ek_context ctx, void *native, bool owned, ek_stream *out) {
  auto s = std::make_unique<ek_stream_s>();
  s->ctx = ctx;
  s->native = native;
  s->owned = owned;
  if (ctx->is_cuda()) {
    if (ek_status st = gpu::stream_id(native, &s->id); st != EK_SUCCESS) {
      if (owned) gpu::stream_destroy(native);
      return st;
    }
  } else {
    s->id = ctx->next_cpu_stream_id++;
  }
  register_pool_stream(ctx, s->id, native);
  ctx->live_objects++;
  handle_created();
  *out = s.release();
  return EK_SUCCESS;
}

}  // namespace

ek_status check_stream(ek_stream s, const char *name) {
  return check_handle(s, kStreamMagic, "ek_stream", name);
}

ek_status check_event(ek_event e, const char *name) {
  return check_handle(e, kEventMagic, "ek_event", name);
}

ek_status resolve_stream(ek_context ctx, ek_stream s, ek_stream *out) {
  if (!s) {
    *out = &ctx->default_stream;
    return EK_SUCCESS;
  }
  EK_FORWARD(check_stream(s, "stream"));
  EK_CHECK(s->ctx == ctx, EK_ERROR_INVALID_ARGUMENT,
           "stream belongs to another context than the tensors or context given");
  *out = s;
  return EK_SUCCESS;
}

ek_status stream_scratch(ek_stream s, void **ptr) {
  void *p = s->scratch.load(std::memory_order_acquire);
  if (!p) {
    EK_FORWARD(gpu::malloc_device(kStreamScratchBytes, &p));
    ek_status st = gpu::memset_async(p, 0, kStreamScratchBytes, s->native);
    void *expected = nullptr;
    if (st != EK_SUCCESS || !s->scratch.compare_exchange_strong(expected, p)) {
      gpu::free_device(p);  // failed, or another thread made it first
      if (st != EK_SUCCESS) return st;
      p = expected;
    }
  }
  *ptr = p;
  return EK_SUCCESS;
}

// The stream has been synchronized: no kernel uses the scratch any more.
void release_stream_scratch(ek_stream s) {
  if (void *p = s->scratch.exchange(nullptr)) gpu::free_device(p);
}

ek_status StreamPinned::init() {
  if (s_->pinned_host) return EK_SUCCESS;
  return gpu::host_alloc_mapped(kStreamPinnedWords * sizeof(int64_t), &s_->pinned_host,
                                &s_->pinned_device);
}

void release_stream_pinned(ek_stream s) {
  if (s->pinned_host) gpu::host_free(s->pinned_host);
  s->pinned_host = s->pinned_device = nullptr;
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_stream_create(ek_context ctx, ek_stream *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  void *native = nullptr;
  if (ctx->is_cuda()) {
    EK_FORWARD(activate(ctx));
    EK_FORWARD(gpu::stream_create(&native));
  }
  return register_stream(ctx, native, ctx->is_cuda(), out);
}

EK_API ek_status ek_stream_wrap(ek_context ctx, void *native, ek_stream *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  EK_CHECK(ctx->is_cuda(), EK_ERROR_NOT_SUPPORTED,
           "a CPU context has no native streams to wrap");
  EK_FORWARD(activate(ctx));
  return register_stream(ctx, native, false, out);
}

EK_API ek_status ek_stream_destroy(ek_stream stream) {
  EK_API_ENTRY;
  if (!stream) return EK_SUCCESS;
  EK_CHECK_STREAM(stream);
  EK_CHECK(!stream->is_default, EK_ERROR_INVALID_ARGUMENT,
           "the context's default stream is destroyed with the context");
  ek_context ctx = stream->ctx;
  EK_FORWARD(fusion::flush_stream(stream));
  if (ctx->is_cuda()) {
    EK_FORWARD(activate(ctx));
    EK_FORWARD(gpu::stream_synchronize(stream->native));
  }
  unregister_pool_stream(ctx, stream->id);
  release_stream_scratch(stream);
  release_stream_pinned(stream);
  if (stream->owned) gpu::stream_destroy(stream->native);
  stream->magic = kDeadMagic;
  delete stream;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

EK_API ek_status ek_stream_synchronize(ek_stream stream) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_FORWARD(fusion::flush_stream(stream));
  if (!stream->ctx->is_cuda()) return EK_SUCCESS;
  EK_FORWARD(activate(stream->ctx));
  EK_FORWARD(gpu::stream_synchronize(stream->native));
  return pending_index_error(stream);
}

EK_API ek_status ek_stream_query(ek_stream stream, int *done) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(done);
  bool finished = true;
  if (stream->ctx->is_cuda()) {
    EK_FORWARD(activate(stream->ctx));
    EK_FORWARD(gpu::stream_query(stream->native, &finished));
  }
  *done = finished ? 1 : 0;
  return EK_SUCCESS;
}

EK_API ek_status ek_stream_wait_event(ek_stream stream, ek_event event) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_EVENT(event);
  EK_CHECK(stream->ctx == event->ctx, EK_ERROR_INVALID_ARGUMENT,
           "stream and event belong to different contexts");
  if (!stream->ctx->is_cuda()) return EK_SUCCESS;
  EK_FORWARD(activate(stream->ctx));
  return gpu::stream_wait_event(stream->native, event->native);
}

EK_API ek_status ek_stream_get_native(ek_stream stream, void **native) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(native);
  *native = stream->native;
  return EK_SUCCESS;
}

EK_API ek_status ek_stream_get_context(ek_stream stream, ek_context *ctx) {
  EK_API_ENTRY;
  EK_CHECK_STREAM(stream);
  EK_CHECK_NULL(ctx);
  *ctx = stream->ctx;
  return EK_SUCCESS;
}

EK_API ek_status ek_event_create(ek_context ctx, ek_event *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  auto e = std::make_unique<ek_event_s>();
  e->ctx = ctx;
  if (ctx->is_cuda()) {
    EK_FORWARD(activate(ctx));
    EK_FORWARD(gpu::event_create(true, &e->native));
  }
  ctx->live_objects++;
  handle_created();
  *out = e.release();
  return EK_SUCCESS;
}

EK_API ek_status ek_event_destroy(ek_event event) {
  EK_API_ENTRY;
  if (!event) return EK_SUCCESS;
  EK_CHECK_EVENT(event);
  ek_context ctx = event->ctx;
  if (ctx->is_cuda()) {
    EK_FORWARD(activate(ctx));
    gpu::event_destroy(event->native);
  }
  event->magic = kDeadMagic;
  delete event;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

EK_API ek_status ek_event_record(ek_stream stream, ek_event event) {
  EK_API_ENTRY;
  EK_CHECK_EVENT(event);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(event->ctx, stream, &s));
  EK_FORWARD(fusion::flush_stream(s));  // the event marks the ops called so far
  if (event->ctx->is_cuda()) {
    EK_FORWARD(activate(event->ctx));
    EK_FORWARD(gpu::event_record(event->native, s->native));
  } else {
    event->host_ms.store(host_now_ms(), std::memory_order_relaxed);
  }
  event->recorded.store(true, std::memory_order_release);
  return EK_SUCCESS;
}

EK_API ek_status ek_event_synchronize(ek_event event) {
  EK_API_ENTRY;
  EK_CHECK_EVENT(event);
  if (!event->ctx->is_cuda()) return EK_SUCCESS;
  EK_FORWARD(activate(event->ctx));
  return gpu::event_synchronize(event->native);
}

EK_API ek_status ek_event_query(ek_event event, int *done) {
  EK_API_ENTRY;
  EK_CHECK_EVENT(event);
  EK_CHECK_NULL(done);
  bool finished = true;
  if (event->ctx->is_cuda()) {
    EK_FORWARD(activate(event->ctx));
    EK_FORWARD(gpu::event_query(event->native, &finished));
  }
  *done = finished ? 1 : 0;
  return EK_SUCCESS;
}

EK_API ek_status ek_event_get_elapsed_ms(ek_event start, ek_event end, float *ms) {
  EK_API_ENTRY;
  EK_CHECK_EVENT(start);
  EK_CHECK_EVENT(end);
  EK_CHECK_NULL(ms);
  EK_CHECK(start->ctx == end->ctx, EK_ERROR_INVALID_ARGUMENT,
           "start and end belong to different contexts");
  // Acquire: the host times of those records are visible below.
  const bool start_recorded = start->recorded.load(std::memory_order_acquire);
  const bool end_recorded = end->recorded.load(std::memory_order_acquire);
  EK_CHECK(start_recorded && end_recorded, EK_ERROR_INVALID_ARGUMENT,
           "both events must have been recorded (start %s, end %s)",
           start_recorded ? "recorded" : "never recorded",
           end_recorded ? "recorded" : "never recorded");
  if (start->ctx->is_cuda()) {
    EK_FORWARD(activate(start->ctx));
    return gpu::event_elapsed(start->native, end->native, ms);
  }
  *ms = static_cast<float>(end->host_ms.load(std::memory_order_relaxed) -
                           start->host_ms.load(std::memory_order_relaxed));
  return EK_SUCCESS;
}

}  // extern "C"
