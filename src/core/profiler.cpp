// The profiler: per-context sessions of op records with host and device times.
#include "core/profiler.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/gpu.hpp"

namespace ek {
namespace {

double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// Small, stable numbers read better as trace track names than OS thread ids.
uint64_t this_thread_number() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

// Only the outermost profiled call of a thread is recorded.
thread_local int t_profile_depth = 0;

template <size_t N>
void copy_text(char (&dst)[N], const std::string &src) {
  size_t n = std::min(src.size(), N - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace

class Profiler {
 public:
  explicit Profiler(ek_context ctx) : ctx_(ctx) {}
  ~Profiler() {
    for (void *e : free_events_) gpu::event_destroy(e);
    if (base_) gpu::event_destroy(base_);
  }

  ek_status start();
  ek_status stop();
  uint64_t session() const { return session_.load(std::memory_order_acquire); }
  ek_status take_event(void **event);
  void give_event(void *event);
  // rec's start times are absolute (now_us()); kept records count from the origin.
  void finish(uint64_t session, ek_profile_record rec, void *start, void *end);
  // Copies of the last stopped session; EK_ERROR_NOT_READY while running.
  ek_status stopped_records(std::vector<ek_profile_record> *out, uint64_t *dropped);

 private:
  struct Pending {
    ek_profile_record rec;
    void *start = nullptr;  // CUDA events; null on CPU
    void *end = nullptr;
  };
  void resolve(Pending *p);

  ek_context ctx_;
  std::mutex mutex_;
  bool running_ = false;
  std::atomic<uint64_t> session_{0};
  double origin_us_ = 0;
  void *base_ = nullptr;  // recorded at start on the default stream
  std::vector<void *> free_events_;
  std::vector<Pending> pending_;
  std::vector<ek_profile_record> records_;
  uint64_t dropped_ = 0;
};

ek_status Profiler::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  EK_CHECK(!running_, EK_ERROR_INVALID_ARGUMENT, "the profiler is already running");
  if (ctx_->is_cuda()) {
    EK_FORWARD(activate(ctx_));
    if (!base_) EK_FORWARD(gpu::event_create(true, &base_));
    EK_FORWARD(gpu::event_record(base_, ctx_->default_stream.native));
    EK_FORWARD(gpu::event_synchronize(base_));
  }
  origin_us_ = now_us();
  pending_.clear();
  records_.clear();
  dropped_ = 0;
  running_ = true;
  session_.fetch_add(1, std::memory_order_acq_rel);
  ctx_->profiling.store(true, std::memory_order_release);
  return EK_SUCCESS;
}

ek_status Profiler::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  EK_CHECK(running_, EK_ERROR_INVALID_ARGUMENT, "the profiler is not running");
  ctx_->profiling.store(false, std::memory_order_release);
  session_.fetch_add(1, std::memory_order_acq_rel);  // calls still in flight are dropped
  running_ = false;
  // Resolved even when the device cannot be made current (then untimed), so
  // every pending event goes back to the free list.
  ek_status st = ctx_->is_cuda() ? activate(ctx_) : EK_SUCCESS;
  records_.reserve(pending_.size());
  for (Pending &p : pending_) {
    resolve(&p);
    records_.push_back(p.rec);
  }
  pending_.clear();
  return st;
}

void Profiler::resolve(Pending *p) {
  if (!p->start) return;  // CPU: the device interval is the host one
  float to_start = 0, span = 0;
  std::string saved = last_error_message();
  bool timed = gpu::event_synchronize(p->end) == EK_SUCCESS &&
               gpu::event_elapsed(base_, p->start, &to_start) == EK_SUCCESS &&
               gpu::event_elapsed(p->start, p->end, &span) == EK_SUCCESS;
  restore_last_error(std::move(saved));
  p->rec.device_start_us = timed ? to_start * 1e3 : -1;
  p->rec.device_us = timed ? span * 1e3 : -1;
  free_events_.push_back(p->start);
  free_events_.push_back(p->end);
}

ek_status Profiler::take_event(void **event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_events_.empty()) {
    *event = free_events_.back();
    free_events_.pop_back();
    return EK_SUCCESS;
  }
  return gpu::event_create(true, event);
}

void Profiler::give_event(void *event) {
  if (!event) return;
  std::lock_guard<std::mutex> lock(mutex_);
  free_events_.push_back(event);
}

void Profiler::finish(uint64_t session, ek_profile_record rec, void *start, void *end) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool keep = running_ && session == session_.load(std::memory_order_relaxed);
  if (keep && pending_.size() >= EK_PROFILER_MAX_RECORDS) {
    ++dropped_;
    keep = false;
  }
  if (keep) {
    rec.host_start_us -= origin_us_;
    rec.device_start_us -= origin_us_;
    pending_.push_back(Pending{rec, start, end});
    return;
  }
  for (void *e : {start, end})
    if (e) free_events_.push_back(e);
}

ek_status Profiler::stopped_records(std::vector<ek_profile_record> *out, uint64_t *dropped) {
  std::lock_guard<std::mutex> lock(mutex_);
  EK_CHECK(!running_, EK_ERROR_NOT_READY,
           "the profiler is still running: call ek_profiler_stop first");
  *out = records_;
  if (dropped) *dropped = dropped_;
  return EK_SUCCESS;
}

void destroy_profiler(ek_context ctx) {
  delete ctx->profiler;
  ctx->profiler = nullptr;
}

// ---- scopes

OpProfile::OpProfile(const char *function, const char *detail, ek_context ctx, ek_stream stream,
                     std::initializer_list<ek_tensor> inputs,
                     std::initializer_list<ek_tensor *> outputs) {
  if (!ctx->profiling.load(std::memory_order_acquire)) return;
  for (ek_tensor t : inputs)
    if (n_inputs_ < kMaxListed) inputs_[n_inputs_++] = t;
  for (ek_tensor *t : outputs)
    if (n_outputs_ < kMaxListed) outputs_[n_outputs_++] = t;
  begin(function, detail, ctx, stream);
}

OpProfile::OpProfile(const char *function, const char *detail, ek_context ctx, ek_stream stream,
                     const ek_tensor *inputs, int n_inputs, const ek_tensor *outputs,
                     int n_outputs) {
  if (!ctx->profiling.load(std::memory_order_acquire)) return;
  for (int i = 0; i < n_inputs && n_inputs_ < kMaxListed; ++i) inputs_[n_inputs_++] = inputs[i];
  output_array_ = outputs;
  n_outputs_ = std::min(n_outputs, kMaxListed);
  begin(function, detail, ctx, stream);
}

void OpProfile::begin(const char *function, const char *detail, ek_context ctx,
                      ek_stream stream) {
  if (t_profile_depth > 0) return;
  ek_stream s = stream ? stream : &ctx->default_stream;
  if (s->magic != kStreamMagic || s->ctx != ctx) return;  // the op reports it
  Profiler *profiler = ctx->profiler;
  session_ = profiler->session();
  if (ctx->is_cuda()) {
    std::string saved = last_error_message();
    bool recorded = activate(ctx) == EK_SUCCESS &&
                    profiler->take_event(&start_event_) == EK_SUCCESS &&
                    gpu::event_record(start_event_, s->native) == EK_SUCCESS;
    restore_last_error(std::move(saved));
    if (!recorded) {
      profiler->give_event(start_event_);
      return;
    }
  }
  profiler_ = profiler;
  function_ = function;
  detail_ = detail;
  stream_ = s;
  ++t_profile_depth;
  failures_ = thread_failure_count();
  host_start_us_ = now_us();
}

OpProfile::~OpProfile() {
  if (!profiler_) return;
  --t_profile_depth;
  double host_end_us = now_us();
  void *end_event = nullptr;
  bool ok = thread_failure_count() == failures_;
  if (ok && start_event_) {
    std::string saved = last_error_message();
    ok = profiler_->take_event(&end_event) == EK_SUCCESS &&
         gpu::event_record(end_event, stream_->native) == EK_SUCCESS;
    restore_last_error(std::move(saved));
  }
  if (!ok) {
    profiler_->give_event(start_event_);
    profiler_->give_event(end_event);
    return;
  }
  ek_profile_record rec{};
  std::string name = std::strncmp(function_, "ek_", 3) == 0 ? function_ + 3 : function_;
  if (detail_) name += std::string(".") + detail_;
  copy_text(rec.name, name);
  std::string args;
  describe(&args);
  copy_text(rec.args, args);
  rec.device = stream_->ctx->device;
  rec.stream_id = stream_->id;
  rec.thread_id = this_thread_number();
  rec.host_start_us = host_start_us_;
  rec.host_us = host_end_us - host_start_us_;
  rec.device_start_us = rec.host_start_us;
  rec.device_us = rec.host_us;
  profiler_->finish(session_, rec, start_event_, end_event);
}

namespace {

void describe_tensor(ek_tensor t, std::string *out) {
  if (!t) {
    *out += "none";
    return;
  }
  *out += ek_dtype_name(t->dtype);
  *out += format_shape(t->ndim, t->shape);
  if (tensor_contiguous(t)) return;
  std::string strides = format_shape(t->ndim, t->strides);
  *out += "{" + strides.substr(1, strides.size() - 2) + "}";
}

}  // namespace

void OpProfile::describe(std::string *args) const {
  for (int i = 0; i < n_inputs_; ++i) {
    if (i) *args += " ";
    describe_tensor(inputs_[i], args);
  }
  if (n_outputs_ > 0) *args += n_inputs_ ? " -> " : "-> ";
  for (int i = 0; i < n_outputs_; ++i) {
    if (i) *args += " ";
    describe_tensor(output_array_ ? output_array_[i] : *outputs_[i], args);
  }
  constexpr size_t kRoom = sizeof(ek_profile_record::args) - 1;
  if (args->size() > kRoom) *args = args->substr(0, kRoom - 3) + "...";
}

}  // namespace ek

using namespace ek;

namespace {

ek_status stopped_records(ek_context ctx, std::vector<ek_profile_record> *records,
                          uint64_t *dropped) {
  std::lock_guard<std::mutex> lock(ctx->profiler_mutex);
  EK_CHECK(ctx->profiler, EK_ERROR_NOT_READY, "the profiler has not run on this context");
  return ctx->profiler->stopped_records(records, dropped);
}

}  // namespace

extern "C" {

EK_API ek_status ek_profiler_start(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  std::lock_guard<std::mutex> lock(ctx->profiler_mutex);
  if (!ctx->profiler) ctx->profiler = new Profiler(ctx);
  return ctx->profiler->start();
}

EK_API ek_status ek_profiler_stop(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  std::lock_guard<std::mutex> lock(ctx->profiler_mutex);
  EK_CHECK(ctx->profiler, EK_ERROR_INVALID_ARGUMENT, "the profiler is not running");
  return ctx->profiler->stop();
}

EK_API ek_status ek_profiler_get_records(ek_context ctx, ek_profile_record *records,
                                         size_t capacity, size_t *count) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(count);
  EK_CHECK(records || capacity == 0, EK_ERROR_NULL_POINTER,
           "records is NULL but capacity is %zu", capacity);
  if (capacity) EK_CHECK_STRUCT(records, ek_profile_record);
  const size_t stride = capacity ? records[0].struct_size : sizeof(ek_profile_record);
  std::vector<ek_profile_record> all;
  EK_FORWARD(stopped_records(ctx, &all, nullptr));
  for (size_t i = 0; i < std::min(capacity, all.size()); ++i)
    write_struct_at(records, stride, i, all[i]);
  *count = all.size();
  return EK_SUCCESS;
}

EK_API ek_status ek_profiler_get_summary(ek_context ctx, char *buffer, size_t capacity,
                                         size_t *length) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(length);
  EK_CHECK(buffer || capacity == 0, EK_ERROR_NULL_POINTER,
           "buffer is NULL but capacity is %zu", capacity);
  std::vector<ek_profile_record> all;
  uint64_t dropped = 0;
  EK_FORWARD(stopped_records(ctx, &all, &dropped));
  copy_text_out(profile_summary(all, dropped), buffer, capacity, length);
  return EK_SUCCESS;
}

EK_API ek_status ek_profiler_write_chrome_trace(ek_context ctx, const char *path) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(path);
  std::vector<ek_profile_record> all;
  EK_FORWARD(stopped_records(ctx, &all, nullptr));
  return write_chrome_trace(all, path);
}

}  // extern "C"
