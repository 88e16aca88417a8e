/* strassen N [CUTOFF]: C = A * B for N x N matrices (N a power of two) by Strassen's
 * recursion; the seven half-size products of a level run as OpenMP tasks, and blocks of
 * size CUTOFF (default 64) or less are multiplied directly. A sample of entries of C is
 * checked against dot products. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_main.h"

static int cutoff = 64;

static double *alloc(long n) {
  double *p = malloc((size_t)n * sizeof *p);
  if (!p) {
    fprintf(stderr, "strassen: out of memory\n");
    exit(1);
  }
  return p;
}

/* c (ldc) = a (lda) * b (ldb), n x n */
static void multiply_direct(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) c[i * ldc + j] = 0.0;
    for (int k = 0; k < n; k++) {
      double aik = a[i * lda + k];
      for (int j = 0; j < n; j++) c[i * ldc + j] += aik * b[k * ldb + j];
    }
  }
}

/* dst (n x n, dense) = x + sign * y, or a copy of x when y is NULL */
static void combine(double *dst, const double *x, const double *y, int ld, int n, double sign) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      dst[i * n + j] = x[i * ld + j] + (y ? sign * y[i * ld + j] : 0.0);
}

static void strassen(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n);

/* m = (x1 + sx * x2) * (y1 + sy * y2), operands h x h inside matrices of stride ld */
static void product(double *m, const double *x1, const double *x2, double sx, int ldx,
                    const double *y1, const double *y2, double sy, int ldy, int h) {
  double *ta = alloc((long)h * h), *tb = alloc((long)h * h);
  combine(ta, x1, x2, ldx, h, sx);
  combine(tb, y1, y2, ldy, h, sy);
  strassen(ta, h, tb, h, m, h, h);
  free(ta);
  free(tb);
}

static void strassen(const double *a, int lda, const double *b, int ldb, double *c, int ldc, int n) {
  if (n <= cutoff) {
    multiply_direct(a, lda, b, ldb, c, ldc, n);
    return;
  }
  int h = n / 2;
  long hh = (long)h * h;
  const double *a11 = a, *a12 = a + h, *a21 = a + (long)h * lda, *a22 = a21 + h;
  const double *b11 = b, *b12 = b + h, *b21 = b + (long)h * ldb, *b22 = b21 + h;
  double *m = alloc(7 * hh);
  double *m1 = m, *m2 = m + hh, *m3 = m + 2 * hh, *m4 = m + 3 * hh, *m5 = m + 4 * hh,
         *m6 = m + 5 * hh, *m7 = m + 6 * hh;
#pragma omp task TIEDNESS
  product(m1, a11, a22, 1, lda, b11, b22, 1, ldb, h);
#pragma omp task TIEDNESS
  product(m2, a21, a22, 1, lda, b11, NULL, 0, ldb, h);
#pragma omp task TIEDNESS
  product(m3, a11, NULL, 0, lda, b12, b22, -1, ldb, h);
#pragma omp task TIEDNESS
  product(m4, a22, NULL, 0, lda, b21, b11, -1, ldb, h);
#pragma omp task TIEDNESS
  product(m5, a11, a12, 1, lda, b22, NULL, 0, ldb, h);
#pragma omp task TIEDNESS
  product(m6, a21, a11, -1, lda, b11, b12, 1, ldb, h);
#pragma omp task TIEDNESS
  product(m7, a12, a22, -1, lda, b21, b22, 1, ldb, h);
#pragma omp taskwait
  for (int i = 0; i < h; i++)
    for (int j = 0; j < h; j++) {
      long k = (long)i * h + j;
      c[i * ldc + j] = m1[k] + m4[k] - m5[k] + m7[k];
      c[i * ldc + j + h] = m3[k] + m5[k];
      c[(i + h) * ldc + j] = m2[k] + m4[k];
      c[(i + h) * ldc + j + h] = m1[k] - m2[k] + m3[k] + m6[k];
    }
  free(m);
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 1, 2, "N [CUTOFF]");
  int n = int_arg(argc, argv, 1, 0);
  cutoff = int_arg(argc, argv, 2, cutoff);
  require(n >= 1 && n <= 16384 && !(n & (n - 1)) && cutoff >= 1,
          "strassen: N must be a power of two up to 16384 and CUTOFF >= 1");
  long nn = (long)n * n;
  double *a = alloc(nn), *b = alloc(nn), *c = alloc(nn);
  unsigned long long s = 42;
  for (long k = 0; k < 2 * nn; k++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double v = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (k < nn) a[k] = v;
    else b[k - nn] = v;
  }
#pragma omp parallel
#pragma omp single
  strassen(a, n, b, n, c, n, n);
  double worst = 0.0;
  for (int t = 0; t < 64; t++) {
    int i = (int)((t * 2654435761u) % (unsigned)n), j = (int)((t * 40503u + 7) % (unsigned)n);
    double dot = 0.0;
    for (int k = 0; k < n; k++) dot += a[(long)i * n + k] * b[(long)k * n + j];
    double err = fabs(dot - c[(long)i * n + j]) / (1.0 + fabs(dot));
    if (err > worst) worst = err;
  }
  if (!(worst < 1e-8)) {
    fprintf(stderr, "strassen: wrong product (relative error %.3g)\n", worst);
    return 1;
  }
  printf("strassen(%d): checked, max relative error %.2e\n", n, worst);
  free(a);
  free(b);
  free(c);
  return 0;
}
