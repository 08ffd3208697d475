// The cache of compiled kernel images used by the NVRTC JIT: one process-wide
// map in memory, and entry files on disk that are checked before use.
#pragma once

#include <string>
#include <vector>

#include "ek.h"

namespace ek::kcache {

// Hex SHA-256 over the parts, each length-prefixed (so ("ab","c") != ("a","bc")).
std::string make_key(const std::string &source, const std::vector<std::string> &options,
                     const std::string &arch, int nvrtc_version, unsigned ek_version);

// Whether dir may hold the disk cache: a directory (not a symbolic link to
// one) owned by this process's effective uid and not writable by group or
// others, or not there yet. Others' entries would otherwise load as hits (the
// checksum is no MAC). When it may not, the first call for dir whose
// threshold lets warnings through logs why and how to fix it, once per
// process; load then misses, store, make_cache_dir and clear fail (EK_ERROR_IO).
bool disk_usable(const std::string &dir, ek_log_level threshold);

enum class Load { kHit, kMiss, kRejected };
// kHit fills *image; kMiss for no entry or an unusable dir (disk_usable);
// kRejected (truncated, bad magic, checksum mismatch, key mismatch, not a
// regular file, a symlink, unreadable) sets *why and removes the entry. The
// entry is opened without following a symlink or waiting on a FIFO.
Load load(const std::string &dir, const std::string &key, std::vector<char> *image,
          std::string *why);
// Creates dir (0700, parents too), requires it usable (disk_usable) and writes
// the entry atomically (temp file, fsync, rename). EK_ERROR_IO with message on failure. Keys name files, so store
// refuses (EK_ERROR_INVALID_ARGUMENT) and load rejects any key that is not
// 1 to 128 characters of [0-9A-Za-z_-], as make_key's are.
ek_status store(const std::string &dir, const std::string &key, const void *image, size_t size);
// Creates dir as store does (0700, parents too) and requires it usable
// (disk_usable); EK_ERROR_IO with message.
ek_status make_cache_dir(const std::string &dir);
// Removes every cache entry (files this module wrote, incl. stale temp files)
// in dir; a missing dir is success, an unusable one (disk_usable) EK_ERROR_IO.
ek_status clear(const std::string &dir);

// Process-wide memory cache of images by key (thread-safe). It holds at most
// kMemoryCacheBytes of images and evicts the least recently used first.
constexpr size_t kMemoryCacheBytes = size_t(256) << 20;
bool memory_get(const std::string &key, std::vector<char> *image);
void memory_put(const std::string &key, std::vector<char> image);
void memory_clear();

// The entry file format, exposed for tests and the fuzzer: parse(bytes)
// checks everything and returns the image.
bool parse_entry(const void *data, size_t size, const std::string &key, std::vector<char> *image,
                 std::string *why);
std::vector<char> format_entry(const std::string &key, const void *image, size_t size);

}  // namespace ek::kcache
