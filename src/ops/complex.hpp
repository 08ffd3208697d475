// The complex branches of the elementwise and reduction entry points (their
// checks done, the dtype complex): src/ops/complex.cpp.
#pragma once
#include "ek.h"

namespace ek {

// x complex, op accepted for complex by its traits.
ek_status complex_unary(ek_stream stream, int op, ek_tensor x, ek_tensor *out);
// common (the promoted dtype) complex; b NULL: scalar (scalar_first: it is a).
ek_status complex_binary(ek_stream stream, int op, ek_tensor a, ek_tensor b, const ek_scalar *scalar,
                         bool scalar_first, ek_dtype common, ek_tensor *out);
// sum or mean of a complex x over dims (ek_reduce's arguments, checked; the
// result's shape given): each part reduced into the same part of out; any and
// all: over x != 0.
ek_status complex_reduce(ek_stream s, ek_reduce_op op, ek_tensor x, int ndims, const int *dims,
                         int keepdim, int out_ndim, const int64_t *out_shape, ek_tensor *out);

// ek_matmul of operands promoted to the complex dtype: four real products of
// the parts (re = ar br - ai bi, im = ar bi + ai br), written into out's parts.
ek_status complex_matmul(ek_stream stream, ek_tensor a, ek_tensor b, ek_dtype dt, ek_tensor *out);

// ek_masked_fill of a complex x (arguments checked): each part masked-filled
// with the value's part, in place on out (a copy of x unless out is x).
ek_status complex_masked_fill(ek_stream stream, ek_tensor x, ek_tensor mask, const ek_scalar &value,
                              ek_tensor *out);
// prod of a complex x over the dims marked in reduced (checked; out's shape
// given; s resolved), and cumprod along dim: trees of complex multiplies
// (src/ops/complex_reduce.cpp).
ek_status complex_prod(ek_stream s, ek_tensor x, const bool *reduced, int out_ndim, const int64_t *out_shape,
                       ek_tensor *out);
ek_status complex_cumprod(ek_stream stream, ek_tensor x, int dim, ek_tensor *out);
// cumsum of a complex x: each part's cumsum into out's part.
ek_status complex_scan(ek_stream stream, ek_tensor x, int dim, ek_tensor *out);
// round of a complex x: each part rounded (to integers) into out's part.
ek_status complex_round(ek_stream stream, ek_tensor x, ek_tensor *out);

// ek_where with a complex result (dt; shape broadcast and checked): each part
// of out from the same part of a and b (cast to dt).
ek_status complex_where(ek_stream stream, ek_tensor cond, ek_tensor a, ek_tensor b, ek_dtype dt, int ndim,
                        const int64_t *shape, ek_tensor *out);

// ek_index_put and ek_scatter with accumulate of a complex x (checked): each
// part accumulated on its own (the backends add real dtypes only).
ek_status complex_index_put_add(ek_stream stream, ek_tensor x, int n, const ek_tensor *indices,
                                ek_tensor values, ek_tensor *out);
ek_status complex_scatter_add(ek_stream stream, ek_tensor x, int dim, ek_tensor index, ek_tensor src,
                              ek_tensor *out);

}  // namespace ek
