// Safe opens and whole writes (safe_file.hpp).
#include "util/safe_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ek::file {
namespace {

const char *kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "something";
}

bool failed(std::string *why, std::string reason, int error) {
  if (why) *why = std::move(reason);
  errno = error;
  return false;
}

}  // namespace

int open_regular(const std::string &path, struct stat *st, std::string *why) {
  *st = {};
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    failed(why, error == ELOOP ? "a symbolic link, not followed" : std::strerror(error), error);
    return -1;
  }
  // O_NONBLOCK stays: it changes nothing for reads of a regular file.
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    int error = errno;
    std::string reason = st->st_mode ? std::string(kind_of(st->st_mode)) + ", not a regular file"
                                     : std::string("cannot stat: ") + std::strerror(error);
    close(fd);
    failed(why, std::move(reason), st->st_mode ? EINVAL : error);
    return -1;
  }
  return fd;
}

bool read_regular(const std::string &path, size_t max_bytes, std::string *bytes,
                  struct stat *st, std::string *why) {
  int fd = open_regular(path, st, why);
  if (fd < 0) return false;
  bool ok = true;
  if (uint64_t(st->st_size) > max_bytes) {
    ok = failed(why, "too large (" + std::to_string(st->st_size) + " bytes)", EFBIG);
  } else {
    bytes->resize(size_t(st->st_size));
    size_t got = 0;
    while (ok && got < bytes->size()) {
      ssize_t n = read(fd, &(*bytes)[got], bytes->size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int error = errno;
        ok = failed(why, std::string("cannot read: ") + std::strerror(error), error);
      }
      if (n <= 0) break;
      got += size_t(n);
    }
    bytes->resize(got);  // a file that shrank meanwhile: its checks reject what is left
  }
  int error = errno;
  close(fd);
  errno = error;
  return ok;
}

bool write_all(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    size -= size_t(n);
  }
  return true;
}

std::string parent_dir(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void sync_dir(const std::string &dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace ek::file
