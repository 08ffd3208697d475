// libFuzzer harness for the kernel cache's entry parser (ek::kcache::parse_entry),
// which reads files anyone with access to the cache directory could have written.
// Each input is parsed twice: as a whole under kFuzzKey, and with its first
// byte giving a key length, the key next and the entry after it.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "fuzz_kernel_cache.hpp"
#include "jit/kernel_cache.hpp"

namespace {

// A rejection must say why; an acceptance must have read a canonical entry:
// formatting what it returned gives the input back byte for byte.
void parse_and_check(const uint8_t *data, size_t size, const std::string &key) {
  std::vector<char> image;
  std::string why;
  if (!ek::kcache::parse_entry(data, size, key, &image, &why)) {
    if (why.empty()) __builtin_trap();
    return;
  }
  std::vector<char> again = ek::kcache::format_entry(key, image.data(), image.size());
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  parse_and_check(data, size, kFuzzKey);
  if (size > 0) {
    size_t key_size = std::min<size_t>(data[0], size - 1);
    std::string key(reinterpret_cast<const char *>(data + 1), key_size);
    parse_and_check(data + 1 + key_size, size - 1 - key_size, key);
  }
  return 0;
}
