// Helpers of the CPU fast paths: loops over one innermost run whose dtypes
// and steps are template arguments, so the per-element dtype switches of
// ew::load_as / store_as / detail::load_scalar fold away and the compiler can
// vectorize. They call the same per-element functions as the strided
// reference loops, in the same order, so results are bit-identical to them.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ops/tensor_desc.hpp"

namespace ek {
namespace cpu {

// Element size of a dtype, at compile time.
template <int DT>
constexpr int64_t kSize = DT == kF64 || DT == kI64 || DT == kU64 ? 8
                          : DT == kF32 || DT == kI32 || DT == kU32 ? 4
                          : DT == kF16 || DT == kBF16 || DT == kI16 || DT == kU16 ? 2 : 1;

// How an operand moves along a run: one element after the other, or not at
// all (a broadcast or host scalar: one value for the whole run).
enum Step : int { kVec = 0, kBcast = 1 };

// The step kind of a run step in bytes, -1 when neither (a strided run).
inline int step_kind(int64_t step, int64_t es) { return step == es ? kVec : step == 0 ? kBcast : -1; }

// f(std::integral_constant<int, DT>()) for the dtypes the fast paths
// specialize: the common float and integer ones. Returns false (f not
// called) for the rest, which take the strided loops.
template <typename F>
bool with_fast_dtype(int dtype, F &&f) {
  switch (dtype) {
    case kBool: f(std::integral_constant<int, kBool>()); return true;
    case kU8: f(std::integral_constant<int, kU8>()); return true;
    case kI32: f(std::integral_constant<int, kI32>()); return true;
    case kI64: f(std::integral_constant<int, kI64>()); return true;
    case kF16: f(std::integral_constant<int, kF16>()); return true;
    case kBF16: f(std::integral_constant<int, kBF16>()); return true;
    case kF32: f(std::integral_constant<int, kF32>()); return true;
    case kF64: f(std::integral_constant<int, kF64>()); return true;
    default: return false;
  }
}

}  // namespace cpu
}  // namespace ek
