// Picks the ISA level of cpu/simd.hpp's loops once per process.
#include "cpu/simd.hpp"

#include <cstdlib>
#include <cstring>

#include "ops/tensor_desc.hpp"

namespace ek {
namespace cpu {
namespace simd {
namespace baseline { extern const Kernels table; }
#if defined(__x86_64__)  // meson.build builds the avx2 and avx512 levels there
namespace avx2 { extern const Kernels table; }
namespace avx512 { extern const Kernels table; }
#endif

namespace {

const char *const kNames[kIsaCount] = {"baseline", "avx2", "avx512"};

Isa best_level() {
  for (int l = kIsaCount - 1; l > kBaseline; --l)
    if (cpu_has(static_cast<Isa>(l))) return static_cast<Isa>(l);
  return kBaseline;
}

Isa choose() {
  const Isa best = best_level();
  const char *v = std::getenv("EK_CPU_ISA");
  if (!v || !*v) return best;
  for (int l = 0; l < kIsaCount; ++l)
    if (std::strcmp(v, kNames[l]) == 0 && cpu_has(static_cast<Isa>(l))) return static_cast<Isa>(l);
  return best;  // not a level, or one the CPU lacks: ignored
}

}  // namespace

bool cpu_has(Isa level) {
#if defined(__x86_64__)  // meson.build builds the avx2 and avx512 levels there
  if (level == kAvx2) return __builtin_cpu_supports("avx2");
  if (level == kAvx512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
  return level == kBaseline;
}

const char *isa_name(Isa level) { return level >= 0 && level < kIsaCount ? kNames[level] : "unknown"; }

Isa isa() {
  static const Isa level = choose();
  return level;
}

const Kernels *kernels_for(Isa level) {
  if (!cpu_has(level)) return nullptr;
#if defined(__x86_64__)  // meson.build builds the avx2 and avx512 levels there
  if (level == kAvx2) return &avx2::table;
  if (level == kAvx512) return &avx512::table;
#endif
  return &baseline::table;
}

const Kernels &kernels() {
  static const Kernels *k = kernels_for(isa());
  return *k;
}

int dtype_slot(int dtype) {
  switch (dtype) {
    case kF32: return 0;
    case kF64: return 1;
    case kF16: return 2;
    case kBF16: return 3;
    default: return -1;
  }
}

}  // namespace simd
}  // namespace cpu
}  // namespace ek
