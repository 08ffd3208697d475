// libFuzzer harness for the ops of the C API on a CPU context: unary, binary
// (and scalar), reduce, softmax/log_softmax, cumsum/cumprod, where, clamp,
// matmul, index_select and masked_select with input-chosen shapes (broadcast
// compatible or not), dtypes, strides (through views, and ek_tensor_wrap with
// extreme strides over a small real buffer), dims and out tensors
// (NULL, a fresh tensor, or another live tensor reused). Results are read back
// in full. Findings (abort): a status outside ek_status, a failure without a
// message, a failure that leaves a handle in a NULL *out, a handle leak
// (ek_live_handles), allocated bytes not back to their start value after the
// releases (ek_memory_stats), and whatever ASan/UBSan report. Op enums take
// unknown values only inside the enum's range of bits (C++ makes a value
// outside it undefined before the library sees it; the library checks ints).
#include <vector>

#include "fuzz_api.hpp"

using namespace fuzz;

namespace {

constexpr size_t kMaxTensors = 8;
constexpr int kMaxSteps = 32;

// A tensor with up to 4 dims of size 0..4, then maybe made strided: a
// transpose, a stepped or reversed slice, or an expand of a size-1 dim.
ek_tensor new_operand(Reader &r) {
  ek_dtype dtype = pick_dtype(r);
  int ndim = static_cast<int>(r.range(0, 4));
  int64_t shape[4];
  for (int64_t &d : shape) d = r.range(0, 4);
  ek_tensor t = make_tensor(r, dtype, ndim, shape);
  ek_tensor v = nullptr;
  switch (r.u8() % 5) {
    case 1: check_new(ek_view_transpose(t, 0, -1, &v), "ek_view_transpose", v); break;
    case 2: check_new(ek_view_slice(t, static_cast<int>(r.range(-1, 1)), EK_SLICE_MAX,
                                    EK_SLICE_MIN, -1, &v), "ek_view_slice", v); break;
    case 3: check_new(ek_view_slice(t, 0, r.range(0, 1), EK_SLICE_MAX, 2, &v), "ek_view_slice", v);
      break;
    case 4: {
      int64_t shape2[5] = {r.range(1, 3), -1, -1, -1, -1};
      check_new(ek_view_expand(t, ndim + 1, shape2, &v), "ek_view_expand", v);
      break;
    }
    default: break;
  }
  if (v == nullptr) return t;
  ek_tensor_release(t);
  return v;
}

// The out argument: NULL (allocate), or a live tensor (right or wrong shape).
ek_tensor pick_out(Reader &r, std::vector<ek_tensor> &pool) {
  uint8_t b = r.u8();
  if (b < 160) return nullptr;
  return pool[b % pool.size()];
}

int dims_arg(Reader &r, int *dims) {
  int n = static_cast<int>(r.range(0, 3));
  for (int i = 0; i < EK_MAX_DIMS; ++i) dims[i] = (r.u8() & 7) == 7 ? r.dim_arg() : static_cast<int>(r.range(-2, 3));
  return n;
}

void step(Reader &r, std::vector<ek_tensor> &pool) {
  auto pick = [&] { return pool[r.u8() % pool.size()]; };
  const uint8_t b = r.u8();
  if (b >= 240) {  // an operand from ek_tensor_wrap with extreme strides
    ek_tensor w = pool.size() < kMaxTensors ? make_wrapped(r) : nullptr;
    if (w != nullptr) pool.push_back(w);
    return;
  }
  uint8_t op = b % 16;
  if (op == 15 || pool.empty()) {
    if (pool.size() < kMaxTensors) pool.push_back(new_operand(r));
    return;
  }
  ek_tensor x = pick();
  ek_tensor given = pick_out(r, pool);
  ek_tensor out = given;
  ek_tensor out2 = nullptr;  // ek_reduce_with_indices's indices
  ek_status s;
  const char *call;
  switch (op) {
    case 0:
      s = ek_unary(nullptr, static_cast<ek_unary_op>(r.range(0, 31)), x, &out);
      call = "ek_unary";
      break;
    case 1: {
      ek_tensor b = pick();
      s = ek_binary(nullptr, static_cast<ek_binary_op>(r.range(0, 31)), x, b, &out);
      call = "ek_binary";
      break;
    }
    case 2: {
      const auto v = r.small_int();
      const ek_scalar scalar = (r.u8() & 1) ? ek_scalar_float(v * 0.5) : ek_scalar_int(v);
      s = ek_binary_scalar(nullptr, static_cast<ek_binary_op>(r.range(0, 31)), x, scalar,
                           r.u8() & 1, &out);
      call = "ek_binary_scalar";
      break;
    }
    case 3: {
      int dims[EK_MAX_DIMS];
      int n = dims_arg(r, dims);
      s = ek_reduce(nullptr, static_cast<ek_reduce_op>(r.range(0, 15)), x, n, dims, r.u8() & 1,
                    &out);
      call = "ek_reduce";
      break;
    }
    case 4: {
      int dims[EK_MAX_DIMS];
      int n = dims_arg(r, dims);
      s = ek_var(nullptr, (r.u8() & 1) ? EK_VAR_STD : EK_VAR_VARIANCE, x, n, dims,
                 static_cast<double>(r.range(-1, 2)), r.u8() & 1, &out);
      call = "ek_var";
      break;
    }
    case 5: {
      int dim = r.dim_arg();
      if (r.u8() & 1) {
        s = ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, dim, &out);
        call = "ek_softmax(EK_SOFTMAX_PLAIN)";
      } else {
        s = ek_softmax(nullptr, EK_SOFTMAX_LOG, x, dim, &out);
        call = "ek_softmax(EK_SOFTMAX_LOG)";
      }
      break;
    }
    case 6: {
      int dim = r.dim_arg();
      if (r.u8() & 1) {
        s = ek_scan(nullptr, EK_SCAN_SUM, x, dim, &out);
        call = "ek_scan(EK_SCAN_SUM)";
      } else {
        s = ek_scan(nullptr, EK_SCAN_PROD, x, dim, &out);
        call = "ek_scan(EK_SCAN_PROD)";
      }
      break;
    }
    case 7: {
      ek_tensor a = pick(), b = pick();
      s = ek_where(nullptr, x, a, b, &out);
      call = "ek_where";
      break;
    }
    case 8: {
      const ek_scalar lo = ek_scalar_int(r.small_int()), hi = ek_scalar_int(r.small_int());
      uint8_t which = r.u8();
      s = ek_clamp(nullptr, x, (which & 1) ? &lo : nullptr, (which & 2) ? &hi : nullptr, &out);
      call = "ek_clamp";
      break;
    }
    case 9: {
      ek_tensor b = pick();
      s = ek_matmul(nullptr, x, b, &out);
      call = "ek_matmul";
      break;
    }
    case 10: {
      // An index tensor: int64 or int32 (sometimes another dtype), values in
      // [-6, 6] so some are out of range.
      ek_dtype dt = (r.u8() & 7) == 0 ? pick_dtype(r) : ((r.u8() & 1) ? EK_INT64 : EK_INT32);
      int ndim = static_cast<int>(r.range(0, 2));
      int64_t shape[2] = {r.range(0, 4), r.range(0, 2)};
      ek_tensor index = make_tensor(r, dt, ndim, shape);
      s = ek_index_select(nullptr, x, r.dim_arg(), index, &out);
      call = "ek_index_select";
      ek_tensor_release(index);
      break;
    }
    case 11: {
      ek_tensor mask = pick();
      s = ek_masked_select(nullptr, x, mask, &out);
      call = "ek_masked_select";
      break;
    }
    case 12: {
      int dim = r.dim_arg();
      out = nullptr;
      const ek_reduce_op extreme = (r.u8() & 1) ? EK_REDUCE_MIN : EK_REDUCE_MAX;
      s = ek_reduce_with_indices(nullptr, extreme, x, dim, r.u8() & 1, &out, &out2);
      call = "ek_reduce_with_indices";
      given = nullptr;
      break;
    }
    case 13: {
      ek_dtype dt = pick_dtype(r);
      s = ek_cast(nullptr, x, dt, &out);
      call = "ek_cast";
      break;
    }
    default: {
      s = ek_contiguous(nullptr, x, &out);
      call = "ek_contiguous";
      break;
    }
  }
  bool ok = check(s, call);
  if (given == nullptr) {
    if (!ok && (out != nullptr || out2 != nullptr)) finding("failure left a handle in *out", call, s);
    if (ok && out == nullptr) finding("success without a result handle", call, s);
    if (!ok) return;
    read_back(out);
    if (out2 != nullptr) {
      read_back(out2);
      ek_tensor_release(out2);
    }
    if (pool.size() < kMaxTensors) {
      pool.push_back(out);
    } else {
      ek_tensor_release(out);
    }
  } else {
    if (out != given) finding("a given *out was replaced", call, s);
    if (ok) read_back(out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return run_input(
      data, size, kMaxSteps,
      [](Reader &r) { return std::vector<ek_tensor>{new_operand(r), new_operand(r)}; }, step);
}
