// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011), the counter-based generator behind ek_random.
// The one implementation, for host and device: both backends call it, so their
// numbers agree bit for bit. Integer arithmetic only. Self-contained (the
// tests include it directly to check Random123's known-answer vectors).
#pragma once
#include <cstdint>

#ifndef EK_HD  // the same definition as src/util/half.hpp
#if defined(__CUDACC__)
#define EK_HD __host__ __device__ __forceinline__
#else
#define EK_HD inline
#endif
#endif

namespace ek {
namespace philox {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;  // round multipliers
constexpr uint32_t kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;  // key schedule (golden ratio, sqrt 3 - 1)
constexpr int kRounds = 10;

struct Block {
  uint32_t w[4];
};

// One round: two 32x32->64 products; their halves cross with the other words.
EK_HD Block round(const Block &c, uint32_t k0, uint32_t k1) {
  const uint64_t p0 = uint64_t(kMul0) * c.w[0], p1 = uint64_t(kMul1) * c.w[2];
  return Block{{uint32_t(p1 >> 32) ^ c.w[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ c.w[3] ^ k1, uint32_t(p0)}};
}

// Random123's philox4x32_R(10, ctr, key): the key is bumped before every
// round but the first.
EK_HD Block philox4x32_10(Block ctr, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < kRounds; ++r) {
    if (r > 0) {
      k0 += kBump0;
      k1 += kBump1;
    }
    ctr = round(ctr, k0, k1);
  }
  return ctr;
}

// The four words for one element: counter (low 64 bits; high 64 bits zero)
// under key seed (low word first).
EK_HD Block at(uint64_t seed, uint64_t counter) {
  const Block ctr{{uint32_t(counter), uint32_t(counter >> 32), 0u, 0u}};
  return philox4x32_10(ctr, uint32_t(seed), uint32_t(seed >> 32));
}

}  // namespace philox
}  // namespace ek
