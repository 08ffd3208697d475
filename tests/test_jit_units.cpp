// Internal units of custom kernels that run without a GPU, compiled from
// source: the image size checks (image_check.cpp), the NVRTC identity hint
// (nvrtc_hint.cpp) and, with CUDA, NVRTC's target choice and compilation
// (jit_nvrtc.cpp; NVRTC needs no device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/image_check.hpp"
#include "core/internal.hpp"
#include "jit/nvrtc_hint.hpp"
#include "util/sha256.hpp"
#include "file_checks.hpp"
#ifdef EK_HAVE_CUDA
#include "jit/jit.hpp"
#endif

namespace {

std::string message() { return ek_last_error(); }

// The bytes of the file an environment variable names, or empty when unset.
std::vector<char> file_from_env(const char *variable) {
  const char *path = std::getenv(variable);
  if (!path || !*path) return {};
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename T>
void put(std::vector<unsigned char> *bytes, size_t at, T value) {
  std::memcpy(bytes->data() + at, &value, sizeof value);
}

// A 64-bit ELF header whose section table (n entries of 64 bytes) starts at shoff.
std::vector<unsigned char> elf_header(size_t file_size, uint64_t shoff, uint16_t n) {
  std::vector<unsigned char> b(file_size, 0);
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  put<uint64_t>(&b, 0x28, shoff);
  put<uint16_t>(&b, 0x3a, 64);
  put<uint16_t>(&b, 0x3c, n);
  return b;
}

}  // namespace

TEST(ImageCheck, TextAndUnknownBytesPassToTheDriver) {
  const char ptx[] = ".version 8.0\n.target sm_80\n";
  EXPECT_EQ(ek::check_image(ptx, sizeof ptx), EK_SUCCESS);
  const unsigned char junk[] = {1, 2, 3};
  EXPECT_EQ(ek::check_image(junk, sizeof junk), EK_SUCCESS);
}

TEST(ImageCheck, ElfWhoseSectionTableFitsPasses) {
  std::vector<unsigned char> elf = elf_header(64 + 2 * 64, 64, 2);
  EXPECT_EQ(ek::check_image(elf.data(), elf.size()), EK_SUCCESS) << message();
}

TEST(ImageCheck, ElfWithTableBeyondTheEndIsRejected) {
  std::vector<unsigned char> elf = elf_header(64 + 64, 64, 2);
  EXPECT_EQ(ek::check_image(elf.data(), elf.size()), EK_ERROR_DEVICE);
  EXPECT_NE(message().find("truncated"), std::string::npos) << message();
}

TEST(ImageCheck, ElfSectionBeyondTheEndIsRejected) {
  std::vector<unsigned char> elf = elf_header(64 + 64, 64, 1);
  put<uint32_t>(&elf, 64 + 4, 1);       // PROGBITS
  put<uint64_t>(&elf, 64 + 0x18, 100);  // offset
  put<uint64_t>(&elf, 64 + 0x20, 1000); // size: past the 128 bytes
  EXPECT_EQ(ek::check_image(elf.data(), elf.size()), EK_ERROR_DEVICE);
  put<uint32_t>(&elf, 64 + 4, 8);       // NOBITS (.bss) takes no file bytes
  EXPECT_EQ(ek::check_image(elf.data(), elf.size()), EK_SUCCESS) << message();
}

TEST(ImageCheck, ShortOr32BitElfIsRejected) {
  std::vector<unsigned char> elf = elf_header(64, 0, 0);
  EXPECT_EQ(ek::check_image(elf.data(), 40), EK_ERROR_DEVICE);
  elf[4] = 1;  // ELFCLASS32
  EXPECT_EQ(ek::check_image(elf.data(), elf.size()), EK_ERROR_DEVICE);
  EXPECT_NE(message().find("64-bit"), std::string::npos) << message();
}

TEST(ImageCheck, FatbinSizesAreChecked) {
  std::vector<unsigned char> fat(16 + 100, 0);
  put<uint32_t>(&fat, 0, 0xBA55ED50);
  put<uint16_t>(&fat, 6, 16);
  put<uint64_t>(&fat, 8, 100);
  EXPECT_EQ(ek::check_image(fat.data(), fat.size()), EK_SUCCESS) << message();
  EXPECT_EQ(ek::check_image(fat.data(), fat.size() - 1), EK_ERROR_DEVICE);
  EXPECT_EQ(ek::check_image(fat.data(), 12), EK_ERROR_DEVICE);
  put<uint64_t>(&fat, 8, ~uint64_t{0});  // a size that would wrap around
  EXPECT_EQ(ek::check_image(fat.data(), fat.size()), EK_ERROR_DEVICE);
}

// The images meson builds with nvcc (CUDA builds): whole they pass, cut they fail.
TEST(ImageCheck, NvccImagesPassWholeAndFailTruncated) {
  for (const char *variable : {"EK_TEST_CUBIN", "EK_TEST_FATBIN"}) {
    std::vector<char> image = file_from_env(variable);
    if (image.empty()) GTEST_SKIP() << variable << " is not set (a build without CUDA)";
    EXPECT_EQ(ek::check_image(image.data(), image.size()), EK_SUCCESS) << variable << message();
    EXPECT_EQ(ek::check_image(image.data(), image.size() / 2), EK_ERROR_DEVICE) << variable;
    EXPECT_EQ(ek::check_image(image.data(), image.size() - 1), EK_ERROR_DEVICE) << variable;
  }
}

// ---- the NVRTC identity hint

namespace {

// A fresh directory, removed with everything in it at exit.
std::string temp_dir() {
  struct Dirs {
    std::vector<std::string> made;
    ~Dirs() {
      for (const std::string &d : made) std::filesystem::remove_all(d);
    }
  };
  static Dirs dirs;
  char name[] = "/tmp/ek_hint_XXXXXX";
  EXPECT_NE(mkdtemp(name), nullptr);
  dirs.made.push_back(name);
  return name;
}

std::string read_text(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The identity of a stand-in library file at dir/libnvrtc.so.
ek::jit::NvrtcIdentity fake_library(const std::string &dir) {
  ek::jit::NvrtcIdentity id;
  id.path = dir + "/libnvrtc.so";
  write_text(id.path, "not really NVRTC");
  struct stat st;
  EXPECT_EQ(stat(id.path.c_str(), &st), 0);
  id.size = st.st_size;
  id.mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  id.version = 12080;
  id.archs = {50, 52, 60, 70, 75, 80, 86, 89, 90};
  return id;
}

}  // namespace

TEST(NvrtcHint, RoundTripsThroughTheCacheDirectory) {
  const std::string dir = temp_dir();
  const ek::jit::NvrtcIdentity id = fake_library(dir);
  ek::jit::write_hint(dir + "/sub", id, EK_LOG_OFF);  // creates the directory
  struct stat st;
  ASSERT_EQ(stat(ek::jit::hint_path(dir + "/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ek::jit::NvrtcIdentity back;
  ASSERT_TRUE(ek::jit::read_hint(dir + "/sub", &back));
  EXPECT_TRUE(back == id);
  ek::jit::NvrtcIdentity no_archs = id, back2;
  no_archs.archs.clear();
  EXPECT_TRUE(ek::jit::parse_hint(ek::jit::format_hint(no_archs), &back2));
  EXPECT_TRUE(back2 == no_archs);
}

TEST(NvrtcHint, ChangedLibraryFileIsIgnored) {
  const std::string dir = temp_dir();
  ek::jit::NvrtcIdentity id = fake_library(dir), back;
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  ASSERT_TRUE(ek::jit::read_hint(dir, &back));
  struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 123}};  // another mtime
  ASSERT_EQ(utimensat(AT_FDCWD, id.path.c_str(), times, 0), 0);
  EXPECT_FALSE(ek::jit::read_hint(dir, &back));
  EXPECT_FALSE(ek::jit::library_unchanged(id));
  id.mtime_ns = 1000000000LL * 1000000000LL + 123;
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  ASSERT_TRUE(ek::jit::read_hint(dir, &back));
  write_text(id.path, "not really NVRTC, longer");  // another size (and mtime)
  EXPECT_FALSE(ek::jit::read_hint(dir, &back));
  unlink(id.path.c_str());
  EXPECT_FALSE(ek::jit::read_hint(dir, &back));
}

TEST(NvrtcHint, CorruptedOrMalformedHintIsIgnored) {
  const std::string dir = temp_dir();
  const ek::jit::NvrtcIdentity id = fake_library(dir);
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  const std::string good = read_text(ek::jit::hint_path(dir));
  ek::jit::NvrtcIdentity back;
  ASSERT_TRUE(ek::jit::parse_hint(good, &back));
  for (size_t i = 0; i < good.size(); ++i) {  // every byte flipped
    std::string bad = good;
    bad[i] ^= 0x20;
    EXPECT_FALSE(ek::jit::parse_hint(bad, &back)) << "byte " << i;
  }
  for (size_t n = 0; n < good.size(); ++n)  // every truncation
    EXPECT_FALSE(ek::jit::parse_hint(good.substr(0, n), &back)) << n << " bytes";
  EXPECT_FALSE(ek::jit::parse_hint(good + "x\n", &back));
  // Well checksummed but malformed: the checksum is recomputed over bad fields.
  for (const char *body : {"ek-nvrtc-hint 1\npath /x\nsize 1\nmtime_ns 1\nversion abc\narchs\n",
                           "ek-nvrtc-hint 1\npath /x\nsize -1\nmtime_ns 1\nversion 1\narchs\n",
                           "ek-nvrtc-hint 1\npath x\nsize 1\nmtime_ns 1\nversion 1\narchs\n",
                           "ek-nvrtc-hint 1\npath /x\nsize 1\nmtime_ns 1\nversion 1\narchs 8x\n",
                           "ek-nvrtc-hint 1\npath /x\nsize 1\nmtime_ns 1\narchs 80\n",
                           "ek-nvrtc-hint 2\npath /x\nsize 1\nmtime_ns 1\nversion 1\narchs\n"}) {
    std::string text = std::string(body) + "sha256 " +
                       ek::Sha256::hex(ek::Sha256::of(body, std::strlen(body))) + "\n";
    EXPECT_FALSE(ek::jit::parse_hint(text, &back)) << body;
  }
  write_text(ek::jit::hint_path(dir), good.substr(0, good.size() / 2));
  EXPECT_FALSE(ek::jit::read_hint(dir, &back));
  ek::jit::Target t;
  EXPECT_FALSE(ek::jit::hinted_target(dir, 9, 0, &t));
}

TEST(NvrtcHint, TargetFromTheHintIsPickTargets) {
  const std::string dir = temp_dir();
  const ek::jit::NvrtcIdentity id = fake_library(dir);
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  for (int cc : {80, 90, 120}) {
    ek::jit::Target hinted, picked;
    ASSERT_TRUE(ek::jit::hinted_target(dir, cc / 10, cc % 10, &hinted)) << cc;
    ASSERT_EQ(ek::jit::pick_target(cc, id.version, id.archs, &picked), EK_SUCCESS);
    EXPECT_EQ(hinted.arch, picked.arch);
    EXPECT_EQ(hinted.ptx, picked.ptx);
    EXPECT_EQ(hinted.nvrtc_version, 12080);
  }
  ek::jit::Target t;
  ASSERT_TRUE(ek::jit::hinted_target(dir, 12, 0, &t));
  EXPECT_EQ(t.arch, "compute_90");
  EXPECT_TRUE(t.ptx);
  ek_clear_error();
  EXPECT_FALSE(ek::jit::hinted_target(dir, 3, 0, &t));  // older than NVRTC knows
  EXPECT_STREQ(ek_last_error(), "") << "hinted_target left an error behind";
}

// A FIFO at nvrtc.hint would block a plain open (std::ifstream) for ever;
// a symlink there, or a directory others can write, is not trusted; a new
// hint replaces what was in the way.
TEST(NvrtcHint, AFifoSymlinkOrUnsafeDirectoryGivesNoHint) {
  const std::string dir = temp_dir();
  const ek::jit::NvrtcIdentity id = fake_library(dir);
  const std::string hint = ek::jit::hint_path(dir);
  ASSERT_EQ(mkfifo(hint.c_str(), 0600), 0);
  ek::jit::NvrtcIdentity back;
  bool read = true;
  EXPECT_TRUE(filecheck::finishes([&] { read = ek::jit::read_hint(dir, &back); }, {hint}))
      << "read_hint blocked on a FIFO";
  EXPECT_FALSE(read);
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  ASSERT_TRUE(ek::jit::read_hint(dir, &back)) << "the FIFO was not replaced";

  const std::string elsewhere = temp_dir() + "/nvrtc.hint";
  ASSERT_EQ(rename(hint.c_str(), elsewhere.c_str()), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), hint.c_str()), 0);
  EXPECT_FALSE(ek::jit::read_hint(dir, &back)) << "read through a symlink";
  ek::jit::Target t;
  EXPECT_FALSE(ek::jit::hinted_target(dir, 9, 0, &t));

  ASSERT_EQ(unlink(hint.c_str()), 0);
  ASSERT_EQ(rename(elsewhere.c_str(), hint.c_str()), 0);
  ASSERT_TRUE(ek::jit::read_hint(dir, &back));
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  EXPECT_FALSE(ek::jit::read_hint(dir, &back)) << "read from a world-writable directory";
  EXPECT_FALSE(ek::jit::hinted_target(dir, 9, 0, &t));
  unlink(hint.c_str());
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  EXPECT_NE(access(hint.c_str(), F_OK), 0) << "a hint was written into a world-writable directory";
  chmod(dir.c_str(), 0700);
}

#ifdef EK_HAVE_CUDA

namespace {

const char *kSaxpy = R"(
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";

bool nvrtc_present() {
  ek::jit::Target t;
  return ek::jit::nvrtc_target(9, 0, &t) == EK_SUCCESS;
}

}  // namespace

#define REQUIRE_NVRTC() \
  if (!nvrtc_present()) GTEST_SKIP() << "NVRTC cannot be loaded: " << message()

TEST(Nvrtc, TargetIsTheDevicesArchitecture) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(9, 0, &t), EK_SUCCESS) << message();
  EXPECT_EQ(t.arch, "sm_90");
  EXPECT_FALSE(t.ptx);
  EXPECT_GE(t.nvrtc_version, 11020);
}

TEST(Nvrtc, NewerDeviceGetsPtxOfTheNewestKnownArchitecture) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(99, 9, &t), EK_SUCCESS) << message();
  EXPECT_TRUE(t.ptx);
  EXPECT_EQ(t.arch.rfind("compute_", 0), 0u) << t.arch;
}

TEST(Nvrtc, OlderDeviceThanNvrtcKnowsIsNotSupported) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  EXPECT_EQ(ek::jit::nvrtc_target(1, 0, &t), EK_ERROR_NOT_SUPPORTED);
  EXPECT_NE(message().find("sm_10"), std::string::npos) << message();
}

TEST(Nvrtc, CompilesToACubin) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(9, 0, &t), EK_SUCCESS);
  std::vector<char> image;
  std::string log;
  ASSERT_EQ(ek::jit::nvrtc_compile(kSaxpy, "saxpy.cu", {"-DUNUSED=1"}, t, &image, &log),
            EK_SUCCESS) << message();
  ASSERT_GT(image.size(), 4u);
  EXPECT_EQ(std::memcmp(image.data(), "\x7f" "ELF", 4), 0);
  EXPECT_EQ(ek::check_image(image.data(), image.size()), EK_SUCCESS) << message();
}

TEST(Nvrtc, CompilesToPtxWithItsNul) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(99, 0, &t), EK_SUCCESS);
  std::vector<char> image;
  std::string log;
  ASSERT_EQ(ek::jit::nvrtc_compile(kSaxpy, "saxpy.cu", {}, t, &image, &log), EK_SUCCESS)
      << message();
  ASSERT_FALSE(image.empty());
  EXPECT_EQ(image.back(), '\0');
  EXPECT_NE(std::string(image.data()).find(".entry saxpy"), std::string::npos);
}

TEST(Nvrtc, ErrorCarriesTheWholeLog) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(9, 0, &t), EK_SUCCESS);
  // Sixty errors with long names: a log far beyond any fixed message buffer.
  std::string source = "extern \"C\" __global__ void k(int *p) {\n";
  for (int i = 0; i < 60; ++i)
    source += "  p[" + std::to_string(i) + "] = undefined_identifier_with_a_long_name_number_" +
              std::to_string(i) + ";\n";
  source += "}\n";
  std::vector<char> image;
  std::string log;
  ASSERT_EQ(ek::jit::nvrtc_compile(source, "bad.cu", {}, t, &image, &log), EK_ERROR_COMPILE);
  const std::string m = message();
  EXPECT_EQ(m.rfind("ek: NVRTC failed to compile bad.cu:\n", 0), 0u) << m.substr(0, 200);
  EXPECT_NE(m.find("error"), std::string::npos);
  EXPECT_NE(m.find("undefined_identifier_with_a_long_name_number_59"), std::string::npos)
      << "message of " << m.size() << " bytes lost the end of the log";
  EXPECT_GT(m.size(), 4096u);
}

TEST(Nvrtc, BadOptionIsACompileError) {
  REQUIRE_NVRTC();
  ek::jit::Target t;
  ASSERT_EQ(ek::jit::nvrtc_target(9, 0, &t), EK_SUCCESS);
  std::vector<char> image;
  std::string log;
  EXPECT_EQ(ek::jit::nvrtc_compile(kSaxpy, "saxpy.cu", {"--no-such-option"}, t, &image, &log),
            EK_ERROR_COMPILE);
  EXPECT_NE(message().find("no-such-option"), std::string::npos) << message();
}

// The hint written from the loaded library gives the library's own targets.
TEST(Nvrtc, HintedTargetEqualsTheLoadedLibrarys) {
  REQUIRE_NVRTC();
  ek::jit::NvrtcIdentity id;
  ASSERT_EQ(ek::jit::nvrtc_identity(&id), EK_SUCCESS) << message();
  EXPECT_EQ(id.path[0], '/');
  EXPECT_NE(id.path.find("nvrtc"), std::string::npos) << id.path;
  EXPECT_TRUE(ek::jit::library_unchanged(id));
  const std::string dir = temp_dir();
  ek::jit::write_hint(dir, id, EK_LOG_OFF);
  const int max_arch = id.archs.empty() ? 90 : *std::max_element(id.archs.begin(), id.archs.end());
  for (int cc : {80, 90, max_arch + 10}) {
    ek::jit::Target hinted, loaded;
    ASSERT_TRUE(ek::jit::hinted_target(dir, cc / 10, cc % 10, &hinted)) << cc;
    ASSERT_EQ(ek::jit::nvrtc_target(cc / 10, cc % 10, &loaded), EK_SUCCESS) << message();
    EXPECT_EQ(hinted.arch, loaded.arch) << cc;
    EXPECT_EQ(hinted.ptx, loaded.ptx) << cc;
    EXPECT_EQ(hinted.nvrtc_version, loaded.nvrtc_version) << cc;
  }
  EXPECT_TRUE(ek::jit::nvrtc_loaded());
}

#endif  // EK_HAVE_CUDA
