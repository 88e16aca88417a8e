"""Record real OpenMP task programs: an OMPT tool, its trace -> DAG metrics, benchmarks.

The tool (``ompt_tool.c``) is loaded by LLVM's OpenMP runtime (libomp) through
``OMP_TOOL_LIBRARIES``; it logs task creation, task scheduling, taskwait/taskgroup
regions, barriers and parallel regions with a monotonic clock into per-thread buffers
and writes them at exit. :func:`events_to_trace` turns those events into strands and
edges, and :func:`probperf.trace.dag_metrics` (the simulator's code) into ``work``,
``delay``, ``no_work``, ``critical_path`` and the task counts.

Needs clang and libomp (Debian: ``apt-get install -y clang libomp-dev``).

Examples
--------
>>> from probperf.record import record, build_benchmarks
>>> exe = build_benchmarks("bin", ["fib"])[0]                     # doctest: +SKIP
>>> rec = record([str(exe), "25", "12"], workers=[1, 2], params={"n": 25})  # doctest: +SKIP
>>> rec.measurements.metrics                                      # doctest: +SKIP
['time', 'work', 'delay', 'no_work', 'create_task', 'wait_tasks', 'end_task', ...]
"""

from .build import BENCHMARKS, BuildError, build_benchmarks, cache_dir, find_compiler, tool_path
from .convert import events_to_trace
from .events import Events, TraceFileError, read_events
from .run import Recording, RecordError, TracedRun, record, run_program, run_traced, run_untraced

__all__ = [
    "BENCHMARKS",
    "BuildError",
    "Events",
    "RecordError",
    "Recording",
    "TraceFileError",
    "TracedRun",
    "build_benchmarks",
    "cache_dir",
    "events_to_trace",
    "find_compiler",
    "read_events",
    "record",
    "run_program",
    "run_traced",
    "run_untraced",
    "tool_path",
]
