/* probperf OMPT tool: records the task events of an OpenMP program.
 *
 * Loaded by LLVM's OpenMP runtime (libomp) through OMP_TOOL_LIBRARIES. It is active
 * only when PROBPERF_TRACE names the output file. Every callback appends one fixed-size
 * event, stamped with clock_gettime(CLOCK_MONOTONIC), to a buffer owned by the calling
 * thread, so the hot path takes no lock. The buffers are written once, in the tool's
 * finalize callback (at program exit), to PROBPERF_TRACE.tmp which is then renamed to
 * PROBPERF_TRACE: a program that dies early leaves no trace file, never half of one.
 *
 * File layout (little endian, native on x86-64/aarch64):
 *   header  : char magic[8] = "PPTRACE1"; uint32 version; uint32 n_threads;
 *             uint32 missing_callbacks (bit i set: callback i could not be registered);
 *             uint32 reserved;
 *   n_threads blocks: uint32 thread_index; uint32 thread_type; uint64 n_events;
 *                     n_events x event_t
 * With PROBPERF_TRACE_EVENTS=0 the tool registers no callback and records only the
 * start and end of the runtime: the elapsed time of an untraced run, measured over the
 * same span as a traced one.
 * Task and parallel-region ids are made unique without atomics: the creating thread's
 * index in the high bits, a per-thread counter in the low bits.
 * Each process whose runtime starts the tool leaves an empty file PROBPERF_TRACE.pid<PID>:
 * a command that starts two OpenMP processes would write one trace over the other, and
 * the recorder counts these to refuse it.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
  EV_INIT = 1,
  EV_FINI = 2,
  EV_THREAD_BEGIN = 3,
  EV_PARALLEL_BEGIN = 4, /* a: encountering task, b: parallel id, x: requested team size */
  EV_PARALLEL_END = 5,   /* a: encountering task, b: parallel id */
  EV_IMPLICIT_BEGIN = 6, /* a: task, b: parallel id, x: flags */
  EV_IMPLICIT_END = 7,   /* a: task, x: flags */
  EV_TASK_CREATE = 8,    /* a: parent task, b: new task, x: flags */
  EV_TASK_SCHEDULE = 9,  /* a: prior task, b: next task, x: prior task status */
  EV_SYNC_BEGIN = 10,    /* a: task, b: parallel id, x: ompt_sync_region_t */
  EV_SYNC_END = 11,
  EV_WAIT_BEGIN = 12,    /* a: task, b: parallel id, x: ompt_sync_region_t */
  EV_WAIT_END = 13,
  EV_TASK_DEPEND = 14    /* a: task, b: address of a depend clause's list item, x: its ompt_dependence_type_t */
};

typedef struct {
  uint64_t t; /* ns, CLOCK_MONOTONIC */
  uint32_t kind;
  uint32_t x;
  uint64_t a;
  uint64_t b;
} event_t;

typedef struct {
  event_t *events;
  uint64_t n, cap;
  uint64_t next_id; /* per-thread counter for task / region ids */
  uint32_t index;
  uint32_t type;
} thread_buf_t;

#define MAX_THREADS 4096
#define ID_SHIFT 40

static thread_buf_t *buffers[MAX_THREADS];
static unsigned n_buffers; /* updated with __atomic builtins, once per thread */
static uint32_t missing_callbacks;
static char *trace_path;
static int span_only;
static int finalizing; /* set once the trace is being written: later events are dropped */
static __thread thread_buf_t *my_buf;

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static thread_buf_t *register_thread(uint32_t type) {
  thread_buf_t *buf = calloc(1, sizeof *buf);
  unsigned index = __atomic_fetch_add(&n_buffers, 1, __ATOMIC_ACQ_REL);
  if (!buf || index >= MAX_THREADS) {
    fprintf(stderr, "probperf ompt tool: cannot track thread %u\n", index);
    abort();
  }
  buf->index = index;
  buf->type = type;
  buffers[index] = buf;
  my_buf = buf;
  return buf;
}

static inline thread_buf_t *get_buf(void) {
  return my_buf ? my_buf : register_thread(ompt_thread_unknown);
}

static void grow(thread_buf_t *buf) {
  uint64_t cap = buf->cap ? 2 * buf->cap : 4096;
  event_t *events = realloc(buf->events, cap * sizeof *events);
  if (!events) {
    fprintf(stderr, "probperf ompt tool: out of memory for %llu events\n",
            (unsigned long long)cap);
    abort();
  }
  buf->events = events;
  buf->cap = cap;
}

static inline void emit(uint32_t kind, uint32_t x, uint64_t a, uint64_t b) {
  if (__atomic_load_n(&finalizing, __ATOMIC_RELAXED)) return;
  uint64_t t = now_ns();
  thread_buf_t *buf = get_buf();
  if (buf->n == buf->cap) grow(buf);
  event_t *e = &buf->events[buf->n++];
  e->t = t;
  e->kind = kind;
  e->x = x;
  e->a = a;
  e->b = b;
}

static inline uint64_t new_id(void) {
  thread_buf_t *buf = get_buf();
  return ((uint64_t)(buf->index + 1) << ID_SHIFT) | ++buf->next_id;
}

static inline uint64_t id_of(ompt_data_t *data) { return data ? data->value : 0; }

/* -- callbacks ------------------------------------------------------------------- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  (void)thread_data;
  if (!my_buf) register_thread((uint32_t)type);
  else my_buf->type = (uint32_t)type;
  emit(EV_THREAD_BEGIN, (uint32_t)type, 0, 0);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
                              ompt_data_t *parallel, unsigned int requested, int flags,
                              const void *codeptr) {
  (void)frame; (void)flags; (void)codeptr;
  parallel->value = new_id();
  emit(EV_PARALLEL_BEGIN, requested, id_of(task), parallel->value);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
                            const void *codeptr) {
  (void)flags; (void)codeptr;
  emit(EV_PARALLEL_END, 0, id_of(task), id_of(parallel));
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, unsigned int team_size, unsigned int index,
                             int flags) {
  (void)team_size; (void)index;
  if (endpoint == ompt_scope_begin) {
    task->value = new_id();
    emit(EV_IMPLICIT_BEGIN, (uint32_t)flags, task->value, id_of(parallel));
  } else {
    emit(EV_IMPLICIT_END, (uint32_t)flags, id_of(task), 0);
  }
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
                           ompt_data_t *task, int flags, int has_dependences,
                           const void *codeptr) {
  (void)frame; (void)has_dependences; (void)codeptr;
  task->value = new_id();
  emit(EV_TASK_CREATE, (uint32_t)flags, id_of(parent), task->value);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status,
                             ompt_data_t *next) {
  emit(EV_TASK_SCHEDULE, (uint32_t)status, id_of(prior), id_of(next));
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task, const void *codeptr) {
  (void)codeptr;
  emit(endpoint == ompt_scope_begin ? EV_SYNC_BEGIN : EV_SYNC_END, (uint32_t)kind,
       id_of(task), id_of(parallel));
}

/* A task's depend clauses, one event per list item, as it is created. The edges they
 * make are worked out from these (creation order among siblings), not from the pairs
 * libomp reports (task_dependence): those leave out predecessors that already ended,
 * which with one worker are all of them. */
static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps) {
  for (int i = 0; i < ndeps; i++)
    emit(EV_TASK_DEPEND, (uint32_t)deps[i].dependence_type, id_of(task), (uint64_t)deps[i].variable.ptr);
}

/* The waiting part of a sync region: a taskgroup region spans the code of its task,
 * which waits only at its end. */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel, ompt_data_t *task,
                                const void *codeptr) {
  (void)codeptr;
  emit(endpoint == ompt_scope_begin ? EV_WAIT_BEGIN : EV_WAIT_END, (uint32_t)kind,
       id_of(task), id_of(parallel));
}

/* -- start-up and shutdown ------------------------------------------------------- */

static int write_trace(const char *path) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 5);
  if (!tmp) return -1;
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmp", 5);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    perror("probperf ompt tool: cannot open the trace file");
    free(tmp);
    return -1;
  }
  unsigned count = __atomic_load_n(&n_buffers, __ATOMIC_ACQUIRE);
  uint32_t header[4] = {1, count, missing_callbacks, 0};
  int ok = fwrite("PPTRACE1", 1, 8, f) == 8 && fwrite(header, sizeof header, 1, f) == 1;
  for (unsigned i = 0; ok && i < count; i++) {
    thread_buf_t *buf = buffers[i];
    uint32_t ids[2] = {buf->index, buf->type};
    ok = fwrite(ids, sizeof ids, 1, f) == 1 && fwrite(&buf->n, sizeof buf->n, 1, f) == 1 &&
         (buf->n == 0 || fwrite(buf->events, sizeof(event_t), buf->n, f) == buf->n);
  }
  ok = (fclose(f) == 0) && ok;
  if (ok) ok = rename(tmp, path) == 0;
  if (!ok) {
    perror("probperf ompt tool: writing the trace failed");
    remove(tmp);
  }
  free(tmp);
  return ok ? 0 : -1;
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)device; (void)data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  struct { ompt_callbacks_t event; ompt_callback_t fn; } wanted[] = {
      {ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin},
      {ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin},
      {ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end},
      {ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task},
      {ompt_callback_task_create, (ompt_callback_t)on_task_create},
      {ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule},
      {ompt_callback_sync_region, (ompt_callback_t)on_sync_region},
      {ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait},
      {ompt_callback_dependences, (ompt_callback_t)on_dependences},
  };
  for (unsigned i = 0; !span_only && i < sizeof wanted / sizeof wanted[0]; i++) {
    if (!set_callback || set_callback(wanted[i].event, wanted[i].fn) != ompt_set_always)
      missing_callbacks |= 1u << i;
  }
  emit(EV_INIT, 0, 0, 0);
  return 1; /* keep the tool active */
}

static void tool_finalize(ompt_data_t *data) {
  (void)data;
  emit(EV_FINI, 0, 0, 0);
  __atomic_store_n(&finalizing, 1, __ATOMIC_SEQ_CST);
  write_trace(trace_path);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version) {
  (void)omp_version; (void)runtime_version;
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  const char *path = getenv("PROBPERF_TRACE");
  if (!path || !*path) return NULL; /* not asked to trace: stay out of the way */
  const char *level = getenv("PROBPERF_TRACE_EVENTS");
  span_only = level && strcmp(level, "0") == 0;
  trace_path = strdup(path);
  if (!trace_path) return NULL;
  char mark[4096];
  if (snprintf(mark, sizeof mark, "%s.pid%ld", path, (long)getpid()) < (int)sizeof mark) {
    FILE *f = fopen(mark, "wb");
    if (f) fclose(f);
  }
  return &result;
}
