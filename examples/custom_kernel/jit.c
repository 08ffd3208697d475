/* libek custom kernels, JIT: a kernel computing y = a * x + b over 1M floats,
 * compiled at run time by NVRTC, launched with an autotuned block size and
 * checked on the host. Prints how long ek_module_compile took (each time the
 * driver's module load included) for the first module (NVRTC, or the disk
 * cache when an earlier run left the image there) and for a second module of
 * the same source (this process's memory cache).
 *
 * With EK_KERNEL_CACHE_DIR set, a run that compiles stores its compile time in
 * that directory (jit_example_compile_ms), and a later run, a new process
 * that finds the image on disk, prints the compile/disk ratio:
 *
 *   cc -std=c11 jit.c $(pkg-config --cflags --libs ek) -o jit
 *   EK_KERNEL_CACHE_DIR=/tmp/ek-jit ./jit   # cold compile, memory cache
 *   EK_KERNEL_CACHE_DIR=/tmp/ek-jit ./jit   # disk cache, ratio
 */
#define _POSIX_C_SOURCE 200809L
#define EK_EXPERIMENTAL /* ek_kernel_launch_auto is experimental (ek.h) */
#include <ek.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ek_status s_ = (call);                                                                   \
    if (s_ != EK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static const char *kSource =
    "extern \"C\" __global__ void affine(unsigned long long n, float a, float b,\n"
    "                                    const float *x, float *y) {\n"
    "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + b;\n"
    "}\n";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static const char *origin_name(ek_module_origin o) {
  switch (o) {
    case EK_MODULE_COMPILED: return "compiled by NVRTC";
    case EK_MODULE_MEMORY_CACHE: return "from the memory cache";
    case EK_MODULE_DISK_CACHE: return "from the disk cache";
    case EK_MODULE_IMAGE: return "from an image";
    default: return "not loaded";
  }
}

/* A module of kSource, compiled (or found in a cache) now; prints how and
 * sets *ms to how long ek_module_compile took. */
static ek_module load_module(ek_context ctx, const char *label, ek_module_origin *origin,
                             double *ms) {
  ek_module m = NULL;
  CHECK(ek_module_from_source(ctx, kSource, "affine.cu", NULL, 0, &m));
  double t0 = now_ms();
  CHECK(ek_module_compile(m));
  *ms = now_ms() - t0;
  CHECK(ek_module_get_origin(m, origin));
  printf("%s module: %s in %.3f ms\n", label, origin_name(*origin), *ms);
  return m;
}

/* The file in EK_KERNEL_CACHE_DIR keeping a cold compile's time; NULL when unset. */
static const char *timing_file(char *path, size_t size) {
  const char *dir = getenv("EK_KERNEL_CACHE_DIR");
  if (!dir || !*dir) return NULL;
  snprintf(path, size, "%s/jit_example_compile_ms", dir);
  return path;
}

/* Prints the first module's time by origin; keeps or uses a compile time. */
static void report_first(ek_module_origin origin, double ms) {
  char buffer[4096];
  const char *path = timing_file(buffer, sizeof buffer);
  FILE *f = NULL;
  double compile_ms = 0;
  if (origin == EK_MODULE_COMPILED) {
    printf("cold compile: %.3f ms\n", ms);
    if (path && (f = fopen(path, "w")) != NULL) fprintf(f, "%.6f\n", ms);
  } else if (origin == EK_MODULE_DISK_CACHE) {
    printf("disk cache (new process): %.3f ms\n", ms);
    if (path && (f = fopen(path, "r")) != NULL && fscanf(f, "%lf", &compile_ms) == 1 &&
        compile_ms > 0)
      printf("compile/disk: %.1fx (cold compile %.3f ms, by an earlier run)\n",
             compile_ms / ms, compile_ms);
    else
      printf("compile/disk: unknown (no compile time kept%s)\n",
             path ? " in EK_KERNEL_CACHE_DIR" : ": EK_KERNEL_CACHE_DIR is unset");
  }
  if (f) fclose(f);
}

/* y = a * x + b on the device; returns the largest difference from the host. */
static double run(ek_context ctx, ek_kernel k, unsigned long long n, unsigned *block) {
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (unsigned long long i = 0; i < n; ++i) x[i] = (float)(i % 1000) * 0.001f - 0.5f;
  int64_t shape = (int64_t)n;
  ek_tensor tx = NULL, ty = NULL;
  CHECK(ek_tensor_from_host(NULL, ctx, 1, &shape, EK_FLOAT32, x, &tx));
  CHECK(ek_tensor_empty(NULL, ctx, 1, &shape, EK_FLOAT32, &ty));
  float a = 2.0f, b = 0.25f;
  /* Typed arguments: the library turns tensors into their device pointers and
     scalars into the bytes of the dtype (n is unsigned long long: 8 bytes). */
  ek_kernel_value args[5] = {
      {.kind = EK_KERNEL_VALUE_SCALAR, .dtype = EK_INT64, .scalar = ek_scalar_int((int64_t)n)},
      {.kind = EK_KERNEL_VALUE_SCALAR, .dtype = EK_FLOAT32, .scalar = ek_scalar_float(a)},
      {.kind = EK_KERNEL_VALUE_SCALAR, .dtype = EK_FLOAT32, .scalar = ek_scalar_float(b)},
      {.kind = EK_KERNEL_VALUE_TENSOR, .tensor = tx},
      {.kind = EK_KERNEL_VALUE_TENSOR, .tensor = ty}};
  CHECK(ek_kernel_launch_auto(NULL, k, n, 0, args, 5, block));
  CHECK(ek_tensor_to_host(NULL, ty, y, n * sizeof *y));
  double worst = 0;
  for (unsigned long long i = 0; i < n; ++i) worst = fmax(worst, fabs(y[i] - (a * x[i] + b)));
  ek_tensor_release(tx);
  ek_tensor_release(ty);
  free(x);
  free(y);
  return worst;
}

int main(void) {
  int gpus = 0;
  CHECK(ek_device_get_count(EK_CUDA, &gpus));
  if (gpus == 0) {
    printf("no CUDA device is present: custom kernels need one; nothing to do\n");
    return 0;
  }
  ek_context ctx = NULL;
  CHECK(ek_context_create((ek_device){EK_CUDA, 0}, NULL, &ctx));
  ek_module_origin origin;
  double ms = 0;
  ek_module first = load_module(ctx, "first", &origin, &ms);
  report_first(origin, ms);
  ek_module second = load_module(ctx, "second", &origin, &ms);
  if (origin == EK_MODULE_MEMORY_CACHE) printf("memory cache: %.3f ms\n", ms);
  ek_kernel k = NULL;
  CHECK(ek_module_get_kernel(second, "affine", &k));
  unsigned block = 0;
  const unsigned long long n = 1ull << 20;
  double worst = run(ctx, k, n, &block);
  printf("y = 2x + 0.25 over %llu floats, block size %u (autotuned): largest error %g\n", n,
         block, worst);
  CHECK(ek_kernel_release(k));
  CHECK(ek_module_release(second));
  CHECK(ek_module_release(first));
  CHECK(ek_context_destroy(ctx));
  return worst == 0 ? 0 : 1;
}
