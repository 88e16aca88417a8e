/* What every benchmark program shares: the tiedness of its tasks and the checks of its
 * command line (bad arguments exit with status 2 and a message on stderr). */
#ifndef PROBPERF_BENCH_MAIN_H
#define PROBPERF_BENCH_MAIN_H
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Tied tasks; `probperf bench build` also builds NAME_untied with -DTIEDNESS=untied
 * (untied is the default of the Barcelona OpenMP Tasks Suite). */
#ifndef TIEDNESS
#define TIEDNESS
#endif

/* Unless the program got from MIN to MAX arguments: print "usage: PROGRAM ARGS" and exit. */
static inline void check_usage(int argc, char **argv, int min, int max, const char *args) {
  if (argc - 1 < min || argc - 1 > max) {
    fprintf(stderr, "usage: %s %s\n", argv[0], args);
    exit(2);
  }
}

/* Unless the arguments are valid (ok): print the message saying what they must be, and exit. */
static inline void require(int ok, const char *message) {
  if (!ok) {
    fprintf(stderr, "%s\n", message);
    exit(2);
  }
}

/* Argument I as a whole number, or FALLBACK where it was not given; anything else
 * ("2**20", "1e6", "20abc", "8.9", beyond LOW..HIGH's type) exits with status 2
 * naming it: atoi read such a size as another size and the run went on. */
static inline long long whole_arg(int argc, char **argv, int i, long long fallback, long long low, long long high) {
  if (i >= argc) return fallback;
  char *end;
  errno = 0;
  long long v = strtoll(argv[i], &end, 10);
  if (end == argv[i] || *end != '\0') {
    fprintf(stderr, "%s: argument %d '%s' is not a whole number\n", argv[0], i, argv[i]);
    exit(2);
  }
  if (errno == ERANGE || v < low || v > high) {
    fprintf(stderr, "%s: argument %d '%s' is out of range (%lld to %lld)\n", argv[0], i, argv[i], low, high);
    exit(2);
  }
  return v;
}

/* whole_arg for an int: its limits are the type's; the program's own are said by require. */
static inline int int_arg(int argc, char **argv, int i, int fallback) {
  return (int)whole_arg(argc, argv, i, fallback, INT_MIN, INT_MAX);
}

#endif
