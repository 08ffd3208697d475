// The launch paths of small elementwise ops (issue 16), each against a layout
// that takes another path: the per-op compiled contiguous kernels and the
// out-of-line run-time op (every unary op, contiguous vs a stepped view),
// the spread grid of tensors too small to fill the GPU (every element of
// sizes around its limits), and the rows path of row/column broadcasts
// (matrix, row, column and scalar operands, sliced rows, cols that are no
// whole vector, unaligned data; against the operands made contiguous).
// Paths share the op functions, so CUDA must give the same bits; the CPU
// backend's SIMD loops may round transcendental ops differently from its
// strided walk, so there unary results are compared within a tolerance.
#include <cmath>
#include <cstring>

#include "ek_test.hpp"

using ektest::Shape;
using ektest::Tensor;
using ektest::Values;

namespace {

constexpr ek_dtype kFastDtypes[] = {EK_FLOAT32, EK_FLOAT16, EK_BFLOAT16};

#define EKT_VALUE_(name, value, text) value,
const int kUnaryOps[] = {EK_UNARY_OP_LIST(EKT_VALUE_)};
#undef EKT_VALUE_

// The compiled binary ops, and ones the run-time op serves, all exact in
// IEEE arithmetic (so every backend path agrees bit for bit).
const ek_binary_op kExactBinaryOps[] = {EK_BINARY_ADD,     EK_BINARY_SUB,     EK_BINARY_MUL,
                                        EK_BINARY_DIV,     EK_BINARY_MAXIMUM, EK_BINARY_COPYSIGN};

std::vector<uint8_t> bytes_of(ek_tensor t) {
  const ek_tensor_info info = ektest::info_of(t);
  std::vector<uint8_t> out(static_cast<size_t>(info.numel) * ek_dtype_size(info.dtype));
  EXPECT_EQ(ek_tensor_to_host(nullptr, t, out.data(), out.size()), EK_SUCCESS) << ek_last_error();
  return out;
}

class ElementwisePaths : public ektest::DeviceTest {
 protected:
  // values as a stepped view (every other element of a buffer twice as long).
  ek_tensor stepped(const Values &values, ek_dtype dt) {
    Values twice(values.size() * 2, 7.0);
    for (size_t i = 0; i < values.size(); ++i) twice[2 * i] = values[i];
    Tensor whole(make({int64_t(twice.size())}, dt, twice));
    return ektest::sliced(whole, 0, 0, EK_SLICE_MAX, 2);
  }
  // a's shape and values, its rows `pad` elements longer than its cols.
  ek_tensor padded_rows(const Values &values, int64_t rows, int64_t cols, int64_t pad, ek_dtype dt) {
    const int64_t first = pad == 1 ? 1 : 0;  // one element in: no 16-byte alignment
    Values wide(size_t(rows * (cols + pad)), 3.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) wide[size_t(r * (cols + pad) + first + c)] = values[size_t(r * cols + c)];
    Tensor whole(make({rows, cols + pad}, dt, wide));
    return ektest::sliced(whole, 1, first, first + cols, 1);
  }
  ek_tensor dense(ek_tensor t, const Shape &shape) {
    Tensor wide;
    EXPECT_EQ(ek_view_expand(t, int(shape.size()), shape.data(), wide.out()), EK_SUCCESS) << ek_last_error();
    ek_tensor out = nullptr;
    EXPECT_EQ(ek_contiguous(nullptr, wide, &out), EK_SUCCESS) << ek_last_error();
    return out;
  }
  // a op b, and the same with both operands dense: the same bytes.
  void expect_as_dense(ek_binary_op op, ek_tensor a, ek_tensor b, const std::string &what) {
    Tensor got, ref;
    ASSERT_EQ(ek_binary(nullptr, op, a, b, got.out()), EK_SUCCESS) << what << ": " << ek_last_error();
    const Shape shape = ektest::shape_of(got);
    Tensor da(dense(a, shape)), db(dense(b, shape));
    EK_OK(ek_binary(nullptr, op, da, db, ref.out()));
    EXPECT_TRUE(bytes_of(got) == bytes_of(ref)) << what << " op " << op;
  }
};
EK_INSTANTIATE_DEVICES(ElementwisePaths);

bool same_or_close(double got, double ref, double rel) {
  if (std::isnan(got) || std::isnan(ref)) return std::isnan(got) && std::isnan(ref);
  if (std::isinf(got) || std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= rel * std::max(1.0, std::fabs(ref));
}

TEST_P(ElementwisePaths, EveryUnaryOpContiguousMatchesStepped) {
  const bool exact = GetParam() == EK_CUDA;
  for (ek_dtype dt : kFastDtypes)
    for (int64_t n : {int64_t(1), int64_t(7), int64_t(64), int64_t(1029), int64_t(32768), int64_t(70001)}) {
      const Values v = ektest::random_values(size_t(n), uint32_t(n) + dt, -3.5, 3.5);
      Tensor x(make({n}, dt, v)), xs(stepped(v, dt));
      for (int op : kUnaryOps) {
        Tensor fast, strided;
        EK_OK(ek_unary(nullptr, ek_unary_op(op), x, fast.out()));
        EK_OK(ek_unary(nullptr, ek_unary_op(op), xs, strided.out()));
        if (exact) {
          const auto fb = bytes_of(fast), sb = bytes_of(strided);
          // NaN payloads aside: compare as values where the bytes differ.
          if (fb == sb) continue;
        }
        const Values fv = ektest::values_of(fast), sv = ektest::values_of(strided);
        const double rel = exact ? 0 : (dt == EK_FLOAT32 ? 1e-5 : 1e-2);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_TRUE(same_or_close(fv[size_t(i)], sv[size_t(i)], rel))
              << ek_dtype_name(dt) << " n " << n << " op " << op << " at " << i << ": " << fv[size_t(i)]
              << " vs " << sv[size_t(i)];
      }
    }
}

// Sizes below, at and past the spread grid's limits (256 blocks of 256
// threads, 4 vectors or elements each; one vector where two 16-bit tensors
// are read), with tails: every element written once, contiguous and strided.
TEST_P(ElementwisePaths, SmallAndSpreadGridsCoverEveryElement) {
  const int64_t sizes[] = {1, 5, 64, 1027, 32771, 65536 * 4 + 1, 900001, (1 << 20), (1 << 20) + 6};
  for (ek_dtype dt : kFastDtypes)
    for (int64_t n : sizes) {
      const Values v = ektest::random_values(size_t(n), uint32_t(n), -8, 8);
      Tensor x(make({n}, dt, v)), xs(stepped(v, dt)), neg, sum, twice, negs;
      EK_OK(ek_unary(nullptr, EK_UNARY_NEG, x, neg.out()));
      EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ektest::scalar(2.0), 0, sum.out()));
      EK_OK(ek_binary(nullptr, EK_BINARY_ADD, x, x, twice.out()));  // two tensors: one vector a thread in 16 bits
      EK_OK(ek_unary(nullptr, EK_UNARY_NEG, xs, negs.out()));  // the strided kernel's spread
      const Values xv = ektest::values_of(x), nv = ektest::values_of(neg), sv = ektest::values_of(sum),
                   tv = ektest::values_of(twice), ns = ektest::values_of(negs);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(nv[size_t(i)], -xv[size_t(i)]) << ek_dtype_name(dt) << " n " << n << " at " << i;
        ASSERT_EQ(sv[size_t(i)], 2 * xv[size_t(i)]) << ek_dtype_name(dt) << " n " << n << " at " << i;
        ASSERT_EQ(tv[size_t(i)], 2 * xv[size_t(i)]) << ek_dtype_name(dt) << " n " << n << " x + x at " << i;
        ASSERT_EQ(ns[size_t(i)], -xv[size_t(i)]) << ek_dtype_name(dt) << " n " << n << " strided at " << i;
      }
    }
}

// Operand forms of a [rows, cols] result: 'm' matrix, 'r' row [cols],
// 'c' column [rows, 1].
TEST_P(ElementwisePaths, RowAndColumnBroadcastsMatchDenseOperands) {
  const Shape shapes[] = {{3, 8}, {64, 512}, {5, 1000}, {2, 12}, {300, 2048}};
  const char *pairs[] = {"mr", "rm", "mc", "cm", "rc", "cr", "mm"};
  for (ek_dtype dt : kFastDtypes)
    for (const auto &s : shapes) {
      const int64_t rows = s[0], cols = s[1];
      auto operand = [&](char form, uint32_t seed) {
        const Shape shape = form == 'm' ? Shape{rows, cols} : form == 'r' ? Shape{cols} : Shape{rows, 1};
        return make(shape, dt, ektest::random_values(size_t(ektest::numel_of(shape)), seed, -4, 4));
      };
      for (const char *p : pairs) {
        Tensor a(operand(p[0], 1)), b(operand(p[1], 2));
        for (ek_binary_op op : kExactBinaryOps)
          expect_as_dense(op, a, b, std::string(ek_dtype_name(dt)) + " " + ektest::text(s) + " " + p);
      }
    }
}

// Matrix operands whose rows are longer than the result's (a column slice):
// padded by whole vectors they take the rows path, by one element (rows of
// an odd length, data one element off 16 bytes) the strided one.
TEST_P(ElementwisePaths, SlicedRowsAndUnalignedDataMatchDenseOperands) {
  const int64_t rows = 33, cols = 64;
  for (ek_dtype dt : kFastDtypes)
    for (int64_t pad : {int64_t(16), int64_t(1)}) {
      const Values v = ektest::random_values(size_t(rows * cols), 5, -4, 4);
      Tensor a(padded_rows(v, rows, cols, pad, dt));
      Tensor row(make({cols}, dt, ektest::random_values(size_t(cols), 6, -4, 4)));
      Tensor col(make({rows, 1}, dt, ektest::random_values(size_t(rows), 7, -4, 4)));
      const std::string what = std::string(ek_dtype_name(dt)) + " pad " + std::to_string(pad);
      for (ek_binary_op op : kExactBinaryOps) {
        expect_as_dense(op, a, row, what + " row");
        expect_as_dense(op, col, a, what + " column");
      }
    }
}

// A broadcast view with a host scalar: the scalar operand of the rows path.
TEST_P(ElementwisePaths, BroadcastViewWithAScalar) {
  for (ek_dtype dt : kFastDtypes) {
    Tensor row(make({256}, dt, ektest::random_values(256, 9, -4, 4))), wide, dense_wide;
    const Shape shape = {40, 256};
    EK_OK(ek_view_expand(row, 2, shape.data(), wide.out()));
    EK_OK(ek_contiguous(nullptr, wide, dense_wide.out()));
    for (ek_binary_op op : kExactBinaryOps)
      for (int first : {0, 1}) {
        Tensor g, r;
        EK_OK(ek_binary_scalar(nullptr, op, wide, ektest::scalar(1.75), first, g.out()));
        EK_OK(ek_binary_scalar(nullptr, op, dense_wide, ektest::scalar(1.75), first, r.out()));
        EXPECT_TRUE(bytes_of(g) == bytes_of(r)) << ek_dtype_name(dt) << " op " << op << " first " << first;
      }
  }
}

}  // namespace
