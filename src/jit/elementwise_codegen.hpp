// The code generator behind ek_elementwise_*: parses parameter lists, plans a
// launch (collapsed layout, specialisation, argument block) and writes the
// CUDA C++ of one specialisation. Pure C++ with no libek state, so the CPU
// unit test compiles it from source (tests/test_elementwise_codegen.cpp).
//
// Generated kernels take one struct by value, a run of 8-byte words:
//   void *p[P]; long long n; long long shape[8]; long long st[P][8];
// (P = parameters, inputs then outputs; strides in elements, 0 where an
// input is broadcast). pack_args writes the same words on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/layout.hpp"

namespace ek {
namespace ewgen {

constexpr int kMaxParams = 16;
constexpr int kMaxRank = 8;
using ek::kThreads;  // threads per block; grids are capped at ek::kMaxBlocks
static_assert(kMaxRank == kMaxDims, "plans coalesce with layout.hpp");

struct Param {
  int dtype;  // ek_dtype code
  std::string name;
};

struct Signature {
  std::vector<Param> in, out;
  std::string body;
  std::string name;  // the kernel's symbol
  // Internal users (the fused kernels, src/jit/fusion_codegen.cpp): code put
  // before the element function, and 8-byte scalar words appended to the
  // argument struct (after the strides), which the body reads as ekw_sc[k].
  std::string prelude;
  int scalars = 0;
  // The kernel starts with kWaitPrior: it may be launched as a programmatic
  // dependent (jit::launch's `dependent`). The contiguous kernel then also
  // comes without it, as sig.name + kNoWaitSuffix, for launches that are
  // not dependents: on the H100, in blocks of 128 threads, every float32
  // chain of bench/fusion_chain.py took 1264 us with the wait (0.82x
  // torch.compile's speed) and 1038-1048 us without it (1.002-1.005x).
  bool wait_prior = false;
  // The most threads a block of the contiguous kernel may have (its
  // __launch_bounds__); launches pick any block size up to it. The strided
  // kernel's blocks are kThreads.
  int max_threads = kThreads;
};

// A generated kernel's first statements when it may run as a programmatic
// dependent (kernels/pdl.cuh's pdl_trigger, then pdl_wait): the next such
// kernel may be scheduled, and nothing touches memory before the previous
// kernel has finished. No-ops below sm_90 and without the launch attribute.
extern const char kWaitPrior[];
extern const char kNoWaitSuffix[];  // "_nowait"

// "float32 x, int64 y" -> params. Empty (or blank) text is no parameters.
// false with *error naming the offending token on a bad list.
bool parse_params(const char *text, std::vector<Param> *out, std::string *error);
// Rules across both lists: distinct names, at least one output, at most
// kMaxParams in all. false with *error.
bool check_signature(const std::vector<Param> &in, const std::vector<Param> &out,
                     std::string *error);
// A kernel name is a C identifier that is not reserved (see is_reserved).
bool check_kernel_name(const std::string &name, std::string *error);
// C++/CUDA keywords, CUDA built-in variables, `i`, names the generated code
// keeps for itself (prefix ekw_) and names C++ reserves (__x, _X).
bool is_reserved(const std::string &name);
// The dtype code named by an ek_dtype_name string; -1 when unknown.
int dtype_from_name(const std::string &name);

// Elements per vector of the contiguous kernel, by the narrowest operand:
// two (8- or 16-byte accesses) when every operand is 4 bytes or wider, else
// four. On the H100, float32 chains ran at 3.07-3.08 TB/s with two elements
// and one vector per thread against 3.05 with four elements and four vectors
// (fusion_chain.py at 256M, 2026-11-27); bfloat16 needs the wider form.
int vector_elems(int narrowest_elem_size);

// One specialisation: vectorized contiguous loop or strided loop of `rank`
// dims; 32-bit index math when every index and offset fits. vec: elements
// per vector (vector_elems of the operands; fixed by their dtypes, so not
// part of the key).
struct Spec {
  bool vectorized = false;
  int rank = 1;
  bool index32 = true;
  int vec = 4;
  std::string key() const;  // "v32", "s3_64", ...
};

// An operand over the broadcast shape: element strides (0 where broadcast).
struct Operand {
  void *data;
  int elem_size;
  int64_t strides[kMaxRank];
};

struct Plan {
  Spec spec;
  int nops = 0;
  int64_t n = 0;
  int rank = 1;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxParams][kMaxRank] = {};
  void *data[kMaxParams] = {};
};

// Drops size-1 dims, merges dims contiguous in every operand, then picks the
// specialisation. ndim may be 0; ops holds inputs then outputs.
Plan make_plan(int ndim, const int64_t *shape, const std::vector<Operand> &ops);
// Vector chunks each thread keeps in flight (1, 2 or 4): one with two-element
// vectors; else about 32 bytes of input loads per thread, fewer chunks for
// more or wider operands. On the H100 (256M elements, bench/RESULTS.md,
// session 15) a fused bfloat16 chain of two inputs ran at 1.002-1.006x
// torch.compile with two chunks against 0.994-0.997 with four (the earlier
// 128-byte rule); of three inputs, one chunk 1.003x against four 0.999; of
// one input, four chunks 0.99 against two 0.86.
int chunks_per_thread(const Signature &sig);
// The kernel's argument struct as 8-byte words, and its size in bytes.
std::vector<uint64_t> pack_args(const Plan &plan);
size_t args_bytes(int nparams);
// The whole argument struct of a kernel with scalars appended (ekw_args).
size_t args_struct_bytes(int nparams, int scalars);
// 1-D grid for the plan: enough blocks of `threads` (the contiguous kernel's
// choice; the strided kernel's are kThreads) to cover n once, at most
// kMaxBlocks (the kernels loop over the rest); at least 1 (grid_for).
unsigned grid_blocks(const Plan &plan, int chunks, int threads = kThreads);

// The part of every kernel's source before the kernel itself: head (a
// comment, where #line counting starts), conversions,
// sig.prelude, the argument struct ekw_args and the element function
// ekw_element(i, inputs..., outputs&..., scalars) (a fused reduction writes
// its own kernel around it).
std::string generate_element(const Signature &sig, const std::string &program, const std::string &head);
// CUDA C++ source of one specialisation; the kernel is extern "C" sig.name.
// program is the file name NVRTC reports lines against.
std::string generate_source(const Signature &sig, const Spec &spec, int chunks,
                            const std::string &program);

}  // namespace ewgen
}  // namespace ek
