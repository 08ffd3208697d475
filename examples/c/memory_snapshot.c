/* libek memory snapshot: fragments a context's memory pool on two streams,
 * shows what the pool does through a log callback (the context logs at info
 * level), and writes the pool's snapshot as JSON for scripts/plot_memory.py.
 * On the GPU when there is one, else on the CPU (--cpu or EK_DEVICE=cpu forces
 * the CPU).
 *
 *   build/examples/memory_snapshot [--cpu] [snapshot.json]
 *   python3 scripts/plot_memory.py snapshot.json -o memory.png
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

#define KiB (1u << 10)
#define MiB (1u << 20)
#define NBLOCKS 40

/* Runs on whichever thread logs; the message is borrowed for the call. */
static void print_log(ek_log_level level, const char *message, void *user_data) {
  static const char *names[] = {"off", "error", "warn", "info", "debug"};
  printf("%s[%s] %s\n", (const char *)user_data, names[level], message);
}

int main(int argc, char **argv) {
  const char *env = getenv("EK_DEVICE");
  int force_cpu = env && strcmp(env, "cpu") == 0;
  const char *path = "memory-snapshot.json";
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--cpu") == 0) force_cpu = 1;
    else path = argv[i];
  }
  int gpus = 0;
  CHECK(ek_device_get_count(EK_CUDA, &gpus));
  ek_device dev = {gpus > 0 && !force_cpu ? EK_CUDA : EK_CPU, 0};

  CHECK(ek_log_set_callback(print_log, "log "));
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.log_level = EK_LOG_INFO;
  ek_context ctx;
  CHECK(ek_context_create(dev, &cfg, &ctx));
  ek_stream side;
  CHECK(ek_stream_create(ctx, &side));

  /* Small (2 MiB segments), medium (20 MiB segments) and large blocks, every
   * third on the side stream; then every other one freed: holes. */
  static const size_t sizes[] = {96 * KiB, 700 * KiB, 3 * MiB, 160 * KiB, 6 * MiB};
  void *blocks[NBLOCKS];
  ek_stream streams[NBLOCKS];
  for (int i = 0; i < NBLOCKS; ++i) {
    streams[i] = i % 3 == 2 ? side : NULL;
    CHECK(ek_malloc(streams[i], ctx, sizes[i % 5] + (size_t)i * 8 * KiB, &blocks[i]));
  }
  void *large;
  CHECK(ek_malloc(NULL, ctx, 30 * MiB, &large));
  for (int i = 1; i < NBLOCKS; i += 2) CHECK(ek_free(streams[i], ctx, blocks[i]));

  ek_memory_stats st = EK_MEMORY_STATS_INIT;
  CHECK(ek_memory_get_stats(ctx, &st));
  printf("allocated %.2f MiB, reserved %.2f MiB in %llu segments, fragmentation %.1f%%\n",
         st.allocated_bytes / (double)MiB, st.reserved_bytes / (double)MiB,
         (unsigned long long)st.segments, 100 * st.fragmentation);
  CHECK(ek_memory_write_snapshot_json(ctx, path));
  printf("wrote %s; draw it with: python3 scripts/plot_memory.py %s -o memory.png\n", path, path);

  for (int i = 0; i < NBLOCKS; i += 2) CHECK(ek_free(streams[i], ctx, blocks[i]));
  CHECK(ek_free(NULL, ctx, large));
  CHECK(ek_memory_empty_cache(ctx));
  CHECK(ek_stream_destroy(side));
  CHECK(ek_context_destroy(ctx));
  CHECK(ek_log_set_callback(NULL, NULL));
  return 0;
}
