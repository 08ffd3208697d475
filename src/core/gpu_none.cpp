// Stand-in for builds without CUDA: there are no devices.
#include "core/gpu.hpp"

#include "core/backend.hpp"
#include "core/internal.hpp"

namespace ek::gpu {
namespace {
ek_status none() { return fail(EK_ERROR_NO_DEVICE, "libek was built without CUDA"); }
}  // namespace

bool compiled_in() { return false; }
int device_count() { return 0; }
ek_status device_info(int, ek_device_info *) { return none(); }
ek_status set_device(int) { return none(); }
ek_status mem_info(size_t *, size_t *) { return none(); }
ek_status malloc_device(size_t, void **) { return none(); }
void free_device(void *) {}
ek_status host_alloc_mapped(size_t, void **, void **) { return none(); }
void host_free(void *) {}
ek_status stream_create(void **) { return none(); }
void stream_destroy(void *) {}
ek_status stream_id(void *, uint64_t *) { return none(); }
ek_status stream_synchronize(void *) { return none(); }
ek_status stream_query(void *, bool *) { return none(); }
ek_status stream_wait_event(void *, void *) { return none(); }
ek_status event_create(bool, void **) { return none(); }
void event_destroy(void *) {}
ek_status event_record(void *, void *) { return none(); }
ek_status enable_peer_access(int, int, bool *) { return none(); }
ek_status memcpy_peer_async(void *, int, const void *, int, size_t, void *) { return none(); }
ek_status event_query(void *, bool *) { return none(); }
ek_status event_synchronize(void *) { return none(); }
ek_status event_elapsed(void *, void *, float *) { return none(); }
ek_status memcpy_async(void *, const void *, size_t, void *) { return none(); }
ek_status memset_async(void *, int, size_t, void *) { return none(); }
ek_status device_synchronize() { return none(); }
bool is_device_pointer(const void *) { return false; }
ek_status check_launch(int, const char *) { return none(); }
RelaxedWhileCapturing::RelaxedWhileCapturing() : active_(false) {}
RelaxedWhileCapturing::~RelaxedWhileCapturing() = default;
ek_status stream_capture_info(void *, bool *, uint64_t *) { return none(); }
ek_status stream_begin_capture(void *, int) { return none(); }
ek_status stream_end_capture(void *, void **) { return none(); }
ek_status graph_instantiate(void *, void **) { return none(); }
void graph_destroy(void *) {}
void graph_exec_destroy(void *) {}
ek_status graph_upload(void *, void *) { return none(); }
ek_status graph_launch(void *, void *) { return none(); }
}  // namespace ek::gpu

namespace ek {
// No launchers either: check_device refuses every CUDA device first.
const Backend *cuda_backend() { return nullptr; }
}  // namespace ek
