// Files written whole: ek_memory_write_snapshot_json and the profiler's trace.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>

#include "core/internal.hpp"
#include "util/safe_file.hpp"

namespace ek {
namespace {

// ".ek-" and 12 random characters: a temp name of fixed, short length, so
// that any name valid for the target is valid beside it (a name of 250
// characters plus a suffix would not be), and unguessable, so nobody else
// in the directory can take it first.
std::string temp_name(const std::string &dir) {
  static std::atomic<uint64_t> counter{0};
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != ssize_t(sizeof bits))
    bits = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           (uint64_t(getpid()) << 40);
  bits ^= counter.fetch_add(1) * 0x9e3779b97f4a7c15ull;
  static const char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string name = "/.ek-";
  for (int i = 0; i < 12; ++i, bits /= 36) name += kDigits[bits % 36];
  return (dir == "/" ? "" : dir) + name;
}

int create_temp(const std::string &dir, std::string *temp) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    *temp = temp_name(dir);
    int fd = open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// A regular file or nothing at path: a temp file beside it, fsynced, renamed
// onto it (then the directory fsynced), so a crash leaves the old or the new.
ek_status replace(const char *path, const std::string &text) {
  const std::string dir = file::parent_dir(path);
  std::string temp;
  int fd = create_temp(dir, &temp);
  EK_CHECK(fd >= 0, EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(errno));
  bool ok = file::write_all(fd, text.data(), text.size()) && fsync(fd) == 0;
  int error = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && rename(temp.c_str(), path) != 0) {
    ok = false;
    error = errno;
  }
  if (ok) {
    file::sync_dir(dir);
    return EK_SUCCESS;
  }
  unlink(temp.c_str());
  return fail(EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(error));
}

// A FIFO, a device (/dev/null, /dev/stdout) or a symlink: written where it
// is, never replaced. O_NONBLOCK makes a FIFO with no reader fail at once
// (ENXIO) instead of blocking the open; the writes then block as usual. No
// O_CREAT: a dangling symlink creates nothing.
ek_status write_in_place(const char *path, const std::string &text) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  EK_CHECK(fd >= 0, EK_ERROR_IO, "cannot write %s: %s%s", path, std::strerror(errno),
           errno == ENXIO ? " (a FIFO that no process has open for reading)" : "");
  struct stat st;
  int flags = fcntl(fd, F_GETFL);
  bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool ok = !regular && flags != -1 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 &&
            file::write_all(fd, text.data(), text.size());
  int error = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  // Writing through would let whoever made the link choose the file we
  // truncate; replacing it would turn the link into a file. Neither.
  EK_CHECK(!regular, EK_ERROR_IO,
           "cannot write %s: it is a symbolic link to a regular file; pass the file's own path",
           path);
  EK_CHECK(ok, EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(error));
  return EK_SUCCESS;
}

}  // namespace

ek_status write_file_replacing(const char *path, const std::string &text) {
  EK_CHECK(*path, EK_ERROR_INVALID_ARGUMENT, "path is empty");
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) return write_in_place(path, text);
  return replace(path, text);
}

}  // namespace ek
