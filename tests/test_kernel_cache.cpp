// Tests for the kernel cache (src/jit/kernel_cache.hpp) and its SHA-256
// (src/util/sha256.hpp): pure CPU, on real files in a fresh temporary directory.
#include "jit/kernel_cache.hpp"
#include "util/sha256.hpp"

#include "file_checks.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace kc = ek::kcache;
using kc::Load;

std::string sha_hex(const std::string &text) {
  return ek::Sha256::hex(ek::Sha256::of(text.data(), text.size()));
}

std::vector<char> bytes_of(const std::string &text) { return {text.begin(), text.end()}; }

std::vector<char> read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path &path, const std::vector<char> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// An image with zeros and every byte value, like a real cubin.
std::vector<char> sample_image(size_t size, unsigned seed = 1) {
  std::vector<char> image(size);
  for (size_t i = 0; i < size; ++i) image[i] = char((i * 131 + seed * 7) >> 3);
  return image;
}

// ---- SHA-256

TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(sha_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                    "klmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, MillionAInOddChunks) {
  std::string a(1000000, 'a');
  ek::Sha256 hash;
  for (size_t done = 0, step = 1; done < a.size(); done += step, step = step % 97 + 1)
    hash.update(a.data() + done, std::min(step, a.size() - done));
  EXPECT_EQ(ek::Sha256::hex(hash.finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding boundaries (55, 56, 63, 64 bytes...): any split gives the one-shot digest.
TEST(Sha256, SplitsAgreeAcrossBlockBoundaries) {
  std::vector<char> data = sample_image(200);
  for (size_t n = 0; n <= data.size(); ++n) {
    ek::Sha256::Digest whole = ek::Sha256::of(data.data(), n);
    for (size_t cut : {size_t(0), n / 3, n / 2, n}) {
      ek::Sha256 hash;
      hash.update(data.data(), cut);
      hash.update(data.data() + cut, n - cut);
      ASSERT_EQ(hash.finish(), whole) << "length " << n << " cut " << cut;
    }
  }
}

// ---- keys

TEST(KernelCacheKey, StableHexDigest) {
  std::string key = kc::make_key("src", {"-DN=4"}, "sm_90", 12080, 100);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, kc::make_key("src", {"-DN=4"}, "sm_90", 12080, 100));
}

TEST(KernelCacheKey, EveryPartCounts) {
  std::set<std::string> keys = {
      kc::make_key("src", {"-DN=4"}, "sm_90", 12080, 100),
      kc::make_key("src2", {"-DN=4"}, "sm_90", 12080, 100),
      kc::make_key("src", {"-DN=5"}, "sm_90", 12080, 100),
      kc::make_key("src", {}, "sm_90", 12080, 100),
      kc::make_key("src", {"-DN=4", "-G"}, "sm_90", 12080, 100),
      kc::make_key("src", {"-G", "-DN=4"}, "sm_90", 12080, 100),
      kc::make_key("src", {"-DN=4"}, "sm_80", 12080, 100),
      kc::make_key("src", {"-DN=4"}, "sm_90", 12090, 100),
      kc::make_key("src", {"-DN=4"}, "sm_90", -12080, 100),
      kc::make_key("src", {"-DN=4"}, "sm_90", 12080, 101),
  };
  EXPECT_EQ(keys.size(), 10u);
}

// Moving bytes across a boundary between parts changes the key.
TEST(KernelCacheKey, PartsAreLengthPrefixed) {
  EXPECT_NE(kc::make_key("s", {"ab", "c"}, "sm_90", 1, 1),
            kc::make_key("s", {"a", "bc"}, "sm_90", 1, 1));
  EXPECT_NE(kc::make_key("ab", {"c"}, "sm_90", 1, 1), kc::make_key("a", {"bc"}, "sm_90", 1, 1));
  EXPECT_NE(kc::make_key("s", {"x"}, "y", 1, 1), kc::make_key("s", {"xy"}, "", 1, 1));
  EXPECT_NE(kc::make_key("s", {"x"}, "", 1, 1), kc::make_key("s", {"x", ""}, "", 1, 1));
  EXPECT_NE(kc::make_key("s", {}, "x", 1, 1), kc::make_key("s", {"x"}, "", 1, 1));
}

// ---- the entry format

const std::string kKey = kc::make_key("kernel", {}, "sm_90", 12080, 100);
const std::string kOtherKey = kc::make_key("other kernel", {}, "sm_90", 12080, 100);

std::string parse_failure(const std::vector<char> &entry, const std::string &key = kKey) {
  std::vector<char> image = {'u', 'n', 't', 'o', 'u', 'c', 'h', 'e', 'd'};
  std::string why;
  if (kc::parse_entry(entry.data(), entry.size(), key, &image, &why)) return "(accepted)";
  EXPECT_EQ(image, bytes_of("untouched")) << "a rejected parse wrote the image";
  return why;
}

TEST(KernelCacheFormat, RoundTrip) {
  for (size_t size : {size_t(0), size_t(1), size_t(1000)}) {
    std::vector<char> image = sample_image(size), parsed;
    std::vector<char> entry = kc::format_entry(kKey, image.data(), image.size());
    EXPECT_EQ(entry.size(), 4 + 4 + 4 + kKey.size() + 8 + size + 32);
    std::string why;
    ASSERT_TRUE(kc::parse_entry(entry.data(), entry.size(), kKey, &parsed, &why)) << why;
    EXPECT_EQ(parsed, image);
  }
}

TEST(KernelCacheFormat, LayoutIsLittleEndianFixedWidth) {
  std::vector<char> entry = kc::format_entry("k", "xy", 2);
  std::vector<char> header(entry.begin(), entry.begin() + 23);
  std::vector<char> expected = {'E', 'K', 'K', 'C', 1, 0, 0, 0, 1, 0, 0, 0, 'k',
                                2,   0,   0,   0,   0, 0, 0, 0, 'x', 'y'};
  EXPECT_EQ(header, expected);
  ek::Sha256::Digest digest = ek::Sha256::of(entry.data(), 23);
  ASSERT_EQ(entry.size(), 23u + 32u);
  EXPECT_EQ(std::memcmp(digest.data(), entry.data() + 23, 32), 0);
}

TEST(KernelCacheFormat, RejectsWithSpecificReasons) {
  std::vector<char> image = sample_image(64);
  const std::vector<char> good = kc::format_entry(kKey, image.data(), image.size());
  EXPECT_NE(parse_failure({}).find("too short"), std::string::npos);
  EXPECT_NE(parse_failure({good.begin(), good.begin() + 20}).find("too short"), std::string::npos);
  std::vector<char> e = good;
  e[0] = 'X';
  EXPECT_EQ(parse_failure(e), "bad magic");
  e = good;
  e[4] = 2;
  EXPECT_EQ(parse_failure(e), "unknown format version 2");
  e = good;
  e[8] = char(0xff);  // key length beyond the file
  EXPECT_NE(parse_failure(e).find("exceeds the file"), std::string::npos);
  e = good;
  e.pop_back();
  EXPECT_NE(parse_failure(e).find("(truncated)"), std::string::npos);
  e = good;
  e.push_back(0);
  EXPECT_NE(parse_failure(e).find("(trailing bytes)"), std::string::npos);
  e = good;
  e[e.size() - 40] ^= 1;  // an image byte
  EXPECT_EQ(parse_failure(e), "checksum mismatch");
  EXPECT_EQ(parse_failure(good, kOtherKey), "key mismatch");
  EXPECT_EQ(parse_failure(good, kKey.substr(1)), "key mismatch");
}

// A huge size field must be rejected without allocating it.
TEST(KernelCacheFormat, HugeSizeFieldsAreRejectedWithoutAllocation) {
  std::vector<char> image = sample_image(16);
  std::vector<char> e = kc::format_entry(kKey, image.data(), image.size());
  size_t size_at = 12 + kKey.size();
  for (int i = 0; i < 8; ++i) e[size_at + i] = char(0xff);
  EXPECT_NE(parse_failure(e).find("inconsistent with file length"), std::string::npos);
}

// ---- the disk cache

class KernelCacheDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ek_kcache_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = (root_ / "cache").string();
  }
  void TearDown() override {
    std::error_code ignored;
    for (auto &entry : fs::recursive_directory_iterator(root_, ignored))
      if (entry.is_directory(ignored)) fs::permissions(entry.path(), fs::perms::owner_all, ignored);
    fs::remove_all(root_, ignored);
  }
  fs::path entry_file(const std::string &key) const { return fs::path(dir_) / (key + ".ekc"); }

  // Writes bytes as key's entry; load must reject it with reason and remove it.
  void expect_rejected(const std::vector<char> &bytes, const std::string &reason,
                       const std::string &key = kKey) {
    write_file(entry_file(key), bytes);
    std::vector<char> image;
    std::string why;
    ASSERT_EQ(kc::load(dir_, key, &image, &why), Load::kRejected) << reason;
    EXPECT_NE(why.find(reason), std::string::npos) << why;
    EXPECT_NE(why.find(entry_file(key).string()), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(entry_file(key))) << "rejected entry left in place: " << why;
  }

  std::vector<char> stored_entry(const std::vector<char> &image) {
    EXPECT_EQ(kc::store(dir_, kKey, image.data(), image.size()), EK_SUCCESS) << ek_last_error();
    return read_file(entry_file(kKey));
  }

  fs::path root_;
  std::string dir_;
};

TEST_F(KernelCacheDisk, StoreThenLoad) {
  for (size_t size : {size_t(0), size_t(3), size_t(100000)}) {
    std::vector<char> image = sample_image(size, unsigned(size)), loaded;
    ASSERT_EQ(kc::store(dir_, kKey, image.data(), image.size()), EK_SUCCESS) << ek_last_error();
    std::string why;
    ASSERT_EQ(kc::load(dir_, kKey, &loaded, &why), Load::kHit) << why;
    EXPECT_EQ(loaded, image);
    EXPECT_EQ(read_file(entry_file(kKey)), kc::format_entry(kKey, image.data(), image.size()));
  }
  // Only the entry is left: no temp files.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(KernelCacheDisk, CreatesDirectoriesWithMode0700) {
  mode_t old_mask = umask(0277);  // mkdir alone would then give 0500
  std::string nested = (root_ / "a" / "b" / "c").string();
  ek_status status = kc::store(nested, kKey, "x", 1);
  umask(old_mask);
  ASSERT_EQ(status, EK_SUCCESS) << ek_last_error();
  for (const fs::path &p : {root_ / "a", root_ / "a" / "b", root_ / "a" / "b" / "c"}) {
    struct stat st;
    ASSERT_EQ(stat(p.c_str(), &st), 0) << p;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << p;
  }
  struct stat st;
  ASSERT_EQ(stat((root_ / "a" / "b" / "c" / (kKey + ".ekc")).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u) << "entry readable by others";
}

TEST_F(KernelCacheDisk, EntryFileMode0600) {
  mode_t old_mask = umask(0022);
  ek_status status = kc::store(dir_, kKey, "x", 1);
  umask(old_mask);
  ASSERT_EQ(status, EK_SUCCESS) << ek_last_error();
  struct stat st;
  ASSERT_EQ(stat(entry_file(kKey).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(KernelCacheDisk, MissOnEmptyOrMissingDirectory) {
  std::vector<char> image;
  std::string why;
  EXPECT_EQ(kc::load(dir_, kKey, &image, &why), Load::kMiss);  // dir does not exist yet
  fs::create_directories(dir_);
  EXPECT_EQ(kc::load(dir_, kKey, &image, &why), Load::kMiss);
}

TEST_F(KernelCacheDisk, EveryTruncationIsRejectedAndRemoved) {
  std::vector<char> good = stored_entry(sample_image(40));
  for (size_t n = 0; n < good.size(); ++n) {
    SCOPED_TRACE("truncated to " + std::to_string(n));
    expect_rejected({good.begin(), good.begin() + n}, "");
  }
}

TEST_F(KernelCacheDisk, EveryFlippedByteIsRejectedAndRemoved) {
  std::vector<char> good = stored_entry(sample_image(40));
  for (size_t i = 0; i < good.size(); ++i) {
    for (int mask : {0x01, 0x80}) {
      SCOPED_TRACE("byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      std::vector<char> bad = good;
      bad[i] ^= char(mask);
      expect_rejected(bad, "");
    }
  }
}

// Changed image bytes with the checksum left as it was: the attacker (or
// the disk) did not recompute it.
TEST_F(KernelCacheDisk, TamperedImageFailsTheChecksum) {
  std::vector<char> image = sample_image(300);
  std::vector<char> bad = stored_entry(image);
  std::string evil = "\xcc\xcc\xcc\xcc";  // int3 over the start of the image
  std::copy(evil.begin(), evil.end(), bad.begin() + 20 + kKey.size());
  expect_rejected(bad, "checksum mismatch");
}

TEST_F(KernelCacheDisk, EntryUnderAnotherKeysNameIsRejected) {
  stored_entry(sample_image(50));
  fs::rename(entry_file(kKey), entry_file(kOtherKey));
  expect_rejected(read_file(entry_file(kOtherKey)), "key mismatch", kOtherKey);
}

TEST_F(KernelCacheDisk, TrailingGarbageIsRejected) {
  std::vector<char> bad = stored_entry(sample_image(50));
  bad.insert(bad.end(), {'j', 'u', 'n', 'k'});
  expect_rejected(bad, "trailing bytes");
}

TEST_F(KernelCacheDisk, ADirectoryInPlaceOfTheEntryIsRejected) {
  fs::create_directories(entry_file(kKey));
  std::vector<char> image;
  std::string why;
  EXPECT_EQ(kc::load(dir_, kKey, &image, &why), Load::kRejected);
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
}

TEST_F(KernelCacheDisk, KeysThatAreNotFileNamesAreRefused) {
  for (const std::string &key : std::vector<std::string>{"", "../escape", "a/b", ".hidden", "x.tmp",
                                                         std::string(129, 'a')}) {
    EXPECT_EQ(kc::store(dir_, key, "x", 1), EK_ERROR_INVALID_ARGUMENT) << key;
    EXPECT_NE(std::string(ek_last_error()).find("invalid kernel cache key"), std::string::npos);
    std::vector<char> image;
    std::string why;
    EXPECT_EQ(kc::load(dir_, key, &image, &why), Load::kRejected) << key;
  }
  EXPECT_FALSE(fs::exists(root_ / "escape.ekc"));
}

// What each concurrent worker does; returns 0 or a code naming the failure.
int store_and_load_loop(const std::string &dir, const std::vector<char> &image, bool writer) {
  for (int i = 0; i < 50; ++i) {
    if (writer && kc::store(dir, kKey, image.data(), image.size()) != EK_SUCCESS) return 1;
    std::vector<char> loaded;
    std::string why;
    Load result = kc::load(dir, kKey, &loaded, &why);
    if (result == Load::kRejected) {
      std::fprintf(stderr, "rejected: %s\n", why.c_str());
      return 2;
    }
    if (result == Load::kHit && loaded != image) return 3;
    if (writer && result == Load::kMiss) return 4;  // after our own store
  }
  return 0;
}

// Several processes store the same key while others load it: every load sees
// no entry or a complete one, never a torn one.
TEST_F(KernelCacheDisk, ConcurrentProcesses) {
  std::vector<char> image = sample_image(1 << 20);
  std::vector<pid_t> children;
  for (int i = 0; i < 12; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(store_and_load_loop(dir_, image, /*writer=*/i < 8));
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << "child killed";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1 store failed, 2 rejected, 3 wrong bytes, 4 miss";
  }
  std::vector<char> loaded;
  std::string why;
  ASSERT_EQ(kc::load(dir_, kKey, &loaded, &why), Load::kHit) << why;
  EXPECT_EQ(loaded, image);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "temp files left behind";
}

TEST_F(KernelCacheDisk, ConcurrentThreads) {
  std::vector<char> image = sample_image(1 << 20);
  std::vector<int> results(12, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i)
    threads.emplace_back([&, i] { results[i] = store_and_load_loop(dir_, image, i < 8); });
  for (std::thread &t : threads) t.join();
  for (int result : results) EXPECT_EQ(result, 0) << "1 store failed, 2 rejected, 3 wrong bytes, 4 miss";
  std::vector<char> loaded;
  std::string why;
  ASSERT_EQ(kc::load(dir_, kKey, &loaded, &why), Load::kHit) << why;
  EXPECT_EQ(loaded, image);
}

TEST_F(KernelCacheDisk, ClearRemovesEntriesAndTempFilesOnly) {
  ASSERT_EQ(kc::store(dir_, kKey, "a", 1), EK_SUCCESS);
  ASSERT_EQ(kc::store(dir_, kOtherKey, "b", 1), EK_SUCCESS);
  fs::path dir(dir_);
  write_file(dir / ("." + kKey + ".4242.00000000deadbeef.tmp"), {'t'});  // a dead writer's
  write_file(dir / "notes.txt", {'n'});
  write_file(dir / "README.ekc.bak", {'r'});
  fs::create_directories(dir / (kKey + "x.ekc"));  // a directory with an entry's name
  write_file(dir / (kKey + "x.ekc") / (kKey + ".ekc"), {'s'});
  ASSERT_EQ(kc::clear(dir_), EK_SUCCESS) << ek_last_error();
  std::set<std::string> left;
  for (auto &entry : fs::directory_iterator(dir)) left.insert(entry.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"notes.txt", "README.ekc.bak", kKey + "x.ekc"}));
  EXPECT_TRUE(fs::exists(dir / (kKey + "x.ekc") / (kKey + ".ekc")));
  EXPECT_EQ(kc::clear(dir_), EK_SUCCESS);
  EXPECT_EQ(kc::clear((root_ / "never made").string()), EK_SUCCESS);
}

TEST_F(KernelCacheDisk, StoreIntoUnwritableDirectoryFails) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root, which ignores directory permissions";
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms(0500));
  ASSERT_EQ(kc::store(dir_, kKey, "x", 1), EK_ERROR_IO);
  std::string message = ek_last_error();
  EXPECT_NE(message.find(dir_), std::string::npos) << message;
  EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
}

// These failures happen for root too.
TEST_F(KernelCacheDisk, StoreBelowARegularFileFails) {
  fs::create_directories(root_);
  write_file(root_ / "file", {'f'});
  std::string below = (root_ / "file" / "cache").string();
  ASSERT_EQ(kc::store(below, kKey, "x", 1), EK_ERROR_IO);
  std::string message = ek_last_error();
  EXPECT_NE(message.find(below), std::string::npos) << message;
  EXPECT_NE(message.find("Not a directory"), std::string::npos) << message;
  EXPECT_EQ(kc::store((root_ / "file").string(), kKey, "x", 1), EK_ERROR_IO);
  EXPECT_NE(std::string(ek_last_error()).find("is not a directory"), std::string::npos);
}

TEST_F(KernelCacheDisk, FailedRenameLeavesNoTempFile) {
  fs::create_directories(entry_file(kKey) / "occupied");  // rename cannot replace it
  ASSERT_EQ(kc::store(dir_, kKey, "x", 1), EK_ERROR_IO);
  std::string message = ek_last_error();
  EXPECT_NE(message.find("cannot rename"), std::string::npos) << message;
  EXPECT_NE(message.find(entry_file(kKey).string()), std::string::npos) << message;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "temp file left behind";
}

// ---- what the disk cache trusts: its directory, and files that are regular

// The ways a directory can be someone else's to write: each is not used (a
// planted entry does not load, nothing is written or removed there) until
// fixed.
struct Unsafe {
  const char *name;
  std::function<bool(const std::string &dir)> make;  // false: cannot here (skipped)
  std::function<void(const std::string &dir)> undo;
  const char *reason;
};

std::vector<Unsafe> unsafe_directories() {
  auto mode = [](mode_t m) { return [m](const std::string &d) { return chmod(d.c_str(), m) == 0; }; };
  auto restore = [](const std::string &d) {
    chmod(d.c_str(), 0700);
    if (lchown(d.c_str(), geteuid(), getegid()) != 0) std::perror("lchown");
  };
  return {
      {"world-writable", mode(0777), restore, "writable by group or others (mode 0777)"},
      {"group-writable", mode(0770), restore, "writable by group or others (mode 0770)"},
      {"other-writable (sticky, like /tmp)", mode(01703), restore, "writable by group or others"},
      // Root may give a directory away, so ownership is testable in CI too.
      {"owned by nobody", [](const std::string &d) { return chown(d.c_str(), 65534, 65534) == 0; },
       restore, "is owned by uid 65534"},
  };
}

class KernelCacheTrust : public KernelCacheDisk {
 protected:
  void SetUp() override {
    KernelCacheDisk::SetUp();
    stored_entry(sample_image(64));
  }
  // dir (dir_ itself or a path to it) is not used: no hit, no write, no removal.
  void expect_not_used(const std::string &dir, const std::string &reason) {
    std::vector<char> image;
    std::string why;
    EXPECT_EQ(kc::load(dir, kKey, &image, &why), Load::kMiss) << "an entry loaded from " << dir;
    EXPECT_TRUE(image.empty());
    EXPECT_FALSE(kc::disk_usable(dir, EK_LOG_OFF));
    EXPECT_EQ(kc::store(dir, kOtherKey, "x", 1), EK_ERROR_IO);
    std::string message = ek_last_error();
    EXPECT_NE(message.find(dir), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_NE(message.find("EK_KERNEL_CACHE_DIR"), std::string::npos) << message;
    EXPECT_EQ(kc::make_cache_dir(dir), EK_ERROR_IO);
    EXPECT_EQ(kc::clear(dir), EK_ERROR_IO);
    EXPECT_TRUE(fs::exists(entry_file(kKey))) << "the entry was removed";
    EXPECT_FALSE(fs::exists(entry_file(kOtherKey))) << "an entry was written";
  }
  void expect_used_again() {
    std::vector<char> image;
    std::string why;
    EXPECT_TRUE(kc::disk_usable(dir_, EK_LOG_OFF));
    EXPECT_EQ(kc::load(dir_, kKey, &image, &why), Load::kHit) << why;
  }
};

TEST_F(KernelCacheTrust, ADirectoryOthersCanWriteIsNotUsed) {
  for (const Unsafe &u : unsafe_directories()) {
    SCOPED_TRACE(u.name);
    if (!u.make(dir_)) {
      std::printf("skipped \"%s\": %s\n", u.name, std::strerror(errno));
      continue;
    }
    expect_not_used(dir_, u.reason);
    u.undo(dir_);
    expect_used_again();
  }
}

TEST_F(KernelCacheTrust, ASymlinkedDirectoryIsNotFollowed) {
  std::string link = (root_ / "link").string();
  ASSERT_EQ(symlink(dir_.c_str(), link.c_str()), 0);
  expect_not_used(link, "is a symbolic link");
  expect_used_again();
  // A path through a symlinked parent is fine: only the directory itself counts.
  std::string through = (root_ / "parent-link").string();
  ASSERT_EQ(symlink(root_.c_str(), through.c_str()), 0);
  std::vector<char> image;
  std::string why;
  EXPECT_EQ(kc::load(through + "/cache", kKey, &image, &why), Load::kHit) << why;
}

struct Captured {
  std::vector<std::string> warnings;
  static void record(ek_log_level level, const char *message, void *self) {
    if (level == EK_LOG_WARN) static_cast<Captured *>(self)->warnings.push_back(message);
  }
};

TEST_F(KernelCacheTrust, OneWarningSaysWhyAndHowToFixIt) {
  Captured log;
  ASSERT_EQ(ek_log_set_callback(Captured::record, &log), EK_SUCCESS);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  EXPECT_FALSE(kc::disk_usable(dir_, EK_LOG_OFF));  // not let through: nothing, and not spent
  EXPECT_TRUE(log.warnings.empty());
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(kc::disk_usable(dir_, EK_LOG_WARN));
  ASSERT_EQ(log.warnings.size(), 1u) << "one warning per directory and process";
  const std::string &w = log.warnings[0];
  EXPECT_NE(w.find("kernel cache directory " + dir_ + " is writable by group or others"),
            std::string::npos) << w;
  EXPECT_NE(w.find("chmod go-w " + dir_), std::string::npos) << w;
  EXPECT_NE(w.find("EK_KERNEL_CACHE_DIR"), std::string::npos) << w;
  EXPECT_NE(w.find("compiled and cached in memory only"), std::string::npos) << w;
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  EXPECT_TRUE(kc::disk_usable(dir_, EK_LOG_WARN));
  EXPECT_TRUE(kc::disk_usable((root_ / "not made yet").string(), EK_LOG_WARN));
  EXPECT_EQ(log.warnings.size(), 1u);
  ASSERT_EQ(ek_log_set_callback(nullptr, nullptr), EK_SUCCESS);
}

// A FIFO in an entry's place would block a plain open() for ever.
TEST_F(KernelCacheTrust, AFifoInPlaceOfAnEntryIsRejectedWithoutBlocking) {
  fs::remove(entry_file(kKey));
  ASSERT_EQ(mkfifo(entry_file(kKey).c_str(), 0600), 0);
  Load result = Load::kHit;
  std::string why;
  std::vector<char> image;
  EXPECT_TRUE(filecheck::finishes([&] { result = kc::load(dir_, kKey, &image, &why); },
                                  {entry_file(kKey).string()}))
      << "load blocked on a FIFO";
  EXPECT_EQ(result, Load::kRejected);
  EXPECT_NE(why.find("a FIFO, not a regular file"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(fs::symlink_status(entry_file(kKey)))) << "the FIFO was left";
}

TEST_F(KernelCacheTrust, ASymlinkedEntryIsRejectedAndItsTargetKept) {
  fs::path elsewhere = root_ / "elsewhere.ekc";
  fs::rename(entry_file(kKey), elsewhere);
  fs::create_symlink(elsewhere, entry_file(kKey));
  std::vector<char> image;
  std::string why;
  EXPECT_EQ(kc::load(dir_, kKey, &image, &why), Load::kRejected) << "loaded through a symlink";
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(fs::symlink_status(entry_file(kKey)))) << "the symlink was left";
  EXPECT_TRUE(fs::exists(elsewhere)) << "the symlink's target was removed";
}

// ---- the memory cache

class KernelCacheMemory : public ::testing::Test {
 protected:
  void SetUp() override { kc::memory_clear(); }
  void TearDown() override { kc::memory_clear(); }
};

TEST_F(KernelCacheMemory, PutGetClear) {
  std::vector<char> image;
  EXPECT_FALSE(kc::memory_get(kKey, &image));
  kc::memory_put(kKey, bytes_of("first"));
  ASSERT_TRUE(kc::memory_get(kKey, &image));
  EXPECT_EQ(image, bytes_of("first"));
  kc::memory_put(kKey, bytes_of("second"));  // replaces
  ASSERT_TRUE(kc::memory_get(kKey, &image));
  EXPECT_EQ(image, bytes_of("second"));
  EXPECT_FALSE(kc::memory_get(kOtherKey, &image));
  kc::memory_clear();
  EXPECT_FALSE(kc::memory_get(kKey, &image));
}

TEST_F(KernelCacheMemory, EvictsLeastRecentlyUsedBeyondTheBound) {
  const size_t quarter = kc::kMemoryCacheBytes / 4;
  for (int i = 0; i < 4; ++i) kc::memory_put("k" + std::to_string(i), std::vector<char>(quarter, char(i)));
  std::vector<char> image;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(kc::memory_get("k" + std::to_string(i), &image)) << i;
  ASSERT_TRUE(kc::memory_get("k0", &image));  // now k1 is the least recently used
  kc::memory_put("k4", std::vector<char>(quarter, 4));
  EXPECT_FALSE(kc::memory_get("k1", &image));
  for (const char *key : {"k0", "k2", "k3", "k4"}) EXPECT_TRUE(kc::memory_get(key, &image)) << key;
  EXPECT_EQ(image, std::vector<char>(quarter, 4));
  kc::memory_put("huge", std::vector<char>(kc::kMemoryCacheBytes + 1));  // never fits
  EXPECT_FALSE(kc::memory_get("huge", &image));
  EXPECT_TRUE(kc::memory_get("k0", &image)) << "an image too big to keep evicted others";
}

TEST_F(KernelCacheMemory, ConcurrentUse) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string key = "k" + std::to_string((i + t) % 16);
        std::vector<char> image;
        if (i % 3 == 0) kc::memory_put(key, bytes_of(key));
        else if (kc::memory_get(key, &image) && image != bytes_of(key)) ++wrong;
        if (i % 500 == 499) kc::memory_clear();
      }
    });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
