/* libek CUDA graphs: capture one step of a small MLP once, replay it on new
 * inputs with one launch per step.
 *
 *   y = sum(gelu(x @ W + b), dim 1)   for x [64,512], W [512,512], b [512]
 *
 * The step is captured on a stream; each iteration overwrites x in place and
 * replays. On the CPU backend (no GPU, or EK_DEVICE=cpu / --cpu) capture is
 * not supported: the program says so and runs the same step eagerly.
 *
 *   cc -std=c11 graph_mlp.c $(pkg-config --cflags --libs ek) -o graph_mlp && ./graph_mlp
 */
#include <ek.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ek_status s_ = (call);                                                                   \
    if (s_ != EK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* The step: its outputs are made on the first call (*y NULL) and written in
 * place afterwards, so a captured step keeps its addresses. */
static void step(ek_stream s, ek_tensor x, ek_tensor w, ek_tensor b, ek_tensor *h,
                 ek_tensor *y) {
  int dim = 1;
  CHECK(ek_matmul(s, x, w, h));
  CHECK(ek_binary(s, EK_BINARY_ADD, *h, b, h));
  CHECK(ek_unary(s, EK_UNARY_GELU, *h, h));
  CHECK(ek_reduce(s, EK_REDUCE_SUM, *h, 1, &dim, 0, y));
}

int main(int argc, char **argv) {
  const char *env = getenv("EK_DEVICE");
  int force_cpu = (argc > 1 && strcmp(argv[1], "--cpu") == 0) || (env && strcmp(env, "cpu") == 0);
  int gpus = 0;
  CHECK(ek_device_get_count(EK_CUDA, &gpus));
  ek_device dev = {(gpus > 0 && !force_cpu) ? EK_CUDA : EK_CPU, 0};
  ek_context ctx = NULL;
  ek_stream s = NULL;
  CHECK(ek_context_create(dev, NULL, &ctx));
  CHECK(ek_stream_create(ctx, &s));
  const int64_t xs[2] = {64, 512}, ws[2] = {512, 512}, bs[1] = {512};
  ek_tensor x = NULL, w = NULL, b = NULL, h = NULL, y = NULL;
  CHECK(ek_full(s, ctx, 2, xs, EK_FLOAT32, ek_scalar_float(0.5), &x));
  CHECK(ek_full(s, ctx, 2, ws, EK_FLOAT32, ek_scalar_float(0.01), &w));
  CHECK(ek_full(s, ctx, 1, bs, EK_FLOAT32, ek_scalar_float(0.25), &b));

  ek_graph g = NULL;
  ek_status st = ek_graph_capture_begin(s, NULL, EK_CAPTURE_GLOBAL);
  if (st == EK_SUCCESS) {
    step(s, x, w, b, &h, &y);
    CHECK(ek_graph_capture_end(s, &g));
    printf("captured the step on %s\n", dev.type == EK_CUDA ? "cuda:0" : "cpu");
  } else if (st == EK_ERROR_NOT_SUPPORTED) {
    printf("capture is not supported here (%s); running eagerly\n", ek_last_error());
  } else {
    CHECK(st);
  }
  for (int i = 0; i < 3; ++i) {
    CHECK(ek_fill(s, ek_scalar_float(0.25 * i), x)); /* new inputs, in place */
    if (g)
      CHECK(ek_graph_launch(s, g));
    else
      step(s, x, w, b, &h, &y);
    float first = 0;
    ek_tensor y0 = NULL;
    CHECK(ek_view_slice(y, 0, 0, 1, 1, &y0));
    CHECK(ek_tensor_to_host(s, y0, &first, sizeof first));
    CHECK(ek_tensor_release(y0));
    printf("step %d: y[0] = %.4f\n", i, first);
  }
  CHECK(ek_graph_destroy(g));
  ek_tensor ts[] = {x, w, b, h, y};
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; ++i) CHECK(ek_tensor_release(ts[i]));
  CHECK(ek_stream_destroy(s));
  CHECK(ek_context_destroy(ctx));
  return 0;
}
