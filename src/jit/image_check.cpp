// Size checks of cubin (ELF64) and fatbin images; see image_check.hpp.
#include "jit/image_check.hpp"

#include <cstdint>
#include <cstring>

#include "core/internal.hpp"

namespace ek {
namespace {

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint32_t kFatbinMagic = 0xBA55ED50;  // fatbinary_section.h's fatBinaryHeader
constexpr uint32_t kSectionNoBits = 8;          // SHT_NOBITS: takes no bytes in the file

template <typename T>
T read(const unsigned char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// count entries of entry_size bytes at offset lie within size bytes
// (count and entry_size are 16-bit, so their product cannot overflow).
bool inside(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t size) {
  return offset <= size && count * entry_size <= size - offset;
}

ek_status truncated(const char *kind, size_t size) {
  return fail(EK_ERROR_DEVICE,
              "the %s image of %zu bytes is truncated or corrupt: its headers describe data "
              "beyond its end",
              kind, size);
}

ek_status check_elf(const unsigned char *p, size_t size) {
  constexpr size_t kHeader = 64, kSection = 64;
  EK_CHECK(size >= kHeader && p[4] == 2, EK_ERROR_DEVICE,
           "the image of %zu bytes starts like an ELF file but is not a 64-bit ELF cubin", size);
  const uint64_t phoff = read<uint64_t>(p + 0x20), shoff = read<uint64_t>(p + 0x28);
  const uint16_t phentsize = read<uint16_t>(p + 0x36), phnum = read<uint16_t>(p + 0x38);
  const uint16_t shentsize = read<uint16_t>(p + 0x3a), shnum = read<uint16_t>(p + 0x3c);
  if (!inside(phoff, phnum, phentsize, size) || !inside(shoff, shnum, shentsize, size) ||
      (shnum > 0 && shentsize < kSection))
    return truncated("cubin", size);
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char *section = p + shoff + uint64_t{i} * shentsize;
    const uint64_t offset = read<uint64_t>(section + 0x18), bytes = read<uint64_t>(section + 0x20);
    if (read<uint32_t>(section + 4) != kSectionNoBits && !inside(offset, 1, bytes, size))
      return truncated("cubin", size);
  }
  return EK_SUCCESS;
}

ek_status check_fatbin(const unsigned char *p, size_t size) {
  // magic (4 bytes), version (2), header size (2), size of what follows (8)
  if (size < 16) return truncated("fatbin", size);
  const uint64_t header = read<uint16_t>(p + 6), body = read<uint64_t>(p + 8);
  if (header < 16 || !inside(header, 1, body, size)) return truncated("fatbin", size);
  return EK_SUCCESS;
}

}  // namespace

ek_status check_image(const void *image, size_t size) {
  const auto *p = static_cast<const unsigned char *>(image);
  if (size >= 4 && std::memcmp(p, kElfMagic, 4) == 0) return check_elf(p, size);
  if (size >= 4 && read<uint32_t>(p) == kFatbinMagic) return check_fatbin(p, size);
  return EK_SUCCESS;
}

}  // namespace ek
