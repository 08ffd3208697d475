// ek_comm_*: communicators and collectives on ek tensors, over NCCL
// (src/core/nccl.cpp). Argument checks, shapes and pool bookkeeping here.
#include <cinttypes>
#include <cstdlib>
#include <vector>

#include "core/internal.hpp"
#include "core/nccl.hpp"

constexpr uint32_t kCommMagic = 0x454b434d;  // "EKCM"

struct ek_comm_s {
  uint32_t magic = kCommMagic;
  ek_context ctx = nullptr;
  void *native = nullptr;  // ncclComm_t; nullptr once aborted (NCCL freed it)
  ek_status dead = EK_SUCCESS;  // why native is gone: EK_ERROR_TIMEOUT or _DEVICE (abort)
  int rank = 0, size = 0;
  int64_t timeout_ms = 0;
  bool blocking = false;  // ek_comm_config.blocking, inherited by splits
};

namespace ek {
namespace {

int64_t default_timeout_ms() {
  static const int64_t ms = [] {
    const char *v = std::getenv("EK_COMM_TIMEOUT_MS");
    long long parsed = v && *v ? std::strtoll(v, nullptr, 10) : 0;
    return parsed > 0 ? static_cast<int64_t>(parsed) : int64_t{600000};
  }();
  return ms;
}

// The timeout and the blocking mode of config, else of the fallbacks.
ek_status read_config(const ek_comm_config *config, int64_t timeout_fallback,
                      bool blocking_fallback, int64_t *ms, bool *blocking) {
  *ms = timeout_fallback;
  *blocking = blocking_fallback;
  if (!config) return EK_SUCCESS;
  EK_CHECK_STRUCT(config, ek_comm_config);
  const int32_t b = config->blocking;
  EK_CHECK(b == 0 || b == EK_COMM_BLOCKING || b == EK_COMM_NONBLOCKING, EK_ERROR_INVALID_ARGUMENT,
           "config->blocking is %d; expected 0 (the default), EK_COMM_BLOCKING (1) or "
           "EK_COMM_NONBLOCKING (-1)", static_cast<int>(b));
  if (config->timeout_ms > 0) *ms = config->timeout_ms;
  if (b != 0) *blocking = b == EK_COMM_BLOCKING;
  return EK_SUCCESS;
}

ek_status check_comm(ek_comm comm, const char *name) {
  return check_handle(comm, kCommMagic, "ek_comm", name);
}
#define EK_CHECK_COMM(x) EK_FORWARD(check_comm((x), #x))

// A communicator NCCL still holds (not aborted).
ek_status check_live(ek_comm comm) {
  EK_CHECK_COMM(comm);
  EK_CHECK(comm->native != nullptr, comm->dead,
           "the communicator (rank %d of %d) was aborted%s: only ek_comm_destroy and the "
           "getters accept it", comm->rank, comm->size,
           comm->dead == EK_ERROR_TIMEOUT ? " after a timeout" : "");
  return EK_SUCCESS;
}

// A timeout from NCCL's side means it aborted (and freed) the communicator.
ek_status note(ek_comm comm, ek_status st) {
  if (st == EK_ERROR_TIMEOUT) {
    comm->native = nullptr;
    comm->dead = EK_ERROR_TIMEOUT;
  }
  return st;
}

ek_status check_cuda_context(ek_context ctx, const char *name) {
  EK_FORWARD(check_context(ctx, name));
  EK_CHECK(ctx->is_cuda(), EK_ERROR_NOT_SUPPORTED,
           "%s is a CPU context: communicators (NCCL) need a CUDA context", name);
  return EK_SUCCESS;
}

ek_comm new_comm(ek_context ctx, void *native, int64_t timeout_ms, bool blocking) {
  auto *c = new ek_comm_s;
  c->ctx = ctx;
  c->native = native;
  c->timeout_ms = timeout_ms;
  c->blocking = blocking;
  if (nccl::rank_and_size(native, &c->rank, &c->size) != EK_SUCCESS) c->rank = c->size = -1;
  ctx->live_objects++;
  handle_created();
  return c;
}

// ---- groups: this thread's open group and the communicators it used.
thread_local int g_group_depth = 0;
thread_local std::vector<ek_comm> g_group_comms;

ek_status group_begin() {
  EK_FORWARD(nccl::group_start());
  ++g_group_depth;
  return EK_SUCCESS;
}

ek_status group_finish() {
  EK_CHECK(g_group_depth > 0, EK_ERROR_INVALID_ARGUMENT,
           "no group is open on this thread (ek_comm_group_start first)");
  std::vector<ek_comm> comms;
  if (--g_group_depth == 0) comms.swap(g_group_comms);
  std::vector<void *> natives;
  std::vector<int64_t> timeouts;
  for (ek_comm c : comms)
    if (c->native) {
      natives.push_back(c->native);
      timeouts.push_back(c->timeout_ms);
    }
  std::unique_ptr<bool[]> aborted(new bool[natives.size() + 1]());
  ek_status st = nccl::group_end(natives.data(), timeouts.data(), natives.size(), aborted.get());
  size_t k = 0;
  for (ek_comm c : comms)
    if (c->native && aborted[k++]) note(c, EK_ERROR_TIMEOUT);
  return st;
}

// ---- collectives
ek_status nccl_type(ek_dtype dtype, bool arithmetic, int *type) {
  switch (dtype) {
    case EK_BOOL: *type = nccl::kUint8; break;
    case EK_UINT8: *type = nccl::kUint8; return EK_SUCCESS;
    case EK_INT8: *type = nccl::kInt8; return EK_SUCCESS;
    case EK_INT16: case EK_UINT16: *type = nccl::kFloat16; break;  // moved as 2-byte words
    case EK_UINT32: *type = nccl::kUint32; return EK_SUCCESS;
    case EK_UINT64: *type = nccl::kUint64; return EK_SUCCESS;
    case EK_INT32: *type = nccl::kInt32; return EK_SUCCESS;
    case EK_INT64: *type = nccl::kInt64; return EK_SUCCESS;
    case EK_FLOAT16: *type = nccl::kFloat16; return EK_SUCCESS;
    case EK_BFLOAT16: *type = nccl::kBfloat16; return EK_SUCCESS;
    case EK_FLOAT32: *type = nccl::kFloat32; return EK_SUCCESS;
    case EK_FLOAT64: *type = nccl::kFloat64; return EK_SUCCESS;
    case EK_COMPLEX64: case EK_COMPLEX128:
      return fail(EK_ERROR_DTYPE, "collectives do not move %s yet (send its ek_view_real/ek_view_imag views)",
                  ek_dtype_name(dtype));
  }
  EK_CHECK(!arithmetic, EK_ERROR_DTYPE,
           "NCCL has no arithmetic on %s: only broadcast, all_gather, all_to_all, send and recv "
           "move it (bool also reduces with MAX and MIN)", ek_dtype_name(dtype));
  return EK_SUCCESS;
}

ek_status nccl_op(ek_reduce_op op, ek_dtype dtype, int *nop) {
  const int o = raw_enum(op);
  switch (o) {
    case EK_REDUCE_SUM: *nop = nccl::kSum; break;
    case EK_REDUCE_MEAN: *nop = nccl::kAvg; break;
    case EK_REDUCE_PROD: *nop = nccl::kProd; break;
    case EK_REDUCE_MAX: *nop = nccl::kMax; break;
    case EK_REDUCE_MIN: *nop = nccl::kMin; break;
    default:
      return fail(EK_ERROR_INVALID_ARGUMENT,
                  "op %d is not a collective reduction (SUM, MEAN, PROD, MAX or MIN)", o);
  }
  int type = 0;
  return nccl_type(dtype, !(dtype == EK_BOOL && (o == EK_REDUCE_MAX || o == EK_REDUCE_MIN)),
                   &type);
}

ek_status check_tensor_arg(ek_comm comm, ek_tensor t, const char *name) {
  EK_FORWARD(check_tensor(t, name));
  EK_CHECK(t->storage->ctx == comm->ctx, EK_ERROR_INVALID_ARGUMENT,
           "%s belongs to another context than the communicator's", name);
  EK_CHECK(tensor_contiguous(t), EK_ERROR_INVALID_ARGUMENT,
           "%s (shape %s) is not contiguous: collectives need contiguous tensors (ek_contiguous)",
           name, format_shape(t->ndim, t->shape).c_str());
  return EK_SUCCESS;
}

ek_status check_rank(ek_comm comm, int r, const char *name) {
  EK_CHECK(r >= 0 && r < comm->size, EK_ERROR_INVALID_ARGUMENT,
           "%s %d is not a rank of the communicator (size %d)", name, r, comm->size);
  return EK_SUCCESS;
}

// The stream the call runs on; comm live, its device current.
ek_status begin(ek_stream stream, ek_comm comm, ek_stream *s) {
  EK_FORWARD(check_live(comm));
  EK_FORWARD(resolve_stream(comm->ctx, stream, s));
  return activate(comm->ctx);
}

// begin, for a collective of tensor x into *out.
ek_status begin_x_out(ek_stream stream, ek_comm comm, ek_tensor x, const ek_tensor *out,
                      ek_stream *s) {
  EK_FORWARD(begin(stream, comm, s));
  EK_FORWARD(check_tensor_arg(comm, x, "x"));
  EK_CHECK_NULL(out);
  return EK_SUCCESS;
}

// A pooled tensor used on a stream it was not allocated on: its reuse after a
// free waits for that stream's work (an event, GPU-side).
ek_status mark_used(ek_tensor t, ek_stream s) {
  if (!t || !t->storage->pooled || t->storage->alloc_stream == s->id) return EK_SUCCESS;
  return pool_record_stream(t->storage->ctx, t->storage->data, s->id);
}

ek_status run(ek_comm comm, ek_stream s, const nccl::Call &call, ek_tensor a, ek_tensor b) {
  EK_FORWARD(mark_used(a, s));
  EK_FORWARD(mark_used(b, s));
  if (g_group_depth > 0) {
    bool known = false;
    for (ek_comm c : g_group_comms) known = known || c == comm;
    if (!known) g_group_comms.push_back(comm);
  }
  return note(comm, nccl::enqueue(comm->native, call, s->native, comm->timeout_ms));
}

size_t count_of(const ek_tensor_s *t) { return static_cast<size_t>(tensor_numel(t)); }

// *out for x's shape (all_reduce, broadcast, reduce at root), then call.
ek_status same_shape_coll(ek_stream stream, ek_comm comm, nccl::Call call, ek_tensor x,
                          ek_tensor *out) {
  ek_stream s = nullptr;
  EK_FORWARD(begin_x_out(stream, comm, x, out, &s));
  return fill_out(comm->ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_tensor_arg(comm, o, "out"));
    call.send = tensor_data(x);
    call.recv = tensor_data(o);
    call.count = count_of(x);
    return run(comm, s, call, x, o);
  });
}

// x's first dim must be the communicator's size (reduce_scatter, all_to_all).
ek_status check_first_dim(ek_comm comm, ek_tensor x) {
  EK_CHECK(x->ndim >= 1 && x->shape[0] == comm->size, EK_ERROR_SHAPE,
           "x has shape %s; its first dim must be the communicator's size %d",
           format_shape(x->ndim, x->shape).c_str(), comm->size);
  return EK_SUCCESS;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_comm_get_unique_id(ek_comm_unique_id *id) {
  EK_API_ENTRY;
  EK_CHECK_NULL(id);
  return nccl::get_unique_id(id);
}

EK_API ek_status ek_comm_init_rank(ek_context ctx, int nranks, const ek_comm_unique_id *id,
                                   int rank, const ek_comm_config *config, ek_comm *comm) {
  EK_API_ENTRY;
  EK_FORWARD(check_cuda_context(ctx, "ctx"));
  EK_CHECK_NULL(id);
  EK_CHECK_NULL(comm);
  EK_CHECK(nranks >= 1 && rank >= 0 && rank < nranks, EK_ERROR_INVALID_ARGUMENT,
           "rank %d of nranks %d: need nranks >= 1 and 0 <= rank < nranks", rank, nranks);
  int64_t timeout = 0;
  bool blocking = false;
  EK_FORWARD(read_config(config, default_timeout_ms(), true, &timeout, &blocking));
  void *native = nullptr;
  EK_FORWARD(nccl::init_rank(ctx->device.index, nranks, *id, rank, timeout, blocking, &native));
  *comm = new_comm(ctx, native, timeout, blocking);
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_init_all(int n, const ek_context *ctxs, const ek_comm_config *config,
                                  ek_comm *comms) {
  EK_API_ENTRY;
  EK_CHECK(n >= 1, EK_ERROR_INVALID_ARGUMENT, "n is %d; need at least one context", n);
  EK_CHECK_NULL(ctxs);
  EK_CHECK_NULL(comms);
  std::vector<int> devices(n);
  for (int i = 0; i < n; ++i) {
    std::string name = "ctxs[" + std::to_string(i) + "]";
    EK_FORWARD(check_cuda_context(ctxs[i], name.c_str()));
    devices[i] = ctxs[i]->device.index;
    for (int j = 0; j < i; ++j)
      EK_CHECK(devices[j] != devices[i], EK_ERROR_INVALID_ARGUMENT,
               "ctxs[%d] and ctxs[%d] are both on cuda:%d: one rank per device", j, i,
               devices[i]);
  }
  int64_t timeout = 0;
  bool blocking = false;
  EK_FORWARD(read_config(config, default_timeout_ms(), true, &timeout, &blocking));
  std::vector<void *> natives(n);
  EK_FORWARD(nccl::init_all(n, devices.data(), timeout, blocking, natives.data()));
  for (int i = 0; i < n; ++i) comms[i] = new_comm(ctxs[i], natives[i], timeout, blocking);
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_split(ek_comm comm, int color, int key, const ek_comm_config *config,
                               ek_comm *out) {
  EK_API_ENTRY;
  EK_FORWARD(check_live(comm));
  EK_CHECK_NULL(out);
  EK_CHECK(color >= 0 || color == EK_COMM_SPLIT_NOCOLOR, EK_ERROR_INVALID_ARGUMENT,
           "color %d: need color >= 0 or EK_COMM_SPLIT_NOCOLOR", color);
  int64_t timeout = 0;
  bool blocking = false;
  EK_FORWARD(read_config(config, comm->timeout_ms, comm->blocking, &timeout, &blocking));
  EK_FORWARD(activate(comm->ctx));
  void *native = nullptr;
  EK_FORWARD(note(comm, nccl::split(comm->native, color, key, timeout, blocking, &native)));
  *out = native ? new_comm(comm->ctx, native, timeout, blocking) : nullptr;
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_get_rank(ek_comm comm, int *rank) {
  EK_API_ENTRY;
  EK_CHECK_COMM(comm);
  EK_CHECK_NULL(rank);
  *rank = comm->rank;
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_get_size(ek_comm comm, int *size) {
  EK_API_ENTRY;
  EK_CHECK_COMM(comm);
  EK_CHECK_NULL(size);
  *size = comm->size;
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_get_context(ek_comm comm, ek_context *ctx) {
  EK_API_ENTRY;
  EK_CHECK_COMM(comm);
  EK_CHECK_NULL(ctx);
  *ctx = comm->ctx;
  return EK_SUCCESS;
}

EK_API ek_status ek_comm_get_async_error(ek_comm comm) {
  EK_API_ENTRY;
  EK_FORWARD(check_live(comm));
  return nccl::async_error(comm->native);
}

EK_API ek_status ek_comm_abort(ek_comm comm) {
  EK_API_ENTRY;
  EK_CHECK_COMM(comm);
  if (!comm->native) return EK_SUCCESS;  // already aborted
  EK_FORWARD(activate(comm->ctx));
  ek_status st = nccl::abort(comm->native);
  comm->native = nullptr;
  comm->dead = EK_ERROR_DEVICE;
  return st;
}

EK_API ek_status ek_comm_synchronize(ek_stream stream, ek_comm comm) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin(stream, comm, &s));
  return note(comm, nccl::synchronize(comm->native, s->native, comm->timeout_ms));
}

EK_API ek_status ek_comm_destroy(ek_comm comm) {
  EK_API_ENTRY;
  if (!comm) return EK_SUCCESS;
  EK_CHECK_COMM(comm);
  ek_status st = EK_SUCCESS;
  if (comm->native) {
    st = activate(comm->ctx);
    if (st == EK_SUCCESS) st = nccl::destroy(comm->native, comm->timeout_ms);
  }
  comm->ctx->live_objects--;
  comm->magic = kDeadMagic;
  delete comm;
  handle_destroyed();
  return st;
}

EK_API ek_status ek_comm_all_reduce(ek_stream stream, ek_comm comm, ek_reduce_op op, ek_tensor x,
                                    ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  nccl::Call call{nccl::Kind::all_reduce, nullptr, nullptr, 0, 0, 0, 0};
  EK_FORWARD(nccl_op(op, x->dtype, &call.op));
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  return same_shape_coll(stream, comm, call, x, out);
}

EK_API ek_status ek_comm_broadcast(ek_stream stream, ek_comm comm, int root, ek_tensor x,
                                   ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_FORWARD(check_live(comm));
  EK_FORWARD(check_rank(comm, root, "root"));
  nccl::Call call{nccl::Kind::broadcast, nullptr, nullptr, 0, 0, 0, root};
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  return same_shape_coll(stream, comm, call, x, out);
}

EK_API ek_status ek_comm_reduce(ek_stream stream, ek_comm comm, ek_reduce_op op, int root,
                                ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_live(comm));
  EK_FORWARD(check_rank(comm, root, "root"));
  nccl::Call call{nccl::Kind::reduce, nullptr, nullptr, 0, 0, 0, root};
  EK_FORWARD(nccl_op(op, x->dtype, &call.op));
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  if (comm->rank == root || *out) return same_shape_coll(stream, comm, call, x, out);
  ek_stream s = nullptr;  // a non-root rank with no out: NCCL writes nothing here
  EK_FORWARD(begin(stream, comm, &s));
  EK_FORWARD(check_tensor_arg(comm, x, "x"));
  call.send = tensor_data(x);
  call.recv = tensor_data(x);
  call.count = count_of(x);
  return run(comm, s, call, x, nullptr);
}

EK_API ek_status ek_comm_all_gather(ek_stream stream, ek_comm comm, ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin_x_out(stream, comm, x, out, &s));
  EK_CHECK(x->ndim < EK_MAX_DIMS, EK_ERROR_SHAPE,
           "x has %d dims; all_gather adds one and EK_MAX_DIMS is %d", x->ndim, EK_MAX_DIMS);
  nccl::Call call{nccl::Kind::all_gather, tensor_data(x), nullptr, count_of(x), 0, 0, 0};
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  int64_t shape[EK_MAX_DIMS] = {comm->size};
  for (int i = 0; i < x->ndim; ++i) shape[i + 1] = x->shape[i];
  return fill_out(comm->ctx, s, x->ndim + 1, shape, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_tensor_arg(comm, o, "out"));
    call.recv = tensor_data(o);
    return run(comm, s, call, x, o);
  });
}

EK_API ek_status ek_comm_reduce_scatter(ek_stream stream, ek_comm comm, ek_reduce_op op,
                                        ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin_x_out(stream, comm, x, out, &s));
  EK_FORWARD(check_first_dim(comm, x));
  nccl::Call call{nccl::Kind::reduce_scatter, tensor_data(x), nullptr, 0, 0, 0, 0};
  EK_FORWARD(nccl_op(op, x->dtype, &call.op));
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  return fill_out(comm->ctx, s, x->ndim - 1, x->shape + 1, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_tensor_arg(comm, o, "out"));
    call.recv = tensor_data(o);
    call.count = count_of(o);
    return run(comm, s, call, x, o);
  });
}

EK_API ek_status ek_comm_all_to_all(ek_stream stream, ek_comm comm, ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin_x_out(stream, comm, x, out, &s));
  EK_FORWARD(check_first_dim(comm, x));
  int type = 0;
  EK_FORWARD(nccl_type(x->dtype, false, &type));
  return fill_out(comm->ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_tensor_arg(comm, o, "out"));
    EK_CHECK(!ranges_overlap(tensor_desc(x), tensor_desc(o)), EK_ERROR_INVALID_ARGUMENT,
             "out overlaps x: all_to_all cannot run in place");
    const size_t chunk = count_of(x) / static_cast<size_t>(comm->size);
    const size_t bytes = chunk * ek_dtype_size(x->dtype);
    EK_FORWARD(group_begin());
    ek_status st = EK_SUCCESS;
    for (int p = 0; p < comm->size && st == EK_SUCCESS; ++p) {
      const nccl::Call send{nccl::Kind::send, static_cast<char *>(tensor_data(x)) + p * bytes,
                            nullptr, chunk, type, 0, p};
      const nccl::Call recv{nccl::Kind::recv, nullptr,
                            static_cast<char *>(tensor_data(o)) + p * bytes, chunk, type, 0, p};
      st = run(comm, s, send, x, o);
      if (st == EK_SUCCESS) st = run(comm, s, recv, nullptr, nullptr);
    }
    ek_status end = group_finish();
    return st != EK_SUCCESS ? st : end;
  });
}

EK_API ek_status ek_comm_send(ek_stream stream, ek_comm comm, ek_tensor x, int peer) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin(stream, comm, &s));
  EK_FORWARD(check_tensor_arg(comm, x, "x"));
  EK_FORWARD(check_rank(comm, peer, "peer"));
  nccl::Call call{nccl::Kind::send, tensor_data(x), nullptr, count_of(x), 0, 0, peer};
  EK_FORWARD(nccl_type(x->dtype, false, &call.type));
  return run(comm, s, call, x, nullptr);
}

EK_API ek_status ek_comm_recv(ek_stream stream, ek_comm comm, int peer, ek_tensor t) {
  EK_API_ENTRY;
  ek_stream s = nullptr;
  EK_FORWARD(begin(stream, comm, &s));
  EK_FORWARD(check_tensor_arg(comm, t, "t"));
  EK_FORWARD(check_rank(comm, peer, "peer"));
  nccl::Call call{nccl::Kind::recv, nullptr, tensor_data(t), count_of(t), 0, 0, peer};
  EK_FORWARD(nccl_type(t->dtype, false, &call.type));
  return run(comm, s, call, t, nullptr);
}

EK_API ek_status ek_comm_group_start(void) {
  EK_API_ENTRY;
  return group_begin();
}

EK_API ek_status ek_comm_group_end(void) {
  EK_API_ENTRY;
  return group_finish();
}

}  // extern "C"
