// Writes the seed corpus of fuzz_kernel_cache into the directory given:
// valid entries made by format_entry, and broken ones of each kind the parser
// names. Its output is committed under corpus/kernel_cache/.
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_kernel_cache.hpp"
#include "jit/kernel_cache.hpp"

namespace {

using Bytes = std::vector<char>;

Bytes entry(const std::string &key, const std::string &image) {
  return ek::kcache::format_entry(key, image.data(), image.size());
}

// The harness's second form: key length byte, key, entry.
Bytes keyed(const std::string &key, const Bytes &body) {
  Bytes out(1, char(key.size()));
  out.insert(out.end(), key.begin(), key.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

bool write(const std::string &dir, const char *name, const Bytes &bytes) {
  std::string path = dir + "/" + name;
  FILE *f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) std::perror(path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1], ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += char(i);
  Bytes good = entry(kFuzzKey, ptx);
  Bytes truncated(good.begin(), good.end() - 7), trailing = good, flipped = good,
      version = good;
  trailing.push_back('\n');
  flipped[30] ^= 4;
  version[4] = 9;
  bool ok = write(dir, "valid_empty_image", entry(kFuzzKey, "")) &&
            write(dir, "valid_ptx", good) && write(dir, "valid_binary", entry(kFuzzKey, binary)) &&
            write(dir, "keyed_valid", keyed(kFuzzKey, good)) &&
            write(dir, "keyed_short_key", keyed("k", entry("k", "x"))) &&
            write(dir, "keyed_empty_key", keyed("", entry("", "abc"))) &&
            write(dir, "truncated", truncated) && write(dir, "trailing_byte", trailing) &&
            write(dir, "checksum_mismatch", flipped) && write(dir, "unknown_version", version) &&
            write(dir, "too_short", Bytes{'E', 'K', 'K', 'C'});
  return ok ? 0 : 1;
}
