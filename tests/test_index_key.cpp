// ek_index and ek_index_assign: t[key] and t[key] = value with NumPy's rules.
// x is arange(24) int64 reshaped [2,3,4], so x[i][j][k] = 12i + 4j + k; every
// expected value below is worked out by hand from that.
#include <deque>
#include <vector>

#include "ek_test.hpp"

namespace {

using ektest::Shape;
using ektest::Tensor;
using ektest::shape_of;
using I64 = std::vector<int64_t>;

ek_index_item I(int64_t i) { return ek_index_item_int(i); }
ek_index_item S(int64_t start, int64_t stop, int64_t step = 1) {
  return ek_index_item_slice(start, stop, step);
}
ek_index_item all() { return S(EK_SLICE_MIN, EK_SLICE_MAX); }
ek_index_item T(ek_tensor t) { return ek_index_item_tensor(t); }
const ek_index_item kEllipsis = ek_index_item_ellipsis();
const ek_index_item kNone = ek_index_item_none();

class IndexKey : public ektest::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    x.t = arange24();
  }
  void TearDown() override {
    ek_tensor_release(x.t);
    x.t = nullptr;
    held.clear();
    DeviceTest::TearDown();
  }
  ek_tensor arange24() {
    Tensor flat;
    EXPECT_EQ(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(24), ek_scalar_int(1),
                        EK_INT64, flat.out()), EK_SUCCESS) << ek_last_error();
    const int64_t shape[3] = {2, 3, 4};
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_reshape(nullptr, flat, 3, shape, &t), EK_SUCCESS) << ek_last_error();
    return t;
  }
  ek_tensor ints(const I64 &v, Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
    return ektest::upload(ctx, shape, EK_INT64, v.data());
  }
  ek_tensor bools(const std::vector<uint8_t> &v, const Shape &shape) {
    return ektest::upload(ctx, shape, EK_BOOL, v.data());
  }
  // x[key]: its shape and values, checked.
  void expect(const std::vector<ek_index_item> &key, const Shape &shape, const I64 &values) {
    Tensor r;
    ASSERT_EQ(ek_index(nullptr, x, static_cast<int>(key.size()), key.data(), r.out()),
              EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(shape_of(r), shape);
    EXPECT_EQ(ektest::to_host<int64_t>(contiguous(r)), values);
  }
  ek_tensor contiguous(ek_tensor t) {
    held.emplace_back();
    EXPECT_EQ(ek_contiguous(nullptr, t, held.back().out()), EK_SUCCESS) << ek_last_error();
    return held.back();
  }
  void assign(ek_tensor value, int accumulate, const std::vector<ek_index_item> &key) {
    ASSERT_EQ(ek_index_assign(nullptr, value, accumulate, x, static_cast<int>(key.size()),
                              key.data()), EK_SUCCESS) << ek_last_error();
  }
  I64 all_of_x() { return ektest::to_host<int64_t>(x); }
  static I64 arange_values() {
    I64 v(24);
    for (int64_t i = 0; i < 24; ++i) v[static_cast<size_t>(i)] = i;
    return v;
  }
  Tensor x;
  std::deque<Tensor> held;  // never moved: Tensor is not movable
};
EK_INSTANTIATE_DEVICES(IndexKey);

// The cross-language case: x[..., [2, 0], ::-2].
TEST_P(IndexKey, EllipsisIndexTensorAndNegativeStep) {
  Tensor idx(ints({2, 0}));
  expect({kEllipsis, T(idx), S(EK_SLICE_MIN, EK_SLICE_MAX, -2)}, {2, 2, 2},
         {11, 9, 3, 1, 23, 21, 15, 13});
}

TEST_P(IndexKey, BasicKeysAreViews) {
  expect({I(1), I(-1)}, {4}, {20, 21, 22, 23});
  expect({kNone, I(0), all(), I(1)}, {1, 3}, {1, 5, 9});
  expect({kNone, kEllipsis, kNone}, {1, 2, 3, 4, 1}, arange_values());
  expect({}, {2, 3, 4}, arange_values());
  expect({I(-2), S(1, EK_SLICE_MAX), S(-1, 0, -3)}, {2, 1}, {7, 11});
  Tensor v;
  const ek_index_item key[2] = {I(1), I(2)};
  EK_OK(ek_index(nullptr, x, 2, key, v.out()));
  void *xd = nullptr, *vd = nullptr;
  EK_OK(ek_tensor_get_data(x, &xd));
  EK_OK(ek_tensor_get_data(v, &vd));
  EXPECT_EQ(static_cast<int64_t *>(vd), static_cast<int64_t *>(xd) + 20);  // x[1][2] in place
}

TEST_P(IndexKey, AdvancedItemsPlacement) {
  Tensor a(ints({0, 1})), b(ints({1, 2})), k(ints({3, 0})), c(ints({0, 2}));
  // Non-adjacent index tensors: their dims first.
  expect({T(a), all(), T(b)}, {2, 3}, {1, 5, 9, 14, 18, 22});
  // An int next to an index tensor is adjacent: the result dim stays in place.
  expect({all(), I(1), T(k)}, {2, 2}, {7, 4, 19, 16});
  // An int, a slice, then a tensor: not adjacent, the tensor's dim goes first.
  expect({I(1), all(), T(c)}, {2, 3}, {12, 16, 20, 14, 18, 22});
  // Index tensors broadcast together: [2,1] with [2].
  Tensor col(ints({0, 1}, {2, 1}));
  expect({T(col), T(c)}, {2, 2, 4}, {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
  Tensor neg(ints({-1}));
  expect({I(0), T(neg)}, {1, 4}, {8, 9, 10, 11});
  Tensor scalar_index(ints({2}, {}));
  ek_tensor zero_d = nullptr;  // a 0-d index tensor takes the dim away
  const int64_t none = 0;
  EK_OK(ek_view_reshape(scalar_index, 0, &none, &zero_d));
  Tensor z(zero_d);
  expect({all(), T(z), I(3)}, {2}, {11, 23});
}

TEST_P(IndexKey, Masks) {
  Tensor m(bools({1, 0, 1, 0, 0, 1}, {2, 3}));
  expect({T(m)}, {3, 4}, {0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23});
  Tensor last(bools({1, 0, 0, 1}, {4}));
  expect({kEllipsis, T(last)}, {2, 3, 2}, {0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23});
  // A mask with an index tensor: its nonzero columns, non-adjacent: dims first.
  Tensor i(ints({1, 0}));
  expect({T(i), all(), T(last)}, {2, 3}, {12, 16, 20, 3, 7, 11});
  Tensor none(bools({0, 0, 0, 0, 0, 0}, {2, 3}));
  expect({T(none)}, {0, 4}, {});
  Tensor wrong(bools({1, 0}, {2}));
  const ek_index_item key[2] = {all(), T(wrong)};
  Tensor r;
  EK_FAILS(ek_index(nullptr, x, 2, key, r.out()), EK_ERROR_SHAPE,
           "ek_index: key[1] is a mask of shape [2]; the dims it indexes have shape [3]");
}

TEST_P(IndexKey, ZeroDimBoolAddsADim) {
  const uint8_t t = 1, f = 0;
  Tensor yes(ektest::upload(ctx, {}, EK_BOOL, &t)), no(ektest::upload(ctx, {}, EK_BOOL, &f));
  expect({T(yes)}, {1, 2, 3, 4}, arange_values());
  expect({T(no)}, {0, 2, 3, 4}, {});
  expect({I(1), I(2), T(yes)}, {1, 4}, {20, 21, 22, 23});
}

TEST_P(IndexKey, GivenOut) {
  Tensor out(ints({0, 0, 0, 0}));
  ek_tensor o = out.t;
  const ek_index_item basic[2] = {I(0), I(1)};
  EK_OK(ek_index(nullptr, x, 2, basic, &o));
  EXPECT_EQ(ektest::to_host<int64_t>(out), (I64{4, 5, 6, 7}));
  Tensor idx(ints({2})), out2(ints({0, 0, 0, 0}, {1, 4}));
  const ek_index_item adv[2] = {I(1), T(idx)};
  o = out2.t;
  EK_OK(ek_index(nullptr, x, 2, adv, &o));
  EXPECT_EQ(ektest::to_host<int64_t>(out2), (I64{20, 21, 22, 23}));
  Tensor wrong(ints({0, 0}));
  o = wrong.t;
  EK_FAILS(ek_index(nullptr, x, 2, adv, &o), EK_ERROR_SHAPE, "[1,4]");
}

TEST_P(IndexKey, AssignThroughViews) {
  Tensor row(ints({100, 101, 102, 103}));
  assign(row, 0, {all(), I(0)});  // broadcast over dim 0
  I64 want = arange_values();
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) want[static_cast<size_t>(12 * i + k)] = 100 + k;
  EXPECT_EQ(all_of_x(), want);
  Tensor thousand(ints({1000}, {}));
  assign(thousand, 1, {I(1)});  // x[1] += 1000
  for (size_t i = 12; i < 24; ++i) want[i] += 1000;
  EXPECT_EQ(all_of_x(), want);
  const double half[1] = {2.75};  // a float64 value converts as ek_copy does
  Tensor f(ektest::upload(ctx, {}, EK_FLOAT64, half));
  assign(f, 0, {I(0), I(1), I(1)});
  want[5] = 2;
  EXPECT_EQ(all_of_x(), want);
}

TEST_P(IndexKey, AssignAdvanced) {
  Tensor j(ints({0, 2})), v(ints({7, 8}, {2, 1}));
  assign(v, 0, {I(1), T(j)});  // x[1, [0, 2]] = [[7], [8]]: rows of 7 and 8
  I64 want = arange_values();
  for (int k = 0; k < 4; ++k) {
    want[static_cast<size_t>(12 + k)] = 7;
    want[static_cast<size_t>(20 + k)] = 8;
  }
  EXPECT_EQ(all_of_x(), want);
  Tensor dup(ints({1, 1, 3})), ten(ints({10}, {}));
  assign(ten, 1, {I(0), I(0), T(dup)});  // accumulate: the duplicate adds twice
  want[1] += 20;
  want[3] += 10;
  EXPECT_EQ(all_of_x(), want);
  Tensor a(ints({0, 1})), b(ints({3, 0})), w(ints({-1, -2}));
  assign(w, 0, {T(a), I(2), T(b)});  // x[0,2,3] = -1, x[1,2,0] = -2
  want[11] = -1;
  want[20] = -2;
  EXPECT_EQ(all_of_x(), want);
}

TEST_P(IndexKey, AssignUnderMasks) {
  Tensor m(bools({1, 0, 0, 0, 1, 0}, {2, 3}));
  Tensor minus(ints({-1}, {}));
  assign(minus, 0, {T(m)});  // one value: masked_fill
  I64 want = arange_values();
  for (size_t k = 0; k < 4; ++k) want[k] = want[16 + k] = -1;
  EXPECT_EQ(all_of_x(), want);
  Tensor rows(ints({50, 51, 52, 53, 60, 61, 62, 63}, {2, 4}));
  assign(rows, 0, {T(m)});  // one row per true position: masked_scatter
  for (size_t k = 0; k < 4; ++k) {
    want[k] = 50 + static_cast<int64_t>(k);
    want[16 + k] = 60 + static_cast<int64_t>(k);
  }
  EXPECT_EQ(all_of_x(), want);
  // x[1, :, mask] has shape [2, 3] (int and mask not adjacent: the mask's dim
  // first); [[5], [6]] broadcasts to it.
  Tensor last(bools({0, 1, 0, 1}, {4})), col(ints({5, 6}, {2, 1}));
  assign(col, 0, {I(1), all(), T(last)});
  for (size_t j = 0; j < 3; ++j) {
    want[12 + 4 * j + 1] = 5;
    want[12 + 4 * j + 3] = 6;
  }
  EXPECT_EQ(all_of_x(), want);
  Tensor one(ints({1}, {}));
  assign(one, 1, {T(m)});  // accumulate under a mask: index_put
  for (size_t k = 0; k < 4; ++k) {
    want[k] += 1;
    want[16 + k] += 1;
  }
  EXPECT_EQ(all_of_x(), want);
}

TEST_P(IndexKey, AssignmentFailuresWriteNothing) {
  Tensor idx(ints({0, 5})), one(ints({1}, {}));
  const ek_index_item key[2] = {I(0), T(idx)};
  EK_FAILS(ek_index_assign(nullptr, one, 0, x, 2, key), EK_ERROR_INDEX, "ek_index_assign");
  EXPECT_EQ(all_of_x(), arange_values());
  Tensor v3(ints({1, 2, 3}));
  const ek_index_item row[1] = {I(0)};
  EK_FAILS(ek_index_assign(nullptr, v3, 0, x, 1, row), EK_ERROR_SHAPE, "ek_index_assign");
  EXPECT_EQ(all_of_x(), arange_values());
  ek_context other = cpu_context();
  Tensor elsewhere(ektest::make(other, {}, EK_INT64, {1}));
  EK_FAILS(ek_index_assign(nullptr, elsewhere, 0, x, 1, row), EK_ERROR_INVALID_ARGUMENT,
           "value belongs to another context");
  ek_tensor_release(elsewhere.t);
  elsewhere.t = nullptr;
  EK_OK(ek_context_destroy(other));
  EK_FAILS(ek_index_assign(nullptr, nullptr, 0, x, 1, row), EK_ERROR_NULL_POINTER, "value");
}

TEST_P(IndexKey, BadKeys) {
  Tensor r;
  auto fails = [&](std::vector<ek_index_item> key, ek_status st, const char *text) {
    EK_FAILS(ek_index(nullptr, x, static_cast<int>(key.size()), key.data(), r.out()), st, text);
    EXPECT_EQ(r.t, nullptr);
  };
  ek_index_item bad = I(0);
  bad.kind = static_cast<ek_index_kind>(9);
  fails({I(0), bad}, EK_ERROR_INVALID_ARGUMENT, "ek_index: key[1].kind is 9");
  bad = I(0);
  bad.reserved_ = 3;
  fails({bad}, EK_ERROR_INVALID_ARGUMENT, "key[0].reserved_ is 3");
  bad = I(0);
  bad.stop = 1;
  fails({bad}, EK_ERROR_INVALID_ARGUMENT, "key[0] (int) has a nonzero field");
  bad = kNone;
  bad.tensor = x;
  fails({bad}, EK_ERROR_INVALID_ARGUMENT, "key[0] (none) has a nonzero field");
  fails({S(0, 2, 0)}, EK_ERROR_INVALID_ARGUMENT, "key[0] is a slice with step 0");
  fails({kEllipsis, I(0), kEllipsis}, EK_ERROR_INDEX, "2 ellipses");
  fails({I(0), I(0), I(0), I(0)}, EK_ERROR_INDEX, "too many indices: the key addresses 4 dims; x has 3");
  fails({I(2)}, EK_ERROR_INDEX, "key[0] = 2 is out of range for a dim of size 2");
  fails({all(), I(-4)}, EK_ERROR_INDEX, "key[1] = -4");
  fails({T(nullptr)}, EK_ERROR_NULL_POINTER, "key[0].tensor is NULL");
  Tensor f(make({1}, EK_FLOAT32, {0}));
  fails({T(f)}, EK_ERROR_DTYPE, "key[0].tensor has dtype float32");
  Tensor big(ints({3}));
  ek_context_config config = EK_CONTEXT_CONFIG_INIT;
  EK_OK(ek_context_get_config(ctx, &config));
  if (GetParam() == EK_CUDA && config.index_check == EK_INDEX_CHECK_DEFERRED) {
    // CUDA's default check: the bad index is reported at the next synchronization
    const ek_index_item deferred[1] = {T(big)};
    EK_OK(ek_index(nullptr, x, 1, deferred, r.out()));
    EK_FAILS(ek_context_synchronize(ctx), EK_ERROR_INDEX,
             "ek_index_select (or indexing by a tensor) met index 3");
    ek_tensor_release(r.t);
    r.t = nullptr;
  } else {
    fails({T(big)}, EK_ERROR_INDEX, "ek_index: ek_index_select: index 3 is out of range");
  }
  Tensor a(ints({0, 1})), b(ints({0, 1, 2}));
  fails({T(a), T(b)}, EK_ERROR_SHAPE, "not broadcastable");
  ek_context other = cpu_context();
  Tensor elsewhere(ektest::make(other, {1}, EK_INT64, {0}));
  fails({T(elsewhere)}, EK_ERROR_INVALID_ARGUMENT, "key[0].tensor belongs to another context");
  ek_tensor_release(elsewhere.t);
  elsewhere.t = nullptr;
  EK_OK(ek_context_destroy(other));
  const ek_index_item one[1] = {I(0)};
  EK_FAILS(ek_index(nullptr, x, -1, one, r.out()), EK_ERROR_INVALID_ARGUMENT, "n is -1");
  EK_FAILS(ek_index(nullptr, x, 1, nullptr, r.out()), EK_ERROR_NULL_POINTER, "key is NULL");
  EK_FAILS(ek_index(nullptr, x, 1, one, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_index(nullptr, nullptr, 1, one, r.out()), EK_ERROR_NULL_POINTER, "x");
}

}  // namespace
