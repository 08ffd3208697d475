// JSON text shared by the memory snapshot and the profiler's trace.
#include <cstdio>

#include "core/internal.hpp"

namespace ek {
namespace {

// Length of the valid UTF-8 sequence at p (1 to 4 bytes), 0 if invalid.
size_t utf8_length(const unsigned char *p) {
  unsigned c = p[0];
  size_t n = 0;
  uint32_t min = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000;
  else return 0;
  uint32_t cp = c & (0x3fu >> (n - 1));
  for (size_t i = 1; i < n; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;  // also stops at the terminating NUL
    cp = cp << 6 | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

void append_json_string(std::string &out, const char *text) {
  out += '"';
  for (auto p = reinterpret_cast<const unsigned char *>(text); *p;) {
    size_t n = utf8_length(p);
    if (n == 0) {
      out += "\\ufffd";
      ++p;
    } else if (*p == '"' || *p == '\\') {
      out += '\\';
      out += char(*p++);
    } else if (*p < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(*p++));
      out += escaped;
    } else {
      out.append(reinterpret_cast<const char *>(p), n);
      p += n;
    }
  }
  out += '"';
}

}  // namespace ek
