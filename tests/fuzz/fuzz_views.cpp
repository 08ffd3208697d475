// libFuzzer harness for the view functions of the C API on a CPU context.
// Each input is a small program: a tensor (dtype, up to 4 dims of size 0..6),
// then view ops chosen and parameterised by the following bytes (negative and
// out-of-range arguments included), now and then ek_contiguous or ek_copy into
// a new tensor, or a tensor from ek_tensor_wrap with extreme strides (huge,
// negative, zero) over a small real buffer joins the pool. Every result is read back in full through ek_tensor_to_host.
// Findings (abort): a status outside ek_status, a failure without a message,
// a failure that leaves a handle in *out, a handle leak (ek_live_handles), a
// leaked allocation (ek_memory_stats), and whatever ASan/UBSan report.
#include <vector>

#include "fuzz_api.hpp"

using namespace fuzz;

namespace {

constexpr size_t kMaxTensors = 8;
constexpr int kMaxSteps = 48;

void shape_args(Reader &r, int *ndim, int64_t *shape, bool allow_neg) {
  *ndim = static_cast<int>(r.range(0, 5));
  if (r.u8() == 255) *ndim = static_cast<int>(r.range(-2, EK_MAX_DIMS + 2));  // out of range
  for (int i = 0; i < EK_MAX_DIMS + 2; ++i) {
    int64_t v = allow_neg ? r.small_int() : r.range(0, 6);
    shape[i] = v;
  }
}

void step(Reader &r, std::vector<ek_tensor> &pool) {
  ek_tensor src = pool[r.u8() % pool.size()];
  ek_tensor out = nullptr;
  ek_status s;
  const char *call;
  const uint8_t op = r.u8();
  if (op >= 242) {  // a wrapped tensor with extreme strides joins the pool
    ek_tensor w = make_wrapped(r);
    if (w == nullptr) return;
    read_back(w);
    if (pool.size() < kMaxTensors) {
      pool.push_back(w);
    } else {
      ek_tensor_release(w);
    }
    return;
  }
  switch (op % 14) {
    case 0: {
      int dim = r.dim_arg();
      int64_t start = r.small_int(), stop = r.small_int(), stp = r.small_int();
      if (r.u8() & 1) start = (r.u8() & 1) ? EK_SLICE_MIN : EK_SLICE_MAX;
      if (r.u8() & 1) stop = (r.u8() & 1) ? EK_SLICE_MAX : EK_SLICE_MIN;
      s = ek_view_slice(src, dim, start, stop, stp, &out);
      call = "ek_view_slice";
      break;
    }
    case 1: {
      int dim = r.dim_arg();
      s = ek_view_select(src, dim, r.small_int(), &out);
      call = "ek_view_select";
      break;
    }
    case 2: {
      int ndim = static_cast<int>(r.range(0, 5));
      int perm[EK_MAX_DIMS];
      for (int &p : perm) p = (r.u8() & 3) == 3 ? r.dim_arg() : static_cast<int>(r.range(0, 4));
      s = ek_view_permute(src, ndim, perm, &out);
      call = "ek_view_permute";
      break;
    }
    case 3: {
      int d0 = r.dim_arg(), d1 = r.dim_arg();
      s = ek_view_transpose(src, d0, d1, &out);
      call = "ek_view_transpose";
      break;
    }
    case 4: {
      int ndim;
      int64_t shape[EK_MAX_DIMS + 2];
      shape_args(r, &ndim, shape, (r.u8() & 3) == 0);
      if (r.u8() & 1) shape[r.range(0, 4)] = -1;
      s = ek_view_reshape(src, ndim, shape, &out);
      call = "ek_view_reshape";
      break;
    }
    case 5: {
      int ndim;
      int64_t shape[EK_MAX_DIMS + 2];
      shape_args(r, &ndim, shape, (r.u8() & 3) == 0);
      if (r.u8() & 1) shape[r.range(0, 4)] = -1;
      s = ek_view_expand(src, ndim, shape, &out);
      call = "ek_view_expand";
      break;
    }
    case 6: {
      int ndims = static_cast<int>(r.range(0, 4));
      int dims[EK_MAX_DIMS];
      for (int &d : dims) d = r.dim_arg();
      s = ek_view_squeeze(src, ndims, dims, &out);
      call = "ek_view_squeeze";
      break;
    }
    case 7: {
      int dim = r.dim_arg();
      s = ek_view_unsqueeze(src, dim, &out);
      call = "ek_view_unsqueeze";
      break;
    }
    case 8: {
      int a = r.dim_arg(), b = r.dim_arg();
      s = ek_view_flatten(src, a, b, &out);
      call = "ek_view_flatten";
      break;
    }
    case 9: {
      int ndim;
      int64_t shape[EK_MAX_DIMS + 2], strides[EK_MAX_DIMS + 2];
      shape_args(r, &ndim, shape, (r.u8() & 7) == 0);
      for (int64_t &st : strides) st = r.small_int();
      int64_t offset = r.small_int();
      s = ek_view_as_strided(src, ndim, shape, strides, offset, &out);
      call = "ek_view_as_strided";
      break;
    }
    case 10: {
      if (numel_of(src) > kMaxMaterialized) return;
      s = ek_contiguous(nullptr, src, &out);
      call = "ek_contiguous";
      break;
    }
    case 11: {  // ek_copy into a new tensor of src's shape (any dtype)
      ek_tensor_info info = EK_TENSOR_INFO_INIT;
      check(ek_tensor_get_info(src, &info), "ek_tensor_get_info");
      if (info.numel > kMaxMaterialized) return;
      ek_tensor dst = nullptr;
      if (!check_new(ek_tensor_empty(nullptr, cpu_context(), info.ndim, info.shape, pick_dtype(r),
                                     &dst),
                     "ek_tensor_empty", dst))
        return;
      if (check(ek_copy(nullptr, src, dst), "ek_copy")) read_back(dst);
      ek_tensor_release(dst);
      return;
    }
    case 12: {  // ek_copy between two pool tensors (views: broadcast, overlap, mismatch)
      ek_tensor dst = pool[r.u8() % pool.size()];
      if (numel_of(dst) > kMaxMaterialized) return;
      if (check(ek_copy(nullptr, src, dst), "ek_copy")) read_back(dst);
      return;
    }
    default: {
      if (check(ek_tensor_retain(src), "ek_tensor_retain")) ek_tensor_release(src);
      return;
    }
  }
  if (!check_new(s, call, out)) return;
  read_back(out);
  if (pool.size() < kMaxTensors) {
    pool.push_back(out);
  } else {
    ek_tensor_release(out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto first = [](Reader &r) {
    ek_dtype dtype = pick_dtype(r);
    int ndim = static_cast<int>(r.range(0, 4));
    int64_t shape[4];
    for (int64_t &d : shape) d = r.range(0, 6);
    std::vector<ek_tensor> pool{make_tensor(r, dtype, ndim, shape)};
    read_back(pool[0]);
    return pool;
  };
  return run_input(data, size, kMaxSteps, first, step);
}
