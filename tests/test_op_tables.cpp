// The op lists of ek.h (EK_UNARY_OP_LIST, ...) against what each op does: its
// name, result dtype, accepted dtypes and result over zero elements, as ek.h
// documents them. The expectations below are written from that prose, apart
// from libek's trait table, so a wrong trait row fails here; every op of a
// list must appear in exactly one group of its family, so a new op fails here
// until its documented traits are added.
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;
using ektest::to_host;

namespace {

struct Op {
  int value;
  const char *enum_name;
  const char *name;
};

#define EKT_OP_(name, value, text) {value, #name, text},
const std::vector<Op> kUnary = {EK_UNARY_OP_LIST(EKT_OP_)};
const std::vector<Op> kBinary = {EK_BINARY_OP_LIST(EKT_OP_)};
const std::vector<Op> kReduce = {EK_REDUCE_OP_LIST(EKT_OP_)};
const std::vector<Op> kRandom = {EK_RANDOM_DIST_LIST(EKT_OP_)};
#undef EKT_OP_

using Groups = std::map<std::string, std::string>;  // group -> space-separated op names

// Each op's group; fails unless every op of ops is in exactly one group and
// every name in groups is an op of ops.
std::map<std::string, std::string> group_of(const std::vector<Op> &ops, const Groups &groups) {
  std::map<std::string, std::string> out;
  for (const auto &[group, names] : groups) {
    std::istringstream in(names);
    for (std::string name; in >> name;) {
      EXPECT_TRUE(out.emplace(name, group).second) << name << " is in two groups";
      bool listed = false;
      for (const Op &op : ops) listed = listed || name == op.name;
      EXPECT_TRUE(listed) << name << " (group " << group << ") is not in the list";
    }
  }
  for (const Op &op : ops) EXPECT_TRUE(out.count(op.name)) << op.name << " has no documented group";
  return out;
}

// From ek_unary's documentation.
const Groups kUnaryGroups = {
    {"same", "abs sign square relu floor ceil round trunc"},
    {"same, no bool", "neg"},
    {"bool", "logical_not isnan isinf isfinite signbit"},
    {"float", "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal sin cos tan asin acos atan "
              "sinh cosh tanh asinh acosh atanh sigmoid gelu gelu_tanh silu erf"},
};
// From ek_binary's.
const Groups kBinaryGroups = {
    {"same", "add mul floor_div remainder pow maximum minimum"},
    {"same, no bool", "sub"},
    {"bool", "eq ne lt le gt ge logical_and logical_or logical_xor"},
    {"float", "div atan2 logaddexp hypot copysign nextafter"},
    {"bitwise", "bitwise_and bitwise_or bitwise_xor shift_left shift_right"},
};
// From the reductions' section: result dtype, and over zero elements.
const Groups kReduceGroups = {
    {"wide", "sum prod"},
    {"float only", "mean norm_l1 norm_l2 norm_inf"},
    {"same", "max min"},
    {"index", "argmax argmin"},
    {"bool", "any all"},
};
const Groups kReduceEmpty = {
    {"0", "sum any norm_l1 norm_l2"},
    {"1", "prod all"},
    {"nan", "mean"},
    {"fails", "max min argmax argmin norm_inf"},
};
// From ek_random's.
const Groups kRandomGroups = {
    {"float", "uniform normal"},
    {"any", "bernoulli"},
    {"no bool", "randint"},
};

bool is_float(ek_dtype dt) {
  return dt == EK_FLOAT16 || dt == EK_BFLOAT16 || dt == EK_FLOAT32 || dt == EK_FLOAT64;
}

// The documented result dtype of a group over input dtype dt.
ek_dtype expected_dtype(const std::string &group, ek_dtype dt) {
  if (group == "bool") return EK_BOOL;
  if (group == "float") return is_float(dt) ? dt : EK_FLOAT32;
  if (group == "wide") return is_float(dt) ? dt : EK_INT64;
  if (group == "index") return EK_INT64;
  return dt;
}

bool refuses(const std::string &group, ek_dtype dt) {
  if (group == "same, no bool" || group == "no bool") return dt == EK_BOOL;
  if (group == "bitwise") return is_float(dt);
  if (group == "float only") return !is_float(dt);
  return false;
}

const ek_dtype kDtypes[] = {EK_BOOL,    EK_UINT8,    EK_INT32,   EK_INT64,
                            EK_FLOAT16, EK_BFLOAT16, EK_FLOAT32, EK_FLOAT64};

class OpTables : public ektest::DeviceTest {
 protected:
  ek_tensor make(std::vector<double> v, ek_dtype dtype) {
    const int64_t n = static_cast<int64_t>(v.size());
    ek_tensor f64 = nullptr, out = nullptr;
    EXPECT_EQ(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_FLOAT64, v.data(), &f64), EK_SUCCESS);
    EXPECT_EQ(ek_cast(nullptr, f64, dtype, &out), EK_SUCCESS) << ek_last_error();
    ek_tensor_release(f64);
    return out;
  }
  static std::vector<double> values(ek_tensor t) {
    Tensor f64;
    EXPECT_EQ(ek_cast(nullptr, t, EK_FLOAT64, f64.out()), EK_SUCCESS) << ek_last_error();
    return to_host<double>(f64);
  }
  static ek_dtype dtype_of(ek_tensor t) {
    ek_tensor_info info = EK_TENSOR_INFO_INIT;
    EXPECT_EQ(ek_tensor_get_info(t, &info), EK_SUCCESS);
    return info.dtype;
  }
  // Runs call under the profiler and returns the one record's name.
  template <typename F>
  std::string profiled_name(F call) {
    EXPECT_EQ(ek_profiler_start(ctx), EK_SUCCESS);
    call();
    EXPECT_EQ(ek_profiler_stop(ctx), EK_SUCCESS);
    ek_profile_record r = ektest::sized<ek_profile_record>();
    size_t n = 0;
    EXPECT_EQ(ek_profiler_get_records(ctx, &r, 1, &n), EK_SUCCESS);
    return n == 1 ? r.name : "";
  }
};
EK_INSTANTIATE_DEVICES(OpTables);

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Values count 0, 1, ... and the short name is the enum name's suffix in lower
// case (the bindings derive their names that way).
void check_list(const std::vector<Op> &ops, const std::string &prefix) {
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i].value, static_cast<int>(i)) << ops[i].enum_name;
    const std::string e = ops[i].enum_name;
    ASSERT_EQ(e.rfind(prefix, 0), 0u) << e;
    EXPECT_EQ(lower(e.substr(prefix.size())), ops[i].name) << e;
  }
}

TEST(OpLists, ValuesAndNamesFollowTheEnums) {
  check_list(kUnary, "EK_UNARY_");
  check_list(kBinary, "EK_BINARY_");
  check_list(kReduce, "EK_REDUCE_");
  check_list(kRandom, "EK_RANDOM_");
  EXPECT_EQ(kUnary.back().value, EK_UNARY_SIGNBIT);  // spot checks of the enums themselves
  EXPECT_EQ(kBinary.back().value, EK_BINARY_NEXTAFTER);
  EXPECT_EQ(kBinary[EK_BINARY_DIV].value, 3);
  EXPECT_EQ(kReduce.back().value, EK_REDUCE_NORM_INF);
}

TEST_P(OpTables, ProfilerNamesComeFromTheLists) {
  Tensor x(make({0.5, 1.5}, EK_FLOAT32));
  for (const Op &op : kUnary) {
    Tensor y;
    EXPECT_EQ(profiled_name([&] { ek_unary(nullptr, static_cast<ek_unary_op>(op.value), x, y.out()); }),
              std::string("unary.") + op.name);
  }
  for (const Op &op : kBinary) {
    Tensor i(make({1, 2}, EK_INT32)), y;
    EXPECT_EQ(profiled_name([&] { ek_binary(nullptr, static_cast<ek_binary_op>(op.value), i, i, y.out()); }),
              std::string("binary.") + op.name);
  }
  for (const Op &op : kReduce) {
    Tensor y;
    EXPECT_EQ(profiled_name([&] {
                ek_reduce(nullptr, static_cast<ek_reduce_op>(op.value), x, 0, nullptr, 0, y.out());
              }),
              std::string("reduce.") + op.name);
  }
  for (const Op &op : kRandom) {
    const bool randint = std::string(op.name) == "randint";
    EXPECT_EQ(profiled_name([&] {
                ek_random(nullptr, static_cast<ek_random_dist>(op.value), ek_scalar_int(0),
                          randint ? ek_scalar_int(2) : ek_scalar_float(0.5), nullptr, x);
              }),
              std::string("random.") + op.name);
  }
}

TEST_P(OpTables, UnaryTraitsAreTheDocumentedOnes) {
  const auto group = group_of(kUnary, kUnaryGroups);
  Tensor f(make({0, 1, 2}, EK_FLOAT32));
  for (const Op &op : kUnary) {
    const std::string g = group.count(op.name) ? group.at(op.name) : "?";
    const auto uop = static_cast<ek_unary_op>(op.value);
    for (ek_dtype dt : kDtypes) {
      SCOPED_TRACE(std::string(op.name) + " of " + ek_dtype_name(dt));
      Tensor x(make({0, 1, 2}, dt)), y;
      const ek_status st = ek_unary(nullptr, uop, x, y.out());
      if (refuses(g, dt)) {
        EXPECT_EQ(st, EK_ERROR_DTYPE);
        continue;
      }
      ASSERT_EQ(st, EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(dtype_of(y), expected_dtype(g, dt));
      if (g != "float" || is_float(dt) || dt == EK_BOOL) continue;
      // Float ops of integers compute in float32: the float32 input's values.
      Tensor want;
      ASSERT_EQ(ek_unary(nullptr, uop, f, want.out()), EK_SUCCESS);
      const auto a = values(y), b = values(want);
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) << a[i] << " vs " << b[i];
    }
  }
}

TEST_P(OpTables, BinaryTraitsAreTheDocumentedOnes) {
  const auto group = group_of(kBinary, kBinaryGroups);
  Tensor fa(make({1, 7}, EK_FLOAT32)), fb(make({2, 2}, EK_FLOAT32));
  for (const Op &op : kBinary) {
    const std::string g = group.count(op.name) ? group.at(op.name) : "?";
    const auto bop = static_cast<ek_binary_op>(op.value);
    for (ek_dtype dt : kDtypes) {
      SCOPED_TRACE(std::string(op.name) + " of " + ek_dtype_name(dt));
      Tensor a(make({1, 7}, dt)), b(make({2, 2}, dt)), y, ys;
      const ek_status st = ek_binary(nullptr, bop, a, b, y.out());
      // A tensor and an integral scalar promote to the tensor's dtype.
      const ek_status sst = ek_binary_scalar(nullptr, bop, a, ek_scalar_int(2), 0, ys.out());
      if (refuses(g, dt)) {
        EXPECT_EQ(st, EK_ERROR_DTYPE);
        EXPECT_EQ(sst, dt == EK_BOOL ? EK_SUCCESS : EK_ERROR_DTYPE);  // bool + 2 is int64
        continue;
      }
      ASSERT_EQ(st, EK_SUCCESS) << ek_last_error();
      ASSERT_EQ(sst, EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(dtype_of(y), expected_dtype(g, dt));
      EXPECT_EQ(dtype_of(ys), expected_dtype(g, dt == EK_BOOL ? EK_INT64 : dt));
      if (g != "float" || is_float(dt) || dt == EK_BOOL) continue;
      Tensor want;  // 7 / 2 is 3.5: integers compute in float32
      ASSERT_EQ(ek_binary(nullptr, bop, fa, fb, want.out()), EK_SUCCESS);
      EXPECT_EQ(values(y), values(want));
    }
  }
}

TEST_P(OpTables, ReduceTraitsAreTheDocumentedOnes) {
  const auto group = group_of(kReduce, kReduceGroups);
  const auto empty = group_of(kReduce, kReduceEmpty);
  const int64_t zero = 0;
  Tensor none;
  ASSERT_EQ(ek_tensor_empty(nullptr, ctx, 1, &zero, EK_FLOAT32, none.out()), EK_SUCCESS);
  for (const Op &op : kReduce) {
    const std::string g = group.count(op.name) ? group.at(op.name) : "?";
    const auto rop = static_cast<ek_reduce_op>(op.value);
    for (ek_dtype dt : kDtypes) {
      SCOPED_TRACE(std::string(op.name) + " of " + ek_dtype_name(dt));
      Tensor x(make({1, 0, 2}, dt)), y;
      const ek_status st = ek_reduce(nullptr, rop, x, 0, nullptr, 0, y.out());
      if (refuses(g, dt)) {
        EXPECT_EQ(st, EK_ERROR_DTYPE);
        continue;
      }
      ASSERT_EQ(st, EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(dtype_of(y), expected_dtype(g, dt));
    }
    SCOPED_TRACE(std::string(op.name) + " over zero elements");
    const std::string e = empty.count(op.name) ? empty.at(op.name) : "?";
    Tensor y;
    const ek_status st = ek_reduce(nullptr, rop, none, 0, nullptr, 0, y.out());
    if (e == "fails") {
      EXPECT_EQ(st, EK_ERROR_SHAPE);
      continue;
    }
    ASSERT_EQ(st, EK_SUCCESS) << ek_last_error();
    const double v = values(y).at(0);
    if (e == "nan") EXPECT_TRUE(std::isnan(v)) << v;
    else EXPECT_EQ(v, e == "1" ? 1.0 : 0.0);
  }
}

TEST_P(OpTables, RandomTraitsAreTheDocumentedOnes) {
  const auto group = group_of(kRandom, kRandomGroups);
  const ek_philox_state state{sizeof(ek_philox_state), 1, 0};
  for (const Op &op : kRandom) {
    const std::string g = group.count(op.name) ? group.at(op.name) : "?";
    const bool randint = std::string(op.name) == "randint";
    for (ek_dtype dt : kDtypes) {
      SCOPED_TRACE(std::string(op.name) + " of " + ek_dtype_name(dt));
      Tensor t(make({0, 0, 0}, dt));
      const ek_status st =
          ek_random(nullptr, static_cast<ek_random_dist>(op.value), ek_scalar_int(0),
                    randint ? ek_scalar_int(2) : ek_scalar_float(0.5), &state, t);
      const bool refused = g == "float" ? !is_float(dt) : (g == "no bool" && dt == EK_BOOL);
      EXPECT_EQ(st, refused ? EK_ERROR_DTYPE : EK_SUCCESS) << ek_last_error();
    }
  }
}

}  // namespace
