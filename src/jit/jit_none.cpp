// Stand-in for builds without CUDA: no CUDA context can exist, so module.cpp
// never gets here; these keep the link whole and say why if it ever does.
#include "core/internal.hpp"
#include "jit/jit.hpp"

namespace ek::jit {
namespace {
ek_status none() { return fail(EK_ERROR_NO_DEVICE, "libek was built without CUDA"); }
}  // namespace

ek_status nvrtc_target(int, int, Target *) { return none(); }
bool nvrtc_loaded() { return false; }
ek_status nvrtc_identity(NvrtcIdentity *) { return none(); }
ek_status nvrtc_compile(const std::string &, const std::string &,
                        const std::vector<std::string> &, const Target &, std::vector<char> *,
                        std::string *) {
  return none();
}
ek_status bind_context(int) { return none(); }
ek_status module_load(const void *, void **) { return none(); }
void module_unload(void *) {}
ek_status function_get(void *, const char *, void **) { return none(); }
ek_status function_info(void *, int, const KnownParams *, FunctionInfo *) { return none(); }
ek_status function_set_max_dynamic_shared(void *, size_t) { return none(); }
ek_status launch(void *, const unsigned[3], const unsigned[3], size_t, void *, void **, bool) {
  return none();
}
}  // namespace ek::jit
