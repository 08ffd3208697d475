// Fused kernels for pending groups (core/fusion.hpp).
#include <map>
#include <string>

#include "core/fusion.hpp"

namespace ek {
namespace fusion {

class KernelCache {
 public:
  std::map<std::string, ek_kernel> kernels;
};

void destroy_state(ek_context ctx) {
  if (!ctx->fusion) return;
  if (ctx->fusion->kernels)
    for (auto &e : ctx->fusion->kernels->kernels) ek_kernel_release(e.second);
  delete ctx->fusion->kernels;
  delete ctx->fusion;
  ctx->fusion = nullptr;
}

ek_status run_fused(ek_context ctx, const Group &, bool *done) {
  *done = false;
  ctx->fusion->stats.fallbacks_unsupported++;
  return EK_SUCCESS;
}

}  // namespace fusion
}  // namespace ek
