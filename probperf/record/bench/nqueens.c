/* nqueens N [CUTOFF]: number of ways to place N non-attacking queens on an N x N
 * board. Rows above the cut-off depth (default 3) try each column in its own OpenMP
 * task, on a private copy of the partial board; deeper rows search serially. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_main.h"

static int safe(const char *cols, int row, int col) {
  for (int r = 0; r < row; r++) {
    int c = cols[r];
    if (c == col || c - col == r - row || c - col == row - r) return 0;
  }
  return 1;
}

static long search_serial(char *cols, int row, int n) {
  if (row == n) return 1;
  long count = 0;
  for (int col = 0; col < n; col++) {
    if (safe(cols, row, col)) {
      cols[row] = (char)col;
      count += search_serial(cols, row + 1, n);
    }
  }
  return count;
}

static long search(const char *cols, int row, int n, int cutoff) {
  if (row >= cutoff) {
    char board[64];
    memcpy(board, cols, (size_t)row);
    return search_serial(board, row, n);
  }
  long counts[64] = {0};
  for (int col = 0; col < n; col++) {
    if (!safe(cols, row, col)) continue;
#pragma omp task TIEDNESS firstprivate(col) shared(counts)
    {
      char board[64];
      memcpy(board, cols, (size_t)row);
      board[row] = (char)col;
      counts[col] = search(board, row + 1, n, cutoff);
    }
  }
#pragma omp taskwait
  long total = 0;
  for (int col = 0; col < n; col++) total += counts[col];
  return total;
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 1, 2, "N [CUTOFF]");
  int n = int_arg(argc, argv, 1, 0), cutoff = int_arg(argc, argv, 2, 3);
  require(n >= 1 && n <= 20 && cutoff >= 0, "nqueens: need 1 <= N <= 20 and CUTOFF >= 0");
  long solutions = 0;
  char empty[64] = {0};
#pragma omp parallel
#pragma omp single
  solutions = search(empty, 0, n, cutoff);
  printf("nqueens(%d) = %ld\n", n, solutions);
  return 0;
}
