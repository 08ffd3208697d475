/* ek.h must compile on its own as C11 with -pedantic -Werror, its
 * experimental section and inline ek_scalar constructors included. */
#define EK_EXPERIMENTAL
#include "ek.h"
int main(void) {
  /* Every _INIT macro names every field (-Wmissing-field-initializers). */
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  ek_device_info device = EK_DEVICE_INFO_INIT;
  ek_memory_stats stats = EK_MEMORY_STATS_INIT;
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  ek_kernel_attributes attributes = EK_KERNEL_ATTRIBUTES_INIT;
  ek_philox_state state = EK_PHILOX_STATE_INIT;
  ek_scalar v = ek_scalar_int(0);
  size_t sizes = device.struct_size + stats.struct_size + info.struct_size +
                 attributes.struct_size + state.struct_size;
  return (int)cfg.memory_limit + (int)v.i + (ek_status)EK_SUCCESS + (sizes == 0);
}
