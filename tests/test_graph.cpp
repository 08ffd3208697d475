// CUDA graphs (ek.h's graphs section): capture of each op family, replay on
// new inputs, graph pools (private, shared, freed), capture errors, random
// numbers across replays, index errors found by a replay, four threads
// capturing at once. On the CPU backend capture is EK_ERROR_NOT_SUPPORTED.
// The cases named Sanitizer* are the subset meant for compute-sanitizer.
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;

namespace {

struct Stream {
  ek_stream s = nullptr;
  ~Stream() { ek_stream_destroy(s); }
  operator ek_stream() const { return s; }
};
struct Graph {
  ek_graph g = nullptr;
  ~Graph() { ek_graph_destroy(g); }
  operator ek_graph() const { return g; }
};
struct GraphPool {
  ek_graph_pool p = nullptr;
  ~GraphPool() { ek_graph_pool_destroy(p); }
  operator ek_graph_pool() const { return p; }
};

const char *kScale = R"(
extern "C" __global__ void scale(int n, float a, float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
})";

}  // namespace

class GraphTest : public ektest::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    EK_OK(ek_stream_create(ctx, &stream.s));
  }
  void TearDown() override {
    ek_stream_destroy(stream.s);
    stream.s = nullptr;
    DeviceTest::TearDown();
  }
  bool cuda() const { return GetParam() == EK_CUDA; }
  ek_tensor filled(const ektest::Shape &shape, double v) {
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_empty(stream, ctx, int(shape.size()), shape.data(), EK_FLOAT32, &t),
              EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(ek_fill(stream, ek_scalar_float(v), t), EK_SUCCESS) << ek_last_error();
    return t;
  }
  std::vector<float> host(ek_tensor t) {
    EXPECT_EQ(ek_stream_synchronize(stream), EK_SUCCESS) << ek_last_error();
    return ektest::to_host<float>(t);
  }
  void begin(ek_graph_pool pool = nullptr, ek_capture_mode mode = EK_CAPTURE_GLOBAL) {
    ASSERT_EQ(ek_graph_capture_begin(stream, pool, mode), EK_SUCCESS) << ek_last_error();
  }
  void end(Graph *g) { ASSERT_EQ(ek_graph_capture_end(stream, &g->g), EK_SUCCESS) << ek_last_error(); }
  std::string snapshot() {
    size_t length = 0;
    EXPECT_EQ(ek_memory_get_snapshot_json(ctx, nullptr, 0, &length), EK_SUCCESS);
    std::string json(length + 1, '\0');
    EXPECT_EQ(ek_memory_get_snapshot_json(ctx, &json[0], json.size(), &length), EK_SUCCESS);
    json.resize(length);
    return json;
  }
  void launch(ek_graph g) { ASSERT_EQ(ek_graph_launch(stream, g), EK_SUCCESS) << ek_last_error(); }
  Stream stream;
};
EK_INSTANTIATE_DEVICES(GraphTest);

#define CUDA_ONLY()                                                      \
  do {                                                                   \
    if (!cuda()) GTEST_SKIP() << "capture needs CUDA (the CPU case is CpuRefusesCapture)"; \
  } while (0)

TEST_P(GraphTest, CpuRefusesCapture) {
  if (cuda()) GTEST_SKIP() << "CPU backend only";
  EK_FAILS(ek_graph_capture_begin(stream, nullptr, EK_CAPTURE_GLOBAL), EK_ERROR_NOT_SUPPORTED,
           "ek_graph_capture_begin: graph capture needs a CUDA context");
  ek_graph g = nullptr;
  EK_FAILS(ek_graph_capture_end(stream, &g), EK_ERROR_NOT_SUPPORTED, "CUDA context");
  ek_graph_pool p = nullptr;
  EK_FAILS(ek_graph_pool_create(ctx, &p), EK_ERROR_NOT_SUPPORTED, "ek_graph_pool_create");
  int capturing = 1;
  EK_OK(ek_stream_is_capturing(stream, &capturing));
  EXPECT_EQ(capturing, 0);
}

TEST_P(GraphTest, BadInput) {
  EK_FAILS(ek_graph_capture_begin(nullptr, nullptr, EK_CAPTURE_GLOBAL), EK_ERROR_NULL_POINTER,
           "stream is NULL");
  EK_FAILS(ek_graph_capture_begin(stream, nullptr, static_cast<ek_capture_mode>(7)),
           EK_ERROR_INVALID_ARGUMENT, "unknown capture mode 7");
  EK_FAILS(ek_graph_capture_end(stream, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_graph_launch(nullptr, nullptr), EK_ERROR_NULL_POINTER, "graph is NULL");
  EK_FAILS(ek_graph_upload(nullptr, nullptr), EK_ERROR_NULL_POINTER, "graph is NULL");
  EK_FAILS(ek_graph_pool_create(nullptr, nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_graph_pool_get_stats(nullptr, nullptr), EK_ERROR_NULL_POINTER, "pool is NULL");
  EK_FAILS(ek_stream_is_capturing(stream, nullptr), EK_ERROR_NULL_POINTER, "capturing is NULL");
  EK_OK(ek_graph_destroy(nullptr));
  EK_OK(ek_graph_pool_destroy(nullptr));
  if (!cuda()) return;
  ek_graph g = nullptr;
  EK_FAILS(ek_graph_capture_end(stream, &g), EK_ERROR_CAPTURE, "not capturing");
  EXPECT_EQ(g, nullptr);
}

TEST_P(GraphTest, SanitizerMlpStepReplaysOnNewInputs) {
  CUDA_ONLY();
  Tensor x(filled({64, 512}, 0.5)), w(filled({512, 512}, 0.01)), b(filled({512}, 0.25));
  Tensor h, y, s;
  Graph g;
  begin();
  int capturing = 0;
  EK_OK(ek_stream_is_capturing(stream, &capturing));
  EXPECT_EQ(capturing, 1);
  EK_OK(ek_matmul(stream, x, w, h.out()));                         // cuBLAS
  EK_OK(ek_binary(stream, EK_BINARY_ADD, h, b, y.out()));          // broadcast elementwise
  EK_OK(ek_unary(stream, EK_UNARY_GELU, y, y.out()));              // in place
  int dim = 1;
  EK_OK(ek_reduce(stream, EK_REDUCE_SUM, y, 1, &dim, 0, s.out()));  // reduction
  end(&g);
  EK_OK(ek_stream_is_capturing(stream, &capturing));
  EXPECT_EQ(capturing, 0);
  for (double v : {0.5, -1.0, 2.0}) {
    Tensor src(filled({64, 512}, v));
    EK_OK(ek_copy(stream, src, x));  // new inputs, in place
    launch(g);
    Tensor eh, ey, es;  // the same step, eagerly
    EK_OK(ek_matmul(stream, x, w, eh.out()));
    EK_OK(ek_binary(stream, EK_BINARY_ADD, eh, b, ey.out()));
    EK_OK(ek_unary(stream, EK_UNARY_GELU, ey, ey.out()));
    EK_OK(ek_reduce(stream, EK_REDUCE_SUM, ey, 1, &dim, 0, es.out()));
    std::vector<float> got = host(s), want = host(es);
    ASSERT_EQ(got.size(), 64u);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_FLOAT_EQ(got[i], want[i]) << "row " << i;
  }
}

TEST_P(GraphTest, IndexingUserKernelsAndUpload) {
  CUDA_ONLY();
  ek_module m = nullptr;
  EK_OK(ek_module_from_source(ctx, kScale, "graph_scale.cu", nullptr, 0, &m));
  ek_kernel k = nullptr;
  EK_OK(ek_module_get_kernel(m, "scale", &k));  // compiled before the capture
  Tensor x(filled({1000}, 1.0));
  const int64_t idx[3] = {2, 0, 999}, three = 3;
  Tensor index;
  EK_OK(ek_tensor_from_host(stream, ctx, 1, &three, EK_INT64, idx, index.out()));
  void *px = nullptr;
  EK_OK(ek_tensor_get_data(x, &px));
  int n = 1000;
  float a = 3.0f;
  ek_kernel_arg args[3] = {{&n, sizeof n}, {&a, sizeof a}, {&px, sizeof px}};
  const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  Tensor picked;
  Graph g;
  begin();
  EK_OK(ek_kernel_launch(stream, k, grid, block, 0, args, 3));
  EK_OK(ek_index_select(stream, x, 0, index, picked.out()));  // checked gather: no wait
  end(&g);
  EK_OK(ek_graph_upload(stream, g));
  launch(g);
  launch(g);
  std::vector<float> got = host(picked);
  EXPECT_EQ(got, (std::vector<float>{9, 9, 9}));
  ek_kernel_release(k);
  ek_module_release(m);
}

TEST_P(GraphTest, ReplayReportsBadIndexAtTheNextSynchronize) {
  CUDA_ONLY();
  Tensor x(filled({10}, 1.0));
  const int64_t good[2] = {1, 2}, bad[2] = {1, 10}, two = 2;
  Tensor index, bad_index, picked;
  EK_OK(ek_tensor_from_host(stream, ctx, 1, &two, EK_INT64, good, index.out()));
  EK_OK(ek_tensor_from_host(stream, ctx, 1, &two, EK_INT64, bad, bad_index.out()));
  Graph g;
  begin();
  EK_OK(ek_index_select(stream, x, 0, index, picked.out()));
  end(&g);
  launch(g);
  EK_OK(ek_stream_synchronize(stream));
  EK_OK(ek_copy(stream, bad_index, index));
  launch(g);
  EK_FAILS(ek_stream_synchronize(stream), EK_ERROR_INDEX, "a graph replay");
  EK_OK(ek_stream_synchronize(stream));  // reported once
}

TEST_P(GraphTest, SynchronizingCallsFailAndTheCaptureSurvives) {
  CUDA_ONLY();
  Tensor x(filled({256}, 2.0)), y;
  Tensor mask;
  EK_OK(ek_binary_scalar(stream, EK_BINARY_GT, x, ek_scalar_float(1.0), 0, mask.out()));
  Graph g;
  begin();
  EK_OK(ek_binary_scalar(stream, EK_BINARY_MUL, x, ek_scalar_float(3.0), 0, y.out()));
  float out[256];
  EK_FAILS(ek_stream_synchronize(stream), EK_ERROR_CAPTURE, "ek_stream_synchronize");
  EK_FAILS(ek_tensor_to_host(stream, y, out, sizeof out), EK_ERROR_CAPTURE, "capturing");
  Tensor selected;
  EK_FAILS(ek_masked_select(stream, x, mask, selected.out()), EK_ERROR_CAPTURE, "capturing");
  EK_FAILS(ek_memory_empty_cache(ctx), EK_ERROR_CAPTURE, "ek_memory_empty_cache");
  EK_FAILS(ek_context_synchronize(ctx), EK_ERROR_CAPTURE, "ek_context_synchronize");
  EK_FAILS(ek_graph_capture_begin(stream, nullptr, EK_CAPTURE_GLOBAL), EK_ERROR_CAPTURE,
           "already");
  end(&g);  // still a valid capture
  launch(g);
  std::vector<float> got = host(y);
  EXPECT_EQ(got[0], 6.0f);
  EXPECT_EQ(got[255], 6.0f);
}

TEST_P(GraphTest, RandomDrawsNewNumbersEachReplayAsEagerWould) {
  CUDA_ONLY();
  const int64_t n = 4096;
  Tensor t, eager;
  EK_OK(ek_tensor_empty(stream, ctx, 1, &n, EK_FLOAT32, t.out()));
  EK_OK(ek_tensor_empty(stream, ctx, 1, &n, EK_FLOAT32, eager.out()));
  EK_OK(ek_random_set_seed(ctx, 1234));
  Graph g;
  begin();
  EK_OK(ek_random(stream, EK_RANDOM_UNIFORM, ek_scalar_float(0), ek_scalar_float(1), nullptr, t));
  end(&g);
  ek_philox_state st = EK_PHILOX_STATE_INIT;
  EK_OK(ek_random_get_state(ctx, &st));
  EXPECT_EQ(st.offset, 0u);  // the capture drew nothing
  launch(g);
  std::vector<float> first = host(t);
  EK_OK(ek_random_get_state(ctx, &st));
  EXPECT_EQ(st.offset, uint64_t(n));  // the replay advanced the generator
  EK_OK(ek_random_set_seed(ctx, 1234));
  EK_OK(ek_random(stream, EK_RANDOM_UNIFORM, ek_scalar_float(0), ek_scalar_float(1), nullptr,
                  eager));
  EXPECT_EQ(first, host(eager));  // the same numbers as eager at that point
  launch(g);
  std::vector<float> second = host(t);
  EXPECT_NE(first, second);
  EK_OK(ek_random(stream, EK_RANDOM_UNIFORM, ek_scalar_float(0), ek_scalar_float(1), nullptr,
                  eager));
  EXPECT_NE(second, host(eager));  // the replay took counters n..2n, eager 2n..3n
}

TEST_P(GraphTest, TwoGraphsShareAPoolAndItIsFreedWithThem) {
  CUDA_ONLY();
  Tensor x(filled({1024}, 1.0));
  Tensor y1, y2;
  {
    GraphPool pool;
    EK_OK(ek_graph_pool_create(ctx, &pool.p));
    Graph g1, g2;
    begin(pool);
    EK_OK(ek_binary_scalar(stream, EK_BINARY_MUL, x, ek_scalar_float(2.0), 0, y1.out()));
    end(&g1);
    begin(pool);
    EK_OK(ek_binary_scalar(stream, EK_BINARY_ADD, y1, ek_scalar_float(1.0), 0, y2.out()));
    end(&g2);
    ek_memory_stats st = EK_MEMORY_STATS_INIT;
    EK_OK(ek_graph_pool_get_stats(pool, &st));
    EXPECT_EQ(st.active_blocks, 2u);
    EXPECT_GT(st.reserved_bytes, 0u);
    launch(g1);
    launch(g2);
    EXPECT_EQ(host(y2)[1023], 3.0f);
    EXPECT_NE(snapshot().find("\"graph_pools\": [\n  {\"id\": "), std::string::npos);
  }
  ek_tensor_release(y1.t);  // the graph pool's last blocks
  ek_tensor_release(y2.t);
  y1.t = y2.t = nullptr;
  EXPECT_NE(snapshot().find("\"graph_pools\": []"), std::string::npos) << snapshot();
}

TEST_P(GraphTest, TempsAreReusedInsideACaptureAndEagerBlocksAreKept) {
  CUDA_ONLY();
  Tensor x(filled({1 << 16}, 1.0));
  ek_memory_stats before = EK_MEMORY_STATS_INIT, after = EK_MEMORY_STATS_INIT;
  Tensor doomed(filled({1 << 16}, 5.0));
  Tensor out;
  Graph g;
  EK_OK(ek_memory_get_stats(ctx, &before));
  begin();
  for (int i = 0; i < 8; ++i) {
    Tensor tmp;  // freed each iteration: the next one reuses its block
    EK_OK(ek_binary_scalar(stream, EK_BINARY_ADD, x, ek_scalar_float(i), 0, tmp.out()));
  }
  EK_OK(ek_binary(stream, EK_BINARY_ADD, x, doomed, out.out()));
  ek_tensor_release(doomed.t);  // read by the graph: kept until it goes
  doomed.t = nullptr;
  end(&g);
  EK_OK(ek_memory_get_stats(ctx, &after));
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  launch(g);
  EXPECT_EQ(host(out)[0], 6.0f);
  // A tensor of the graph pool used on another stream (a DLPack consumer's).
  ek_stream other = nullptr;
  EK_OK(ek_stream_create(ctx, &other));
  EK_OK(ek_tensor_record_stream(other, out));
  EK_OK(ek_stream_destroy(other));
  ek_graph_destroy(g.g);
  g.g = nullptr;
  EK_OK(ek_memory_get_stats(ctx, &after));
  EXPECT_LT(after.allocated_bytes, before.allocated_bytes);
}

TEST_P(GraphTest, FourThreadsCaptureAtOnceThreadLocal) {
  CUDA_ONLY();
  std::vector<std::string> errors(4);
  std::vector<float> results(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ek_stream s = nullptr;
      ek_tensor x = nullptr, y = nullptr;
      ek_graph g = nullptr;
      const int64_t n = 4096;
      auto check = [&](ek_status st, const char *what) {
        if (st != EK_SUCCESS && errors[t].empty()) errors[t] = std::string(what) + ": " + ek_last_error();
        return st == EK_SUCCESS;
      };
      if (check(ek_stream_create(ctx, &s), "stream") &&
          check(ek_tensor_empty(s, ctx, 1, &n, EK_FLOAT32, &x), "empty") &&
          check(ek_fill(s, ek_scalar_float(t), x), "fill") &&
          check(ek_graph_capture_begin(s, nullptr, EK_CAPTURE_THREAD_LOCAL), "begin")) {
        bool ok = check(ek_binary_scalar(s, EK_BINARY_ADD, x, ek_scalar_float(10), 0, &y), "add");
        ok = check(ek_unary(s, EK_UNARY_NEG, y, &y), "neg") && ok;
        if (check(ek_graph_capture_end(s, &g), "end") && ok) {
          for (int r = 0; r < 3; ++r) check(ek_graph_launch(s, g), "launch");
          float v = 0;
          ek_tensor first = nullptr;
          if (check(ek_view_slice(y, 0, 0, 1, 1, &first), "slice")) {
            check(ek_tensor_to_host(s, first, &v, sizeof v), "to_host");
            ek_tensor_release(first);
          }
          results[t] = v;
        }
      }
      ek_graph_destroy(g);
      ek_tensor_release(y);
      ek_tensor_release(x);
      ek_stream_destroy(s);
    });
  }
  for (auto &th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(results[t], -(t + 10.0f)) << "thread " << t;
  }
}

TEST_P(GraphTest, ElementwiseBuilderAfterAWarmCompileAndMissesRefused) {
  CUDA_ONLY();
  ek_elementwise k = nullptr;
  EK_OK(ek_elementwise_create(ctx, "float32 x", "float32 z", "z = x * 2.0f + 1.0f", "graph_axpb",
                              &k));
  Tensor x(filled({300}, 1.0));
  ek_tensor in[1] = {x};
  ek_tensor warm[1] = {nullptr};
  EK_OK(ek_elementwise_launch(stream, k, in, 1, warm, 1));  // compiles: not in a capture
  ek_tensor_release(warm[0]);
  // A body never compiled before (a fresh constant): a kernel-cache miss.
  const long long fresh =
      std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007;
  const std::string body = "z = x + " + std::to_string(fresh) + ".0f";
  ek_elementwise miss = nullptr;
  EK_OK(ek_elementwise_create(ctx, "float32 x", "float32 z", body.c_str(), "graph_miss", &miss));
  ek_tensor out[1] = {nullptr}, never[1] = {nullptr};
  Graph g;
  begin();
  EK_OK(ek_elementwise_launch(stream, k, in, 1, out, 1));
  EK_FAILS(ek_elementwise_launch(stream, miss, in, 1, never, 1), EK_ERROR_CAPTURE, "NVRTC");
  end(&g);
  Tensor y(out[0]);
  Tensor src(filled({300}, 4.0));
  EK_OK(ek_copy(stream, src, x));
  launch(g);
  EXPECT_EQ(host(y)[299], 9.0f);
  EK_OK(ek_elementwise_destroy(miss));
  EK_OK(ek_elementwise_destroy(k));
}
