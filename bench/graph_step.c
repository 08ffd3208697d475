/* The step of bench/graph_step.py from C: eager libek against its CUDA-graph
 * replay (issue 16). 4 layers on x [64, 512], each
 *   h = gelu(x @ W + b); d = h - mean(h, 1); x = d * rsqrt(mean(d * d, 1))
 * 9 ops a layer, 36 a step. Outputs are written in place after the first step
 * (no allocation in the timed loop, the same in both variants).
 *
 * WARMUP steps, then REPS samples of STEPS back-to-back steps between two
 * events on one stream (device ms per step, launch gaps included) and the
 * host time spent enqueueing them (no synchronization inside); medians.
 * Then the same two with automatic fusion on (ek_stream_set_fusion).
 * Prints one JSON object (also written to argv[1] when given).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <ek.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ek_status s_ = (call);                                                                   \
    if (s_ != EK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

enum { LAYERS = 4, M = 64, N = 512, OPS = 9 * LAYERS, WARMUP = 20, REPS = 30, STEPS = 50 };

typedef struct {
  ek_tensor x, w[LAYERS], b[LAYERS];
  ek_tensor h[LAYERS], mu[LAYERS], d[LAYERS], sq[LAYERS], var[LAYERS], inv[LAYERS], y[LAYERS];
} Net;

static void step(ek_stream s, Net *n) {
  int dim = 1;
  ek_tensor x = n->x;
  for (int l = 0; l < LAYERS; ++l) {
    CHECK(ek_matmul(s, x, n->w[l], &n->h[l]));
    CHECK(ek_binary(s, EK_BINARY_ADD, n->h[l], n->b[l], &n->h[l]));
    CHECK(ek_unary(s, EK_UNARY_GELU, n->h[l], &n->h[l]));
    CHECK(ek_reduce(s, EK_REDUCE_MEAN, n->h[l], 1, &dim, 1, &n->mu[l]));
    CHECK(ek_binary(s, EK_BINARY_SUB, n->h[l], n->mu[l], &n->d[l]));
    CHECK(ek_binary(s, EK_BINARY_MUL, n->d[l], n->d[l], &n->sq[l]));
    CHECK(ek_reduce(s, EK_REDUCE_MEAN, n->sq[l], 1, &dim, 1, &n->var[l]));
    CHECK(ek_unary(s, EK_UNARY_RSQRT, n->var[l], &n->inv[l]));
    CHECK(ek_binary(s, EK_BINARY_MUL, n->d[l], n->inv[l], &n->y[l]));
    x = n->y[l];
  }
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* run(s, n, g): one step, eagerly (g NULL) or by replaying g. */
static void run(ek_stream s, Net *n, ek_graph g) {
  if (g)
    CHECK(ek_graph_launch(s, g));
  else
    step(s, n);
}

typedef struct {
  double dev_ms, host_us; /* medians per step */
} Result;

typedef struct {
  char s[96];
} Text;

static Text json(const Result *r) {
  Text t;
  snprintf(t.s, sizeof t.s, "{\"device_ms_per_step\": %.6g, \"host_us_per_step\": %.6g}", r->dev_ms,
           r->host_us);
  return t;
}

static void timed(ek_stream s, Net *n, ek_graph g, ek_event a, ek_event b, Result *out) {
  double dev[REPS], host[REPS];
  for (int i = 0; i < WARMUP; ++i) run(s, n, g);
  CHECK(ek_stream_synchronize(s));
  for (int r = 0; r < REPS; ++r) {
    CHECK(ek_event_record(s, a));
    double t0 = now_us();
    for (int i = 0; i < STEPS; ++i) run(s, n, g);
    double t1 = now_us();
    CHECK(ek_event_record(s, b));
    CHECK(ek_event_synchronize(b));
    float ms = 0;
    CHECK(ek_event_get_elapsed_ms(a, b, &ms));
    dev[r] = ms / STEPS;
    host[r] = (t1 - t0) / STEPS;
  }
  out->dev_ms = median(dev, REPS);
  out->host_us = median(host, REPS);
}

static ek_graph capture(ek_stream s, Net *n) {
  ek_graph g = NULL;
  CHECK(ek_graph_capture_begin(s, NULL, EK_CAPTURE_GLOBAL));
  step(s, n);
  CHECK(ek_graph_capture_end(s, &g));
  CHECK(ek_graph_upload(s, g));
  return g;
}

int main(int argc, char **argv) {
  ek_context ctx = NULL;
  ek_stream s = NULL;
  ek_event a = NULL, b = NULL;
  CHECK(ek_context_create((ek_device){EK_CUDA, 0}, NULL, &ctx));
  CHECK(ek_stream_create(ctx, &s));
  CHECK(ek_event_create(ctx, &a));
  CHECK(ek_event_create(ctx, &b));
  Net n;
  memset(&n, 0, sizeof n);
  const int64_t xs[2] = {M, N}, ws[2] = {N, N}, bs[1] = {N};
  CHECK(ek_random_set_seed(ctx, 0));
  CHECK(ek_tensor_empty(s, ctx, 2, xs, EK_FLOAT32, &n.x));
  CHECK(ek_random(s, EK_RANDOM_NORMAL, ek_scalar_float(0), ek_scalar_float(1), NULL, n.x));
  for (int l = 0; l < LAYERS; ++l) {
    CHECK(ek_tensor_empty(s, ctx, 2, ws, EK_FLOAT32, &n.w[l]));
    CHECK(ek_random(s, EK_RANDOM_NORMAL, ek_scalar_float(0), ek_scalar_float(0.044), NULL, n.w[l]));
    CHECK(ek_tensor_empty(s, ctx, 1, bs, EK_FLOAT32, &n.b[l]));
    CHECK(ek_random(s, EK_RANDOM_NORMAL, ek_scalar_float(0), ek_scalar_float(0.1), NULL, n.b[l]));
  }
  step(s, &n); /* makes the outputs: later steps write them in place */
  Result eager, graph, fused_eager, fused_graph;
  timed(s, &n, NULL, a, b, &eager);
  ek_graph g = capture(s, &n);
  timed(s, &n, g, a, b, &graph);
  /* Automatic fusion (issue 19): the same step, eager and replayed. The
     first fused step compiles the kernels, so the capture replays them. */
  ek_fusion_stats before, after;
  memset(&before, 0, sizeof before);
  memset(&after, 0, sizeof after);
  before.struct_size = after.struct_size = sizeof before;
  CHECK(ek_stream_set_fusion(s, EK_FUSION_ON));
  step(s, &n);
  CHECK(ek_stream_synchronize(s));
  CHECK(ek_context_get_fusion_stats(ctx, &before));
  timed(s, &n, NULL, a, b, &fused_eager);
  ek_graph fg = capture(s, &n);
  timed(s, &n, fg, a, b, &fused_graph);
  CHECK(ek_context_get_fusion_stats(ctx, &after));
  char text[2048];
  snprintf(text, sizeof text,
           "{\"bench\": \"graph_step_c\", \"shape\": [%d, %d], \"layers\": %d, "
           "\"ops_per_step\": %d, \"reps\": %d, \"steps_per_rep\": %d,\n"
           " \"eager\": %s,\n \"graph\": %s,\n"
           " \"fused_eager\": %s,\n \"fused_graph\": %s,\n"
           " \"graph_host_us_per_captured_op\": %.4g,\n"
           " \"graph_speedup_over_eager\": %.4g, \"fused_graph_speedup_over_eager\": %.4g,\n"
           " \"fused_kernels_compiled_while_timed\": %llu, \"fused_launches_while_timed\": %llu}\n",
           M, N, LAYERS, OPS, REPS, STEPS, json(&eager).s, json(&graph).s, json(&fused_eager).s,
           json(&fused_graph).s, graph.host_us / OPS, eager.dev_ms / graph.dev_ms,
           eager.dev_ms / fused_graph.dev_ms,
           (unsigned long long)(after.kernels_compiled - before.kernels_compiled),
           (unsigned long long)(after.fused_launches - before.fused_launches));
  fputs(text, stdout);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
      fprintf(stderr, "cannot write %s\n", argv[1]);
      return 1;
    }
  }
  CHECK(ek_graph_destroy(fg));
  CHECK(ek_graph_destroy(g));
  ek_tensor *all = &n.x;
  for (size_t i = 0; i < sizeof n / sizeof(ek_tensor); ++i) CHECK(ek_tensor_release(all[i]));
  CHECK(ek_event_destroy(a));
  CHECK(ek_event_destroy(b));
  CHECK(ek_stream_destroy(s));
  CHECK(ek_context_destroy(ctx));
  return 0;
}
