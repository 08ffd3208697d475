// Shared pieces of the C-API harnesses (fuzz_views, fuzz_ops): a reader that
// turns the input into small choices, the status checks, and the one CPU
// context every input runs on.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ek.h"

namespace fuzz {

// Reads the input front to back; past its end every read gives 0, so any
// input decodes to a program.
struct Reader {
  const uint8_t *p;
  size_t n;
  size_t pos = 0;
  Reader(const uint8_t *data, size_t size) : p(data), n(size) {}
  bool done() const { return pos >= n; }
  uint8_t u8() { return pos < n ? p[pos++] : 0; }
  // A value in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(u8() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Mostly small signed values around the interesting edges, now and then an
  // extreme one (EK_SLICE_MIN/MAX, INT64 limits, large positives).
  int64_t small_int() {
    uint8_t b = u8();
    if (b < 240) return static_cast<int64_t>(b % 17) - 8;  // -8..8
    switch (b & 7) {
      case 0: return INT64_MAX;
      case 1: return INT64_MIN;
      case 2: return INT64_MAX / 2;
      case 3: return -(INT64_MAX / 2);
      case 4: return 1LL << 32;
      case 5: return INT32_MAX;
      case 6: return INT32_MIN;
      default: return 1000;
    }
  }
  int dim_arg() { return static_cast<int>(small_int() % 12); }
};

[[noreturn]] inline void finding(const char *what, const char *call, int status) {
  std::fprintf(stderr, "FINDING: %s (%s returned %d, ek_last_error \"%s\")\n", what, call, status,
               ek_last_error());
  std::abort();
}

inline bool valid_status(ek_status s) {
  return std::strcmp(ek_status_string(s), "EK_UNKNOWN_STATUS") != 0;
}

// Checks one call's status; true on success.
inline bool check(ek_status s, const char *call) {
  if (!valid_status(s)) finding("invalid ek_status", call, s);
  if (s == EK_SUCCESS) return true;
  const char *msg = ek_last_error();
  if (msg == nullptr || msg[0] == '\0') finding("failure without a message", call, s);
  return false;
}

// A call that returns a new handle through out (initialised to NULL): on
// failure *out must still be NULL.
inline bool check_new(ek_status s, const char *call, ek_tensor out) {
  bool ok = check(s, call);
  if (ok && out == nullptr) finding("success without a result handle", call, s);
  if (!ok && out != nullptr) finding("failure left a handle in *out", call, s);
  return ok;
}

inline ek_context cpu_context() {
  static ek_context ctx = [] {
    ek_context c = nullptr;
    ek_device dev{EK_CPU, 0};
    if (ek_context_create(dev, nullptr, &c) != EK_SUCCESS) {
      std::fprintf(stderr, "cannot create a CPU context: %s\n", ek_last_error());
      std::abort();
    }
    return c;
  }();
  return ctx;
}

inline int64_t live_handles() {
  int64_t n = -1;
  if (ek_live_handles(&n) != EK_SUCCESS) finding("ek_live_handles failed", "ek_live_handles", 0);
  return n;
}

inline uint64_t allocated_bytes() {
  ek_memory_stats st = EK_MEMORY_STATS_INIT;
  if (ek_memory_get_stats(cpu_context(), &st) != EK_SUCCESS)
    finding("ek_memory_get_stats failed", "ek_memory_get_stats", 0);
  return st.allocated_bytes;
}

// Views may describe huge tensors (expand to 2^32 elements is a valid view);
// the harnesses materialise only tensors up to this many elements.
constexpr int64_t kMaxMaterialized = 1 << 16;

inline int64_t numel_of(ek_tensor t) {
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  if (!check(ek_tensor_get_info(t, &info), "ek_tensor_get_info"))
    finding("ek_tensor_get_info failed on a live tensor", "ek_tensor_get_info", 1);
  return info.numel;
}

// Reads every element of t back (ek_tensor_to_host): numel * element size
// bytes must be accepted; one byte fewer must be refused.
inline void read_back(ek_tensor t) {
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  if (!check(ek_tensor_get_info(t, &info), "ek_tensor_get_info"))
    finding("ek_tensor_get_info failed on a live tensor", "ek_tensor_get_info", 1);
  if (info.ndim < 0 || info.ndim > EK_MAX_DIMS) finding("bad ndim", "ek_tensor_get_info", 0);
  int64_t numel = 1;
  for (int i = 0; i < info.ndim; ++i) {
    if (info.shape[i] < 0) finding("negative size", "ek_tensor_get_info", 0);
    numel *= info.shape[i];
  }
  if (numel != info.numel) finding("numel disagrees with the shape", "ek_tensor_get_info", 0);
  size_t bytes = static_cast<size_t>(numel) * ek_dtype_size(info.dtype);
  if (bytes != info.nbytes) finding("nbytes disagrees with numel", "ek_tensor_get_info", 0);
  if (numel > kMaxMaterialized) return;  // a broadcast view of billions of elements
  std::vector<unsigned char> host(bytes + 1);
  if (!check(ek_tensor_to_host(nullptr, t, host.data(), bytes), "ek_tensor_to_host"))
    finding("ek_tensor_to_host refused the exact size", "ek_tensor_to_host", 1);
  if (check(ek_tensor_to_host(nullptr, t, host.data(), bytes + 1), "ek_tensor_to_host"))
    finding("ek_tensor_to_host accepted a wrong size", "ek_tensor_to_host", 0);
}

inline ek_dtype pick_dtype(Reader &r) { return static_cast<ek_dtype>(r.range(0, EK_NUM_DTYPES - 1)); }

// One element of dtype at e from the input: a small integer, 0/1 for bool and
// the half types, a finite float (so the op results stay comparable).
inline void write_value(Reader &r, ek_dtype dtype, unsigned char *e) {
  int64_t v = r.small_int() % 9;
  switch (dtype) {
    case EK_BOOL: e[0] = v != 0; break;
    case EK_UINT8: e[0] = static_cast<uint8_t>(v); break;
    case EK_INT8: e[0] = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
    case EK_INT16: { int16_t x = static_cast<int16_t>(v); std::memcpy(e, &x, 2); break; }
    case EK_INT32: { int32_t x = static_cast<int32_t>(v); std::memcpy(e, &x, 4); break; }
    case EK_INT64: std::memcpy(e, &v, 8); break;
    case EK_FLOAT16: { uint16_t x = v == 0 ? 0 : 0x3c00; std::memcpy(e, &x, 2); break; }  // 1.0
    case EK_BFLOAT16: { uint16_t x = v == 0 ? 0 : 0x3f80; std::memcpy(e, &x, 2); break; }  // 1.0
    case EK_FLOAT32: { float x = static_cast<float>(v) * 0.5f; std::memcpy(e, &x, 4); break; }
    case EK_FLOAT64: { double x = static_cast<double>(v) * 0.25; std::memcpy(e, &x, 8); break; }
  }
}

// A new tensor with up to 4 dims of size 0..6 holding input-derived bytes.
inline ek_tensor make_tensor(Reader &r, ek_dtype dtype, int ndim, const int64_t *shape) {
  int64_t numel = 1;
  for (int i = 0; i < ndim; ++i) numel *= shape[i];
  size_t es = ek_dtype_size(dtype);
  std::vector<unsigned char> host(static_cast<size_t>(numel) * es);
  for (int64_t i = 0; i < numel; ++i) write_value(r, dtype, host.data() + i * es);
  ek_tensor t = nullptr;
  if (!check_new(ek_tensor_from_host(nullptr, cpu_context(), ndim, shape, dtype, host.data(), &t),
                 "ek_tensor_from_host", t))
    finding("ek_tensor_from_host failed on a small valid shape", "ek_tensor_from_host", 1);
  return t;
}

// A stride for ek_tensor_wrap: mostly small (-3..3, zero included), now and
// then extreme (2^62, INT64 limits, the largest that fits 8-byte elements).
inline int64_t wrap_stride(Reader &r) {
  switch (r.u8() % 12) {
    case 0: return int64_t(1) << 62;
    case 1: return -(int64_t(1) << 62);
    case 2: return INT64_MAX;
    case 3: return INT64_MIN;
    case 4: return INT64_MAX / 8;
    case 5: return -(INT64_MAX / 8);
    default: return static_cast<int64_t>(r.u8() % 7) - 3;
  }
}

// Element 0 of a wrapped buffer sits kWrapReach elements in: a dim of size
// <= 4 and |stride| <= 3 reaches 9 elements, 4 such dims 36.
constexpr int64_t kWrapReach = 36;

// A tensor over a small real host buffer through ek_tensor_wrap, with
// extreme strides where its layout allows them: on a size-1 dim, or anywhere
// in an empty tensor (a non-empty one gets size 1 along a dim whose stride is
// not small, so every element lies in the buffer). The deleter frees the
// buffer. NULL when ek_tensor_wrap refuses the layout (a stride that leaves
// int64 in bytes): that must be a clean failure.
inline ek_tensor make_wrapped(Reader &r) {
  ek_dtype dtype = pick_dtype(r);
  int ndim = static_cast<int>(r.range(0, 4));
  int64_t shape[4], strides[4];
  bool empty = false;
  for (int d = 0; d < ndim; ++d) {
    shape[d] = r.range(0, 4);
    strides[d] = wrap_stride(r);
    empty = empty || shape[d] == 0;
  }
  for (int d = 0; d < ndim && !empty; ++d)
    if (strides[d] < -3 || strides[d] > 3) shape[d] = 1;
  const size_t es = ek_dtype_size(dtype), count = 2 * kWrapReach + 1;
  auto *buf = static_cast<unsigned char *>(std::malloc(count * es));
  for (size_t i = 0; i < count; ++i) write_value(r, dtype, buf + i * es);
  ek_tensor t = nullptr;
  ek_deleter free_buf = [](void *, void *user) { std::free(user); };
  if (!check_new(ek_tensor_wrap(cpu_context(), buf + kWrapReach * es, ndim, shape, strides, dtype,
                                free_buf, buf, &t),
                 "ek_tensor_wrap", t)) {
    std::free(buf);
    return nullptr;
  }
  return t;
}

// One input: the tensors first(r) makes, then step(r, pool) until the input
// or max_steps runs out, then the pool released; afterwards a live handle or
// pool byte more than before is a leak, reported as a finding.
template <class First, class Step>
int run_input(const uint8_t *data, size_t size, int max_steps, First first, Step step) {
  cpu_context();
  const int64_t live0 = live_handles();
  const uint64_t bytes0 = allocated_bytes();
  {
    Reader r(data, size);
    std::vector<ek_tensor> pool = first(r);
    for (int i = 0; i < max_steps && !r.done(); ++i) step(r, pool);
    for (ek_tensor t : pool) check(ek_tensor_release(t), "ek_tensor_release");
  }
  if (live_handles() != live0) finding("handle leak", "ek_live_handles", 0);
  if (allocated_bytes() != bytes0) finding("allocation leak", "ek_memory_get_stats", 0);
  return 0;
}

}  // namespace fuzz
