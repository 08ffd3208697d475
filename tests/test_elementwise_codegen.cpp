// The generator behind ek_elementwise_* on its own (compiled from source, no
// device): parameter parsing and its errors, layout planning (collapse,
// specialisation choice), the argument block and the structure of the
// generated CUDA C++. EK_EW_CODEGEN_DUMP=DIR writes every generated variant
// to DIR, so they can be compiled by hand (nvcc -arch=sm_90 -c).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "jit/elementwise_codegen.hpp"
#include "ops/tensor_desc.hpp"

using namespace ek;
using namespace ek::ewgen;

namespace {

std::vector<Param> parse_ok(const char *text) {
  std::vector<Param> out;
  std::string error;
  EXPECT_TRUE(parse_params(text, &out, &error)) << text << ": " << error;
  return out;
}

// Fails the parse and returns the message.
std::string parse_error(const char *text) {
  std::vector<Param> out;
  std::string error;
  EXPECT_FALSE(parse_params(text, &out, &error)) << text;
  return error;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

size_t occurrences(const std::string &s, const std::string &part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

Signature signature(const char *in, const char *out, const char *body, const char *name = "fused") {
  Signature sig;
  sig.in = parse_ok(in);
  sig.out = parse_ok(out);
  sig.body = body;
  sig.name = name;
  return sig;
}

// A contiguous operand over shape (C order strides) at address.
Operand contiguous(uintptr_t address, int elem, int ndim, const int64_t *shape) {
  Operand op{reinterpret_cast<void *>(address), elem, {}};
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    op.strides[d] = stride;
    stride *= shape[d];
  }
  return op;
}

Operand strided(uintptr_t address, int elem, std::vector<int64_t> strides) {
  Operand op{reinterpret_cast<void *>(address), elem, {}};
  for (size_t d = 0; d < strides.size(); ++d) op.strides[d] = strides[d];
  return op;
}

void dump(const std::string &file, const std::string &source) {
  const char *dir = std::getenv("EK_EW_CODEGEN_DUMP");
  if (!dir || !*dir) return;
  std::ofstream(std::string(dir) + "/" + file) << source;
}

}  // namespace

// ------------------------------------------------------------------ parse --

TEST(ElementwiseCodegen, ParsesEveryDtypeName) {
  const char *names[] = {"bool",    "uint8",    "int8",    "int16",   "int32",
                         "int64",   "float16",  "bfloat16", "float32", "float64",
                         "uint16",  "uint32",   "uint64"};
  for (int dt = 0; dt < kC64; ++dt) EXPECT_EQ(dtype_from_name(names[dt]), dt) << names[dt];
  EXPECT_EQ(dtype_from_name("complex64"), -1);  // builders take real dtypes only
  EXPECT_EQ(dtype_from_name("float"), -1);
  EXPECT_EQ(dtype_from_name("Float32"), -1);
}

TEST(ElementwiseCodegen, ParsesLists) {
  std::vector<Param> p = parse_ok("  float32 x ,int64\ty_2,bool  _flag ");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].dtype, kF32);
  EXPECT_EQ(p[0].name, "x");
  EXPECT_EQ(p[1].dtype, kI64);
  EXPECT_EQ(p[1].name, "y_2");
  EXPECT_EQ(p[2].dtype, kBool);
  EXPECT_EQ(p[2].name, "_flag");
  EXPECT_TRUE(parse_ok("").empty());
  EXPECT_TRUE(parse_ok(" \t ").empty());
  EXPECT_TRUE(parse_ok(nullptr).empty());
}

TEST(ElementwiseCodegen, RejectsBadParamsNamingTheToken) {
  EXPECT_TRUE(contains(parse_error("flaot32 x"), "unknown type 'flaot32'"));
  EXPECT_TRUE(contains(parse_error("float32 2x"), "'2x'"));
  EXPECT_TRUE(contains(parse_error("float32 x-y"), "'x-y'"));
  EXPECT_TRUE(contains(parse_error("float32 i"), "'i' is reserved (the element index)"));
  EXPECT_TRUE(contains(parse_error("float32 float"), "'float' is reserved"));
  EXPECT_TRUE(contains(parse_error("int32 threadIdx"), "'threadIdx' is reserved"));
  EXPECT_TRUE(contains(parse_error("int32 ekw_n"), "'ekw_n' is reserved"));
  EXPECT_TRUE(contains(parse_error("int32 __x"), "'__x' is reserved"));
  EXPECT_TRUE(contains(parse_error("float32 x,, float32 y"), "empty parameter"));
  EXPECT_TRUE(contains(parse_error("float32 x,"), "empty parameter"));
  EXPECT_TRUE(contains(parse_error("float32"), "'float32' is not '<dtype> <name>'"));
  EXPECT_TRUE(contains(parse_error("const float32 x"), "'const float32 x'"));
}

TEST(ElementwiseCodegen, ChecksTheSignature) {
  std::string error;
  EXPECT_FALSE(check_signature(parse_ok("float32 x"), {}, &error));
  EXPECT_TRUE(contains(error, "no outputs"));
  EXPECT_FALSE(check_signature(parse_ok("float32 x, float32 y"), parse_ok("float32 x"), &error));
  EXPECT_TRUE(contains(error, "duplicate parameter name 'x'"));
  EXPECT_FALSE(check_signature(parse_ok("float32 x, int8 x"), parse_ok("float32 z"), &error));
  EXPECT_TRUE(contains(error, "'x'"));
  std::string in;
  for (int k = 0; k < 16; ++k) in += (k ? ", int32 a" : "int32 a") + std::to_string(k);
  EXPECT_FALSE(check_signature(parse_ok(in.c_str()), parse_ok("float32 z"), &error));
  EXPECT_TRUE(contains(error, "17 parameters; at most 16"));
  in = in.substr(0, in.rfind(','));  // 15 inputs + 1 output
  EXPECT_TRUE(check_signature(parse_ok(in.c_str()), parse_ok("float32 z"), &error)) << error;
  EXPECT_TRUE(check_signature({}, parse_ok("int64 z"), &error)) << error;
  EXPECT_TRUE(check_kernel_name("my_kernel", &error));
  EXPECT_FALSE(check_kernel_name("my kernel", &error));
  EXPECT_FALSE(check_kernel_name("ekw_args", &error));
}

// ------------------------------------------------------------------- plan --

TEST(ElementwiseCodegen, ContiguousAlignedIsVectorized) {
  const int64_t shape[3] = {4, 5, 6};
  std::vector<Operand> ops = {contiguous(0x1000, 4, 3, shape), contiguous(0x2000, 4, 3, shape),
                              contiguous(0x3000, 4, 3, shape)};
  Plan p = make_plan(3, shape, ops);
  EXPECT_TRUE(p.spec.vectorized);
  EXPECT_TRUE(p.spec.index32);
  EXPECT_EQ(p.spec.key(), "v32");
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.n, 120);
  EXPECT_EQ(p.strides[2][0], 1);
}

TEST(ElementwiseCodegen, MisalignedContiguousIsStridedRankOne) {
  const int64_t shape[1] = {100};
  // float32 needs 16-byte alignment for its 4-element vectors; int16 needs 8.
  std::vector<Operand> ops = {contiguous(0x1004, 4, 1, shape), contiguous(0x2000, 4, 1, shape)};
  EXPECT_EQ(make_plan(1, shape, ops).spec.key(), "s1_32");
  ops = {contiguous(0x1008, 2, 1, shape), contiguous(0x2000, 4, 1, shape)};
  EXPECT_EQ(make_plan(1, shape, ops).spec.key(), "v32");
  ops = {contiguous(0x1004, 2, 1, shape), contiguous(0x2000, 4, 1, shape)};
  EXPECT_EQ(make_plan(1, shape, ops).spec.key(), "s1_32");
  ops = {contiguous(0x1001, 1, 1, shape), contiguous(0x2000, 1, 1, shape)};
  EXPECT_EQ(make_plan(1, shape, ops).spec.key(), "s1_32");
}

TEST(ElementwiseCodegen, BroadcastAndTransposeAreStrided) {
  const int64_t shape[2] = {3, 4};
  // a [3,1] and b [1,4] broadcast to [3,4]; out contiguous.
  std::vector<Operand> ops = {strided(0x1000, 4, {1, 0}), strided(0x2000, 4, {0, 1}),
                              contiguous(0x3000, 4, 2, shape)};
  Plan p = make_plan(2, shape, ops);
  EXPECT_EQ(p.spec.key(), "s2_32");
  EXPECT_EQ(p.shape[0], 3);
  EXPECT_EQ(p.shape[1], 4);
  EXPECT_EQ(p.strides[0][1], 0);
  EXPECT_EQ(p.strides[1][0], 0);
  // A transposed input.
  ops = {strided(0x1000, 4, {1, 3}), contiguous(0x3000, 4, 2, shape)};
  EXPECT_EQ(make_plan(2, shape, ops).spec.key(), "s2_32");
}

TEST(ElementwiseCodegen, CollapsesDimsContiguousInEveryOperand) {
  // [2,3,4,5] where one input is a slice of rows of a [2,3,4,10] tensor:
  // dims 0..2 merge (stride 40 = 4 * 10 ...), the last stays apart.
  const int64_t shape[4] = {2, 3, 4, 5};
  std::vector<Operand> ops = {strided(0x1000, 4, {120, 40, 10, 1}),
                              contiguous(0x3000, 4, 4, shape)};
  Plan p = make_plan(4, shape, ops);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.shape[0], 24);
  EXPECT_EQ(p.shape[1], 5);
  EXPECT_EQ(p.strides[0][0], 10);
  EXPECT_EQ(p.strides[1][0], 5);
  EXPECT_EQ(p.spec.key(), "s2_32");
  // Size-1 dims vanish; one element is the contiguous case.
  const int64_t ones[3] = {1, 1, 1};
  ops = {strided(0x1000, 8, {7, 9, 3}), strided(0x2000, 8, {0, 0, 0})};
  p = make_plan(3, ones, ops);
  EXPECT_EQ(p.n, 1);
  EXPECT_EQ(p.spec.key(), "v32");
  p = make_plan(0, nullptr, ops);
  EXPECT_EQ(p.n, 1);
  EXPECT_TRUE(p.spec.vectorized);
}

TEST(ElementwiseCodegen, WideIndicesUse64BitMath) {
  const int64_t big[1] = {int64_t(1) << 31};
  std::vector<Operand> ops = {contiguous(0x1000, 1, 1, big), contiguous(0x2000, 1, 1, big)};
  EXPECT_EQ(make_plan(1, big, ops).spec.key(), "v64");
  // Few elements, but an offset past 2^31.
  const int64_t shape[2] = {3, 4};
  ops = {strided(0x1000, 4, {int64_t(1) << 30, 1}), contiguous(0x3000, 4, 2, shape)};
  EXPECT_EQ(make_plan(2, shape, ops).spec.key(), "s2_64");
  ops = {strided(0x1000, 4, {-(int64_t(1) << 29), 1}), contiguous(0x3000, 4, 2, shape)};
  EXPECT_EQ(make_plan(2, shape, ops).spec.key(), "s2_32");
}

TEST(ElementwiseCodegen, ArgumentBlockAndGrid) {
  const int64_t shape[2] = {3, 4};
  std::vector<Operand> ops = {strided(0x1000, 4, {1, 0}), contiguous(0x3000, 4, 2, shape)};
  Plan p = make_plan(2, shape, ops);
  std::vector<uint64_t> w = pack_args(p);
  ASSERT_EQ(w.size() * 8, args_bytes(2));
  EXPECT_EQ(args_bytes(2), 8u * (2 + 1 + 8 + 16));
  EXPECT_EQ(w[0], 0x1000u);
  EXPECT_EQ(w[1], 0x3000u);
  EXPECT_EQ(w[2], 12u);             // n
  EXPECT_EQ(w[3], 3u);              // shape[0]
  EXPECT_EQ(w[4], 4u);              // shape[1]
  EXPECT_EQ(w[2 + 1 + 8 + 0], 1u);  // st[0][0]
  EXPECT_EQ(w[2 + 1 + 8 + 1], 0u);  // st[0][1]
  EXPECT_EQ(w[2 + 1 + 8 + 8 + 0], 4u);
  EXPECT_EQ(grid_blocks(p, 4), 1u);
  const int64_t n[1] = {int64_t(1) << 28};
  ops = {contiguous(0x1000, 4, 1, n), contiguous(0x2000, 4, 1, n), contiguous(0x3000, 4, 1, n)};
  p = make_plan(1, n, ops);
  EXPECT_EQ(p.spec.vec, 2);  // float32 operands: two-element vectors
  EXPECT_EQ(grid_blocks(p, 4), (1u << 28) / (2 * 256 * 4));
  EXPECT_EQ(grid_blocks(p, 1), (1u << 28) / (2 * 256));
  std::vector<Operand> halves = {contiguous(0x1000, 2, 1, n), contiguous(0x2000, 4, 1, n)};
  EXPECT_EQ(make_plan(1, n, halves).spec.vec, 4);  // a 2-byte operand: four-element vectors
  EXPECT_EQ(grid_blocks(make_plan(1, n, halves), 4), (1u << 28) / (4 * 256 * 4));
  const int64_t three[1] = {3};  // no whole vector: block 0 runs the tail
  EXPECT_EQ(grid_blocks(make_plan(1, three, ops), 4), 1u);
}

TEST(ElementwiseCodegen, ChunksFollowInputWidth) {
  // Operands of 4 bytes or more: two-element vectors, one per thread.
  EXPECT_EQ(vector_elems(4), 2);
  EXPECT_EQ(vector_elems(8), 2);
  EXPECT_EQ(chunks_per_thread(signature("float32 x, float32 y", "float32 z", "")), 1);
  EXPECT_EQ(chunks_per_thread(signature("float64 x, float64 y", "float64 z", "")), 1);
  EXPECT_EQ(chunks_per_thread(signature("", "int64 z", "")), 1);
  // Narrower ones: four-element vectors, about 32 bytes of loads a thread.
  EXPECT_EQ(vector_elems(2), 4);
  EXPECT_EQ(vector_elems(1), 4);
  EXPECT_EQ(chunks_per_thread(signature("bfloat16 x", "bfloat16 z", "")), 4);
  EXPECT_EQ(chunks_per_thread(signature("bfloat16 x, bfloat16 y", "bfloat16 z", "")), 2);
  EXPECT_EQ(chunks_per_thread(signature("float16 x, float16 y, float16 w", "float16 z", "")), 1);
  EXPECT_EQ(chunks_per_thread(signature("uint8 x, uint8 y", "uint8 z", "")), 4);
  EXPECT_EQ(chunks_per_thread(signature("float64 x, bool m", "float64 z", "")), 1);
  EXPECT_EQ(chunks_per_thread(signature("float64 a, float64 b, float64 c, float64 d, bool m",
                                        "float64 z", "")), 1);
  EXPECT_EQ(chunks_per_thread(signature("", "bool z", "")), 4);
}

// ------------------------------------------------------------- generation --

TEST(ElementwiseCodegen, VectorKernelStructure) {
  Signature sig = signature("float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)");
  Spec spec;
  spec.vectorized = true;
  std::string src = generate_source(sig, spec, 4, "fused_v32.cu");
  dump("fused_v32.cu", src);
  EXPECT_TRUE(contains(src, "extern \"C\" __global__ void __launch_bounds__(256) fused(const ekw_args ekw_a)"));
  EXPECT_TRUE(contains(src, "static_assert(sizeof(ekw_args) == 288"));
  EXPECT_TRUE(contains(src, "typedef unsigned int ekw_idx;"));
  EXPECT_TRUE(contains(src, "ekw_vec<float> ekw_v0[4]"));
  EXPECT_TRUE(contains(src, "const float x = ekw_in0;"));
  EXPECT_TRUE(contains(src, "float z = ekw_out0;"));
  EXPECT_TRUE(contains(src, "#line 1 \"fused:body\"\nz = x * y + max(x, 0.0f)\n"));
  EXPECT_TRUE(contains(src, "\"fused_v32.cu\""));
  EXPECT_FALSE(contains(src, "ekw_h2f"));  // no conversions without f16
  EXPECT_FALSE(contains(src, "#include"));
  EXPECT_EQ(occurrences(src, "ekw_p2[ekw_j] = ekw_v2[ekw_c];"), 1u);  // the one output stored
  EXPECT_FALSE(contains(src, "ekw_p0[ekw_j] ="));                     // inputs never stored
}

// A kernel that may run as a programmatic dependent: its contiguous form
// waits first, and comes again as <name>_nowait without the wait; both take
// any block size up to max_threads. The strided form has no twin.
TEST(ElementwiseCodegen, WaitingKernelsComeWithANoWaitTwin) {
  Signature sig = signature("float32 x", "float32 z", "z = x");
  sig.wait_prior = true;
  sig.max_threads = 512;
  Spec spec;
  spec.vectorized = true;
  const std::string src = generate_source(sig, spec, 1, "p.cu");
  const size_t main = src.find("void __launch_bounds__(512) fused(const ekw_args ekw_a) {\n");
  const size_t twin = src.find("void __launch_bounds__(512) fused_nowait(const ekw_args ekw_a) {\n");
  ASSERT_NE(main, std::string::npos) << src;
  ASSERT_NE(twin, std::string::npos) << src;
  EXPECT_EQ(occurrences(src, "griddepcontrol.wait"), 1u);
  EXPECT_LT(main, src.find("griddepcontrol.wait"));
  EXPECT_GT(twin, src.find("griddepcontrol.wait"));
  EXPECT_EQ(occurrences(src, "ekw_nt = blockDim.x"), 2u);
  EXPECT_EQ(occurrences(src, "struct alignas"), 1u);  // the vector type once, for both
  spec.vectorized = false;
  const std::string strided = generate_source(sig, spec, 1, "p.cu");
  EXPECT_FALSE(contains(strided, "_nowait"));
  EXPECT_TRUE(contains(strided, "void __launch_bounds__(256) fused("));
  EXPECT_EQ(occurrences(strided, "griddepcontrol.wait"), 1u);
}

TEST(ElementwiseCodegen, LineDirectiveReturnsToTheGeneratedLine) {
  Signature sig = signature("float32 x", "float32 z", "float t = x;\nz = t;");
  Spec spec;
  std::string src = generate_source(sig, spec, 4, "p.cu");
  size_t at = src.find("#line ", src.find("fused:body"));
  ASSERT_NE(at, std::string::npos);
  int claimed = std::atoi(src.c_str() + at + 6);
  int actual = 1;
  for (size_t c = 0; c < at; ++c) actual += src[c] == '\n';
  EXPECT_EQ(claimed, actual + 1);  // the line after the directive
}

TEST(ElementwiseCodegen, StridedKernelDividesPerDim) {
  Signature sig = signature("float32 a, float32 b", "float32 c", "c = a + b");
  for (int rank = 1; rank <= kMaxRank; ++rank)
    for (bool i32 : {true, false}) {
      Spec spec;
      spec.rank = rank;
      spec.index32 = i32;
      std::string src = generate_source(sig, spec, 4, "p.cu");
      dump("strided_" + spec.key() + ".cu", src);
      EXPECT_EQ(occurrences(src, "ekw_q = ekw_r / ekw_s"), size_t(rank - 1)) << spec.key();
      EXPECT_EQ(occurrences(src, "ekw_o2 += ekw_c"), size_t(rank)) << spec.key();
      EXPECT_TRUE(contains(src, i32 ? "typedef int ekw_off;" : "typedef long long ekw_off;"));
      EXPECT_FALSE(contains(src, "ekw_vec"));
    }
}

TEST(ElementwiseCodegen, ConvertsHalfAndBool) {
  Signature sig = signature("float16 h, bfloat16 b, bool m, int8 q", "float16 y, bfloat16 w, bool f",
                            "y = m ? h : b; w = h * q; f = h > b;");
  for (bool vec : {true, false}) {
    Spec spec;
    spec.vectorized = vec;
    spec.rank = 3;
    std::string src = generate_source(sig, spec, chunks_per_thread(sig), "p.cu");
    dump(std::string("mixed_") + spec.key() + ".cu", src);
    EXPECT_TRUE(contains(src, "const float h = ekw_h2f(ekw_in0);"));
    EXPECT_TRUE(contains(src, "const float b = ekw_b2f(ekw_in1);"));
    EXPECT_TRUE(contains(src, "const bool m = (ekw_in2 != 0);"));
    EXPECT_TRUE(contains(src, "const signed char q = ekw_in3;"));
    EXPECT_TRUE(contains(src, "ekw_out0 = ekw_f2h(y);"));
    EXPECT_TRUE(contains(src, "ekw_out1 = ekw_f2b(w);"));
    EXPECT_TRUE(contains(src, "ekw_out2 = (unsigned char)(f ? 1 : 0);"));
    EXPECT_TRUE(contains(src, "cvt.rn.f16.f32"));
  }
}

// Every dtype as input and output, int64 index in the body, both paths: the
// variants a by-hand compile covers.
TEST(ElementwiseCodegen, DumpsEveryDtype) {
  const char *names[] = {"bool",    "uint8",    "int8",    "int16",   "int32",
                         "int64",   "float16",  "bfloat16", "float32", "float64"};
  for (const char *t : names) {
    std::string in = std::string(t) + " x", out = std::string(t) + " z";
    Signature sig = signature(in.c_str(), out.c_str(), "z = x; if (i % 3 == 0) z = x + x;");
    for (bool vec : {true, false}) {
      Spec spec;
      spec.vectorized = vec;
      spec.rank = 2;
      spec.index32 = !vec;
      std::string src = generate_source(sig, spec, chunks_per_thread(sig), "p.cu");
      dump(std::string("dtype_") + t + "_" + spec.key() + ".cu", src);
      EXPECT_TRUE(contains(src, "ekw_element((long long)("));
    }
  }
  Signature none = signature("", "int64 z", "z = i * 2;", "iota");
  Spec spec;
  spec.vectorized = true;
  dump("iota_v32.cu", generate_source(none, spec, 4, "iota_v32.cu"));
}

// Names of any length reach the source whole (nothing goes through a fixed buffer).
TEST(ElementwiseCodegen, LongNamesAreKeptWhole) {
  const std::string in_name(600, 'x'), kernel(700, 'k');
  Signature sig = signature(("float32 " + in_name).c_str(), "float32 z", "z = 1.0f;", kernel.c_str());
  Spec spec;
  std::string src = generate_source(sig, spec, 4, kernel + "_v32.cu");
  EXPECT_TRUE(contains(src, "const float " + in_name + " = ekw_in0;"));
  EXPECT_TRUE(contains(src, ") " + kernel + "(const ekw_args ekw_a) {"));
  EXPECT_TRUE(contains(src, "\"" + kernel + "_v32.cu\"\n"));
}
