/* libek custom kernels, static: loads the fatbin that nvcc built ahead of
 * time from scale.cu (see the command there), launches its kernel "scale"
 * (y = a * x) and checks the result on the host. The fatbin's path is argv[1],
 * else scale.fatbin beside this executable (where meson puts it).
 *
 *   cc -std=c11 static.c $(pkg-config --cflags --libs ek) -o static && ./static scale.fatbin
 */
#define _POSIX_C_SOURCE 200809L
#include <ek.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ek_status s_ = (call);                                                                   \
    if (s_ != EK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* scale.fatbin in the directory of this executable. */
static void default_path(char *path, size_t size) {
  ssize_t n = readlink("/proc/self/exe", path, size - 1);
  path[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  snprintf(path + dir, size - dir, "scale.fatbin");
}

/* The whole file, malloc'ed; NULL (after a message) when it cannot be read. */
static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = n > 0 ? malloc((size_t)n) : NULL;
  *size = bytes ? fread(bytes, 1, (size_t)n, f) : 0;
  fclose(f);
  return bytes;
}

int main(int argc, char **argv) {
  int gpus = 0;
  CHECK(ek_device_get_count(EK_CUDA, &gpus));
  if (gpus == 0) {
    printf("no CUDA device is present: custom kernels need one; nothing to do\n");
    return 0;
  }
  char path[4096];
  if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
  else default_path(path, sizeof path);
  size_t size = 0;
  char *image = read_file(path, &size);
  if (!image) return 1;
  ek_context ctx = NULL;
  ek_module m = NULL;
  ek_kernel k = NULL;
  CHECK(ek_context_create((ek_device){EK_CUDA, 0}, NULL, &ctx));
  CHECK(ek_module_from_image(ctx, image, size, &m));
  free(image);  /* loaded: the module no longer needs it */
  CHECK(ek_module_get_kernel(m, "scale", &k));

  enum { N = 100000 };
  static float x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = (float)i;
  int64_t shape = N;
  ek_tensor tx = NULL, ty = NULL;
  void *px = NULL, *py = NULL;
  CHECK(ek_tensor_from_host(NULL, ctx, 1, &shape, EK_FLOAT32, x, &tx));
  CHECK(ek_tensor_empty(NULL, ctx, 1, &shape, EK_FLOAT32, &ty));
  CHECK(ek_tensor_get_data(tx, &px));
  CHECK(ek_tensor_get_data(ty, &py));
  unsigned long long n = N;
  float a = 3.0f;
  ek_kernel_arg args[] = {{&n, sizeof n}, {&a, sizeof a}, {&px, sizeof px}, {&py, sizeof py}};
  const unsigned grid[3] = {(N + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  CHECK(ek_kernel_launch(NULL, k, grid, block, 0, args, 4));
  CHECK(ek_tensor_to_host(NULL, ty, y, sizeof y));
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += y[i] != a * x[i];
  printf("scale from %s: %d of %d elements wrong\n", path, bad, N);

  CHECK(ek_tensor_release(tx));
  CHECK(ek_tensor_release(ty));
  CHECK(ek_kernel_release(k));
  CHECK(ek_module_release(m));
  CHECK(ek_context_destroy(ctx));
  return bad == 0 ? 0 : 1;
}
