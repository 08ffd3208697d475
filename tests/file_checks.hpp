// Checks shared by the suites of files the library opens and writes (the
// kernel cache, the NVRTC hint, ek_memory_write_snapshot_json and
// ek_profiler_write_chrome_trace): a guard that turns a hang on a FIFO into a
// failure, and the rules every file writer follows.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ek.h"

namespace filecheck {

// Opens both ends of each FIFO without blocking, so that a thread blocked
// opening either end gets through, then drains what it writes until done is
// ready and closes: a reader sees EOF, a writer never fills the pipe.
inline void release_fifos(const std::vector<std::string> &paths, std::future<void> &done) {
  std::vector<int> readers;
  for (const std::string &path : paths) {
    readers.push_back(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    int w = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (w >= 0) close(w);
  }
  char buf[4096];
  while (done.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready)
    for (int r : readers)
      while (r >= 0 && read(r, buf, sizeof buf) > 0) {}
  for (int r : readers)
    if (r >= 0) close(r);
}

// Runs work on a thread. A hang guard, not a timing check: if work has not
// returned after a deadline far beyond anything it needs, it is blocked on
// one of the FIFOs at fifos, which are released (release_fifos) so the test
// fails instead of hanging. Returns whether work returned by itself.
inline bool finishes(const std::function<void()> &work, const std::vector<std::string> &fifos) {
  std::packaged_task<void()> task(work);
  std::future<void> done = task.get_future();
  std::thread thread(std::move(task));
  bool in_time = done.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!in_time) release_fifos(fifos, done);
  thread.join();
  return in_time;
}

inline mode_t type_of(const std::string &path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

inline std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline bool message_has(const std::string &text) {
  return std::string(ek_last_error()).find(text) != std::string::npos;
}

using Writer = std::function<ek_status(const char *path)>;

// The rules of ek_memory_write_snapshot_json and ek_profiler_write_chrome_trace,
// in dir (an empty directory of the test's own; left with what it made).
inline void check_file_writer(const std::string &dir, const Writer &write) {
  SCOPED_TRACE("in " + dir);
  // A FIFO that nobody reads: EK_ERROR_IO at once, the FIFO left as it is.
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ek_status status = EK_SUCCESS;
  std::string message;  // ek_last_error is the writing thread's
  EXPECT_TRUE(finishes([&] {
    status = write(fifo.c_str());
    message = ek_last_error();
  }, {fifo})) << "blocked on a FIFO";
  EXPECT_EQ(status, EK_ERROR_IO) << message;
  EXPECT_NE(message.find(fifo), std::string::npos) << message;
  EXPECT_NE(message.find("FIFO"), std::string::npos) << message;
  EXPECT_EQ(type_of(fifo), mode_t(S_IFIFO)) << "the FIFO was replaced";

  // A FIFO with a reader, as a shell's pipe or /dev/stdout would be: it gets
  // the text, and stays a FIFO.
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  std::atomic<bool> written{false};
  std::string got;
  std::thread writer([&] {
    status = write(fifo.c_str());
    message = ek_last_error();
    written = true;
  });
  char buf[4096];
  for (;;) {
    bool finished = written;  // read before draining: nothing comes after it
    ssize_t n;
    while ((n = read(reader, buf, sizeof buf)) > 0) got.append(buf, size_t(n));
    if (finished) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  writer.join();
  close(reader);
  EXPECT_EQ(status, EK_SUCCESS) << message;
  EXPECT_EQ(got.rfind("{", 0), 0u) << "the reader got: " << got.substr(0, 100);
  EXPECT_TRUE(!got.empty() && got.back() == '\n');
  EXPECT_EQ(type_of(fifo), mode_t(S_IFIFO));
  unlink(fifo.c_str());

  // A symlink to a device (/dev/null here; /dev/stdout is one to
  // /proc/self/fd/1) is written through and stays a symlink.
  const std::string to_null = dir + "/to-null.json";
  ASSERT_EQ(symlink("/dev/null", to_null.c_str()), 0);
  EXPECT_EQ(write(to_null.c_str()), EK_SUCCESS) << ek_last_error();
  EXPECT_EQ(type_of(to_null), mode_t(S_IFLNK)) << "the symlink was replaced";
  EXPECT_EQ(type_of("/dev/null"), mode_t(S_IFCHR));
  unlink(to_null.c_str());

  // A device itself: a private /dev/null made where this test may (root).
  const std::string null = dir + "/null";
  if (mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    int fd = open(null.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {  // else a nodev mount
      close(fd);
      EXPECT_EQ(write(null.c_str()), EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(type_of(null), mode_t(S_IFCHR)) << "the device was replaced by a file";
    }
    unlink(null.c_str());
  }

  // A symlink to a regular file: refused; the link and its file untouched.
  const std::string file = dir + "/file.json", link = dir + "/link.json";
  { std::ofstream(file) << "mine"; }
  ASSERT_EQ(symlink("file.json", link.c_str()), 0);
  EXPECT_EQ(write(link.c_str()), EK_ERROR_IO);
  EXPECT_TRUE(message_has(link) && message_has("symbolic link")) << ek_last_error();
  EXPECT_EQ(type_of(link), mode_t(S_IFLNK));
  EXPECT_EQ(slurp(file), "mine");
  unlink(link.c_str());
  unlink(file.c_str());

  // A name of 250 characters (NAME_MAX is 255): the temp name is short.
  const std::string long_name = dir + "/" + std::string(245, 'n') + ".json";
  EXPECT_EQ(write(long_name.c_str()), EK_SUCCESS) << ek_last_error();
  EXPECT_EQ(slurp(long_name).rfind("{", 0), 0u);
  unlink(long_name.c_str());
  EXPECT_EQ(rmdir(dir.c_str()), 0) << "files left in " << dir;
  mkdir(dir.c_str(), 0700);

  EXPECT_EQ(write(""), EK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(message_has("path is empty")) << ek_last_error();
}

}  // namespace filecheck
