// The NVRTC identity hint: <cache_dir>/nvrtc.hint records which libnvrtc the
// last process loaded (real path, size, mtime) and what it reported (version,
// architectures), so that a new process can compute kernel-cache keys without
// loading NVRTC (a library of ~100 MB) when the disk cache already holds the
// image. Text, one field a line, ending with a SHA-256 line over the rest.
#pragma once

#include <string>
#include <vector>

#include "ek.h"
#include "jit/jit.hpp"

namespace ek::jit {

struct NvrtcIdentity {
  std::string path;        // realpath of the loaded libnvrtc
  long long size = 0;      // its st_size
  long long mtime_ns = 0;  // its st_mtim in nanoseconds
  int version = 0;         // as Target::nvrtc_version
  std::vector<int> archs;  // nvrtcGetSupportedArchs; may be empty
  bool operator==(const NvrtcIdentity &o) const {
    return path == o.path && size == o.size && mtime_ns == o.mtime_ns &&
           version == o.version && archs == o.archs;
  }
};

// The hint file's text; empty when the path cannot be written in it (a newline).
std::string format_hint(const NvrtcIdentity &id);
// Checks everything (fields, order, numbers, checksum); false on any fault.
bool parse_hint(const std::string &text, NvrtcIdentity *out);
// Whether id.path still stat()s with id's size and mtime.
bool library_unchanged(const NvrtcIdentity &id);

std::string hint_path(const std::string &dir);
// The hint of dir when it parses and its library is unchanged; none from a
// directory the kernel cache may not use (kcache::disk_usable), a symlink or
// anything but a regular file (a FIFO there never blocks the read).
bool read_hint(const std::string &dir, NvrtcIdentity *out);
// Best effort: creates dir (kcache::make_cache_dir, which refuses an unusable
// one), writes a temp file (0600) and renames it into place; a failure is
// logged at debug level and leaves ek_last_error as it was.
void write_hint(const std::string &dir, const NvrtcIdentity &id, ek_log_level threshold);

// The target for compute capability major.minor from dir's hint, without
// loading NVRTC; false (nothing logged, last error untouched) when there is
// no usable hint or the hinted NVRTC cannot compile for the device.
bool hinted_target(const std::string &dir, int major, int minor, Target *out);

}  // namespace ek::jit
