// NCCL opened at run time (EK_NCCL_LIBRARY, else libnccl.so.2, then
// libnccl.so): libek links no NCCL, so it loads and runs where there is none.
// The few types used are declared here (their layout is NCCL's stable ABI) so
// that builds need no nccl.h. Setup (init, split) always runs non-blocking:
// every step returns at once and is polled with ncclCommGetAsyncError up to a
// deadline, after which the communicator is aborted (EK_ERROR_TIMEOUT, not a
// hang). A blocking communicator is then split from the non-blocking one:
// NCCL launches a non-blocking communicator's collectives from a thread it
// starts per call (tens of microseconds each), a blocking one's on the
// caller's thread.
#include "core/nccl.hpp"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "util/dynlib.hpp"

namespace ek::nccl {
namespace {

using Comm = void *;  // ncclComm_t
using Result = int;   // ncclResult_t
constexpr Result kSuccess = 0, kInvalidArgument = 4, kInvalidUsage = 5, kInProgress = 7;

struct UniqueId {
  char internal[128];
};
static_assert(sizeof(UniqueId) == sizeof(ek_comm_unique_id), "128 bytes both");

// ncclConfig_t exactly as NCCL 2.14 defined it: NCCL reads a config by its
// version, so a newer library sees only these fields and keeps its defaults
// for the rest. The last int was tail padding there; it lies where later
// layouts put cgaClusterSize, so it holds NCCL_CONFIG_UNDEF_INT (the default).
struct Config {
  size_t size = sizeof(Config);
  unsigned magic = 0xcafebeef;
  unsigned version = 21400;  // NCCL_VERSION(2, 14, 0)
  int blocking = 0;
  int tail = INT_MIN;
};
static_assert(sizeof(Config) == 24, "ncclConfig_v21400 is 24 bytes");

struct Library {
  Result (*get_version)(int *) = nullptr;
  Result (*get_unique_id)(UniqueId *) = nullptr;
  Result (*init_rank_config)(Comm *, int, UniqueId, int, Config *) = nullptr;
  Result (*split)(Comm, int, int, Comm *, Config *) = nullptr;
  Result (*finalize)(Comm) = nullptr;
  Result (*destroy)(Comm) = nullptr;
  Result (*abort)(Comm) = nullptr;
  Result (*async_error)(Comm, Result *) = nullptr;
  Result (*count)(Comm, int *) = nullptr;
  Result (*user_rank)(Comm, int *) = nullptr;
  const char *(*error_string)(Result) = nullptr;
  const char *(*last_error)(Comm) = nullptr;  // optional (2.13+)
  Result (*all_reduce)(const void *, void *, size_t, int, int, Comm, void *) = nullptr;
  Result (*broadcast)(const void *, void *, size_t, int, int, Comm, void *) = nullptr;
  Result (*reduce)(const void *, void *, size_t, int, int, int, Comm, void *) = nullptr;
  Result (*all_gather)(const void *, void *, size_t, int, Comm, void *) = nullptr;
  Result (*reduce_scatter)(const void *, void *, size_t, int, int, Comm, void *) = nullptr;
  Result (*send)(const void *, size_t, int, int, Comm, void *) = nullptr;
  Result (*recv)(void *, size_t, int, int, Comm, void *) = nullptr;
  Result (*group_start)() = nullptr;
  Result (*group_end)() = nullptr;
  std::string error;
};

// Every symbol the library needs, by name; the first one missing is named.
bool resolve_all(void *lib, Library &l, const char **missing) {
#define EK_NCCL_SYM(field, name) \
  if (!resolve(lib, name, &l.field)) return *missing = name, false;
  EK_NCCL_SYM(get_version, "ncclGetVersion")
  EK_NCCL_SYM(get_unique_id, "ncclGetUniqueId")
  EK_NCCL_SYM(init_rank_config, "ncclCommInitRankConfig")
  EK_NCCL_SYM(split, "ncclCommSplit")
  EK_NCCL_SYM(finalize, "ncclCommFinalize")
  EK_NCCL_SYM(destroy, "ncclCommDestroy")
  EK_NCCL_SYM(abort, "ncclCommAbort")
  EK_NCCL_SYM(async_error, "ncclCommGetAsyncError")
  EK_NCCL_SYM(count, "ncclCommCount")
  EK_NCCL_SYM(user_rank, "ncclCommUserRank")
  EK_NCCL_SYM(error_string, "ncclGetErrorString")
  EK_NCCL_SYM(all_reduce, "ncclAllReduce")
  EK_NCCL_SYM(broadcast, "ncclBroadcast")
  EK_NCCL_SYM(reduce, "ncclReduce")
  EK_NCCL_SYM(all_gather, "ncclAllGather")
  EK_NCCL_SYM(reduce_scatter, "ncclReduceScatter")
  EK_NCCL_SYM(send, "ncclSend")
  EK_NCCL_SYM(recv, "ncclRecv")
  EK_NCCL_SYM(group_start, "ncclGroupStart")
  EK_NCCL_SYM(group_end, "ncclGroupEnd")
#undef EK_NCCL_SYM
  resolve(lib, "ncclGetLastError", &l.last_error);
  return true;
}

Library load() {
  Library l;
  const char *file = nullptr;
  void *lib = nullptr;
  const char *hint = "install NCCL 2.18 or newer (libnccl.so.2), or set EK_NCCL_LIBRARY to its path";
  if (const char *env = std::getenv("EK_NCCL_LIBRARY"); env && *env) {
    const char *const files[] = {env};
    lib = open_first(files, "NCCL (EK_NCCL_LIBRARY)", hint, &file, &l.error);
  } else {
    static const char *const kFiles[] = {"libnccl.so.2", "libnccl.so"};
    lib = open_first(kFiles, "NCCL", hint, &file, &l.error);
  }
  if (!lib) return l;
  const char *missing = nullptr;
  if (!resolve_all(lib, l, &missing)) {
    l.error = std::string(file) + " lacks " + missing + " (NCCL 2.18 or newer is needed)";
    return l;
  }
  int version = 0;
  if (l.get_version(&version) != kSuccess || version < 21800)
    l.error = std::string(file) + " is NCCL " + std::to_string(version) +
              "; libek needs 2.18 or newer (non-blocking communicators, ncclCommSplit)";
  return l;  // lib stays open for the life of the process
}

const Library &loaded() {
  static const Library lib = load();
  return lib;
}

ek_status need_library(const Library **l) {
  *l = &loaded();
  EK_CHECK((*l)->error.empty(), EK_ERROR_LIBRARY, "NCCL not found (%s)", (*l)->error.c_str());
  return EK_SUCCESS;
}
#define EK_NCCL_LIB(l)     \
  const Library *l = nullptr; \
  EK_FORWARD(need_library(&l))

ek_status check(const Library *l, Result r, const char *call, Comm c = nullptr) {
  if (r == kSuccess || r == kInProgress) return EK_SUCCESS;
  const ek_status status = r == kInvalidArgument || r == kInvalidUsage
                               ? EK_ERROR_INVALID_ARGUMENT
                               : EK_ERROR_DEVICE;
  const char *detail = l->last_error ? l->last_error(c) : nullptr;
  return fail(status, "%s failed: %s (%d)%s%s", call, l->error_string(r), r,
              detail && *detail ? ": " : "", detail && *detail ? detail : "");
}

using Clock = std::chrono::steady_clock;
Clock::time_point deadline_of(int64_t timeout_ms) {
  return Clock::now() + std::chrono::milliseconds(timeout_ms);
}

// Between two polls: yield for the first 2 ms (a non-blocking launch takes
// NCCL's helper thread tens of microseconds, and latency counts), then sleep.
void between_polls(Clock::time_point start) {
  if (Clock::now() - start < std::chrono::milliseconds(2)) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(100));
}

// Polls c until its pending step is done; past the deadline, aborts it.
ek_status wait_ready(const Library *l, Comm c, Clock::time_point deadline, const char *what,
                     int64_t timeout_ms) {
  for (const auto start = Clock::now();;) {
    Result state = kSuccess;
    EK_FORWARD(check(l, l->async_error(c, &state), "ncclCommGetAsyncError", c));
    if (state != kInProgress) return check(l, state, what, c);
    if (Clock::now() > deadline) {
      l->abort(c);
      return fail(EK_ERROR_TIMEOUT,
                  "%s did not finish within %lld ms (a rank missing, dead or stuck?); the "
                  "communicator was aborted", what, static_cast<long long>(timeout_ms));
    }
    between_polls(start);
  }
}

// Starts a step on c (a new communicator when fresh, which a failure frees).
ek_status start_and_wait(const Library *l, Result r, Comm c, int64_t timeout_ms,
                         const char *what, bool fresh) {
  if (r != kSuccess && r != kInProgress) {
    ek_status st = check(l, r, what, c);
    if (fresh && c) l->abort(c);
    return st;
  }
  return wait_ready(l, c, deadline_of(timeout_ms), what, timeout_ms);
}

// Replaces the non-blocking *c by a blocking communicator of the same ranks
// (every rank of *c calls this right after making it, so the split cannot
// wait for a rank that is elsewhere), and frees the non-blocking one.
ek_status make_blocking(const Library *l, Comm *c, int64_t timeout_ms) {
  int rank = 0;
  EK_FORWARD(check(l, l->user_rank(*c, &rank), "ncclCommUserRank", *c));
  Config config;
  config.blocking = 1;
  Comm b = nullptr;
  const char *what = "ncclCommSplit (to a blocking communicator)";
  ek_status st = start_and_wait(l, l->split(*c, 0, rank, &b, &config), *c, timeout_ms, what, false);
  bool parent_alive = st != EK_ERROR_TIMEOUT;  // a timeout aborted (freed) it
  if (st == EK_SUCCESS) {
    st = b ? wait_ready(l, b, deadline_of(timeout_ms), what, timeout_ms)
           : fail(EK_ERROR_DEVICE, "%s gave no communicator", what);
    if (st == EK_ERROR_TIMEOUT) b = nullptr;  // wait_ready aborted it
  }
  if (st == EK_SUCCESS) {
    st = destroy(*c, timeout_ms);  // frees the non-blocking one, whatever it returns
    parent_alive = false;
  }
  if (st != EK_SUCCESS) {
    if (b) l->abort(b);
    if (parent_alive) l->abort(*c);
    *c = nullptr;
    return st;
  }
  *c = b;
  return EK_SUCCESS;
}

UniqueId to_nccl(const ek_comm_unique_id &id) {
  UniqueId u;
  std::memcpy(u.internal, id.internal, sizeof u.internal);
  return u;
}

}  // namespace

ek_status get_unique_id(ek_comm_unique_id *id) {
  EK_NCCL_LIB(l);
  UniqueId u;
  EK_FORWARD(check(l, l->get_unique_id(&u), "ncclGetUniqueId"));
  std::memcpy(id->internal, u.internal, sizeof u.internal);
  return EK_SUCCESS;
}

ek_status init_rank(int device, int nranks, const ek_comm_unique_id &id, int rank,
                    int64_t timeout_ms, bool blocking, void **comm) {
  EK_NCCL_LIB(l);
  EK_FORWARD(gpu::set_device(device));
  Config config;
  Comm c = nullptr;
  Result r = l->init_rank_config(&c, nranks, to_nccl(id), rank, &config);
  ek_status st = start_and_wait(l, r, c, timeout_ms, "ncclCommInitRankConfig", true);
  if (st != EK_SUCCESS && st != EK_ERROR_TIMEOUT && (r == kSuccess || r == kInProgress))
    l->abort(c);  // started, then failed
  EK_FORWARD(st);
  if (blocking) EK_FORWARD(make_blocking(l, &c, timeout_ms));
  *comm = c;
  return EK_SUCCESS;
}

ek_status init_all(int n, const int *devices, int64_t timeout_ms, bool blocking, void **comms) {
  EK_NCCL_LIB(l);
  UniqueId u;
  EK_FORWARD(check(l, l->get_unique_id(&u), "ncclGetUniqueId"));
  Config config;
  config.blocking = blocking;
  for (int i = 0; i < n; ++i) comms[i] = nullptr;
  Result r = l->group_start();
  for (int i = 0; i < n && r == kSuccess; ++i) {
    if (gpu::set_device(devices[i]) != EK_SUCCESS) r = kInvalidArgument;
    else r = l->init_rank_config(&comms[i], n, u, i, &config);
  }
  Result end = l->group_end();
  if (r == kSuccess) r = end;
  const auto deadline = deadline_of(timeout_ms);
  ek_status st = check(l, r, "ncclCommInitRankConfig (in a group)");
  int i = 0;
  for (; i < n && st == EK_SUCCESS; ++i)
    st = wait_ready(l, comms[i], deadline, "ncclCommInitRankConfig (in a group)", timeout_ms);
  const int timed_out = st == EK_ERROR_TIMEOUT ? i - 1 : -1;  // wait_ready aborted that one
  if (st != EK_SUCCESS)
    for (int j = 0; j < n; ++j)
      if (comms[j] && j != timed_out) l->abort(comms[j]);
  return st;
}

ek_status split(void *comm, int color, int key, int64_t timeout_ms, bool blocking, void **out) {
  EK_NCCL_LIB(l);
  Config config;
  Comm c = nullptr;
  Result r = l->split(comm, color, key, &c, &config);
  // A non-blocking parent carries the split's progress; NOCOLOR ranks get no new comm.
  EK_FORWARD(start_and_wait(l, r, comm, timeout_ms, "ncclCommSplit", false));
  if (c) EK_FORWARD(wait_ready(l, c, deadline_of(timeout_ms), "ncclCommSplit", timeout_ms));
  if (c && blocking) EK_FORWARD(make_blocking(l, &c, timeout_ms));
  *out = c;
  return EK_SUCCESS;
}

ek_status rank_and_size(void *comm, int *rank, int *size) {
  EK_NCCL_LIB(l);
  EK_FORWARD(check(l, l->user_rank(comm, rank), "ncclCommUserRank", comm));
  return check(l, l->count(comm, size), "ncclCommCount", comm);
}

ek_status async_error(void *comm) {
  EK_NCCL_LIB(l);
  Result state = kSuccess;
  EK_FORWARD(check(l, l->async_error(comm, &state), "ncclCommGetAsyncError", comm));
  if (state == kInProgress) return fail(EK_ERROR_NOT_READY, "a non-blocking step is in progress");
  return check(l, state, "the communicator's asynchronous work", comm);
}

ek_status abort(void *comm) {
  EK_NCCL_LIB(l);
  return check(l, l->abort(comm), "ncclCommAbort");
}

ek_status destroy(void *comm, int64_t timeout_ms) {
  EK_NCCL_LIB(l);
  ek_status st = start_and_wait(l, l->finalize(comm), comm, timeout_ms, "ncclCommFinalize", false);
  if (st == EK_ERROR_TIMEOUT) return st;  // aborted, which freed it
  if (st != EK_SUCCESS) {
    l->abort(comm);
    return st;
  }
  return check(l, l->destroy(comm), "ncclCommDestroy");
}

ek_status enqueue(void *comm, const Call &c, void *stream, int64_t timeout_ms) {
  EK_NCCL_LIB(l);
  Result r = kSuccess;
  const char *what = "";
  switch (c.kind) {
    case Kind::all_reduce:
      what = "ncclAllReduce";
      r = l->all_reduce(c.send, c.recv, c.count, c.type, c.op, comm, stream);
      break;
    case Kind::broadcast:
      what = "ncclBroadcast";
      r = l->broadcast(c.send, c.recv, c.count, c.type, c.peer, comm, stream);
      break;
    case Kind::reduce:
      what = "ncclReduce";
      r = l->reduce(c.send, c.recv, c.count, c.type, c.op, c.peer, comm, stream);
      break;
    case Kind::all_gather:
      what = "ncclAllGather";
      r = l->all_gather(c.send, c.recv, c.count, c.type, comm, stream);
      break;
    case Kind::reduce_scatter:
      what = "ncclReduceScatter";
      r = l->reduce_scatter(c.send, c.recv, c.count, c.type, c.op, comm, stream);
      break;
    case Kind::send:
      what = "ncclSend";
      r = l->send(c.send, c.count, c.type, c.peer, comm, stream);
      break;
    case Kind::recv:
      what = "ncclRecv";
      r = l->recv(c.recv, c.count, c.type, c.peer, comm, stream);
      break;
  }
  if (r == kSuccess) return EK_SUCCESS;  // enqueued (or queued in a group)
  EK_FORWARD(check(l, r, what, comm));
  return wait_ready(l, comm, deadline_of(timeout_ms), what, timeout_ms);
}

ek_status group_start() {
  EK_NCCL_LIB(l);
  return check(l, l->group_start(), "ncclGroupStart");
}

ek_status group_end(void *const *comms, const int64_t *timeouts_ms, size_t n, bool *aborted) {
  EK_NCCL_LIB(l);
  Result r = l->group_end();
  if (r == kSuccess) return EK_SUCCESS;
  EK_FORWARD(check(l, r, "ncclGroupEnd"));
  for (size_t i = 0; i < n; ++i) {
    ek_status st = wait_ready(l, comms[i], deadline_of(timeouts_ms[i]), "ncclGroupEnd",
                              timeouts_ms[i]);
    if (st == EK_ERROR_TIMEOUT)
      for (size_t j = i; j < n; ++j) {
        if (j > i) l->abort(comms[j]);  // the rest of the group cannot finish either
        aborted[j] = true;
      }
    EK_FORWARD(st);
  }
  return EK_SUCCESS;
}

ek_status synchronize(void *comm, void *stream, int64_t timeout_ms) {
  EK_NCCL_LIB(l);
  const auto deadline = deadline_of(timeout_ms);
  for (const auto start = Clock::now();;) {
    bool done = false;
    EK_FORWARD(gpu::stream_query(stream, &done));
    if (done) return EK_SUCCESS;
    Result state = kSuccess;
    EK_FORWARD(check(l, l->async_error(comm, &state), "ncclCommGetAsyncError", comm));
    if (state != kSuccess && state != kInProgress) return check(l, state, "a collective", comm);
    if (Clock::now() > deadline) {
      l->abort(comm);  // the stuck kernels see the abort flag and exit
      return fail(EK_ERROR_TIMEOUT,
                  "the stream's collectives did not finish within %lld ms (a rank missing, dead "
                  "or stuck?); the communicator was aborted", static_cast<long long>(timeout_ms));
    }
    between_polls(start);
  }
}

}  // namespace ek::nccl
