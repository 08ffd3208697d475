// Checks an image for ek_module_from_image before the driver sees it.
#pragma once

#include <cstddef>

#include "ek.h"

namespace ek {

// The driver takes an image without its size and trusts the sizes its
// headers claim, so a truncated cubin (ELF) or fatbin would be read past its
// end: EK_ERROR_DEVICE unless everything the headers describe lies within
// size bytes. Anything else is passed on as PTX text (the driver judges it).
ek_status check_image(const void *image, size_t size);

}  // namespace ek
