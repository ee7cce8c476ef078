/*
 * How much of two CPUs this machine gives right now: the same arithmetic run by one thread,
 * then by two threads at once; prints the median over ROUNDS rounds of
 * (time of the two at once) / (time of one alone): 1.00 when the two threads ran on two
 * free cores, ~2.00 when they shared one core's worth (virtual CPUs that are hyperthreads
 * of one host core, or a host that runs one of them at a time).
 *
 *     cc -O2 -pthread benchmarks/parallel_probe.c -o /tmp/parallel_probe && /tmp/parallel_probe [ROUNDS]
 *
 * model_bench.py prints it beside each model: on the 2-vCPU hosts of this project the ratio
 * moved between 1.0 and 1.9 within seconds (a plain C program, so no runtime of ours in it),
 * and our and onnxruntime's two-thread latencies moved with it (ShuffleNet 2.5 <-> 5.5 ms).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

/* Twelve independent multiply-add chains: more than two FMA units keep busy, so two threads
 * on one core's units take twice as long; no memory traffic. */
static void* Work(void* unused) {
  (void)unused;
  double a[12];
  for (int j = 0; j < 12; ++j) a[j] = 1.0 + j;
  for (long i = 0; i < 2000000; ++i) {
    for (int j = 0; j < 12; ++j) a[j] = a[j] * 1.0000001 + 1e-7;
  }
  double s = 0;
  for (int j = 0; j < 12; ++j) s += a[j];
  sink = s;
  return NULL;
}

static int Less(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1 || rounds > 1000) {
    fprintf(stderr, "usage: parallel_probe [ROUNDS in 1..1000]\n");
    return 2;
  }
  double* ratio = malloc(sizeof(double) * rounds);
  if (ratio == NULL) return 1;
  for (int r = 0; r < rounds; ++r) {
    double t = Now();
    Work(NULL);
    double one = Now() - t;
    pthread_t other;
    t = Now();
    if (pthread_create(&other, NULL, Work, NULL) != 0) {
      fprintf(stderr, "parallel_probe: cannot start a thread\n");
      return 1;
    }
    Work(NULL);
    pthread_join(other, NULL);
    ratio[r] = (Now() - t) / one;
  }
  qsort(ratio, rounds, sizeof(double), Less);
  printf("%.2f\n", ratio[rounds / 2]);
  free(ratio);
  return 0;
}
