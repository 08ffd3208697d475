// The CUDA runtime behind a narrow interface: gpu_cuda.cpp implements it with
// cudart, gpu_none.cpp (builds without CUDA) reports EK_ERROR_NO_DEVICE. No
// other file includes cuda_runtime.h, so the CPU path never touches CUDA.
#pragma once

#include "ek.h"

#include <cstddef>
#include <cstdint>

namespace ek::gpu {

bool compiled_in();
int device_count();  // 0 without driver or GPU
ek_status device_info(int index, ek_device_info *info);
ek_status set_device(int index);  // switches only when another device is current
ek_status mem_info(size_t *free_bytes, size_t *total_bytes);
ek_status malloc_device(size_t bytes, void **ptr);  // EK_ERROR_OUT_OF_MEMORY when full
void free_device(void *ptr);
// Pinned host memory mapped into the device's address space: the host writes
// and reads *host, kernels write through *device (the same address under UVA).
ek_status host_alloc_mapped(size_t bytes, void **host, void **device);
void host_free(void *host);

ek_status stream_create(void **stream);
void stream_destroy(void *stream);
ek_status stream_id(void *stream, uint64_t *id);
ek_status stream_synchronize(void *stream);
ek_status stream_query(void *stream, bool *done);
ek_status stream_wait_event(void *stream, void *event);

ek_status event_create(bool timing, void **event);
void event_destroy(void *event);
ek_status event_record(void *event, void *stream);
ek_status event_query(void *event, bool *done);
ek_status event_synchronize(void *event);
ek_status event_elapsed(void *start, void *end, float *ms);

ek_status memcpy_async(void *dst, const void *src, size_t bytes, void *stream);
ek_status memset_async(void *dst, int value, size_t bytes, void *stream);
ek_status device_synchronize();
// Lets kernels and copies on device reach peer's memory directly (NVLink or
// PCIe), once per ordered pair; *enabled false when the topology cannot.
ek_status enable_peer_access(int device, int peer, bool *enabled);
ek_status memcpy_peer_async(void *dst, int dst_device, const void *src, int src_device,
                            size_t bytes, void *stream);
// Whether ptr is device (or managed) memory, as seen by the CUDA runtime.
bool is_device_pointer(const void *ptr);
// Maps a cudaError_t from a kernel launcher to a status with a message.
ek_status check_launch(int cuda_error, const char *what);

// ---- CUDA graphs (src/core/graph.cpp). While ek::captures_underway() > 0,
// malloc_device and host_alloc_mapped run in the relaxed capture mode (as
// PyTorch's allocator does), stream_synchronize refuses a capturing stream
// and device_synchronize refuses outright, with EK_ERROR_CAPTURE.
// CUDA refuses cudaMalloc and cudaHostAlloc (cuBLAS's handle creation too)
// during a global or thread-local capture; in this scope, while a capture is
// underway, this thread runs in the relaxed mode (what PyTorch's allocator
// does). Costs one atomic load otherwise.
class RelaxedWhileCapturing {
 public:
  RelaxedWhileCapturing();
  ~RelaxedWhileCapturing();
  RelaxedWhileCapturing(const RelaxedWhileCapturing &) = delete;
  RelaxedWhileCapturing &operator=(const RelaxedWhileCapturing &) = delete;

 private:
  bool active_;
  int mode_ = 0;
};
// *id: the capture's process-unique id, 0 when not capturing.
ek_status stream_capture_info(void *stream, bool *capturing, uint64_t *id);
ek_status stream_begin_capture(void *stream, int mode);  // cudaStreamCaptureMode
// *graph: a cudaGraph_t; capture errors (an invalidated capture) are EK_ERROR_CAPTURE.
ek_status stream_end_capture(void *stream, void **graph);
ek_status graph_instantiate(void *graph, void **exec);  // then graph_destroy(graph)
void graph_destroy(void *graph);
void graph_exec_destroy(void *exec);
ek_status graph_upload(void *exec, void *stream);
ek_status graph_launch(void *exec, void *stream);

}  // namespace ek::gpu
