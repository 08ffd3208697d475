/* ek.h must compile on its own as C++17 with -pedantic -Werror, its
 * experimental section and inline ek_scalar constructors included. */
#define EK_EXPERIMENTAL
#include "ek.h"
int main(void) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  ek_scalar v = ek_scalar_int(0);
  return (int)cfg.memory_limit + (int)v.i + (ek_status)EK_SUCCESS;
}
