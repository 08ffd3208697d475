// The context's profiler (ek_profiler_*): every public op records a scope.
// When the profiler is off a scope costs one atomic load.
#pragma once

#include "core/internal.hpp"

#include <initializer_list>
#include <vector>

namespace ek {

class Profiler;

// One op or kernel launch, from just after its arguments were checked to its
// return. Device time runs between two events recorded on the op's stream.
class OpProfile {
 public:
  OpProfile(const char *function, const char *detail, ek_context ctx, ek_stream stream,
            std::initializer_list<ek_tensor> inputs, std::initializer_list<ek_tensor *> outputs);
  // Array form (ek_elementwise_launch): outputs[i] is read when the op returns.
  OpProfile(const char *function, const char *detail, ek_context ctx, ek_stream stream,
            const ek_tensor *inputs, int n_inputs, const ek_tensor *outputs, int n_outputs);
  ~OpProfile();
  OpProfile(const OpProfile &) = delete;
  OpProfile &operator=(const OpProfile &) = delete;

  static constexpr int kMaxListed = 4;

 private:
  void begin(const char *function, const char *detail, ek_context ctx, ek_stream stream);
  void describe(std::string *args) const;

  Profiler *profiler_ = nullptr;  // null: not recording
  const char *function_ = nullptr;
  const char *detail_ = nullptr;
  ek_stream stream_ = nullptr;
  uint64_t session_ = 0;
  uint64_t failures_ = 0;
  double host_start_us_ = 0;
  void *start_event_ = nullptr;
  ek_tensor inputs_[kMaxListed] = {};
  int n_inputs_ = 0;
  ek_tensor *outputs_[kMaxListed] = {};
  const ek_tensor *output_array_ = nullptr;
  int n_outputs_ = 0;
};

// Reports over a stopped session (src/core/profiler_report.cpp).
std::string profile_summary(const std::vector<ek_profile_record> &records, uint64_t dropped);
ek_status write_chrome_trace(const std::vector<ek_profile_record> &records, const char *path);

// Releases the context's profiler and its events (context destruction).
void destroy_profiler(ek_context ctx);

// Names of the ops selected by enum, for records ("binary" + "add").
const char *unary_op_name(int op);
const char *binary_op_name(int op);
const char *reduce_op_name(int op);
const char *random_op_name(int op);

}  // namespace ek

// Declared after a public op has checked its handles, once ctx is known.
#define EK_PROFILE_OP(detail, ctx, stream, inputs, outputs) \
  ::ek::OpProfile ek_profile_(__func__, (detail), (ctx), (stream), inputs, outputs)
// Where the op's checks live in a helper shared by several entry points.
#define EK_PROFILE_NAMED(function, detail, ctx, stream, inputs, outputs) \
  ::ek::OpProfile ek_profile_((function), (detail), (ctx), (stream), inputs, outputs)
#define EK_IN(...) std::initializer_list<ek_tensor>{__VA_ARGS__}
#define EK_OUT(...) std::initializer_list<ek_tensor *>{__VA_ARGS__}
