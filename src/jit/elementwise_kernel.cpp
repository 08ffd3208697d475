// ek_elementwise_*: kernels built from an expression (ek.h). Here: argument
// checks, broadcasting, outputs and aliasing, the per-builder cache of
// specialisations. elementwise_codegen writes each specialisation's CUDA C++,
// compiled and launched through the public module API only, so the module
// layer caches the image in memory and on disk like any user module.
//
// Order of checks in ek_elementwise_create: the parameter lists and the name
// are parsed before the device is looked at, so a CPU context reports a bad
// list as EK_ERROR_INVALID_ARGUMENT and a good one as EK_ERROR_NOT_SUPPORTED.
#include <map>
#include <string>
#include <vector>

#include "jit/elementwise_codegen.hpp"
#include "jit/module.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"

namespace ek {
constexpr uint32_t kElementwiseMagic = 0x454b4557;  // "EKEW"
}  // namespace ek

struct ek_elementwise_s {
  uint32_t magic = ek::kElementwiseMagic;
  ek_context ctx = nullptr;
  ek::ewgen::Signature sig;
  int chunks = 1;                            // vector chunks per thread (codegen)
  std::mutex mutex;                          // guards cache
  std::map<std::string, ek_kernel> cache;    // by Spec::key(); each keeps its module loaded
};

namespace ek {
namespace {

using ewgen::Param;

ek_status check_elementwise(ek_elementwise k, const char *name) {
  return check_handle(k, kElementwiseMagic, "ek_elementwise", name);
}

ek_status parse_signature(const char *in_params, const char *out_params, const char *body,
                          const char *name, ewgen::Signature *sig) {
  std::string error;
  EK_CHECK(ewgen::parse_params(in_params, &sig->in, &error), EK_ERROR_INVALID_ARGUMENT,
           "in_params \"%s\": %s", in_params, error.c_str());
  EK_CHECK(ewgen::parse_params(out_params, &sig->out, &error), EK_ERROR_INVALID_ARGUMENT,
           "out_params \"%s\": %s", out_params, error.c_str());
  EK_CHECK(ewgen::check_signature(sig->in, sig->out, &error), EK_ERROR_INVALID_ARGUMENT, "%s",
           error.c_str());
  sig->name = name ? name : "ek_elementwise";
  EK_CHECK(ewgen::check_kernel_name(sig->name, &error), EK_ERROR_INVALID_ARGUMENT,
           "name: %s", error.c_str());
  sig->body = body;
  return EK_SUCCESS;
}

std::string operand_name(const char *list, int j, const Param &p) {
  return std::string(list) + "[" + std::to_string(j) + "] (" + p.name + ")";
}

ek_status check_counts(const ek_elementwise_s *k, const ek_tensor *inputs, int n_inputs,
                       const ek_tensor *outputs, int n_outputs) {
  EK_CHECK(n_inputs == static_cast<int>(k->sig.in.size()), EK_ERROR_INVALID_ARGUMENT,
           "n_inputs is %d; kernel %s declares %zu inputs", n_inputs, k->sig.name.c_str(),
           k->sig.in.size());
  EK_CHECK(n_outputs == static_cast<int>(k->sig.out.size()), EK_ERROR_INVALID_ARGUMENT,
           "n_outputs is %d; kernel %s declares %zu outputs", n_outputs, k->sig.name.c_str(),
           k->sig.out.size());
  EK_CHECK(n_inputs == 0 || inputs, EK_ERROR_NULL_POINTER, "inputs is NULL");
  EK_CHECK_NULL(outputs);
  return EK_SUCCESS;
}

// A tensor handed in for parameter p: live, of k's context, of p's dtype.
ek_status check_operand(const ek_elementwise_s *k, ek_tensor t, const char *list, int j,
                        const Param &p) {
  const std::string what = operand_name(list, j, p);
  EK_FORWARD(check_tensor(t, what.c_str()));
  EK_CHECK(t->storage->ctx == k->ctx, EK_ERROR_INVALID_ARGUMENT,
           "%s belongs to another context than the kernel", what.c_str());
  EK_CHECK(t->dtype == p.dtype, EK_ERROR_DTYPE, "%s has dtype %s; parameter %s is %s",
           what.c_str(), ek_dtype_name(t->dtype), p.name.c_str(),
           ek_dtype_name(static_cast<ek_dtype>(p.dtype)));
  return EK_SUCCESS;
}

// The inputs broadcast together; with no inputs, the shape of the first
// given output (the others are checked against it later).
ek_status launch_shape(const ek_elementwise_s *k, const ek_tensor *inputs,
                       const ek_tensor *outputs, ek_tensor_s *shape) {
  shape->ndim = 0;
  for (size_t j = 0; j < k->sig.in.size(); ++j) {
    int ndim = 0;
    int64_t dims[EK_MAX_DIMS];
    EK_FORWARD(broadcast_shapes(shape, inputs[j], &ndim, dims));
    shape->ndim = ndim;
    std::copy(dims, dims + ndim, shape->shape);
  }
  if (!k->sig.in.empty()) return EK_SUCCESS;
  for (size_t j = 0; j < k->sig.out.size(); ++j)
    if (outputs[j]) {
      EK_FORWARD(check_tensor(outputs[j], operand_name("outputs", int(j), k->sig.out[j]).c_str()));
      shape->ndim = outputs[j]->ndim;
      std::copy(outputs[j]->shape, outputs[j]->shape + shape->ndim, shape->shape);
      return EK_SUCCESS;
    }
  return fail(EK_ERROR_INVALID_ARGUMENT,
              "kernel %s has no inputs: give an output to set the shape", k->sig.name.c_str());
}

// The outputs of one launch: given ones checked, NULL ones created. Created
// tensors are released unless commit() hands them to the caller.
class Outputs {
 public:
  explicit Outputs(size_t n) : t_(n, nullptr), created_(n, false) {}
  ~Outputs() {
    for (size_t j = 0; j < t_.size(); ++j)
      if (created_[j]) ek_tensor_release(t_[j]);
  }
  Outputs(const Outputs &) = delete;
  Outputs &operator=(const Outputs &) = delete;

  ek_status prepare(const ek_elementwise_s *k, ek_stream s, const ek_tensor_s &shape,
                    const ek_tensor *given) {
    for (size_t j = 0; j < t_.size(); ++j) {
      const Param &p = k->sig.out[j];
      if (!given[j]) {
        EK_FORWARD(new_tensor(k->ctx, shape.ndim, shape.shape, static_cast<ek_dtype>(p.dtype), s,
                              &t_[j]));
        created_[j] = true;
        continue;
      }
      EK_FORWARD(check_given(k, given[j], int(j), shape));
      t_[j] = given[j];
    }
    return EK_SUCCESS;
  }
  ek_tensor operator[](size_t j) const { return t_[j]; }
  void commit(ek_tensor *outputs) {
    for (size_t j = 0; j < t_.size(); ++j) {
      outputs[j] = t_[j];
      created_[j] = false;
    }
  }

 private:
  static ek_status check_given(const ek_elementwise_s *k, ek_tensor o, int j,
                               const ek_tensor_s &shape) {
    const Param &p = k->sig.out[j];
    EK_FORWARD(check_operand(k, o, "outputs", j, p));
    const std::string what = operand_name("outputs", j, p);
    bool same = o->ndim == shape.ndim;
    for (int d = 0; same && d < o->ndim; ++d) same = o->shape[d] == shape.shape[d];
    EK_CHECK(same, EK_ERROR_SHAPE, "%s has shape %s; the inputs broadcast to %s", what.c_str(),
             format_shape(o->ndim, o->shape).c_str(),
             format_shape(shape.ndim, shape.shape).c_str());
    EK_CHECK(!writes_overlap(o), EK_ERROR_INVALID_ARGUMENT,
             "%s is a broadcast view (a stride-0 dim): its elements alias", what.c_str());
    return EK_SUCCESS;
  }

  std::vector<ek_tensor> t_;
  std::vector<bool> created_;
};

// An output may be exactly an input (each element is read, then written, by
// one thread) but must not touch another part of any input or output.
ek_status check_aliasing(const ek_elementwise_s *k, const ek_tensor *inputs, const Outputs &outs) {
  for (size_t o = 0; o < k->sig.out.size(); ++o) {
    const TensorDesc od = tensor_desc(outs[o]);
    for (size_t j = 0; j < k->sig.in.size(); ++j) {
      TensorDesc id{};
      EK_FORWARD(broadcast_to(inputs[j], outs[o], &id));
      EK_CHECK(same_layout(od, id) || !ranges_overlap(od, id), EK_ERROR_INVALID_ARGUMENT,
               "%s overlaps %s without being the same elements: an output may be exactly an "
               "input, never part of one", operand_name("outputs", int(o), k->sig.out[o]).c_str(),
               operand_name("inputs", int(j), k->sig.in[j]).c_str());
    }
    for (size_t p = 0; p < o; ++p)
      EK_CHECK(!ranges_overlap(od, tensor_desc(outs[p])), EK_ERROR_INVALID_ARGUMENT,
               "%s overlaps %s", operand_name("outputs", int(o), k->sig.out[o]).c_str(),
               operand_name("outputs", int(p), k->sig.out[p]).c_str());
  }
  return EK_SUCCESS;
}

// The compiled kernel of a specialisation: from the builder's cache, else
// generated and compiled (the module layer finds it in its memory or disk
// cache when this source was compiled before). Compile errors come back as
// the module layer reports them (EK_ERROR_COMPILE with NVRTC's log; line
// numbers of the body read "<name>:body(N)").
ek_status get_kernel(ek_elementwise_s *k, const ewgen::Spec &spec, ek_kernel *out) {
  std::lock_guard<std::mutex> lock(k->mutex);  // one compilation per specialisation
  const std::string key = spec.key();
  auto it = k->cache.find(key);
  if (it != k->cache.end()) {
    *out = it->second;
    return EK_SUCCESS;
  }
  const std::string program = k->sig.name + "_" + key + ".cu";
  const std::string source = ewgen::generate_source(k->sig, spec, k->chunks, program);
  ek_module m = nullptr;
  EK_FORWARD(ek_module_from_source(k->ctx, source.c_str(), program.c_str(), nullptr, 0, &m));
  // The one parameter is the struct the generator wrote: no driver probing.
  const int nparams = static_cast<int>(k->sig.in.size() + k->sig.out.size());
  const size_t bytes = ewgen::args_struct_bytes(nparams, k->sig.scalars);
  const jit::KnownParams known{{bytes}, bytes};
  ek_kernel kernel = nullptr;
  ek_status st = module_kernel(m, k->sig.name.c_str(), &known, &kernel);
  ek_module_release(m);  // the kernel keeps it loaded
  EK_FORWARD(st);
  k->cache.emplace(key, kernel);
  *out = kernel;
  return EK_SUCCESS;
}

ewgen::Operand operand(const TensorDesc &d) {
  ewgen::Operand op{d.data, static_cast<int>(dtype_size(d.dtype)), {}};
  std::copy(d.strides, d.strides + d.ndim, op.strides);
  return op;
}

ek_status run(ek_elementwise_s *k, ek_stream s, const ek_tensor *inputs, const Outputs &outs,
              const ek_tensor_s &shape) {
  std::vector<ewgen::Operand> ops;
  for (size_t j = 0; j < k->sig.in.size(); ++j) {
    TensorDesc d{};
    EK_FORWARD(broadcast_to(inputs[j], outs[0], &d));
    ops.push_back(operand(d));
  }
  for (size_t j = 0; j < k->sig.out.size(); ++j) ops.push_back(operand(tensor_desc(outs[j])));
  const ewgen::Plan plan = ewgen::make_plan(shape.ndim, shape.shape, ops);
  ek_kernel kernel = nullptr;
  EK_FORWARD(get_kernel(k, plan.spec, &kernel));
  const std::vector<uint64_t> words = ewgen::pack_args(plan);
  const ek_kernel_arg arg{words.data(), words.size() * sizeof(uint64_t)};
  const unsigned grid[3] = {ewgen::grid_blocks(plan, k->chunks), 1, 1};
  const unsigned block[3] = {ewgen::kThreads, 1, 1};
  return ek_kernel_launch(s, kernel, grid, block, 0, &arg, 1);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_elementwise_create(ek_context ctx, const char *in_params,
                                       const char *out_params, const char *body,
                                       const char *name, ek_elementwise *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(in_params);
  EK_CHECK_NULL(out_params);
  EK_CHECK_NULL(body);
  EK_CHECK_NULL(out);
  auto k = std::make_unique<ek_elementwise_s>();
  EK_FORWARD(parse_signature(in_params, out_params, body, name, &k->sig));
  EK_CHECK(ctx->is_cuda(), EK_ERROR_NOT_SUPPORTED,
           "elementwise kernels are compiled for a CUDA device (NVRTC); ctx is a CPU context");
  k->ctx = ctx;
  k->chunks = ewgen::chunks_per_thread(k->sig);
  ctx->live_objects++;
  handle_created();
  *out = k.release();
  return EK_SUCCESS;
}

EK_API ek_status ek_elementwise_launch(ek_stream stream, ek_elementwise k,
                                       const ek_tensor *inputs, int n_inputs,
                                       ek_tensor *outputs, int n_outputs) {
  EK_API_ENTRY;
  EK_FORWARD(check_elementwise(k, "k"));
  EK_FORWARD(check_counts(k, inputs, n_inputs, outputs, n_outputs));
  for (int j = 0; j < n_inputs; ++j)
    EK_FORWARD(check_operand(k, inputs[j], "inputs", j, k->sig.in[j]));
  OpProfile profile("ek_elementwise", k->sig.name.c_str(), k->ctx, stream, inputs, n_inputs,
                    outputs, n_outputs);
  ek_tensor_s shape;  // only ndim and shape are used
  EK_FORWARD(launch_shape(k, inputs, outputs, &shape));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(k->ctx, stream, &s));
  Outputs outs(k->sig.out.size());
  EK_FORWARD(outs.prepare(k, s, shape, outputs));
  if (tensor_numel(&shape) > 0) {  // empty: outputs only, nothing compiled or launched
    EK_FORWARD(check_aliasing(k, inputs, outs));
    EK_FORWARD(run(k, s, inputs, outs, shape));
  }
  outs.commit(outputs);
  return EK_SUCCESS;
}

EK_API ek_status ek_elementwise_destroy(ek_elementwise k) {
  EK_API_ENTRY;
  if (!k) return EK_SUCCESS;
  EK_FORWARD(check_elementwise(k, "k"));
  // Launches may still be running the kernels' code: unload it after them.
  if (!k->cache.empty()) EK_FORWARD(ek_context_synchronize(k->ctx));
  for (auto &entry : k->cache) ek_kernel_release(entry.second);
  ek_context ctx = k->ctx;
  k->magic = kDeadMagic;
  delete k;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

}  // extern "C"
