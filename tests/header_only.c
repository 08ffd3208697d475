/* ek.h must compile on its own as C11 with -pedantic -Werror. */
#include "ek.h"
int main(void) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  return (int)cfg.memory_limit + (ek_status)EK_SUCCESS;
}
