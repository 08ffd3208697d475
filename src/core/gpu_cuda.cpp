#include "core/gpu.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "core/internal.hpp"

namespace ek::gpu {
namespace {

ek_status from_cuda(cudaError_t err, const char *call) {
  if (err == cudaSuccess) return EK_SUCCESS;
  cudaGetLastError();  // clear the sticky-free error so later calls start clean
  ek_status status = EK_ERROR_DEVICE;
  if (err == cudaErrorMemoryAllocation) status = EK_ERROR_OUT_OF_MEMORY;
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
      err == cudaErrorInvalidDevice)
    status = EK_ERROR_NO_DEVICE;
  return fail(status, "%s failed: %s (%s)", call, cudaGetErrorName(err),
              cudaGetErrorString(err));
}

bool is_capture_error(cudaError_t err) {
  return err == cudaErrorStreamCaptureUnsupported || err == cudaErrorStreamCaptureInvalidated ||
         err == cudaErrorStreamCaptureMerge || err == cudaErrorStreamCaptureUnmatched ||
         err == cudaErrorStreamCaptureUnjoined || err == cudaErrorStreamCaptureIsolation ||
         err == cudaErrorStreamCaptureImplicit || err == cudaErrorStreamCaptureWrongThread ||
         err == cudaErrorCapturedEvent;
}

// As from_cuda, with the capture errors as EK_ERROR_CAPTURE.
ek_status from_capture(cudaError_t err, const char *call) {
  if (!is_capture_error(err)) return from_cuda(err, call);
  cudaGetLastError();
  return fail(EK_ERROR_CAPTURE, "%s failed: %s (%s)", call, cudaGetErrorName(err),
              cudaGetErrorString(err));
}

}  // namespace

RelaxedWhileCapturing::RelaxedWhileCapturing() : active_(captures_underway() > 0) {
  if (!active_) return;
  auto mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  mode_ = mode;
}

RelaxedWhileCapturing::~RelaxedWhileCapturing() {
  if (!active_) return;
  auto mode = static_cast<cudaStreamCaptureMode>(mode_);
  cudaThreadExchangeStreamCaptureMode(&mode);
}

bool compiled_in() { return true; }

int device_count() {
  int count = 0;
  // Without a driver this returns cudaErrorInsufficientDriver (35) and leaves
  // count untouched: that machine has no devices.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

ek_status device_info(int index, ek_device_info *info) {
  cudaDeviceProp prop;
  EK_FORWARD(from_cuda(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties"));
  std::memset(info, 0, sizeof *info);
  std::snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->type = EK_CUDA;
  info->index = index;
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->total_memory = prop.totalGlobalMem;
  info->l2_cache_size = static_cast<uint64_t>(prop.l2CacheSize);
  return EK_SUCCESS;
}

ek_status set_device(int index) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == index) return EK_SUCCESS;
  return from_cuda(cudaSetDevice(index), "cudaSetDevice");
}

ek_status mem_info(size_t *free_bytes, size_t *total_bytes) {
  return from_cuda(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
}

ek_status malloc_device(size_t bytes, void **ptr) {
  RelaxedWhileCapturing relaxed;
  cudaError_t err = cudaMalloc(ptr, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return EK_ERROR_OUT_OF_MEMORY;  // the pool writes the message with its numbers
  }
  return from_cuda(err, "cudaMalloc");
}

void free_device(void *ptr) { cudaFree(ptr); }

// Portable: pinned for every device's context, whichever is current now.
ek_status host_alloc_mapped(size_t bytes, void **host, void **device) {
  void *h = nullptr, *d = nullptr;
  RelaxedWhileCapturing relaxed;
  EK_FORWARD(from_cuda(cudaHostAlloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
                       "cudaHostAlloc"));
  if (ek_status st = from_cuda(cudaHostGetDevicePointer(&d, h, 0), "cudaHostGetDevicePointer");
      st != EK_SUCCESS) {
    cudaFreeHost(h);
    return st;
  }
  *host = h;
  *device = d;
  return EK_SUCCESS;
}

void host_free(void *host) { cudaFreeHost(host); }

ek_status stream_create(void **stream) {
  cudaStream_t s = nullptr;
  EK_FORWARD(from_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                       "cudaStreamCreateWithFlags"));
  *stream = s;
  return EK_SUCCESS;
}

void stream_destroy(void *stream) { cudaStreamDestroy(static_cast<cudaStream_t>(stream)); }

ek_status stream_id(void *stream, uint64_t *id) {
  unsigned long long value = 0;
  EK_FORWARD(from_cuda(cudaStreamGetId(static_cast<cudaStream_t>(stream), &value),
                       "cudaStreamGetId"));
  *id = value;
  return EK_SUCCESS;
}

ek_status stream_synchronize(void *stream) {
  bool capturing = false;
  uint64_t id = 0;
  if (captures_underway() > 0 && stream_capture_info(stream, &capturing, &id) == EK_SUCCESS &&
      capturing)
    return fail(EK_ERROR_CAPTURE,
                "the stream is capturing a graph: waiting for it (or reading a result back) "
                "is not allowed until ek_graph_capture_end");
  return from_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)),
                   "cudaStreamSynchronize");
}

ek_status stream_query(void *stream, bool *done) {
  cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(stream));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    *done = false;
    return EK_SUCCESS;
  }
  EK_FORWARD(from_cuda(err, "cudaStreamQuery"));
  *done = true;
  return EK_SUCCESS;
}

ek_status stream_wait_event(void *stream, void *event) {
  return from_cuda(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream),
                                       static_cast<cudaEvent_t>(event), 0),
                   "cudaStreamWaitEvent");
}

ek_status event_create(bool timing, void **event) {
  cudaEvent_t e = nullptr;
  unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  EK_FORWARD(from_cuda(cudaEventCreateWithFlags(&e, flags), "cudaEventCreateWithFlags"));
  *event = e;
  return EK_SUCCESS;
}

void event_destroy(void *event) { cudaEventDestroy(static_cast<cudaEvent_t>(event)); }

ek_status event_record(void *event, void *stream) {
  return from_cuda(cudaEventRecord(static_cast<cudaEvent_t>(event),
                                   static_cast<cudaStream_t>(stream)),
                   "cudaEventRecord");
}

ek_status event_query(void *event, bool *done) {
  cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    *done = false;
    return EK_SUCCESS;
  }
  EK_FORWARD(from_cuda(err, "cudaEventQuery"));
  *done = true;
  return EK_SUCCESS;
}

ek_status event_synchronize(void *event) {
  return from_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(event)),
                   "cudaEventSynchronize");
}

ek_status event_elapsed(void *start, void *end, float *ms) {
  cudaError_t err = cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start),
                                         static_cast<cudaEvent_t>(end));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return fail(EK_ERROR_NOT_READY, "an event has not completed");
  }
  return from_cuda(err, "cudaEventElapsedTime");
}

ek_status memcpy_async(void *dst, const void *src, size_t bytes, void *stream) {
  return from_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                                   static_cast<cudaStream_t>(stream)),
                   "cudaMemcpyAsync");
}

ek_status memset_async(void *dst, int value, size_t bytes, void *stream) {
  return from_cuda(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)),
                   "cudaMemsetAsync");
}

ek_status device_synchronize() {
  EK_CHECK(captures_underway() == 0, EK_ERROR_CAPTURE,
           "a graph capture is underway: waiting for the whole device is not allowed until it "
           "ends (synchronize the streams that do not capture instead)");
  return from_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

ek_status enable_peer_access(int device, int peer, bool *enabled) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, bool> known;  // (device, peer) -> enabled
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find({device, peer});
  if (it != known.end()) {
    *enabled = it->second;
    return EK_SUCCESS;
  }
  int can = 0;
  EK_FORWARD(from_cuda(cudaDeviceCanAccessPeer(&can, device, peer), "cudaDeviceCanAccessPeer"));
  if (can) {
    EK_FORWARD(set_device(device));
    cudaError_t err = cudaDeviceEnablePeerAccess(peer, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {  // by another library
      cudaGetLastError();  // not sticky, but the next cudaGetLastError would report it
      err = cudaSuccess;
    }
    EK_FORWARD(from_cuda(err, "cudaDeviceEnablePeerAccess"));
  }
  *enabled = known[{device, peer}] = can != 0;
  return EK_SUCCESS;
}

ek_status memcpy_peer_async(void *dst, int dst_device, const void *src, int src_device,
                            size_t bytes, void *stream) {
  return from_cuda(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes,
                                       static_cast<cudaStream_t>(stream)),
                   "cudaMemcpyPeerAsync");
}

bool is_device_pointer(const void *ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

ek_status check_launch(int cuda_error, const char *what) {
  return from_cuda(static_cast<cudaError_t>(cuda_error), what);
}

ek_status stream_capture_info(void *stream, bool *capturing, uint64_t *id) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long capture_id = 0;
  EK_FORWARD(from_cuda(cudaStreamGetCaptureInfo(static_cast<cudaStream_t>(stream), &status,
                                                &capture_id),
                       "cudaStreamGetCaptureInfo"));
  // An invalidated capture still needs its end: it counts as capturing.
  *capturing = status != cudaStreamCaptureStatusNone;
  *id = *capturing ? capture_id : 0;
  return EK_SUCCESS;
}

ek_status stream_begin_capture(void *stream, int mode) {
  return from_capture(cudaStreamBeginCapture(static_cast<cudaStream_t>(stream),
                                             static_cast<cudaStreamCaptureMode>(mode)),
                      "cudaStreamBeginCapture");
}

ek_status stream_end_capture(void *stream, void **graph) {
  cudaGraph_t g = nullptr;
  cudaError_t err = cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &g);
  if (err != cudaSuccess && g) cudaGraphDestroy(g);
  EK_FORWARD(from_capture(err, "cudaStreamEndCapture"));
  *graph = g;
  return EK_SUCCESS;
}

ek_status graph_instantiate(void *graph, void **exec) {
  cudaGraphExec_t e = nullptr;
  EK_FORWARD(from_capture(cudaGraphInstantiateWithFlags(&e, static_cast<cudaGraph_t>(graph), 0),
                          "cudaGraphInstantiate"));
  *exec = e;
  return EK_SUCCESS;
}

void graph_destroy(void *graph) { cudaGraphDestroy(static_cast<cudaGraph_t>(graph)); }
void graph_exec_destroy(void *exec) { cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec)); }

ek_status graph_upload(void *exec, void *stream) {
  return from_cuda(cudaGraphUpload(static_cast<cudaGraphExec_t>(exec),
                                   static_cast<cudaStream_t>(stream)),
                   "cudaGraphUpload");
}

ek_status graph_launch(void *exec, void *stream) {
  return from_capture(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec),
                                      static_cast<cudaStream_t>(stream)),
                      "cudaGraphLaunch");
}

}  // namespace ek::gpu
