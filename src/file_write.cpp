// Files replaced whole: ek_memory_snapshot_json and the profiler's trace.
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include "internal.hpp"

namespace ek {
namespace {

bool write_all(int fd, const std::string &text) {
  const char *data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    left -= size_t(n);
  }
  return true;
}

// A new file beside path: "<path>.tmp.<pid>.<n>".
int create_temp(const char *path, std::string *temp) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 16; ++attempt) {
    *temp = std::string(path) + ".tmp." + std::to_string(getpid()) + "." +
            std::to_string(counter.fetch_add(1));
    int fd = open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;  // EEXIST: a dead process's leftover
  }
  return -1;
}

}  // namespace

ek_status write_file_replacing(const char *path, const std::string &text) {
  std::string temp;
  int fd = create_temp(path, &temp);
  EK_CHECK(fd >= 0, EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(errno));
  bool ok = write_all(fd, text);
  int error = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && rename(temp.c_str(), path) != 0) {
    ok = false;
    error = errno;
  }
  if (ok) return EK_SUCCESS;
  unlink(temp.c_str());
  return fail(EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(error));
}

}  // namespace ek
