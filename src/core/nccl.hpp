// NCCL behind a narrow interface: nccl_cuda.cpp opens libnccl at run time,
// nccl_none.cpp (builds without CUDA) says there is none. comm.cpp checks the
// public arguments and calls only these. Handles are NCCL's ncclComm_t.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ek.h"

namespace ek::nccl {

// NCCL's own enum values (stable across NCCL 2.x releases).
enum Type : int { kInt8 = 0, kUint8 = 1, kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5,
                  kFloat16 = 6, kFloat32 = 7, kFloat64 = 8, kBfloat16 = 9 };
enum Op : int { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4 };

enum class Kind { all_reduce, broadcast, reduce, all_gather, reduce_scatter, send, recv };
struct Call {
  Kind kind;
  const void *send;  // all but recv
  void *recv;        // all but send
  size_t count;      // elements sent by each rank (reduce_scatter: received)
  int type;
  int op;
  int peer;  // root (broadcast, reduce) or peer (send, recv)
};

// Every blocking step polls NCCL's async state until timeout_ms and then
// aborts the communicator: EK_ERROR_TIMEOUT from a call given a communicator
// means it has been aborted (freed by NCCL); no other failure frees it.
ek_status get_unique_id(ek_comm_unique_id *id);
// blocking: NCCL's blocking mode (ek.h: ek_comm_config.blocking).
ek_status init_rank(int device, int nranks, const ek_comm_unique_id &id, int rank,
                    int64_t timeout_ms, bool blocking, void **comm);
ek_status init_all(int n, const int *devices, int64_t timeout_ms, bool blocking, void **comms);
// *out nullptr for EK_COMM_SPLIT_NOCOLOR.
ek_status split(void *comm, int color, int key, int64_t timeout_ms, bool blocking, void **out);
ek_status rank_and_size(void *comm, int *rank, int *size);
ek_status async_error(void *comm);  // EK_SUCCESS, EK_ERROR_NOT_READY or the error
ek_status abort(void *comm);
ek_status destroy(void *comm, int64_t timeout_ms);  // finalize, then free
ek_status enqueue(void *comm, const Call &call, void *stream, int64_t timeout_ms);
ek_status group_start();
// Waits, each up to its timeout, for the group's communicators to be ready;
// on EK_ERROR_TIMEOUT, aborted[i] says which of them were aborted.
ek_status group_end(void *const *comms, const int64_t *timeouts_ms, size_t n, bool *aborted);
ek_status synchronize(void *comm, void *stream, int64_t timeout_ms);

}  // namespace ek::nccl
