// The kernel cache (kernel_cache.hpp).
//
// Entry file <dir>/<key>.ekc, little-endian fixed-width fields:
//   "EKKC" | u32 format version | u32 key length | key | u64 image size | image
//   | SHA-256 of everything before it (32 bytes)
// The key inside the file catches an entry copied or renamed to another key's
// name; the checksum catches truncation and corruption (not a forger who
// recomputes it: the directory, ours and writable by us alone, is what keeps
// others out, so a directory that is not is never used: dir_problem).
#include "jit/kernel_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <set>
#include <unordered_map>

#include "core/internal.hpp"
#include "util/safe_file.hpp"
#include "util/sha256.hpp"

namespace ek::kcache {
namespace {

constexpr char kMagic[4] = {'E', 'K', 'K', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kDigestBytes = 32;
constexpr size_t kKeyOffset = 12;  // after magic, version and key length
// The size of an entry with an empty key and an empty image.
constexpr size_t kFixedBytes = kKeyOffset + 8 + kDigestBytes;
constexpr size_t kMaxKeyBytes = 128;
// No kernel image comes near this: a larger file is not ours, and is not read.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

void put_le(std::vector<char> *out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(char(value >> (8 * i)));
}

uint64_t get_le(const unsigned char *p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(p[i]) << (8 * i);
  return value;
}

bool reject(std::string *why, std::string reason) {
  if (why) *why = std::move(reason);
  return false;
}

// Keys become file names: nothing that could climb out of dir or look like
// a temp file ('.' and '/' are excluded).
bool valid_key(const std::string &key) {
  if (key.empty() || key.size() > kMaxKeyBytes) return false;
  for (char c : key) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string entry_path(const std::string &dir, const std::string &key) {
  return dir + "/" + key + ".ekc";
}

bool ends_with(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// "<key>.ekc" or ".<key>.<anything>.tmp": the names store() writes.
bool is_cache_file_name(const std::string &name) {
  if (ends_with(name, ".ekc")) return valid_key(name.substr(0, name.size() - 4));
  if (name.empty() || name[0] != '.' || !ends_with(name, ".tmp")) return false;
  size_t dot = name.find('.', 1);
  return dot < name.size() - 4 && valid_key(name.substr(1, dot - 1));
}

void hash_part(Sha256 *hash, const void *data, size_t size) {
  std::vector<char> length;
  put_le(&length, size, 8);
  hash->update(length.data(), length.size());
  hash->update(data, size);
}

void hash_number(Sha256 *hash, uint64_t value) {
  std::vector<char> bytes;
  put_le(&bytes, value, 8);
  hash_part(hash, bytes.data(), bytes.size());
}

}  // namespace

// ---- keys and the entry format

std::string make_key(const std::string &source, const std::vector<std::string> &options,
                     const std::string &arch, int nvrtc_version, unsigned ek_version) {
  Sha256 hash;
  // A tag for the key layout: changing what goes into keys changes the tag.
  static const char kTag[] = "ek kernel cache key 1";
  hash_part(&hash, kTag, sizeof kTag - 1);
  hash_part(&hash, source.data(), source.size());
  hash_number(&hash, options.size());  // so options cannot run into arch
  for (const std::string &option : options) hash_part(&hash, option.data(), option.size());
  hash_part(&hash, arch.data(), arch.size());
  hash_number(&hash, uint64_t(int64_t(nvrtc_version)));
  hash_number(&hash, ek_version);
  return Sha256::hex(hash.finish());
}

std::vector<char> format_entry(const std::string &key, const void *image, size_t size) {
  std::vector<char> out;
  out.reserve(kFixedBytes + key.size() + size);
  out.insert(out.end(), kMagic, kMagic + 4);
  put_le(&out, kFormatVersion, 4);
  put_le(&out, key.size(), 4);
  out.insert(out.end(), key.begin(), key.end());
  put_le(&out, size, 8);
  if (size) out.insert(out.end(), static_cast<const char *>(image),
                       static_cast<const char *>(image) + size);
  Sha256::Digest digest = Sha256::of(out.data(), out.size());
  out.insert(out.end(), digest.begin(), digest.end());
  return out;
}

// Every field is checked against the bytes actually present before it is used
// as an offset, and the image is copied only once its size matches the file.
bool parse_entry(const void *data, size_t size, const std::string &key, std::vector<char> *image,
                 std::string *why) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (size < kFixedBytes) return reject(why, "too short (" + std::to_string(size) + " bytes)");
  if (std::memcmp(p, kMagic, 4) != 0) return reject(why, "bad magic");
  uint64_t version = get_le(p + 4, 4);
  if (version != kFormatVersion)
    return reject(why, "unknown format version " + std::to_string(version));
  uint64_t room = size - kFixedBytes;  // what the key and the image share
  uint64_t key_size = get_le(p + 8, 4);
  if (key_size > room)
    return reject(why, "key length " + std::to_string(key_size) + " exceeds the file (truncated)");
  uint64_t image_size = get_le(p + kKeyOffset + key_size, 8);
  if (image_size != room - key_size)
    return reject(why, "image size field " + std::to_string(image_size) +
                           " inconsistent with file length " + std::to_string(size) +
                           (image_size > room - key_size ? " (truncated)" : " (trailing bytes)"));
  size_t body = size - kDigestBytes;
  if (std::memcmp(Sha256::of(p, body).data(), p + body, kDigestBytes) != 0)
    return reject(why, "checksum mismatch");
  if (key_size != key.size() || std::memcmp(p + kKeyOffset, key.data(), key_size) != 0)
    return reject(why, "key mismatch");
  const unsigned char *start = p + kKeyOffset + key_size + 8;
  if (image) image->assign(start, start + image_size);
  return true;
}

// ---- the disk cache

namespace {

// mkdir -p; each directory made here gets 0700 (chmod as well: the umask may
// have taken bits from mkdir's mode).
ek_status make_dirs(const std::string &dir) {
  EK_CHECK(!dir.empty(), EK_ERROR_IO, "kernel cache directory is an empty path");
  for (size_t end = 1; end <= dir.size(); ++end) {
    if (end < dir.size() && dir[end] != '/') continue;
    std::string part = dir.substr(0, end);
    if (mkdir(part.c_str(), 0700) == 0) {
      EK_CHECK(chmod(part.c_str(), 0700) == 0, EK_ERROR_IO, "cannot chmod 0700 %s: %s",
               part.c_str(), std::strerror(errno));
    } else {
      EK_CHECK(errno == EEXIST, EK_ERROR_IO, "cannot create kernel cache directory %s: %s",
               part.c_str(), std::strerror(errno));
    }
  }
  struct stat st;
  EK_CHECK(stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode), EK_ERROR_IO,
           "kernel cache directory %s is not a directory", dir.c_str());
  return EK_SUCCESS;
}

// ".<key>.<pid>.<random>.tmp": the pid and a per-process counter keep writers
// apart; the clock keeps a reused pid from meeting a dead process's leftovers.
std::string temp_path(const std::string &dir, const std::string &key) {
  static std::atomic<uint64_t> counter{0};
  uint64_t now = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  uint64_t noise = (now * 0x9e3779b97f4a7c15ull) ^ counter.fetch_add(1);
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(noise));
  return dir + "/." + key + "." + std::to_string(getpid()) + "." + suffix + ".tmp";
}

ek_status create_temp(const std::string &dir, const std::string &key, std::string *path,
                      int *fd) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    *path = temp_path(dir, key);
    *fd = open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (*fd >= 0) return EK_SUCCESS;
    if (errno != EEXIST) break;
  }
  return fail(EK_ERROR_IO, "cannot create %s: %s", path->c_str(), std::strerror(errno));
}

// fsync before the rename, so that after a crash the name never points at
// a file whose data did not reach the disk.
ek_status write_and_close(int fd, const std::string &path, const std::vector<char> &bytes) {
  bool ok = file::write_all(fd, bytes.data(), bytes.size()) && fsync(fd) == 0;
  int saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  EK_CHECK(ok, EK_ERROR_IO, "cannot write %s: %s", path.c_str(), std::strerror(saved));
  return EK_SUCCESS;
}

// Removes a rejected entry unless another process has meanwhile renamed a new
// one into its place (then the name no longer points at what was read). An
// entry that could not be opened (a symlink, a FIFO...) is removed as it is.
void remove_rejected(const std::string &path, const struct stat &read_st) {
  struct stat now;
  if (read_st.st_ino == 0 ||
      (lstat(path.c_str(), &now) == 0 && now.st_dev == read_st.st_dev &&
       now.st_ino == read_st.st_ino))
    unlink(path.c_str());
}

// Why dir cannot hold the disk cache and how to fix it, as "<why>: <fix>";
// empty when it can, or does not exist yet (store creates it 0700).
std::string dir_problem(const std::string &dir) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return "";  // missing: made later; other errors: reported then
  const std::string own = "set EK_KERNEL_CACHE_DIR (or config.kernel_cache_dir) to a directory "
                          "of your own";
  if (S_ISLNK(st.st_mode))
    return "is a symbolic link, which the kernel cache does not follow: " + own +
           " (e.g. the one it points to)";
  if (!S_ISDIR(st.st_mode)) return "is not a directory: " + own;
  if (st.st_uid != geteuid())
    return "is owned by uid " + std::to_string(st.st_uid) + ", not by this process's uid " +
           std::to_string(geteuid()) + ": " + own;
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return std::string("is writable by group or others (mode ") + mode + "): run chmod go-w " +
           dir + ", or " + own;
  }
  return "";
}

ek_status require_usable(const std::string &dir) {
  std::string problem = dir_problem(dir);
  EK_CHECK(problem.empty(), EK_ERROR_IO, "kernel cache directory %s %s", dir.c_str(),
           problem.c_str());
  return EK_SUCCESS;
}

}  // namespace

ek_status make_cache_dir(const std::string &dir) {
  EK_FORWARD(make_dirs(dir));
  return require_usable(dir);
}

bool disk_usable(const std::string &dir, ek_log_level threshold) {
  std::string problem = dir_problem(dir);
  if (problem.empty()) return true;
  static std::mutex mutex;
  static auto *warned = new std::set<std::string>;  // never destroyed, like memory()
  std::lock_guard<std::mutex> lock(mutex);
  if (log_enabled(EK_LOG_WARN, threshold) && warned->insert(dir).second)
    log_message(EK_LOG_WARN, threshold,
                "kernel cache directory %s %s; until then this process does not use it "
                "(kernels are compiled and cached in memory only)",
                dir.c_str(), problem.c_str());
  return false;
}

ek_status store(const std::string &dir, const std::string &key, const void *image, size_t size) {
  EK_CHECK(valid_key(key), EK_ERROR_INVALID_ARGUMENT, "invalid kernel cache key \"%.*s\"",
           int(std::min(key.size(), kMaxKeyBytes)), key.c_str());
  EK_CHECK(image || size == 0, EK_ERROR_NULL_POINTER, "kernel image is NULL");
  EK_FORWARD(make_cache_dir(dir));
  std::vector<char> entry = format_entry(key, image, size);
  std::string temp;
  int fd = -1;
  EK_FORWARD(create_temp(dir, key, &temp, &fd));
  ek_status status = write_and_close(fd, temp, entry);
  std::string path = entry_path(dir, key);
  if (status == EK_SUCCESS && rename(temp.c_str(), path.c_str()) != 0)
    status = fail(EK_ERROR_IO, "cannot rename %s to %s: %s", temp.c_str(), path.c_str(),
                  std::strerror(errno));
  if (status != EK_SUCCESS) unlink(temp.c_str());
  else file::sync_dir(dir);
  return status;
}

Load load(const std::string &dir, const std::string &key, std::vector<char> *image,
          std::string *why) {
  if (!valid_key(key)) {
    reject(why, "invalid kernel cache key");
    return Load::kRejected;
  }
  if (!dir_problem(dir).empty()) return Load::kMiss;  // disk_usable warns about it
  std::string path = entry_path(dir, key);
  std::string bytes, reason;
  struct stat st;
  if (file::read_regular(path, kMaxEntryBytes, &bytes, &st, &reason)) {
    if (parse_entry(bytes.data(), bytes.size(), key, image, &reason)) return Load::kHit;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    return Load::kMiss;
  } else if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
    // Out of descriptors or memory says nothing against the entry: keep it.
    reject(why, reason + " in " + path);
    return Load::kRejected;
  }
  reject(why, reason + " in " + path);
  remove_rejected(path, st);
  return Load::kRejected;
}

ek_status clear(const std::string &dir) {
  EK_FORWARD(require_usable(dir));
  DIR *d = opendir(dir.c_str());
  if (!d && errno == ENOENT) return EK_SUCCESS;
  EK_CHECK(d, EK_ERROR_IO, "cannot open kernel cache directory %s: %s", dir.c_str(),
           std::strerror(errno));
  ek_status status = EK_SUCCESS;
  while (struct dirent *e = readdir(d)) {
    struct stat st;
    if (!is_cache_file_name(e->d_name) ||
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    // ENOENT: another process cleared it first.
    if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT && status == EK_SUCCESS)
      status = fail(EK_ERROR_IO, "cannot remove %s/%s: %s", dir.c_str(), e->d_name,
                    std::strerror(errno));
  }
  closedir(d);
  return status;
}

// ---- the memory cache

namespace {

// Least recently used first out, within kMemoryCacheBytes of images.
class MemoryCache {
 public:
  bool get(const std::string &key, std::vector<char> *image) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = index_.find(key);
    if (found == index_.end()) return false;
    order_.splice(order_.begin(), order_, found->second);
    *image = found->second->second;
    return true;
  }

  void put(const std::string &key, std::vector<char> image) {
    std::lock_guard<std::mutex> lock(mutex_);
    erase(key);
    if (image.size() > kMemoryCacheBytes) return;  // would only flush the rest
    bytes_ += image.size();
    order_.emplace_front(key, std::move(image));
    index_[key] = order_.begin();
    while (bytes_ > kMemoryCacheBytes) erase(order_.back().first);
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    order_.clear();
    index_.clear();
    bytes_ = 0;
  }

 private:
  using Entry = std::pair<std::string, std::vector<char>>;

  void erase(const std::string &key) {
    auto found = index_.find(key);
    if (found == index_.end()) return;
    bytes_ -= found->second->second.size();
    order_.erase(found->second);
    index_.erase(found);
  }

  std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

// Never destroyed, so modules released from static destructors can still use it.
MemoryCache &memory() {
  static MemoryCache *cache = new MemoryCache;
  return *cache;
}

}  // namespace

bool memory_get(const std::string &key, std::vector<char> *image) {
  return memory().get(key, image);
}

void memory_put(const std::string &key, std::vector<char> image) {
  memory().put(key, std::move(image));
}

void memory_clear() { memory().clear(); }

}  // namespace ek::kcache
