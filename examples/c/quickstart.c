/* libek quickstart: the forward pass of a two-layer perceptron,
 *
 *   h = relu(x @ W1 + b1),  y = softmax(h @ W2 + b2, dim -1),
 *
 * with x [64,128], W1 [128,256], b1 [256], W2 [256,10], b2 [10] drawn from
 * N(0, 0.1^2) by the context's random generator seeded with 0 (in that order),
 * on the GPU when there is one, else on the CPU (EK_DEVICE=cpu or --cpu forces
 * the CPU). The same workload as examples/{python,rust,go}: same seed, same
 * numbers on every device.
 *
 *   cc -std=c11 quickstart.c $(pkg-config --cflags --libs ek) -o quickstart && ./quickstart
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

/* A new float32 tensor of the given shape filled from N(0, 0.1^2) by the
 * context's generator (state NULL), on the default stream. */
static ek_tensor randn(ek_context ctx, int ndim, const int64_t *shape) {
  ek_tensor t = NULL;
  CHECK(ek_tensor_empty(NULL, ctx, ndim, shape, EK_FLOAT32, &t));
  CHECK(ek_random(NULL, EK_RANDOM_NORMAL, ek_scalar_float(0.0), ek_scalar_float(0.1), NULL, t));
  return t;
}

int main(int argc, char **argv) {
  const char *env = getenv("EK_DEVICE");
  int force_cpu = (argc > 1 && strcmp(argv[1], "--cpu") == 0) || (env && strcmp(env, "cpu") == 0);
  int gpus = 0;
  CHECK(ek_device_get_count(EK_CUDA, &gpus));
  ek_device dev = {gpus > 0 && !force_cpu ? EK_CUDA : EK_CPU, 0};
  ek_device_info info = EK_DEVICE_INFO_INIT;
  CHECK(ek_device_get_info(dev, &info));
  unsigned v = ek_version(); /* MAJOR * 10000 + MINOR * 100 + PATCH */
  printf("libek %u.%u.%u on %s (%s)\n", v / 10000, v / 100 % 100, v % 100, info.name,
         dev.type == EK_CUDA ? "cuda:0" : "cpu");

  ek_context ctx;
  CHECK(ek_context_create(dev, NULL, &ctx));
  CHECK(ek_random_set_seed(ctx, 0));

  const int64_t xs[2] = {64, 128}, w1s[2] = {128, 256}, b1s[1] = {256}, w2s[2] = {256, 10},
                b2s[1] = {10};
  ek_tensor x = randn(ctx, 2, xs), w1 = randn(ctx, 2, w1s), b1 = randn(ctx, 1, b1s);
  ek_tensor w2 = randn(ctx, 2, w2s), b2 = randn(ctx, 1, b2s);

  /* h = relu(x @ W1 + b1): the bias add and the relu write in place. */
  ek_tensor h = NULL;
  CHECK(ek_matmul(NULL, x, w1, &h));
  CHECK(ek_binary(NULL, EK_BINARY_ADD, h, b1, &h));
  CHECK(ek_unary(NULL, EK_UNARY_RELU, h, &h));
  /* y = softmax(h @ W2 + b2, dim -1) */
  ek_tensor z = NULL, y = NULL;
  CHECK(ek_matmul(NULL, h, w2, &z));
  CHECK(ek_binary(NULL, EK_BINARY_ADD, z, b2, &z));
  CHECK(ek_softmax(NULL, EK_SOFTMAX_PLAIN, z, -1, &y));

  /* Every row of y sums to 1, so the total is 64. */
  ek_tensor total = NULL;
  CHECK(ek_reduce(NULL, EK_REDUCE_SUM, y, 0, NULL, 0, &total));
  float sum = 0.0f, row[10];
  CHECK(ek_tensor_to_host(NULL, total, &sum, sizeof sum));
  ek_tensor first = NULL;
  CHECK(ek_view_select(y, 0, 0, &first));
  CHECK(ek_tensor_to_host(NULL, first, row, sizeof row));

  /* yi.shape points into y's handle: read it before y is released. */
  ek_tensor_info yi = EK_TENSOR_INFO_INIT;
  CHECK(ek_tensor_get_info(y, &yi));
  const int shape_ok = yi.ndim == 2 && yi.shape[0] == 64 && yi.shape[1] == 10;
  printf("y = softmax(relu(x @ W1 + b1) @ W2 + b2): shape [%lld, %lld]\n", (long long)yi.shape[0],
         (long long)yi.shape[1]);
  printf("sum(y) = %.6f\n", sum);
  printf("y[0][0:3] = %.6f %.6f %.6f\n", row[0], row[1], row[2]);

  ek_tensor all[] = {first, total, y, z, h, b2, w2, b1, w1, x};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) CHECK(ek_tensor_release(all[i]));
  CHECK(ek_context_destroy(ctx));
  float err = sum > 64.0f ? sum - 64.0f : 64.0f - sum;
  if (!shape_ok || err > 1e-3f) {
    fprintf(stderr, "unexpected result\n");
    return 1;
  }
  return 0;
}
