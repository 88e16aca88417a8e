/* fib N [CUTOFF]: Fibonacci number F(N) computed with one OpenMP task per call above
 * the cut-off (default 10); calls at or below it recurse serially. */
#include <stdio.h>
#include <stdlib.h>
#include "bench_main.h"

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib(int n, int cutoff) {
  if (n <= cutoff) return fib_serial(n);
  long x, y;
#pragma omp task TIEDNESS shared(x) firstprivate(n, cutoff)
  x = fib(n - 1, cutoff);
#pragma omp task TIEDNESS shared(y) firstprivate(n, cutoff)
  y = fib(n - 2, cutoff);
#pragma omp taskwait
  return x + y;
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 1, 2, "N [CUTOFF]");
  int n = int_arg(argc, argv, 1, 0), cutoff = int_arg(argc, argv, 2, 10);
  require(n >= 0 && n <= 90 && cutoff >= 1, "fib: need 0 <= N <= 90 and CUTOFF >= 1");
  long result = 0;
#pragma omp parallel
#pragma omp single
  result = fib(n, cutoff);
  printf("fib(%d) = %ld\n", n, result);
  return 0;
}
