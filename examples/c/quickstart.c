/* libek quickstart: a context on the GPU when there is one (else the CPU),
 * a tensor, a few zero-copy views, a strided copy back to the host, and the
 * memory pool's statistics.
 *
 *   cc quickstart.c $(pkg-config --cflags --libs ek) -o quickstart && ./quickstart
 */
#include <ek.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    ek_status s_ = (call);                                                       \
    if (s_ != EK_SUCCESS) {                                                      \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

int main(void) {
  int gpus = 0;
  CHECK(ek_device_count(EK_CUDA, &gpus));
  ek_device dev = {gpus > 0 ? EK_CUDA : EK_CPU, 0};
  ek_device_info info;
  CHECK(ek_device_get_info(dev, &info));
  printf("libek %u on %s (%s:%d)\n", ek_version(), info.name, gpus > 0 ? "cuda" : "cpu", 0);

  ek_context ctx;
  CHECK(ek_context_create(dev, NULL, &ctx));

  /* 0, 1, ..., 11 as a 3x4 matrix, then its transpose (a view) made contiguous. */
  ek_tensor flat = NULL, m = NULL, mt = NULL, packed = NULL, col = NULL;
  CHECK(ek_arange(ctx, 0, 12, 1, EK_FLOAT32, NULL, &flat));
  int64_t shape[2] = {3, 4};
  CHECK(ek_view_reshape(flat, 2, shape, &m));
  CHECK(ek_view_transpose(m, 0, 1, &mt));
  CHECK(ek_contiguous(NULL, mt, &packed));
  CHECK(ek_view_select(m, 1, -1, &col)); /* last column: 3, 7, 11 */

  float host[12], last[3];
  CHECK(ek_tensor_to_host(packed, host, sizeof host, NULL));
  CHECK(ek_tensor_to_host(col, last, sizeof last, NULL));
  printf("transpose of arange(12).reshape(3, 4):\n");
  for (int r = 0; r < 4; ++r) printf("  %4.0f %4.0f %4.0f\n", host[3 * r], host[3 * r + 1], host[3 * r + 2]);
  printf("last column: %.0f %.0f %.0f\n", last[0], last[1], last[2]);

  ek_memory_stats st;
  CHECK(ek_memory_stats_get(ctx, &st));
  printf("pool: %llu bytes allocated in %llu blocks, %llu reserved, %llu cache hits\n",
         (unsigned long long)st.allocated_bytes, (unsigned long long)st.active_blocks,
         (unsigned long long)st.reserved_bytes, (unsigned long long)st.cache_hits);

  ek_tensor_release(col);
  ek_tensor_release(packed);
  ek_tensor_release(mt);
  ek_tensor_release(m);
  ek_tensor_release(flat);
  CHECK(ek_context_destroy(ctx));
  return host[1] == 4.0f && last[2] == 11.0f ? 0 : 1;
}
