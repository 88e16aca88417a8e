/* health LEVELS STEPS [SEED]: an irregular simulation in the style of the health
 * benchmark of the Barcelona OpenMP Tasks Suite (written here, not taken from it).
 *
 * A tree of villages, 4 children per village and LEVELS levels, each with a clinic.
 * Every time step each village simulates its sub-villages in one task per child, then
 * its own clinic: new patients arrive at random, the clinic treats as many as it has
 * doctors (more doctors higher up), each treatment costs work proportional to the
 * patient's severity, and a patient who waited too long is sent up to the parent's
 * clinic. The tasks' sizes therefore differ from village to village and from step to
 * step. Each village draws from its own random stream and a parent takes its
 * children's referrals in child order, so the result does not depend on the schedule.
 * Prints the patients treated and a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_main.h"

#define CHILDREN 4
#define MAX_WAIT 3 /* steps a patient waits before being referred up */

typedef struct {
  uint32_t severity, waited;
} patient_t;

typedef struct {
  patient_t *items;
  long n, cap;
} queue_t;

typedef struct village {
  struct village *child[CHILDREN];
  int n_children, doctors;
  uint64_t rng;
  queue_t waiting, referred; /* referred: patients sent up this step */
  long treated;
  uint64_t checksum;
} village_t;

static uint64_t next_random(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static void push(queue_t *q, patient_t p) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 16;
    q->items = realloc(q->items, (size_t)q->cap * sizeof *q->items);
    if (!q->items) {
      fprintf(stderr, "health: out of memory\n");
      exit(1);
    }
  }
  q->items[q->n++] = p;
}

static village_t *build(int level, int levels, uint64_t seed) {
  village_t *v = calloc(1, sizeof *v);
  if (!v) exit(1);
  v->rng = seed * 0x9E3779B97F4A7C15ull + 1;
  v->doctors = 1 + 2 * (levels - level);
  if (level + 1 < levels) {
    v->n_children = CHILDREN;
    for (int i = 0; i < CHILDREN; i++) v->child[i] = build(level + 1, levels, seed * CHILDREN + i + 1);
  }
  return v;
}

/* Examining a patient: severity rounds of arithmetic on the village's checksum. */
static void treat(village_t *v, patient_t p) {
  uint64_t h = v->checksum ^ p.severity;
  for (uint32_t i = 0; i < 2000u * p.severity; i++) h = h * 6364136223846793005ull + i;
  v->checksum = h;
  v->treated++;
}

static void clinic(village_t *v, int is_root) {
  for (int i = 0; i < v->n_children; i++) { /* referrals, in child order */
    queue_t *r = &v->child[i]->referred;
    for (long k = 0; k < r->n; k++) push(&v->waiting, r->items[k]);
    r->n = 0;
  }
  long arrivals = (long)(next_random(&v->rng) % 4);
  for (long k = 0; k < arrivals; k++)
    push(&v->waiting, (patient_t){1 + (uint32_t)(next_random(&v->rng) % 8), 0});
  long kept = 0;
  for (long k = 0; k < v->waiting.n; k++) {
    patient_t p = v->waiting.items[k];
    if (k < v->doctors) treat(v, p);
    else if (++p.waited > MAX_WAIT && !is_root) push(&v->referred, p);
    else v->waiting.items[kept++] = p;
  }
  v->waiting.n = kept;
}

static void simulate(village_t *v, int is_root) {
  for (int i = 0; i < v->n_children; i++) {
    village_t *c = v->child[i];
#pragma omp task TIEDNESS firstprivate(c)
    simulate(c, 0);
  }
#pragma omp taskwait
  clinic(v, is_root);
}

static void totals(const village_t *v, long *treated, uint64_t *sum) {
  *treated += v->treated;
  *sum = *sum * 31 + v->checksum;
  for (int i = 0; i < v->n_children; i++) totals(v->child[i], treated, sum);
}

int main(int argc, char **argv) {
  check_usage(argc, argv, 2, 3, "LEVELS STEPS [SEED]");
  int levels = int_arg(argc, argv, 1, 0), steps = int_arg(argc, argv, 2, 0);
  uint64_t seed = (uint64_t)whole_arg(argc, argv, 3, 1, 0, LLONG_MAX);
  require(levels >= 1 && levels <= 9 && steps >= 1, "health: need 1 <= LEVELS <= 9 and STEPS >= 1");
  village_t *root = build(0, levels, seed);
#pragma omp parallel
#pragma omp single
  for (int s = 0; s < steps; s++) simulate(root, 1);
  long treated = 0;
  uint64_t sum = 0;
  totals(root, &treated, &sum);
  printf("health(%d, %d): %ld patients treated, checksum %016llx\n", levels, steps, treated,
         (unsigned long long)sum);
  return 0;
}
