// Peer copies and NCCL communicators (issue 17). On the CPU: the argument
// checks and the "NCCL missing" path. On CUDA (EK_TEST_DEVICE=cuda|all), with
// every GPU of the machine (nothing assumes two): every collective and dtype
// against a host reference, one process per GPU and one process with all of
// them (ek_comm_init_all); split; a rank that never joins or dies; buffers
// freed and reused while collectives run on another stream; peer copies.
// Processes are this binary again (fork + exec of /proc/self/exe, filtered to
// the same test), so a parent that has touched CUDA is never forked into a
// rank; the unique id travels in the environment as hex.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include "ek_test.hpp"

using namespace ektest;

namespace {

// ---------------------------------------------------------------- processes

int env_int(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
bool is_child() { return std::getenv("EK_TEST_COMM_RANK") != nullptr; }

std::string to_hex(const ek_comm_unique_id &id) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (char c : id.internal) {
    s += kDigits[(static_cast<unsigned char>(c) >> 4) & 15];
    s += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return s;
}
ek_comm_unique_id from_hex(const char *s) {
  ek_comm_unique_id id{};
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i < sizeof id.internal && s[2 * i] && s[2 * i + 1]; ++i)
    id.internal[i] = static_cast<char>(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
  return id;
}

// Runs this test again in `ranks` processes with EK_TEST_COMM_RANK = 0.. and
// the extra variables; every one must pass within limit_s seconds.
void run_ranks(int ranks, int size, const std::vector<std::pair<std::string, std::string>> &env,
               int limit_s = 240) {
  const auto *info = testing::UnitTest::GetInstance()->current_test_info();
  const std::string filter =
      std::string("--gtest_filter=") + info->test_suite_name() + "." + info->name();
  std::vector<pid_t> pids;
  for (int r = 0; r < ranks; ++r) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("EK_TEST_COMM_RANK", std::to_string(r).c_str(), 1);
      setenv("EK_TEST_COMM_SIZE", std::to_string(size).c_str(), 1);
      for (auto &kv : env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
      execl("/proc/self/exe", "test_comm", filter.c_str(), static_cast<char *>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  for (size_t r = 0; r < pids.size(); ++r) {
    int status = 0;
    while (waitpid(pids[r], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        for (pid_t p : pids) kill(p, SIGKILL);
        waitpid(pids[r], &status, 0);
        ADD_FAILURE() << "rank " << r << " still running after " << limit_s << " s: killed";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << r << " failed (status " << status << "); its output is above";
  }
}

int cuda_count() {
  int n = 0;
  return ek_device_get_count(EK_CUDA, &n) == EK_SUCCESS ? n : 0;
}

// GPU cases run when EK_TEST_DEVICE covers cuda and `need` devices exist.
#define EK_NEED_GPUS(need)                                                          \
  do {                                                                              \
    auto devs = test_devices();                                                     \
    if (std::find(devs.begin(), devs.end(), EK_CUDA) == devs.end())                 \
      GTEST_SKIP() << "EK_TEST_DEVICE does not include cuda";                       \
    if (cuda_count() < (need)) {                                                    \
      if (gpu_required() && cuda_count() == 0) FAIL() << "EK_REQUIRE_GPU=1, no GPU"; \
      GTEST_SKIP() << "needs " << (need) << " CUDA devices, found " << cuda_count(); \
    }                                                                               \
  } while (0)

// ---------------------------------------------------------------- reference

struct Rank {
  ek_context ctx = nullptr;
  ek_comm comm = nullptr;
  int rank = 0;
};

constexpr ek_reduce_op kOps[] = {EK_REDUCE_SUM, EK_REDUCE_MEAN, EK_REDUCE_PROD, EK_REDUCE_MAX,
                                 EK_REDUCE_MIN};

bool reduces(ek_dtype dt, ek_reduce_op op) {
  if (dt == EK_INT16 || dt == EK_UINT16) return false;
  return dt != EK_BOOL || op == EK_REDUCE_MAX || op == EK_REDUCE_MIN;
}

// Rank r's element i: small integers, exact in every dtype, whose sums,
// products (of at most three 2s) and means (a multiple of n) stay exact too.
double input(ek_dtype dt, ek_reduce_op op, int n, int r, int64_t i) {
  if (dt == EK_BOOL) return (r + i) % 2;
  const double v = static_cast<double>(i % 3 + 1);
  if (op == EK_REDUCE_PROD) return r < 3 && (r + i) % 2 ? 2 : 1;
  if (op == EK_REDUCE_MEAN) return v + (r == 0 ? n - 1 : -1);
  return static_cast<double>((r + i) % 3 + 1);
}

double reference(ek_dtype dt, ek_reduce_op op, int n, int64_t i) {
  double acc = input(dt, op, n, 0, i);
  for (int r = 1; r < n; ++r) {
    const double x = input(dt, op, n, r, i);
    if (op == EK_REDUCE_SUM || op == EK_REDUCE_MEAN) acc += x;
    if (op == EK_REDUCE_PROD) acc *= x;
    if (op == EK_REDUCE_MAX) acc = std::max(acc, x);
    if (op == EK_REDUCE_MIN) acc = std::min(acc, x);
  }
  return op == EK_REDUCE_MEAN ? acc / n : acc;
}

Values inputs(ek_dtype dt, ek_reduce_op op, int n, int r, int64_t count, int64_t first = 0) {
  Values v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = input(dt, op, n, r, first + i);
  return v;
}

void expect_values(ek_tensor t, const Values &want, ek_dtype dt, const std::string &what) {
  Values got = values_of(t);
  ASSERT_EQ(got.size(), want.size()) << what;
  const double tol = dt == EK_FLOAT16 || dt == EK_BFLOAT16 ? 1e-2 : is_float(dt) ? 1e-6 : 0;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - want[i]), tol * std::fabs(want[i]))
        << what << " " << ek_dtype_name(dt) << " element " << i << ": " << got[i] << " vs "
        << want[i];
}

// Calls f for every local rank inside one group (one thread drives them all).
void grouped(const std::vector<Rank> &ranks, const std::function<void(const Rank &)> &f) {
  EK_OK(ek_comm_group_start());
  for (const Rank &r : ranks) f(r);
  EK_OK(ek_comm_group_end());
}

struct Outs {
  std::vector<ek_tensor> t;
  explicit Outs(size_t n) : t(n, nullptr) {}
  ~Outs() {
    for (ek_tensor x : t) ek_tensor_release(x);
  }
};

constexpr int64_t kLen = 37;  // odd: no chunk is a power of two

void check_all_reduce(const std::vector<Rank> &ranks, int n, ek_dtype dt) {
  for (ek_reduce_op op : kOps) {
    if (!reduces(dt, op)) {
      Tensor x(make(ranks[0].ctx, {kLen}, dt, inputs(dt, op, n, 0, kLen)));
      Tensor out;
      EK_FAILS(ek_comm_all_reduce(nullptr, ranks[0].comm, op, x, out.out()), EK_ERROR_DTYPE,
               "NCCL has no arithmetic");
      continue;
    }
    Outs xs(ranks.size()), outs(ranks.size());
    for (size_t k = 0; k < ranks.size(); ++k)
      xs.t[k] = make(ranks[k].ctx, {kLen}, dt, inputs(dt, op, n, ranks[k].rank, kLen));
    // In place for MAX: *out == x.
    if (op == EK_REDUCE_MAX)
      for (size_t k = 0; k < ranks.size(); ++k) {
        outs.t[k] = xs.t[k];
        ek_tensor_retain(xs.t[k]);
      }
    size_t k = 0;
    grouped(ranks, [&](const Rank &r) {
      EK_EXPECT_OK(ek_comm_all_reduce(nullptr, r.comm, op, xs.t[k], &outs.t[k]));
      ++k;
    });
    Values want(kLen);
    for (int64_t i = 0; i < kLen; ++i) want[static_cast<size_t>(i)] = reference(dt, op, n, i);
    for (ek_tensor o : outs.t) expect_values(o, want, dt, "all_reduce");
  }
}

void check_reduce_scatter(const std::vector<Rank> &ranks, int n, ek_dtype dt) {
  const int64_t m = 5;
  for (ek_reduce_op op : kOps) {
    if (!reduces(dt, op)) continue;
    Outs xs(ranks.size()), outs(ranks.size());
    for (size_t k = 0; k < ranks.size(); ++k)
      xs.t[k] = make(ranks[k].ctx, {n, m}, dt, inputs(dt, op, n, ranks[k].rank, n * m));
    size_t k = 0;
    grouped(ranks, [&](const Rank &r) {
      EK_EXPECT_OK(ek_comm_reduce_scatter(nullptr, r.comm, op, xs.t[k], &outs.t[k]));
      ++k;
    });
    for (size_t j = 0; j < ranks.size(); ++j) {
      Values want(m);
      for (int64_t i = 0; i < m; ++i)
        want[static_cast<size_t>(i)] = reference(dt, op, n, ranks[j].rank * m + i);
      expect_values(outs.t[j], want, dt, "reduce_scatter");
    }
  }
}

void check_reduce(const std::vector<Rank> &ranks, int n, ek_dtype dt) {
  const ek_reduce_op op = dt == EK_BOOL ? EK_REDUCE_MAX : EK_REDUCE_SUM;
  if (!reduces(dt, op)) return;
  const int root = n - 1;
  Outs xs(ranks.size()), outs(ranks.size());
  for (size_t k = 0; k < ranks.size(); ++k)
    xs.t[k] = make(ranks[k].ctx, {kLen}, dt, inputs(dt, op, n, ranks[k].rank, kLen));
  size_t k = 0;
  grouped(ranks, [&](const Rank &r) {
    EK_EXPECT_OK(ek_comm_reduce(nullptr, r.comm, op, root, xs.t[k], &outs.t[k]));
    ++k;
  });
  Values want(kLen);
  for (int64_t i = 0; i < kLen; ++i) want[static_cast<size_t>(i)] = reference(dt, op, n, i);
  for (size_t j = 0; j < ranks.size(); ++j) {
    if (ranks[j].rank == root) expect_values(outs.t[j], want, dt, "reduce");
    else EXPECT_EQ(outs.t[j], nullptr) << "reduce gave a non-root rank an out";
  }
}

// broadcast, all_gather, all_to_all and a send/recv ring: no arithmetic.
void check_movement(const std::vector<Rank> &ranks, int n, ek_dtype dt) {
  const ek_reduce_op op = EK_REDUCE_SUM;  // input()'s plain values
  const int64_t m = 3;
  Outs xs(ranks.size()), bc(ranks.size()), ag(ranks.size()), a2a(ranks.size()), rv(ranks.size());
  for (size_t k = 0; k < ranks.size(); ++k) {
    xs.t[k] = make(ranks[k].ctx, {n, m}, dt, inputs(dt, op, n, ranks[k].rank, n * m));
    rv.t[k] = make(ranks[k].ctx, {n, m}, dt, Values(static_cast<size_t>(n * m), 0));
  }
  const int root = n / 2;
  size_t k = 0;
  grouped(ranks, [&](const Rank &r) {
    EK_EXPECT_OK(ek_comm_broadcast(nullptr, r.comm, root, xs.t[k], &bc.t[k]));
    EK_EXPECT_OK(ek_comm_all_gather(nullptr, r.comm, xs.t[k], &ag.t[k]));
    EK_EXPECT_OK(ek_comm_all_to_all(nullptr, r.comm, xs.t[k], &a2a.t[k]));
    EK_EXPECT_OK(ek_comm_send(nullptr, r.comm, xs.t[k], (r.rank + 1) % n));
    EK_EXPECT_OK(ek_comm_recv(nullptr, r.comm, (r.rank + n - 1) % n, rv.t[k]));
    ++k;
  });
  for (size_t j = 0; j < ranks.size(); ++j) {
    const int r = ranks[j].rank;
    expect_values(bc.t[j], inputs(dt, op, n, root, n * m), dt, "broadcast");
    Values gathered, exchanged;
    for (int q = 0; q < n; ++q) {
      Values x = inputs(dt, op, n, q, n * m);
      gathered.insert(gathered.end(), x.begin(), x.end());
      exchanged.insert(exchanged.end(), x.begin() + r * m, x.begin() + (r + 1) * m);
    }
    expect_values(ag.t[j], gathered, dt, "all_gather");
    EXPECT_EQ(shape_of(ag.t[j]), (Shape{n, n, m}));
    expect_values(a2a.t[j], exchanged, dt, "all_to_all");
    expect_values(rv.t[j], inputs(dt, op, n, (r + n - 1) % n, n * m), dt, "recv");
  }
}

void check_collectives(const std::vector<Rank> &ranks, int n) {
  for (ek_dtype dt : kAllDtypes) {
    SCOPED_TRACE(ek_dtype_name(dt));
    check_all_reduce(ranks, n, dt);
    check_reduce_scatter(ranks, n, dt);
    check_reduce(ranks, n, dt);
    check_movement(ranks, n, dt);
  }
}

// A rank's context and communicator from the environment run_ranks set.
struct ChildRank {
  Rank r;
  int size = 0;
  ChildRank(int64_t timeout_ms = 0) {
    r.rank = env_int("EK_TEST_COMM_RANK", 0);
    size = env_int("EK_TEST_COMM_SIZE", 1);
    EXPECT_EQ(ek_context_create(ek_device{EK_CUDA, r.rank}, nullptr, &r.ctx), EK_SUCCESS)
        << ek_last_error();
    ek_comm_unique_id id = from_hex(std::getenv("EK_TEST_COMM_ID"));
    ek_comm_config config = EK_COMM_CONFIG_INIT;
    config.timeout_ms = timeout_ms;
    config.blocking = env_int("EK_TEST_COMM_BLOCKING", 0);
    init = ek_comm_init_rank(r.ctx, size, &id, r.rank, &config, &r.comm);
    if (init != EK_SUCCESS) message = ek_last_error();
  }
  ~ChildRank() {
    EXPECT_EQ(ek_comm_destroy(r.comm), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(ek_context_destroy(r.ctx), EK_SUCCESS) << ek_last_error();
  }
  ek_status init = EK_SUCCESS;
  std::string message;
};

std::vector<std::pair<std::string, std::string>> id_env() {
  ek_comm_unique_id id{};
  EXPECT_EQ(ek_comm_get_unique_id(&id), EK_SUCCESS) << ek_last_error();
  return {{"EK_TEST_COMM_ID", to_hex(id)}};
}

}  // namespace

// ---------------------------------------------------------------- CPU CI

TEST(CommArgs, NullsAndCpuContexts) {
  EK_FAILS(ek_comm_get_unique_id(nullptr), EK_ERROR_NULL_POINTER, "ek_comm_get_unique_id: id is NULL");
  ek_context cpu = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &cpu));
  ek_comm_unique_id id{};
  ek_comm comm = nullptr;
  EK_FAILS(ek_comm_init_rank(cpu, 1, &id, 0, nullptr, &comm), EK_ERROR_NOT_SUPPORTED,
           "ctx is a CPU context");
  EK_FAILS(ek_comm_init_rank(nullptr, 1, &id, 0, nullptr, &comm), EK_ERROR_NULL_POINTER,
           "ctx is NULL");
  EK_FAILS(ek_comm_init_all(0, &cpu, nullptr, &comm), EK_ERROR_INVALID_ARGUMENT, "n is 0");
  EK_FAILS(ek_comm_init_all(1, &cpu, nullptr, &comm), EK_ERROR_NOT_SUPPORTED,
           "ctxs[0] is a CPU context");
  EXPECT_EQ(comm, nullptr);
  int v = 0;
  EK_FAILS(ek_comm_get_rank(nullptr, &v), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_get_size(nullptr, &v), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_get_async_error(nullptr), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_abort(nullptr), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_synchronize(nullptr, nullptr), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_split(nullptr, 0, 0, nullptr, &comm), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_EXPECT_OK(ek_comm_destroy(nullptr));
  EK_FAILS(ek_comm_group_end(), EK_ERROR_INVALID_ARGUMENT, "no group is open");
  {
  Tensor x(make(cpu, {4}, EK_FLOAT32, {1, 2, 3, 4}));
  Tensor out;
  EK_FAILS(ek_comm_all_reduce(nullptr, nullptr, EK_REDUCE_SUM, x, out.out()),
           EK_ERROR_NULL_POINTER, "ek_comm_all_reduce: comm is NULL");
  EK_FAILS(ek_comm_all_reduce(nullptr, nullptr, EK_REDUCE_SUM, nullptr, out.out()),
           EK_ERROR_NULL_POINTER, "x is NULL");
  EK_FAILS(ek_comm_send(nullptr, nullptr, x, 0), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_recv(nullptr, nullptr, 0, x), EK_ERROR_NULL_POINTER, "comm is NULL");
  EK_FAILS(ek_comm_all_gather(nullptr, nullptr, x, out.out()), EK_ERROR_NULL_POINTER,
           "comm is NULL");
  EXPECT_EQ(out.t, nullptr);
  }
  EK_OK(ek_context_destroy(cpu));
}

// EK_NCCL_LIBRARY=/nonexistent in a fresh process (NCCL is opened once).
TEST(CommArgs, NcclMissing) {
  if (!is_child()) {
    run_ranks(1, 1, {{"EK_NCCL_LIBRARY", "/nonexistent/libnccl.so.2"}}, 60);
    return;
  }
  ek_comm_unique_id id{};
  EK_FAILS(ek_comm_get_unique_id(&id), EK_ERROR_LIBRARY, "NCCL not found (");
  EXPECT_NE(std::string(ek_last_error()).find("/nonexistent/libnccl.so.2"), std::string::npos)
      << ek_last_error();
  if (cuda_count() > 0) {  // a communicator asked for says the same
    ek_context ctx = nullptr;
    EK_OK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &ctx));
    ek_comm comm = nullptr;
    EK_FAILS(ek_comm_init_rank(ctx, 1, &id, 0, nullptr, &comm), EK_ERROR_LIBRARY,
             "NCCL not found");
    EK_OK(ek_context_destroy(ctx));
  }
}

// ---------------------------------------------------------------- GPU: collectives

// Every collective and dtype in the default (blocking) mode, then in NCCL's
// non-blocking mode.
void one_process_per_gpu(int blocking) {
  if (!is_child()) {
    EK_NEED_GPUS(1);
    const int n = cuda_count();
    auto env = id_env();
    env.emplace_back("EK_TEST_COMM_BLOCKING", std::to_string(blocking));
    run_ranks(n, n, env);
    return;
  }
  ChildRank c;
  ASSERT_EQ(c.init, EK_SUCCESS) << c.message;
  int rank = -1, size = -1;
  EK_OK(ek_comm_get_rank(c.r.comm, &rank));
  EK_OK(ek_comm_get_size(c.r.comm, &size));
  EXPECT_EQ(rank, c.r.rank);
  EXPECT_EQ(size, c.size);
  EK_EXPECT_OK(ek_comm_get_async_error(c.r.comm));
  check_collectives({c.r}, c.size);
  // Bad input on a live communicator.
  Tensor x(make(c.r.ctx, {2, 3}, EK_FLOAT32, {1, 2, 3, 4, 5, 6}));
  Tensor t(transposed(x, 0, 1)), out;
  EK_FAILS(ek_comm_all_reduce(nullptr, c.r.comm, EK_REDUCE_SUM, t, out.out()),
           EK_ERROR_INVALID_ARGUMENT, "is not contiguous");
  EK_FAILS(ek_comm_all_reduce(nullptr, c.r.comm, EK_REDUCE_ARGMAX, x, out.out()),
           EK_ERROR_INVALID_ARGUMENT, "not a collective reduction");
  EK_FAILS(ek_comm_broadcast(nullptr, c.r.comm, c.size, x, out.out()),
           EK_ERROR_INVALID_ARGUMENT, "root");
  EK_FAILS(ek_comm_send(nullptr, c.r.comm, x, -1), EK_ERROR_INVALID_ARGUMENT, "peer -1");
  if (c.size != 2)
    EK_FAILS(ek_comm_reduce_scatter(nullptr, c.r.comm, EK_REDUCE_SUM, x, out.out()),
             EK_ERROR_SHAPE, "first dim must be the communicator's size");
  EK_OK(ek_comm_synchronize(nullptr, c.r.comm));
}

TEST(CommGpu, OneProcessPerGpu) { one_process_per_gpu(0); }
TEST(CommGpu, OneProcessPerGpuNonBlocking) { one_process_per_gpu(EK_COMM_NONBLOCKING); }

// init_all in NCCL's blocking mode (the per-process tests cover the default).
TEST(CommGpu, OneProcessAllGpus) {
  EK_NEED_GPUS(1);
  const int n = cuda_count();
  std::vector<ek_context> ctxs(n);
  for (int i = 0; i < n; ++i) EK_OK(ek_context_create(ek_device{EK_CUDA, i}, nullptr, &ctxs[i]));
  std::vector<ek_comm> comms(n);
  ek_comm_config config = EK_COMM_CONFIG_INIT;
  config.blocking = 2;
  EK_FAILS(ek_comm_init_all(n, ctxs.data(), &config, comms.data()), EK_ERROR_INVALID_ARGUMENT,
           "config->blocking is 2");
  config.blocking = 1;  // NCCL's blocking mode here; the one-process-per-GPU tests use the default
  EK_OK(ek_comm_init_all(n, ctxs.data(), &config, comms.data()));
  std::vector<Rank> ranks(n);
  for (int i = 0; i < n; ++i) {
    ranks[i] = Rank{ctxs[i], comms[i], i};
    int r = -1;
    EK_OK(ek_comm_get_rank(comms[i], &r));
    EXPECT_EQ(r, i);
  }
  check_collectives(ranks, n);
  // Any stream of the context: all_reduce on a second stream of each.
  std::vector<ek_stream> streams(n);
  Outs xs(n), outs(n);
  for (int i = 0; i < n; ++i) {
    EK_OK(ek_stream_create(ctxs[i], &streams[i]));
    xs.t[i] = make(ctxs[i], {kLen}, EK_FLOAT32, inputs(EK_FLOAT32, EK_REDUCE_SUM, n, i, kLen));
    EK_OK(ek_context_synchronize(ctxs[i]));
  }
  EK_OK(ek_comm_group_start());
  for (int i = 0; i < n; ++i)
    EK_EXPECT_OK(ek_comm_all_reduce(streams[i], comms[i], EK_REDUCE_SUM, xs.t[i], &outs.t[i]));
  EK_OK(ek_comm_group_end());
  Values want(kLen);
  for (int64_t i = 0; i < kLen; ++i)
    want[static_cast<size_t>(i)] = reference(EK_FLOAT32, EK_REDUCE_SUM, n, i);
  for (int i = 0; i < n; ++i) {
    EK_OK(ek_comm_synchronize(streams[i], comms[i]));
    expect_values(outs.t[i], want, EK_FLOAT32, "all_reduce on a side stream");
  }
  for (int i = 0; i < n; ++i) {
    ek_tensor_release(xs.t[i]);
    ek_tensor_release(outs.t[i]);
    xs.t[i] = outs.t[i] = nullptr;
    EK_OK(ek_stream_destroy(streams[i]));
    EK_OK(ek_comm_destroy(comms[i]));
    EK_OK(ek_context_destroy(ctxs[i]));
  }
}

// Ranks of one color (rank % 2) form a communicator ordered by key (reversed).
TEST(CommGpu, Split) {
  if (!is_child()) {
    EK_NEED_GPUS(1);
    const int n = cuda_count();
    run_ranks(n, n, id_env());
    return;
  }
  ChildRank c;
  ASSERT_EQ(c.init, EK_SUCCESS) << c.message;
  ek_comm sub = nullptr;
  const int color = c.r.rank % 2;
  EK_OK(ek_comm_split(c.r.comm, color, -c.r.rank, nullptr, &sub));
  ASSERT_NE(sub, nullptr);
  std::vector<int> members;
  for (int q = c.size - 1; q >= 0; --q)
    if (q % 2 == color) members.push_back(q);
  int rank = -1, size = -1;
  EK_OK(ek_comm_get_rank(sub, &rank));
  EK_OK(ek_comm_get_size(sub, &size));
  EXPECT_EQ(size, static_cast<int>(members.size()));
  EXPECT_EQ(members[static_cast<size_t>(rank)], c.r.rank);
  Tensor x(make(c.r.ctx, {1}, EK_INT64, {static_cast<double>(c.r.rank)})), out;
  EK_OK(ek_comm_all_reduce(nullptr, sub, EK_REDUCE_SUM, x, out.out()));
  double sum = 0;
  for (int q : members) sum += q;
  expect_values(out, {sum}, EK_INT64, "all_reduce on the split");
  EK_OK(ek_comm_destroy(sub));
  ek_comm none = nullptr;
  EK_FAILS(ek_comm_split(c.r.comm, -2, 0, nullptr, &none), EK_ERROR_INVALID_ARGUMENT, "color -2");
  EXPECT_EQ(none, nullptr);
}

// ---------------------------------------------------------------- GPU: failures

// A communicator of two ranks that only rank 0 joins: EK_ERROR_TIMEOUT.
TEST(CommGpu, RankNeverJoins) {
  if (!is_child()) {
    EK_NEED_GPUS(1);
    run_ranks(1, 2, id_env(), 120);
    return;
  }
  const int rank = env_int("EK_TEST_COMM_RANK", 0);
  ek_context ctx = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CUDA, rank}, nullptr, &ctx));
  ek_comm_unique_id id = from_hex(std::getenv("EK_TEST_COMM_ID"));
  ek_comm_config config = EK_COMM_CONFIG_INIT;
  config.timeout_ms = 3000;
  ek_comm comm = nullptr;
  const auto start = std::chrono::steady_clock::now();
  EK_FAILS(ek_comm_init_rank(ctx, 2, &id, 0, &config, &comm), EK_ERROR_TIMEOUT,
           "did not finish within 3000 ms");
  EXPECT_EQ(comm, nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EK_OK(ek_context_destroy(ctx));
}

// Rank 1 joins, then dies; rank 0's all_reduce never completes: the
// synchronize returns an error (a timeout, or NCCL's own report of the lost
// peer) instead of hanging, and the communicator is then unusable.
TEST(CommGpu, RankDies) {
  if (!is_child()) {
    EK_NEED_GPUS(2);
    run_ranks(2, 2, id_env(), 180);
    return;
  }
  ChildRank c(5000);
  ASSERT_EQ(c.init, EK_SUCCESS) << c.message;
  if (c.r.rank == 1) _exit(0);  // dies without a word
  Tensor x(make(c.r.ctx, {1 << 20}, EK_FLOAT32, Values(1 << 20, 1.0))), out;
  ek_status st = ek_comm_all_reduce(nullptr, c.r.comm, EK_REDUCE_SUM, x, out.out());
  if (st == EK_SUCCESS) st = ek_comm_synchronize(nullptr, c.r.comm);
  EXPECT_TRUE(st == EK_ERROR_TIMEOUT || st == EK_ERROR_DEVICE) << ek_last_error();
  if (st == EK_ERROR_DEVICE) ek_comm_abort(c.r.comm);
  EK_FAILS(ek_comm_all_reduce(nullptr, c.r.comm, EK_REDUCE_SUM, x, out.out()),
           st, "was aborted");
  EK_OK(ek_context_synchronize(c.r.ctx));  // the aborted kernels have exited
}

// Rank 1 joins, then stays away for 20 s; rank 0's all_reduce must not hold
// its thread: the synchronize gives up after the 3 s timeout, long before
// rank 1 comes back. Bounded in NCCL's non-blocking mode, and in the default
// (blocking) mode once NCCL makes its connections at init
// (NCCL_RUNTIME_CONNECT=0; otherwise the first collective waits in NCCL's
// connection setup for the missing rank, as ek_comm_config documents).
void rank_stalls(const char *blocking, const char *runtime_connect) {
  if (!is_child()) {
    EK_NEED_GPUS(2);
    auto env = id_env();
    env.emplace_back("EK_TEST_COMM_BLOCKING", blocking);
    env.emplace_back("NCCL_RUNTIME_CONNECT", runtime_connect);
    run_ranks(2, 2, env, 120);
    return;
  }
  ChildRank c(3000);
  ASSERT_EQ(c.init, EK_SUCCESS) << c.message;
  if (c.r.rank == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(20));
    _exit(0);
  }
  const auto start = std::chrono::steady_clock::now();
  Tensor x(make(c.r.ctx, {1 << 20}, EK_FLOAT32, Values(1 << 20, 1.0))), out;
  ek_status st = ek_comm_all_reduce(nullptr, c.r.comm, EK_REDUCE_SUM, x, out.out());
  if (st == EK_SUCCESS) st = ek_comm_synchronize(nullptr, c.r.comm);
  EXPECT_TRUE(st == EK_ERROR_TIMEOUT || st == EK_ERROR_DEVICE) << ek_last_error();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  if (st == EK_ERROR_DEVICE) ek_comm_abort(c.r.comm);
  EK_OK(ek_context_synchronize(c.r.ctx));
}

TEST(CommGpu, RankStallsNonBlocking) { rank_stalls("-1", "1"); }
TEST(CommGpu, RankStallsConnectedAtInit) { rank_stalls("0", "0"); }

// ---------------------------------------------------------------- GPU: the pool

// Inputs made on the default stream, reduced on a side stream and released at
// once; the default stream then reuses the pool's blocks for garbage. Were a
// block handed out before its collective ran, some result would be wrong.
TEST(CommGpu, FreedBuffersWaitForCollectives) {
  if (!is_child()) {
    EK_NEED_GPUS(1);
    const int n = cuda_count();
    run_ranks(n, n, id_env());
    return;
  }
  ChildRank c;
  ASSERT_EQ(c.init, EK_SUCCESS) << c.message;
  ek_stream side = nullptr;
  EK_OK(ek_stream_create(c.r.ctx, &side));
  const int iterations = 200;
  const int64_t len = 1 << 16;
  std::vector<ek_tensor> results;
  for (int it = 0; it < iterations; ++it) {
    ek_tensor x = nullptr, garbage = nullptr, out = nullptr;
    EK_OK(ek_full(nullptr, c.r.ctx, 1, &len, EK_FLOAT32, ek_scalar_float(it + c.r.rank), &x));
    ek_event ready = nullptr;  // the side stream reads x after its fill
    EK_OK(ek_event_create(c.r.ctx, &ready));
    EK_OK(ek_event_record(nullptr, ready));
    EK_OK(ek_stream_wait_event(side, ready));
    EK_OK(ek_event_destroy(ready));
    EK_OK(ek_comm_all_reduce(side, c.r.comm, EK_REDUCE_SUM, x, &out));
    EK_OK(ek_tensor_release(x));
    EK_OK(ek_full(nullptr, c.r.ctx, 1, &len, EK_FLOAT32, ek_scalar_float(-1e6), &garbage));
    EK_OK(ek_tensor_release(garbage));
    results.push_back(out);
  }
  EK_OK(ek_comm_synchronize(side, c.r.comm));
  double ranks_sum = 0;
  for (int q = 0; q < c.size; ++q) ranks_sum += q;
  for (int it = 0; it < iterations; ++it) {
    Values got = values_of(results[static_cast<size_t>(it)]);
    const double want = static_cast<double>(it) * c.size + ranks_sum;
    const auto bad = std::count_if(got.begin(), got.end(), [&](double v) { return v != want; });
    EXPECT_EQ(bad, 0) << "iteration " << it << ": " << bad << " elements differ from " << want;
    EK_OK(ek_tensor_release(results[static_cast<size_t>(it)]));
  }
  EK_OK(ek_context_synchronize(c.r.ctx));
  EK_OK(ek_stream_destroy(side));
}

// ---------------------------------------------------------------- GPU: peer copies

// From device 0 to the last device (another context of device 0 on one GPU):
// contiguous, strided source with a cast, strided destination, empty.
TEST(PeerCopy, ContiguousStridedCasting) {
  EK_NEED_GPUS(1);
  const int n = cuda_count();
  ek_context a = nullptr, b = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &a));
  EK_OK(ek_context_create(ek_device{EK_CUDA, n - 1}, nullptr, &b));
  const Values v = random_values(64 * 48, 7, -100, 100);
  {
    Tensor src(make(a, {64, 48}, EK_FLOAT32, v));
    Tensor dst(make(b, {64, 48}, EK_FLOAT32, Values(v.size(), 0)));
    EK_OK(ek_copy(nullptr, src, dst));
    expect_values(dst, v, EK_FLOAT32, "contiguous peer copy");

    Tensor t(transposed(src, 0, 1));  // [48, 64], strided
    Tensor half(make(b, {48, 64}, EK_FLOAT16, Values(v.size(), 0)));
    EK_OK(ek_copy(nullptr, t, half));
    Values want(v.size());
    for (int64_t i = 0; i < 48; ++i)
      for (int64_t j = 0; j < 64; ++j) want[static_cast<size_t>(i * 64 + j)] = v[static_cast<size_t>(j * 48 + i)];
    expect_values(half, want, EK_FLOAT16, "transposed, cast peer copy");

    Tensor wide(make(b, {64, 96}, EK_FLOAT64, Values(64 * 96, 0)));
    Tensor every_other(sliced(wide, 1, 0, 96, 2));  // [64, 48], strided destination
    EK_OK(ek_copy(nullptr, src, every_other));
    expect_values(every_other, v, EK_FLOAT64, "peer copy into a strided view");

    const int64_t none[2] = {0, 3};
    Tensor empty_a, empty_b;
    EK_OK(ek_tensor_empty(nullptr, a, 2, none, EK_FLOAT32, empty_a.out()));
    EK_OK(ek_tensor_empty(nullptr, b, 2, none, EK_FLOAT32, empty_b.out()));
    EK_OK(ek_copy(nullptr, empty_a, empty_b));
    // The stream must be dst's: a stream of src's context is refused.
    ek_stream sa = nullptr;
    EK_OK(ek_stream_create(a, &sa));
    EK_FAILS(ek_copy(sa, src, dst), EK_ERROR_INVALID_ARGUMENT, "stream belongs to another context");
    EK_OK(ek_stream_destroy(sa));
  }
  EK_OK(ek_context_destroy(a));
  EK_OK(ek_context_destroy(b));
}
