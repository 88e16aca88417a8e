/* What every benchmark program shares: the tiedness of its tasks and the checks of its
 * command line (bad arguments exit with status 2 and a message on stderr). */
#ifndef PROBPERF_BENCH_MAIN_H
#define PROBPERF_BENCH_MAIN_H
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

#endif
