// What src/ops/matmul.cpp shares with the ops composed from ek_matmul
// (src/ops/linalg.cpp).
#pragma once

#include "core/internal.hpp"

namespace ek {

// EK_ERROR_DTYPE unless dt is a dtype matrix products take (floats and the
// integers but bool), naming it.
ek_status check_product_dtype(ek_dtype dt);

}  // namespace ek
