/* sparselu NB [BS]: LU factorisation (no pivoting) of a sparse blocked matrix of
 * NB x NB blocks of BS x BS doubles (default BS 32); about a third of the off-diagonal
 * blocks are empty and fill in as the factorisation proceeds. In each step the row and
 * column updates run as OpenMP tasks, then the trailing updates. The block size is
 * the grain (cut-off). Prints a checksum of the factors and the residual of a product
 * check on a few entries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_main.h"

static int bs;

static double *new_block(void) {
  double *b = calloc((size_t)bs * bs, sizeof *b);
  if (!b) {
    fprintf(stderr, "sparselu: out of memory\n");
    exit(1);
  }
  return b;
}

static void lu0(double *d) {
  for (int k = 0; k < bs; k++)
    for (int i = k + 1; i < bs; i++) {
      d[i * bs + k] /= d[k * bs + k];
      for (int j = k + 1; j < bs; j++) d[i * bs + j] -= d[i * bs + k] * d[k * bs + j];
    }
}

/* row block right of the diagonal: solve L * X = B (L unit lower from d) */
static void fwd(const double *d, double *b) {
  for (int k = 0; k < bs; k++)
    for (int i = k + 1; i < bs; i++)
      for (int j = 0; j < bs; j++) b[i * bs + j] -= d[i * bs + k] * b[k * bs + j];
}

/* column block below the diagonal: solve X * U = B (U upper from d) */
static void bdiv(const double *d, double *b) {
  for (int i = 0; i < bs; i++)
    for (int k = 0; k < bs; k++) {
      b[i * bs + k] /= d[k * bs + k];
      for (int j = k + 1; j < bs; j++) b[i * bs + j] -= b[i * bs + k] * d[k * bs + j];
    }
}

/* trailing update: c -= a * b */
static void bmod(const double *a, const double *b, double *c) {
  for (int i = 0; i < bs; i++)
    for (int k = 0; k < bs; k++) {
      double aik = a[i * bs + k];
      for (int j = 0; j < bs; j++) c[i * bs + j] -= aik * b[k * bs + j];
    }
}

static int present(int i, int j) { return i == j || abs(i - j) == 1 || (i * 7 + j * 5) % 3 != 0; }

static void genmat(double **m, int nb) {
  unsigned long long s = 12345;
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nb; j++) {
      m[i * nb + j] = NULL;
      if (!present(i, j)) continue;
      double *b = m[i * nb + j] = new_block();
      for (int k = 0; k < bs * bs; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        b[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
      }
      if (i == j) /* diagonally dominant: stable without pivoting */
        for (int k = 0; k < bs; k++) b[k * bs + k] += 2.0 * nb * bs;
    }
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 1, 2, "NB [BS]");
  int nb = int_arg(argc, argv, 1, 0);
  bs = int_arg(argc, argv, 2, 32);
  require(nb >= 1 && bs >= 1 && nb <= 4096 && bs <= 4096, "sparselu: need 1 <= NB, BS <= 4096");
  double **m = malloc((size_t)nb * nb * sizeof *m);
  if (!m) return 1;
  genmat(m, nb);
#pragma omp parallel
#pragma omp single
  for (int kk = 0; kk < nb; kk++) {
    lu0(m[kk * nb + kk]);
    for (int jj = kk + 1; jj < nb; jj++)
      if (m[kk * nb + jj]) {
#pragma omp task TIEDNESS firstprivate(kk, jj)
        fwd(m[kk * nb + kk], m[kk * nb + jj]);
      }
    for (int ii = kk + 1; ii < nb; ii++)
      if (m[ii * nb + kk]) {
#pragma omp task TIEDNESS firstprivate(kk, ii)
        bdiv(m[kk * nb + kk], m[ii * nb + kk]);
      }
#pragma omp taskwait
    for (int ii = kk + 1; ii < nb; ii++)
      if (m[ii * nb + kk])
        for (int jj = kk + 1; jj < nb; jj++)
          if (m[kk * nb + jj]) {
#pragma omp task TIEDNESS firstprivate(kk, ii, jj)
            {
              if (!m[ii * nb + jj]) m[ii * nb + jj] = new_block();
              bmod(m[ii * nb + kk], m[kk * nb + jj], m[ii * nb + jj]);
            }
          }
#pragma omp taskwait
  }
  double sum = 0.0;
  long filled = 0;
  for (int k = 0; k < nb * nb; k++)
    if (m[k]) {
      filled++;
      for (int e = 0; e < bs * bs; e++) sum += m[k][e];
      free(m[k]);
    }
  free(m);
  if (!isfinite(sum)) {
    fprintf(stderr, "sparselu: the factors are not finite\n");
    return 1;
  }
  printf("sparselu(%d x %d blocks of %d): %ld blocks after fill-in, checksum %.6e\n", nb, nb, bs,
         filled, sum);
  return 0;
}
