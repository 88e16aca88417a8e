/* mergesort N [SORT_CUTOFF] [MERGE_CUTOFF]: sort N pseudo-random 32-bit keys.
 * Halves longer than SORT_CUTOFF (default 2048) are sorted in two OpenMP tasks; runs
 * longer than MERGE_CUTOFF (default 8192) are merged in parallel by splitting the
 * larger run at its median and the smaller one by binary search. The result is checked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_main.h"

static long sort_cutoff = 2048, merge_cutoff = 8192;

static void insertion_sort(uint32_t *a, long n) {
  for (long i = 1; i < n; i++) {
    uint32_t v = a[i];
    long j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

static void merge_serial(const uint32_t *a, long na, const uint32_t *b, long nb, uint32_t *out) {
  long i = 0, j = 0, k = 0;
  while (i < na && j < nb) out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
}

/* first index in b[0..nb) whose key is >= v */
static long lower_bound(const uint32_t *b, long nb, uint32_t v) {
  long lo = 0, hi = nb;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (b[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void merge(const uint32_t *a, long na, const uint32_t *b, long nb, uint32_t *out) {
  if (na < nb) { /* keep a the longer run */
    const uint32_t *t = a; a = b; b = t;
    long tn = na; na = nb; nb = tn;
  }
  if (na + nb <= merge_cutoff || na == 0) {
    merge_serial(a, na, b, nb, out);
    return;
  }
  long ma = na / 2;
  long mb = lower_bound(b, nb, a[ma]);
#pragma omp task TIEDNESS
  merge(a, ma, b, mb, out);
  merge(a + ma, na - ma, b + mb, nb - mb, out + ma + mb);
#pragma omp taskwait
}

/* sort a[0..n) using tmp[0..n) as scratch; the result ends up in a */
static void sort(uint32_t *a, uint32_t *tmp, long n) {
  if (n <= sort_cutoff) {
    if (n <= 32) {
      insertion_sort(a, n);
      return;
    }
    long h = n / 2;
    sort(a, tmp, h);
    sort(a + h, tmp + h, n - h);
    merge_serial(a, h, a + h, n - h, tmp);
    memcpy(a, tmp, (size_t)n * sizeof *a);
    return;
  }
  long h = n / 2;
#pragma omp task TIEDNESS
  sort(a, tmp, h);
#pragma omp task TIEDNESS
  sort(a + h, tmp + h, n - h);
#pragma omp taskwait
  merge(a, h, a + h, n - h, tmp);
  memcpy(a, tmp, (size_t)n * sizeof *a);
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 1, 3, "N [SORT_CUTOFF] [MERGE_CUTOFF]");
  long n = (long)whole_arg(argc, argv, 1, 0, LONG_MIN, LONG_MAX);
  sort_cutoff = (long)whole_arg(argc, argv, 2, sort_cutoff, LONG_MIN, LONG_MAX);
  merge_cutoff = (long)whole_arg(argc, argv, 3, merge_cutoff, LONG_MIN, LONG_MAX);
  require(n >= 1 && sort_cutoff >= 1 && merge_cutoff >= 1,
          "mergesort: need N >= 1 and positive cut-offs");
  uint32_t *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
  if (!a || !tmp) {
    fprintf(stderr, "mergesort: out of memory\n");
    return 1;
  }
  uint64_t state = 88172645463325252ull; /* xorshift64 */
  for (long i = 0; i < n; i++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    a[i] = (uint32_t)(state >> 32);
  }
#pragma omp parallel
#pragma omp single
  sort(a, tmp, n);
  for (long i = 1; i < n; i++) {
    if (a[i - 1] > a[i]) {
      fprintf(stderr, "mergesort: result not sorted at %ld\n", i);
      return 1;
    }
  }
  printf("mergesort(%ld): sorted\n", n);
  free(a);
  free(tmp);
  return 0;
}
