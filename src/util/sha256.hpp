// SHA-256 (FIPS 180-4), for the kernel cache's keys and entry checksums.
// Small and dependency-free: libek links no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ek {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;
  Sha256();
  void update(const void *data, size_t size);
  Digest finish();  // the object must not be updated again afterwards

  static Digest of(const void *data, size_t size);
  static std::string hex(const Digest &digest);

 private:
  void compress(const uint8_t *block);
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace ek
