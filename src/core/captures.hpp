// The process-wide count of captures begun through ek_graph_capture_begin and
// not yet ended (core/graph.cpp). A header of its own so that the CUDA
// kernels' launch code (kernels/pdl.cuh) can ask it without the core's
// internals.
#pragma once

#include <cstdint>

namespace ek {

// While it is above 0 every pool is frozen (Pool::set_freeze_flag) and the
// synchronizing calls check whether their stream captures.
int captures_underway();

// The id of the CUDA graph capture the native stream takes part in (active
// or invalidated), 0 when none: one atomic load while no ek capture is
// underway. Keeps the thread's last error message.
uint64_t native_capture_id(void *native);

}  // namespace ek
