"""The recorder on small OpenMP programs whose DAG is known: untied tasks, taskyield,
final, mergeable, if(0), taskgroup, depend clauses, and a nested parallel region
(refused).

Every leaf of work spins ``D`` of wall time. The machine may be shared, so a strand's
measured length is ``D`` or more (preemption adds to it, never takes away); the checks
therefore count spins, not seconds: a strand of at least ``D`` is a spin (the runtime's
own strands last microseconds, so it takes a preemption of ``D`` in one of them to
miscount; on a loaded 2-core machine preemptions of 15 ms were seen, hence D = 40 ms).
Counted that way, ``work`` and the critical path are small integers fixed by the
program's DAG, and a wrong edge moves the critical path by a whole spin.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from probperf.record import RecordError, run_traced
from test_record import _need_toolchain

#: Length of one spin (ms); the test programs run 0.1-0.5 s each at this size.
D_MS = 40.0

SOURCE = r"""
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef TIED
#define TIED untied
#endif
static double D;
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static void spin(double k) {
  double end = now() + k * D;
  while (now() < end) {
  }
}
static void tree(void) { /* 4 children: spin, a child spinning, taskwait, spin; then spin */
  for (int i = 0; i < 4; i++) {
#pragma omp task TIED
    {
      spin(1);
#pragma omp task TIED
      spin(1);
#pragma omp taskwait
      spin(1);
    }
  }
#pragma omp taskwait
  spin(1);
}
static void yield(void) { /* A: spin, taskyield, spin; three siblings spinning 2 */
#pragma omp task
  {
    spin(1);
#pragma omp taskyield
    spin(1);
  }
  for (int i = 0; i < 3; i++) {
#pragma omp task
    spin(2);
  }
#pragma omp taskwait
}
static void final_(void) { /* a final task: three included children spin, taskwait, spin */
#pragma omp task final(1)
  {
    for (int i = 0; i < 3; i++) {
#pragma omp task
      spin(1);
    }
#pragma omp taskwait
    spin(1);
  }
#pragma omp taskwait
}
static void if0(void) {
  for (int i = 0; i < 3; i++) {
#pragma omp task if (0)
    spin(1);
  }
#pragma omp taskwait
}
static void mergeable(void) {
  for (int i = 0; i < 3; i++) {
#pragma omp task mergeable
    spin(1);
  }
#pragma omp taskwait
}
static void group(void) { /* taskgroup { A: spin, creates B: spin 3 (nobody waits) }; spin 2 */
#pragma omp taskgroup
  {
#pragma omp task
    {
      spin(1);
#pragma omp task
      spin(3);
    }
  }
  spin(2);
}
static void depend_(void) { /* three tasks chained by depend(inout: x), one free: spin each */
  int x = 0;
  for (int i = 0; i < 3; i++) {
#pragma omp task depend(inout : x) shared(x)
    {
      spin(1);
      x++;
    }
  }
#pragma omp task
  spin(1);
#pragma omp taskwait
}
static void twdepend(void) { /* A1, A2 on x (out, inout), B on y: spin each; taskwait depend(in x); spin */
  int x = 0, y = 0;
  for (int i = 0; i < 2; i++) {
#pragma omp task depend(inout : x) shared(x)
    {
      spin(1);
      x++;
    }
  }
#pragma omp task depend(out : y) shared(y)
  {
    spin(1);
    y = 1;
  }
#pragma omp taskwait depend(in : x)
  spin(1);
#pragma omp taskwait
}
static void wavefront(void) { /* 3x3 blocks, each after its left and upper neighbours: spin each */
  char b[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      char *left = j ? &b[i][j - 1] : &b[i][j], *up = i ? &b[i - 1][j] : &b[i][j];
#pragma omp task depend(in : left[0], up[0]) depend(inout : b[i][j]) firstprivate(i, j)
      {
        spin(1);
        b[i][j] = 1;
      }
    }
#pragma omp taskwait
}
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  D = atof(argv[2]) / 1000;
  const char *mode = argv[1];
  if (!strcmp(mode, "nested")) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    spin(1);
    return 0;
  }
  void (*body)(void) = !strcmp(mode, "tree") ? tree : !strcmp(mode, "yield") ? yield
                     : !strcmp(mode, "final") ? final_ : !strcmp(mode, "if0") ? if0
                     : !strcmp(mode, "mergeable") ? mergeable
                     : !strcmp(mode, "taskgroup") ? group : !strcmp(mode, "depend") ? depend_
                     : !strcmp(mode, "twdepend") ? twdepend : !strcmp(mode, "wavefront") ? wavefront : 0;
  if (!body) return 2;
#pragma omp parallel
#pragma omp single
  body();
  return 0;
}
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """``{"untied": exe, "tied": exe}``: the same source with and without ``untied``."""
    _need_toolchain()
    out = tmp_path_factory.mktemp("constructs")
    src = out / "constructs.c"
    src.write_text(SOURCE)
    exes = {}
    for name, flags in (("untied", []), ("tied", ["-DTIED="])):
        exes[name] = out / name
        subprocess.run(["clang", "-fopenmp", "-O1", *flags, "-o", str(exes[name]), str(src)],
                       check=True)
    return exes


def _spins(trace) -> np.ndarray:
    """1 for a strand that spins (at least D long), else 0."""
    return ((trace.end - trace.start) >= D_MS * 1e6).astype(np.int64)


def _spin_path(trace) -> int:
    """Most spins on one path of the DAG (longest path, each strand weighing its spins).

    Edges run forward in time, so strands sorted by (start, end) are in topological
    order; the traces here have a few dozen strands.
    """
    weight = _spins(trace)
    best = weight.copy()
    preds = {}
    for s, d in zip(trace.edge_src.tolist(), trace.edge_dst.tolist()):
        preds.setdefault(d, []).append(s)
    for v in np.lexsort((trace.end, trace.start)).tolist():
        best[v] = weight[v] + max((best[u] for u in preds.get(v, ())), default=0)
    return int(best.max())


def _run(exe, mode, p):
    run = run_traced([str(exe), mode, str(D_MS)], p)
    m, tr = run.metrics, run.trace
    # the metric identity, in the trace's own nanoseconds
    assert abs(m["work"] + m["delay"] + m["no_work"] - p * m["time"]) <= 1e-12 * p * m["time"]
    return m, tr


# mode: (create_task, wait_tasks, spins, spins on the critical path). The wrong DAGs
# these catch: an undeferred or included child chained to its host's next strand
# (tree at p=1 would give 13, final 4, if0 and mergeable at p=1 3), a child run at a
# taskyield chained likewise (yield: 4), a taskgroup that ignores grandchildren (2),
# depend clauses ignored (the chain of 3 would count 1), a `taskwait depend` that
# does not hold its task back (2; and its empty task counted as a task, not a wait),
# a wavefront whose diagonal chain is lost (3x3 blocks: 5 in a row).
EXPECTED = {
    "wavefront": (9, 1, 9, 5),
    "depend": (4, 1, 4, 3),
    "twdepend": (3, 2, 4, 3),
    "tree": (8, 5, 13, 4),
    "final": (4, 2, 4, 2),
    "if0": (3, 1, 3, 1),
    "mergeable": (3, 1, 3, 1),
    "taskgroup": (2, 1, 3, 3),
}


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_known_dags(programs, mode, p):
    creates, waits, spins, path = EXPECTED[mode]
    m, tr = _run(programs["untied"], mode, p)
    assert (m["create_task"], m["wait_tasks"], m["end_task"]) == (creates, waits, creates)
    assert int(_spins(tr).sum()) == spins
    assert m["work"] >= spins * D_MS / 1000  # every spin lasts D or more
    assert _spin_path(tr) == path


@pytest.mark.parametrize("p", [1, 2])
def test_untied_records_like_tied(programs, p):
    # Same DAG, same counts, same spins: only the runtime's handling of the tasks
    # differs (an untied task runs as parts; see probperf.record.convert).
    runs = {kind: _run(programs[kind], "tree", p) for kind in ("tied", "untied")}
    for kind, (m, tr) in runs.items():
        assert (m["create_task"], m["wait_tasks"], m["end_task"]) == (8, 5, 8), kind
        assert int(_spins(tr).sum()) == 13 and _spin_path(tr) == 4, kind
        assert m["work"] >= 13 * D_MS / 1000 and tr.n_workers == p


def test_taskyield(programs):
    # Whether A is cut at its taskyield (and a sibling runs there) depends on the
    # schedule: A is one spin of 2 or two spins of 1; the critical path is A either way.
    m, tr = _run(programs["untied"], "yield", 2)
    assert (m["create_task"], m["wait_tasks"], m["end_task"]) == (4, 1, 4)
    assert int(_spins(tr).sum()) in (4, 5)
    assert _spin_path(tr) <= 2


def test_nested_parallel_region_is_refused(programs):
    with pytest.raises(RecordError, match="nested parallel region.*not supported"):
        run_traced([str(programs["untied"]), "nested", "1"], 2)


def test_idle_worker_spinning_is_not_work(programs):
    # A final task runs its children itself, so with two workers one of them has
    # nothing to do and spins (libomp's default active wait, see
    # probperf.record.run.WAIT_POLICY). Its spinning is in no strand: work is one
    # worker's busy time, at most the elapsed time, not two workers' worth.
    m, tr = _run(programs["untied"], "final", 2)
    assert int(_spins(tr).sum()) == 4
    assert m["work"] <= m["time"] * 1.01
    assert m["delay"] + m["no_work"] >= m["time"] * 0.9  # the idle worker
