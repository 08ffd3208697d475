// What src/ops/matmul.cpp shares with the ops composed from ek_matmul
// (src/ops/linalg.cpp).
#pragma once

#include <memory>

#include "core/internal.hpp"

namespace ek {

// A tensor handle released when it goes out of scope (temporaries, views).
struct ReleaseTensor {
  void operator()(ek_tensor t) const { ek_tensor_release(t); }
};
using OwnedTensor = std::unique_ptr<ek_tensor_s, ReleaseTensor>;

// EK_ERROR_DTYPE unless dt is a dtype matrix products take (floats and the
// integers but bool), naming it.
ek_status check_product_dtype(ek_dtype dt);

}  // namespace ek
