/* libek data-parallel step: one process per GPU. Each rank computes a
 * gradient-like tensor (here g_r[i] = (r + 1) * sin(i), as if from its own
 * slice of a batch), ek_comm_all_reduce with EK_REDUCE_MEAN averages it over
 * the ranks in place, and every rank checks the result against the mean
 * computed on the host: (n + 1) / 2 * sin(i).
 *
 * CUDA must not be initialized before fork(), so the parent learns the GPU
 * count from a short-lived child over a pipe, makes the NCCL unique id
 * (which needs no GPU), and forks one rank per GPU; every rank reports
 * through the same pipe.
 *
 *   cc -std=c11 data_parallel.c $(pkg-config --cflags --libs ek) -lm -o data_parallel && ./data_parallel
 */
#define _POSIX_C_SOURCE 200809L
#include <ek.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN 4096

#define CHECK(call)                                                                          \
  do {                                                                                       \
    ek_status s_ = (call);                                                                   \
    if (s_ != EK_SUCCESS) {                                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ek_status_string(s_), ek_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

/* The GPU count, from a child process (the parent stays free of CUDA). */
static int gpu_count(void) {
  int fds[2], n = 0;
  if (pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid == 0) {
    int count = 0;
    if (ek_device_get_count(EK_CUDA, &count) != EK_SUCCESS) count = 0;
    ssize_t w = write(fds[1], &count, sizeof count);
    _exit(w == (ssize_t)sizeof count ? 0 : 1);
  }
  close(fds[1]);
  if (read(fds[0], &n, sizeof n) != (ssize_t)sizeof n) n = 0;
  close(fds[0]);
  waitpid(pid, NULL, 0);
  return n;
}

/* One rank: returns the largest error of its averaged gradient. */
static double run_rank(int rank, int nranks, const ek_comm_unique_id *id) {
  ek_context ctx = NULL;
  CHECK(ek_context_create((ek_device){EK_CUDA, rank}, NULL, &ctx));
  ek_comm comm = NULL;
  CHECK(ek_comm_init_rank(ctx, nranks, id, rank, NULL, &comm));

  static float host[LEN];
  for (int i = 0; i < LEN; ++i) host[i] = (float)((rank + 1) * sin(i));
  const int64_t shape[1] = {LEN};
  ek_tensor grad = NULL;
  CHECK(ek_tensor_from_host(NULL, ctx, 1, shape, EK_FLOAT32, host, &grad));
  CHECK(ek_comm_all_reduce(NULL, comm, EK_REDUCE_MEAN, grad, &grad)); /* in place */
  CHECK(ek_tensor_to_host(NULL, grad, host, sizeof host));           /* synchronous */

  double worst = 0;
  for (int i = 0; i < LEN; ++i) {
    double err = fabs(host[i] - (nranks + 1) / 2.0 * sin(i));
    if (err > worst) worst = err;
  }
  CHECK(ek_tensor_release(grad));
  CHECK(ek_comm_destroy(comm));
  CHECK(ek_context_destroy(ctx));
  return worst;
}

int main(void) {
  const int n = gpu_count();
  if (n == 0) {
    printf("data_parallel: no CUDA device, nothing to do\n");
    return 0;
  }
  ek_comm_unique_id id;
  CHECK(ek_comm_get_unique_id(&id));
  int fds[2];
  if (pipe(fds) != 0) return 1;
  for (int r = 0; r < n; ++r) {
    if (fork() == 0) {
      close(fds[0]);
      double worst = run_rank(r, n, &id);
      ssize_t w = write(fds[1], &worst, sizeof worst);
      _exit(w == (ssize_t)sizeof worst ? 0 : 1);
    }
  }
  close(fds[1]);
  int failed = 0, reported = 0;
  double worst = 0;
  while (read(fds[0], &worst, sizeof worst) == (ssize_t)sizeof worst) {
    ++reported;
    if (!(worst < 1e-5)) failed = 1;
  }
  for (int status = 0, r = 0; r < n; ++r) {
    wait(&status);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  printf("data_parallel: %d ranks averaged their gradients: %s\n", reported,
         failed || reported != n ? "FAILED" : "ok");
  return failed || reported != n;
}
