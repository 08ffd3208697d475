// CUDA libraries opened on first use (cuBLAS, NVRTC): libek links neither, so
// CPU contexts and machines without them work, and a missing one is named.
#pragma once

#include <dlfcn.h>

#include <string>

namespace ek {

// The first of files that dlopen opens (left open for the life of the
// process; *opened names it), or nullptr with *error naming every file tried
// and dlerror's last word. what names the library in that message ("cuBLAS"),
// install_hint says what to do about it.
template <size_t N>
void *open_first(const char *const (&files)[N], const char *what, const char *install_hint,
                 const char **opened, std::string *error) {
  std::string tried, last_error;
  for (size_t i = 0; i < N; ++i) {
    *opened = files[i];
    if (void *lib = dlopen(files[i], RTLD_NOW | RTLD_LOCAL)) return lib;
    if (const char *e = dlerror()) last_error = e;
    tried += std::string(i == 0 ? "" : i + 1 == N ? " and " : ", ") + files[i];
  }
  *error = std::string(what) + " could not be loaded: tried " + tried + " (last error: " +
           last_error + "); " + install_hint;
  return nullptr;
}

// *fn = the symbol's address in lib; false when lib has no such symbol.
template <typename Fn>
bool resolve(void *lib, const char *symbol, Fn *fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  return *fn != nullptr;
}

}  // namespace ek
