// The NVRTC identity hint (nvrtc_hint.hpp) and the target choice shared by
// the hint and the loaded library (jit.hpp pick_target).
#include "jit/nvrtc_hint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/internal.hpp"
#include "jit/kernel_cache.hpp"
#include "util/safe_file.hpp"
#include "util/sha256.hpp"

namespace ek::jit {

ek_status pick_target(int cc, int nvrtc_version, const std::vector<int> &archs, Target *out) {
  Target t;
  t.nvrtc_version = nvrtc_version;
  t.arch = "sm_" + std::to_string(cc);
  if (!archs.empty() && std::find(archs.begin(), archs.end(), cc) == archs.end()) {
    // A device newer than this NVRTC: PTX for the newest architecture it
    // knows below the device, which the driver compiles for the device.
    int best = 0;
    for (int a : archs)
      if (a <= cc) best = std::max(best, a);
    EK_CHECK(best > 0, EK_ERROR_NOT_SUPPORTED,
             "NVRTC %d.%d cannot compile for sm_%d (it knows sm_%d to sm_%d)",
             nvrtc_version / 1000, nvrtc_version % 1000 / 10, cc,
             *std::min_element(archs.begin(), archs.end()),
             *std::max_element(archs.begin(), archs.end()));
    t.arch = "compute_" + std::to_string(best);
    t.ptx = true;
  }
  *out = t;
  return EK_SUCCESS;
}

namespace {

constexpr const char *kMagic = "ek-nvrtc-hint 1";
constexpr size_t kMaxHintBytes = 64 * 1024;

std::string checksum(const std::string &body) {
  return Sha256::hex(Sha256::of(body.data(), body.size()));
}

// A whole decimal number in [lo, hi].
bool parse_number(const std::string &s, long long lo, long long hi, long long *out) {
  if (s.empty() || s.size() > 20 || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// The value of the line "<name> <value>".
bool field(const std::string &line, const char *name, std::string *value) {
  size_t n = std::strlen(name);
  if (line.compare(0, n, name) != 0 || line.size() <= n || line[n] != ' ') return false;
  *value = line.substr(n + 1);
  return true;
}

bool number_field(const std::string &line, const char *name, long long lo, long long hi,
                  long long *out) {
  std::string value;
  return field(line, name, &value) && parse_number(value, lo, hi, out);
}

// "archs" alone, or "archs 50 52 ...".
bool parse_archs(const std::string &line, std::vector<int> *archs) {
  if (line == "archs") return true;
  std::string value;
  if (!field(line, "archs", &value)) return false;
  std::istringstream in(value);
  std::string word;
  while (std::getline(in, word, ' ')) {
    long long a = 0;
    if (!parse_number(word, 1, 10000, &a)) return false;
    archs->push_back(int(a));
  }
  return !archs->empty();
}

std::vector<std::string> lines_of(const std::string &body) {
  std::vector<std::string> lines;
  size_t at = 0;
  for (size_t nl; (nl = body.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(body.substr(at, nl - at));
  return lines;
}

bool parse_fields(const std::vector<std::string> &l, NvrtcIdentity *id) {
  long long version = 0;
  return l.size() == 6 && l[0] == kMagic && field(l[1], "path", &id->path) &&
         id->path.size() > 1 && id->path[0] == '/' &&
         number_field(l[2], "size", 0, LLONG_MAX, &id->size) &&
         number_field(l[3], "mtime_ns", LLONG_MIN, LLONG_MAX, &id->mtime_ns) &&
         number_field(l[4], "version", 1, 1000000, &version) && parse_archs(l[5], &id->archs) &&
         (id->version = int(version)) > 0;
}

bool write_file(const std::string &path, const std::string &text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = file::write_all(fd, text.data(), text.size());
  return close(fd) == 0 && ok;
}

}  // namespace

std::string format_hint(const NvrtcIdentity &id) {
  if (id.path.find('\n') != std::string::npos) return "";
  std::string body = std::string(kMagic) + "\npath " + id.path + "\nsize " +
                     std::to_string(id.size) + "\nmtime_ns " + std::to_string(id.mtime_ns) +
                     "\nversion " + std::to_string(id.version) + "\narchs";
  for (int a : id.archs) body += " " + std::to_string(a);
  body += "\n";
  return body + "sha256 " + checksum(body) + "\n";
}

bool parse_hint(const std::string &text, NvrtcIdentity *out) {
  const size_t kSumLine = 7 + 64 + 1;  // "sha256 " + hex + "\n"
  if (text.size() <= kSumLine || text.size() > kMaxHintBytes || text.back() != '\n') return false;
  const std::string body = text.substr(0, text.size() - kSumLine);
  if (text.compare(body.size(), kSumLine, "sha256 " + checksum(body) + "\n") != 0) return false;
  NvrtcIdentity id;
  if (!parse_fields(lines_of(body), &id) || format_hint(id) != text) return false;
  *out = id;
  return true;
}

bool library_unchanged(const NvrtcIdentity &id) {
  struct stat st;
  if (stat(id.path.c_str(), &st) != 0) return false;
  long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  return (long long)st.st_size == id.size && mtime == id.mtime_ns;
}

std::string hint_path(const std::string &dir) { return dir + "/nvrtc.hint"; }

// Read like a cache entry: only from a usable directory, never through a
// symlink, never waiting on a FIFO.
bool read_hint(const std::string &dir, NvrtcIdentity *out) {
  if (!kcache::disk_usable(dir, EK_LOG_OFF)) return false;
  std::string text, why;
  struct stat st;
  NvrtcIdentity id;
  if (!file::read_regular(hint_path(dir), kMaxHintBytes, &text, &st, &why) ||
      !parse_hint(text, &id) || !library_unchanged(id))
    return false;
  *out = id;
  return true;
}

void write_hint(const std::string &dir, const NvrtcIdentity &id, ek_log_level threshold) {
  std::string saved = last_error_message();
  const std::string text = format_hint(id), path = hint_path(dir);
  static std::atomic<unsigned> counter{0};
  const std::string temp = path + "." + std::to_string(getpid()) + "." +
                           std::to_string(counter.fetch_add(1)) + ".tmp";
  if (text.empty()) {
    log_message(EK_LOG_DEBUG, threshold, "NVRTC hint not written: %s has a newline in its path",
                id.path.c_str());
  } else if (kcache::make_cache_dir(dir) != EK_SUCCESS) {
    log_message(EK_LOG_DEBUG, threshold, "NVRTC hint not written: %s",
                last_error_message().c_str());
  } else if (!write_file(temp, text) || rename(temp.c_str(), path.c_str()) != 0) {
    log_message(EK_LOG_DEBUG, threshold, "NVRTC hint %s not written: %s", path.c_str(),
                std::strerror(errno));
    unlink(temp.c_str());
  }
  restore_last_error(std::move(saved));
}

bool hinted_target(const std::string &dir, int major, int minor, Target *out) {
  NvrtcIdentity id;
  if (!read_hint(dir, &id)) return false;
  std::string saved = last_error_message();
  bool ok = pick_target(major * 10 + minor, id.version, id.archs, out) == EK_SUCCESS;
  restore_last_error(std::move(saved));
  return ok;
}

}  // namespace ek::jit
