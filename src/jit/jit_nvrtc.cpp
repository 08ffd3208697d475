// NVRTC through dlopen: nvrtc.h gives the types only (nothing here is linked),
// the entry points come from dlsym on first use, as cuBLAS's do (cublas.cpp).
#include <dlfcn.h>
#include <nvrtc.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "util/dynlib.hpp"
#include "core/internal.hpp"
#include "jit/jit.hpp"
#include "jit/nvrtc_hint.hpp"

namespace ek::jit {
namespace {

// The entry points of the loaded library; `error` says why loading failed.
struct Library {
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy = nullptr;
  decltype(&::nvrtcCompileProgram) compile = nullptr;
  decltype(&::nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) log = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
  decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) ptx = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) num_archs = nullptr;  // optional (NVRTC 11.2+)
  decltype(&::nvrtcGetSupportedArchs) archs = nullptr;         // optional
  int version_number = 0;
  std::string error;
};

// The required entry points; the first one missing, or nullptr.
const char *resolve_required(void *lib, Library *l) {
  if (!resolve(lib, "nvrtcVersion", &l->version)) return "nvrtcVersion";
  if (!resolve(lib, "nvrtcGetErrorString", &l->error_string)) return "nvrtcGetErrorString";
  if (!resolve(lib, "nvrtcCreateProgram", &l->create)) return "nvrtcCreateProgram";
  if (!resolve(lib, "nvrtcDestroyProgram", &l->destroy)) return "nvrtcDestroyProgram";
  if (!resolve(lib, "nvrtcCompileProgram", &l->compile)) return "nvrtcCompileProgram";
  if (!resolve(lib, "nvrtcGetProgramLogSize", &l->log_size)) return "nvrtcGetProgramLogSize";
  if (!resolve(lib, "nvrtcGetProgramLog", &l->log)) return "nvrtcGetProgramLog";
  if (!resolve(lib, "nvrtcGetCUBINSize", &l->cubin_size)) return "nvrtcGetCUBINSize";
  if (!resolve(lib, "nvrtcGetCUBIN", &l->cubin)) return "nvrtcGetCUBIN";
  if (!resolve(lib, "nvrtcGetPTXSize", &l->ptx_size)) return "nvrtcGetPTXSize";
  if (!resolve(lib, "nvrtcGetPTX", &l->ptx)) return "nvrtcGetPTX";
  return nullptr;
}

Library load() {
  static const char *const kFiles[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  Library l;
  const char *file = nullptr;
  void *lib = open_first(kFiles, "NVRTC",
                         "install CUDA's NVRTC or add its directory to LD_LIBRARY_PATH", &file,
                         &l.error);
  if (!lib) return l;
  if (const char *missing = resolve_required(lib, &l)) {
    l.error = std::string(file) + " lacks " + missing + " (NVRTC 11.1 or newer is needed)";
    return l;
  }
  resolve(lib, "nvrtcGetNumSupportedArchs", &l.num_archs);
  resolve(lib, "nvrtcGetSupportedArchs", &l.archs);
  int major = 0, minor = 0;
  l.version(&major, &minor);
  l.version_number = major * 1000 + minor * 10;
  return l;  // lib stays open for the life of the process
}

std::atomic<bool> g_loaded{false};

const Library &library() {
  static const Library lib = load();
  g_loaded.store(true);
  return lib;
}

// The architectures this NVRTC compiles for (as 90 for sm_90); empty when it cannot say.
std::vector<int> supported_archs(const Library &l) {
  int n = 0;
  if (!l.num_archs || !l.archs || l.num_archs(&n) != NVRTC_SUCCESS || n <= 0) return {};
  std::vector<int> archs(static_cast<size_t>(n));
  if (l.archs(archs.data()) != NVRTC_SUCCESS) return {};
  return archs;
}

std::string log_of(const Library &l, nvrtcProgram program) {
  size_t size = 0;
  if (l.log_size(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string text(size, '\0');
  if (l.log(program, &text[0]) != NVRTC_SUCCESS) return "";
  text.resize(size - 1);  // the size counts the NUL
  return text;
}

// The compiled image: a cubin, or PTX with its NUL (the driver loads PTX as a C string).
ek_status image_of(const Library &l, nvrtcProgram program, bool ptx, std::vector<char> *image) {
  size_t size = 0;
  nvrtcResult r = ptx ? l.ptx_size(program, &size) : l.cubin_size(program, &size);
  if (r == NVRTC_SUCCESS) {
    image->resize(size);
    r = ptx ? l.ptx(program, image->data()) : l.cubin(program, image->data());
  }
  EK_CHECK(r == NVRTC_SUCCESS, EK_ERROR_INTERNAL, "NVRTC could not return the %s: %s",
           ptx ? "PTX" : "cubin", l.error_string(r));
  return EK_SUCCESS;
}

// Runs the compiler; a failure is EK_ERROR_COMPILE carrying the log.
ek_status run_compiler(const Library &l, nvrtcProgram program, const std::string &name,
                       const std::vector<std::string> &options, const Target &target,
                       std::string *log) {
  const std::string arch = "-arch=" + target.arch;
  std::vector<const char *> argv;
  for (const std::string &o : options) argv.push_back(o.c_str());
  argv.push_back(arch.c_str());
  nvrtcResult r = l.compile(program, static_cast<int>(argv.size()), argv.data());
  *log = log_of(l, program);
  if (r == NVRTC_SUCCESS) return EK_SUCCESS;
  if (log->empty())
    return fail(EK_ERROR_COMPILE, "NVRTC failed to compile %s:\n%s (no log)", name.c_str(),
                l.error_string(r));
  return fail(EK_ERROR_COMPILE, "NVRTC failed to compile %s:\n%s", name.c_str(), log->c_str());
}

}  // namespace

ek_status nvrtc_target(int major, int minor, Target *out) {
  const Library &l = library();
  EK_CHECK(l.error.empty(), EK_ERROR_LIBRARY, "%s", l.error.c_str());
  return pick_target(major * 10 + minor, l.version_number, supported_archs(l), out);
}

bool nvrtc_loaded() { return g_loaded.load(); }

ek_status nvrtc_identity(NvrtcIdentity *out) {
  const Library &l = library();
  EK_CHECK(l.error.empty(), EK_ERROR_LIBRARY, "%s", l.error.c_str());
  Dl_info info{};
  EK_CHECK(dladdr(reinterpret_cast<void *>(l.version), &info) != 0 && info.dli_fname,
           EK_ERROR_LIBRARY, "dladdr cannot name the file of nvrtcVersion");
  char real[PATH_MAX];
  EK_CHECK(realpath(info.dli_fname, real) != nullptr, EK_ERROR_IO, "realpath %s: %s",
           info.dli_fname, std::strerror(errno));
  struct stat st;
  EK_CHECK(stat(real, &st) == 0, EK_ERROR_IO, "stat %s: %s", real, std::strerror(errno));
  NvrtcIdentity id;
  id.path = real;
  id.size = static_cast<long long>(st.st_size);
  id.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  id.version = l.version_number;
  id.archs = supported_archs(l);
  *out = std::move(id);
  return EK_SUCCESS;
}

ek_status nvrtc_compile(const std::string &source, const std::string &name,
                        const std::vector<std::string> &options, const Target &target,
                        std::vector<char> *image, std::string *log) {
  const Library &l = library();
  EK_CHECK(l.error.empty(), EK_ERROR_LIBRARY, "%s", l.error.c_str());
  nvrtcProgram program = nullptr;
  nvrtcResult r = l.create(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  EK_CHECK(r == NVRTC_SUCCESS, r == NVRTC_ERROR_OUT_OF_MEMORY ? EK_ERROR_OUT_OF_MEMORY
                                                              : EK_ERROR_INTERNAL,
           "nvrtcCreateProgram failed for %s: %s", name.c_str(), l.error_string(r));
  ek_status st = run_compiler(l, program, name, options, target, log);
  if (st == EK_SUCCESS) st = image_of(l, program, target.ptx, image);
  l.destroy(&program);
  return st;
}

}  // namespace ek::jit
