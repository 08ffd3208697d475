// Argument rules every entry point shares (ek.h's conventions): ek_scalar
// values, struct_size, and the (stream, ctx) pair of functions that create.
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "util/half.hpp"
#include "core/internal.hpp"

namespace ek {

ek_status check_struct_size(size_t struct_size, size_t size_1_0, const char *type) {
  EK_CHECK(struct_size >= size_1_0, EK_ERROR_INVALID_ARGUMENT,
           "%s.struct_size is %zu; it must be at least %zu, the size of %s in API 1.0 "
           "(set it to sizeof(%s), e.g. with its _INIT macro)",
           type, struct_size, size_1_0, type, type);
  return EK_SUCCESS;
}

ek_status resolve_creator(ek_stream stream, ek_context ctx, ek_context *ctx_out,
                          ek_stream *s_out) {
  if (stream) {
    EK_FORWARD(check_stream(stream, "stream"));
    EK_CHECK(!ctx || ctx == stream->ctx, EK_ERROR_INVALID_ARGUMENT,
             "stream belongs to another context than ctx (pass ctx NULL, or the stream's own "
             "context)");
    if (ctx) EK_CHECK_CONTEXT(ctx);
    *ctx_out = stream->ctx;
    *s_out = stream;
    return EK_SUCCESS;
  }
  EK_CHECK(ctx != nullptr, EK_ERROR_NULL_POINTER,
           "ctx is NULL and so is stream (one of them must name the context)");
  EK_CHECK_CONTEXT(ctx);
  *ctx_out = ctx;
  *s_out = &ctx->default_stream;
  return EK_SUCCESS;
}

ek_status check_scalar_or_complex(const ek_scalar &v, const char *name) {
  const int kind = raw_enum(v.kind);
  EK_CHECK(kind >= EK_SCALAR_BOOL && kind <= EK_SCALAR_COMPLEX, EK_ERROR_INVALID_ARGUMENT,
           "%s: unknown ek_scalar kind %d", name, kind);
  EK_CHECK(v.reserved_ == 0, EK_ERROR_INVALID_ARGUMENT, "%s: ek_scalar.reserved_ is %d, not 0",
           name, static_cast<int>(v.reserved_));
  // -0.0 counts as 0; NaN fails.
  EK_CHECK(kind == EK_SCALAR_COMPLEX || v.imag == 0.0, EK_ERROR_INVALID_ARGUMENT,
           "%s: ek_scalar.imag is %g, not 0 (only an EK_SCALAR_COMPLEX has an imaginary part)",
           name, v.imag);
  EK_CHECK(kind != EK_SCALAR_BOOL || v.i == 0 || v.i == 1, EK_ERROR_INVALID_ARGUMENT,
           "%s: a bool ek_scalar holds %" PRId64 ", not 0 or 1", name, v.i);
  return EK_SUCCESS;
}

ek_status check_scalar(const ek_scalar &v, const char *name) {
  EK_FORWARD(check_scalar_or_complex(v, name));
  EK_CHECK(v.kind != EK_SCALAR_COMPLEX, EK_ERROR_DTYPE, "%s: a complex value (%s) is not taken here",
           name, format_scalar(v).c_str());
  return EK_SUCCESS;
}

std::string format_scalar(const ek_scalar &v) {
  char buf[64];
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_BOOL: return v.i ? "true" : "false";
    case EK_SCALAR_INT64: std::snprintf(buf, sizeof buf, "%" PRId64, v.i); break;
    case EK_SCALAR_UINT64: std::snprintf(buf, sizeof buf, "%" PRIu64, v.u); break;
    case EK_SCALAR_COMPLEX: std::snprintf(buf, sizeof buf, "(%.17g%+.17gj)", v.f, v.imag); break;
    default: std::snprintf(buf, sizeof buf, "%.17g", v.f); break;
  }
  return buf;
}

bool scalar_is_float(const ek_scalar &v) { return v.kind == EK_SCALAR_FLOAT64; }

double scalar_to_double(const ek_scalar &v) {
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_UINT64: return static_cast<double>(v.u);
    case EK_SCALAR_FLOAT64: return v.f;
    default: return static_cast<double>(v.i);
  }
}

bool scalar_to_int64(const ek_scalar &v, int64_t *out) {
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_UINT64:
      if (v.u > static_cast<uint64_t>(INT64_MAX)) return false;
      *out = static_cast<int64_t>(v.u);
      return true;
    case EK_SCALAR_FLOAT64:
      // NaN and inf fail the comparisons; 2^63 itself is out of range.
      if (!(v.f == std::trunc(v.f) && v.f >= -0x1p63 && v.f < 0x1p63)) return false;
      *out = static_cast<int64_t>(v.f);
      return true;
    default:
      *out = v.i;
      return true;
  }
}

double scalar_rounded_to(const ek_scalar &v, ek_dtype dtype) {
  uint64_t bits = 0;
  detail::scalar_element(v, dtype, &bits);  // never fails for a float dtype
  return detail::load_scalar(&bits, dtype).f;
}

bool scalar_is_integral(const ek_scalar &v) {
  if (!scalar_is_float(v)) return true;
  return std::isfinite(v.f) && v.f == std::trunc(v.f);
}

int scalar_compare_int(const ek_scalar &v, int64_t x) {
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_UINT64:
      if (v.u > static_cast<uint64_t>(INT64_MAX)) return 1;
      return static_cast<int64_t>(v.u) < x ? -1 : static_cast<int64_t>(v.u) > x;
    case EK_SCALAR_FLOAT64: {
      // Exact: x's double may round, so compare against the bounds first.
      if (v.f >= 0x1p63) return 1;
      if (v.f < -0x1p63) return -1;
      const double t = std::trunc(v.f);
      const auto ti = static_cast<int64_t>(t);
      if (ti != x) return ti < x ? -1 : 1;
      return v.f == t ? 0 : (v.f < t ? -1 : 1);
    }
    default: return v.i < x ? -1 : v.i > x;
  }
}

}  // namespace ek
