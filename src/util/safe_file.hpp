// Files the library reads from directories others may write to (the kernel
// cache, the NVRTC hint) and files it writes whole (file_write.cpp).
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace ek::file {

// Opens path read-only (close-on-exec) if it is a regular file. A symbolic
// link as the last component is not followed (ELOOP), and the open never
// waits: a FIFO without a writer would block a plain open() forever, so it is
// opened with O_NONBLOCK and refused after fstat like any other non-regular
// file (EINVAL). Returns the descriptor with *st filled, or -1 with errno set
// and *why saying what was found ("a FIFO, not a regular file", strerror).
int open_regular(const std::string &path, struct stat *st, std::string *why);

// The whole of the regular file at path (open_regular), if it holds at most
// max_bytes (EFBIG otherwise). false with errno and *why on any failure; *st
// is filled whenever the open succeeded (st_ino != 0), zeroed otherwise.
bool read_regular(const std::string &path, size_t max_bytes, std::string *bytes,
                  struct stat *st, std::string *why);

// Writes all of data, retrying EINTR and short writes; false with errno set.
bool write_all(int fd, const void *data, size_t size);

// The directory that holds path's last component ("." for a bare name).
std::string parent_dir(const std::string &path);
// Best effort fsync of a directory, so that a rename into it survives a crash.
void sync_dir(const std::string &dir);

}  // namespace ek::file
