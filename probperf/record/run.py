"""Run an OpenMP program with and without the OMPT tool and turn its trace into rows."""

from __future__ import annotations

import os
import shlex
import resource
import signal
import subprocess
import tempfile
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..data import Measurements
from .build import tool_path
from .convert import events_to_trace
from .events import FINI, INIT, Events, TraceFileError, read_events

#: DAG metrics measured in time (converted from the trace's nanoseconds to seconds).
#: Wait-policy settings added to every run's environment: none, so libomp's default
#: (active waiting: an idle worker spins for KMP_BLOCKTIME = 200 ms, then sleeps), which
#: is how the program runs untraced. Spinning is never counted as work: a spinning
#: worker is in a barrier or between tasks, outside every strand (tests check it). What
#: inflates ``work`` on a loaded machine is preemption, whatever the policy: a strand's
#: wall time includes the time its thread waited for a core. ``record`` flags runs whose
#: work exceeds the CPU time the process got. Measured in benchmarks/bench_record.py; a
#: user's OMP_WAIT_POLICY or KMP_BLOCKTIME reaches the program unchanged.
WAIT_POLICY: dict = {}

_TIME_KEYS = ("time", "work", "delay", "no_work", "critical_path")
_COUNT_KEYS = ("create_task", "wait_tasks", "end_task")


def _shown(cmd) -> str:
    """A program's command line in a message, quoted as a shell would take it back
    (``'./my dir/fib' 25``: a path with spaces stays one word), in one pair of quotes.

    Examples
    --------
    >>> print(_shown(["./my dir/fib", "25"]), _shown(["./fib", "25"]))
    "'./my dir/fib' 25" './fib 25'
    """
    return repr(shlex.join(cmd))


class RecordError(RuntimeError):
    """A program could not be recorded: it failed, crashed or wrote no trace.

    Examples
    --------
    >>> run_traced(["no-such-program"], p=1)
    Traceback (most recent call last):
    ...
    probperf.record.run.RecordError: cannot run 'no-such-program': no such program
    """


@dataclass
class TracedRun:
    """One traced run: DAG metrics in seconds, the process's wall and CPU time, the trace.

    Examples
    --------
    >>> run = TracedRun(p=2, metrics={"time": 0.5, "create_task": 66.0}, wall=0.6, cpu=1.1,
    ...                 trace=None)
    >>> run
    TracedRun(p=2, metrics={'time': 0.5, 'create_task': 66.0}, wall=0.6, cpu=1.1)
    """

    p: int
    metrics: dict
    wall: float
    cpu: float
    trace: object = field(repr=False)


@dataclass
class Recording:
    """What :func:`record` measured.

    ``measurements`` has one row per traced run; ``overhead`` one row per worker
    count with the elapsed time of the untraced run (``untraced``, see
    :func:`run_untraced`) and of the traced runs (``traced``, mean over repetitions),
    their ratio minus one (``overhead``), and the same for the process's wall time
    (``untraced_wall``, ``traced_wall``, ``wall_overhead``) and CPU time
    (``untraced_cpu``, ``traced_cpu``, ``cpu_overhead``); times in seconds.

    Examples
    --------
    >>> from probperf.record.build import example_program
    >>> fib = example_program("fib")
    >>> rec = record([fib, "10", "3"], workers=[1], params={"n": 10}, reps=2)
    >>> type(rec).__name__, len(rec.measurements), len(rec.runs)
    ('Recording', 2, 2)
    >>> rec.overhead["p"].tolist(), list(rec.overhead.columns[1:4])
    ([1], ['untraced', 'traced', 'overhead'])
    """

    measurements: Measurements
    overhead: pd.DataFrame
    runs: list = field(default_factory=list, repr=False)


def _describe_status(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(cmd: Sequence[str], env: Mapping[str, str], timeout: float | None, what: str):
    """Run ``cmd``; return its wall and CPU time in seconds or raise :class:`RecordError`.

    The CPU time (user + system, all threads) is the steadier figure on a loaded
    machine, where wall time includes waiting for a core.
    """
    full_env = {**os.environ, **env}
    cpu0 = _cpu_of_children()
    t0 = _time.perf_counter()
    try:
        done = subprocess.run(
            list(cmd), env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            timeout=timeout, check=False,
        )
    except FileNotFoundError:
        raise RecordError(f"cannot run {cmd[0]!r}: no such program") from None
    except PermissionError:
        raise RecordError(f"cannot run {cmd[0]!r}: not executable") from None
    except OSError as exc:
        raise RecordError(f"cannot run {cmd[0]!r}: {exc}") from None
    except subprocess.TimeoutExpired:
        raise RecordError(f"{cmd[0]!r} ({what}) did not finish within {timeout} s") from None
    wall = _time.perf_counter() - t0
    cpu = _cpu_of_children() - cpu0
    if done.returncode != 0:
        # an error is one line (the CLI prints it after "error:"): the lines joined by " | "
        tail = [line.strip() for line in done.stderr.decode(errors="replace").strip().splitlines()[-5:] if line.strip()]
        detail = ("; its last error output: " + " | ".join(tail)) if tail else ""
        raise RecordError(f"{_shown(cmd)} ({what}) {_describe_status(done.returncode)}{detail}")
    return wall, cpu


def _check_cmd(cmd: Sequence[str]) -> None:
    if not cmd:
        raise RecordError("no program to run")


def run_program(
    cmd: Sequence[str],
    p: int,
    tool: str | os.PathLike | None = None,
    timeout: float | None = None,
    events: bool = True,
    label: str | None = None,
) -> tuple[float, float, Events]:
    """Run ``cmd`` with ``p`` threads under the OMPT tool; no conversion.

    Returns the process's wall and CPU time (s) and the events it wrote (with
    ``events=False`` only the runtime's start and end); the events' ``source`` names
    the program and the run (``label``, default "traced, p=P"), which is how every
    error about this run starts. The run's wait policy is :data:`WAIT_POLICY`. Converting is left to the
    caller so that runs meant to be compared can follow each other without the parent
    process working in between (on a loaded machine, a child started right after its
    parent used the CPU gets a smaller share at first).

    Examples
    --------
    >>> from probperf.record.build import example_program
    >>> fib = example_program("fib")
    >>> wall, cpu, events = run_program([fib, "10", "3"], p=1, events=False)
    >>> sorted(set(int(k) for t in events.threads for k in t["kind"]) & {INIT, FINI})
    [1, 2]
    >>> bool(wall > 0)
    True
    """
    what = label or f"{'traced' if events else 'untraced'}, p={p}"
    _check_cmd(cmd)
    tool = Path(tool) if tool is not None else tool_path()
    if not tool.is_file():
        raise RecordError(f"the OMPT tool library {str(tool)!r} does not exist")
    with tempfile.TemporaryDirectory(prefix="probperf-trace-") as tmp:
        trace_file = Path(tmp) / "trace.bin"
        env = {
            "OMP_NUM_THREADS": str(p),
            "OMP_TOOL": "enabled",
            "OMP_TOOL_LIBRARIES": str(tool.resolve()),
            "PROBPERF_TRACE": str(trace_file),
            "PROBPERF_TRACE_EVENTS": "1" if events else "0",
            **WAIT_POLICY,
        }
        wall, cpu = _run(cmd, env, timeout, what)
        started = len(list(Path(tmp).glob(f"{trace_file.name}.pid*")))  # one per OpenMP process (the tool's mark)
        if started > 1:
            raise RecordError(f"{_shown(cmd)} ({what}) started {started} OpenMP processes; their traces "
                              "overwrite each other: record one program per run")
        if not trace_file.exists() and started:  # the runtime came up, with the tool, but never shut down
            raise RecordError(
                f"{_shown(cmd)} ran (p={p}) but no trace was written: its OpenMP runtime started with the tool "
                "but did not shut down normally (exit() or _exit() inside a parallel region or a task?); "
                "let the program leave its parallel regions before it exits"
            )
        if not trace_file.exists():
            raise RecordError(
                f"{_shown(cmd)} ran (p={p}) but no trace was written: LLVM's OpenMP runtime (libomp) "
                f"never started with the OMPT tool {str(tool)!r}. Either the program opened no parallel "
                "region (a call such as omp_get_wtime() alone does not start the runtime: nothing to trace), "
                "or it does not use libomp: build it with clang -fopenmp (GCC's libgomp has no OMPT "
                "support; `ldd PROGRAM` should list libomp.so) and check that OMP_TOOL_LIBRARIES names "
                "a working OMPT tool."
            )
        try:
            found = read_events(trace_file)
        except TraceFileError as exc:
            raise RecordError(f"the trace of {_shown(cmd)} ({what}) is unusable: {exc}") from None
        found.source = f"{_shown(cmd)} ({what})"
        return wall, cpu, found


def run_untraced(
    cmd: Sequence[str], p: int, tool: str | os.PathLike | None = None, timeout: float | None = None
) -> dict:
    """One run of ``cmd`` with ``p`` threads and no event recording.

    The tool is loaded but registers no callback; it only notes when the OpenMP
    runtime starts and shuts down, so ``elapsed`` spans the same part of the program
    as a traced run's ``time`` (process start-up and exit are outside both).

    Returns
    -------
    dict
        ``wall`` and ``cpu`` (user + system) time of the process and ``elapsed``, all
        in seconds.

    Examples
    --------
    >>> from probperf.record.build import example_program
    >>> fib = example_program("fib")
    >>> times = run_untraced([fib, "10", "3"], p=1)
    >>> sorted(times), bool(0 < times["elapsed"] < times["wall"])
    (['cpu', 'elapsed', 'wall'], True)
    """
    wall, cpu, events = run_program(cmd, p, tool, timeout, events=False)
    return _untraced_result(cmd, p, wall, cpu, events)


def _untraced_result(cmd, p, wall, cpu, events) -> dict:
    times = {int(k): int(t) for th in events.threads for t, k in zip(th["t"], th["kind"])}
    if INIT not in times or FINI not in times:
        raise RecordError(f"the untraced run of {_shown(cmd)} (p={p}) lacks start or end")
    return {"wall": wall, "cpu": cpu, "elapsed": (times[FINI] - times[INIT]) / 1e9}


def run_traced(
    cmd: Sequence[str], p: int, tool: str | os.PathLike | None = None, timeout: float | None = None
) -> TracedRun:
    """Run ``cmd`` with ``p`` threads under the OMPT tool and compute its DAG metrics.

    Parameters
    ----------
    cmd : sequence of str
        Program and arguments.
    p : int
        Number of workers (``OMP_NUM_THREADS``).
    tool : path, optional
        OMPT tool library; default: the probperf tool, built on first use.
    timeout : float, optional
        Seconds before the run is abandoned.

    Raises
    ------
    RecordError
        If the program fails or crashes, or exits without writing a trace (it does not
        use LLVM's OpenMP runtime, or the runtime did not load the tool).

    Examples
    --------
    ``fib 10`` with cut-off 3 makes 33 calls above the cut-off, each creating two tasks
    and waiting for them once:

    >>> from probperf.record.build import example_program
    >>> fib = example_program("fib")
    >>> run = run_traced([fib, "10", "3"], p=1)
    >>> run.p, run.metrics["create_task"], run.metrics["wait_tasks"]
    (1, 66, 33)
    >>> bool(0 < run.metrics["critical_path"] <= run.metrics["time"])
    True
    >>> run_traced([fib], p=1)  # fib without its argument N
    Traceback (most recent call last):
    ...
    probperf.record.run.RecordError: '/.../fib' (traced, p=1) exited with status 2; its ...
      usage: /.../fib N [CUTOFF]
    """
    wall, cpu, events = run_program(cmd, p, tool, timeout)
    return _traced_result(cmd, p, wall, cpu, events)


def _traced_result(cmd, p, wall, cpu, events) -> TracedRun:
    from ..trace import dag_metrics

    try:
        trace = events_to_trace(events, n_workers=p)
    except TraceFileError as exc:  # the message starts with the program and the run
        raise RecordError(str(exc)) from None
    raw = dag_metrics(trace)
    metrics = {k: raw[k] / 1e9 for k in _TIME_KEYS}
    metrics.update({k: int(raw[k]) for k in _COUNT_KEYS})  # whole, as a .stat file's counts are read
    return TracedRun(p=p, metrics=metrics, wall=wall, cpu=cpu, trace=trace)


#: Why a recording without ``--param n=...`` is refused (before any run and before an
#: existing output file is compared with it).
NO_SIZE = "the problem size is missing: give it as a parameter n (--param n=VALUE)"


def _check_request(params, workers, reps) -> None:
    if "n" not in params:
        raise ValueError(NO_SIZE)
    if "p" in params:
        raise ValueError("p is the worker count; give it with workers (--workers), not as a parameter")
    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    bad = [p for p in workers if int(p) != p or p < 1]
    if bad or not workers:
        raise ValueError(f"worker counts must be positive integers, got {list(workers)}")


def _measurements(cmd, params: Mapping[str, float], runs: list) -> Measurements:
    """One row per traced run so far; ``serial_work``: mean work of its one-worker runs."""
    frame = pd.DataFrame([{**params, "p": run.p, **run.metrics} for run in runs])
    serial = [run.metrics["work"] for run in runs if run.p == 1]
    if serial:
        frame["serial_work"] = float(np.mean(serial))
    config = [k for k in params if k != "n"]
    order = ["n", "p", *config]
    frame = frame[order + [c for c in frame.columns if c not in order]]
    return Measurements(frame, config, source=shlex.join(cmd), strict=True)


def _overhead_row(p: int, base: dict, traced: list) -> dict:
    elapsed = float(np.mean([t.metrics["time"] for t in traced]))
    wall = float(np.mean([t.wall for t in traced]))
    cpu = float(np.mean([t.cpu for t in traced]))
    return {
        "p": p,
        "untraced": base["elapsed"], "traced": elapsed, "overhead": elapsed / base["elapsed"] - 1,
        "untraced_wall": base["wall"], "traced_wall": wall, "wall_overhead": wall / base["wall"] - 1,
        "untraced_cpu": base["cpu"], "traced_cpu": cpu, "cpu_overhead": cpu / base["cpu"] - 1,
    }


def _run_summary(run: TracedRun, label: str) -> str:
    """One line on a traced run; flags a run whose strands outlasted its CPU time."""
    m = run.metrics
    text = (f"p={run.p}: {label.split(',')[0]}: time {m['time']:.4g} s, work {m['work']:.4g} s, "
            f"{int(m['create_task'])} tasks")
    # the strands ran on the process's threads: more work than CPU time means they
    # waited for a core (another program ran) or did not compute (a task that sleeps,
    # waits for I/O or a lock): work holds at least that much wall time that was no
    # computation; the recorder cannot tell which
    if m["work"] > run.cpu:
        text += (f"; work exceeds the process's CPU time ({run.cpu:.4g} s) by {m['work'] - run.cpu:.2g} s: "
                 "its tasks waited for a core (a busy machine) or blocked (sleep, I/O, locks)")
    return text


def record(
    cmd: Sequence[str],
    workers: Sequence[int],
    params: Mapping[str, float],
    reps: int = 1,
    *,
    untraced: bool = True,
    tool: str | os.PathLike | None = None,
    timeout: float | None = None,
    progress: Callable[[str], None] | None = None,
    sink: Callable[[Measurements], None] | None = None,
) -> Recording:
    """Record ``reps`` traced runs of ``cmd`` per worker count; one row per run.

    Parameters
    ----------
    cmd : sequence of str
        Program and arguments (the program must use LLVM's libomp).
    workers : sequence of int
        Worker counts ``p`` to run with.
    params : mapping
        Parameter values of the rows: ``n`` (required) and configuration parameters.
    reps : int
        Traced repetitions per worker count.
    untraced : bool
        Also run once per ``p`` without event recording (:func:`run_untraced`), to
        report the tracing overhead.
    tool, timeout
        As in :func:`run_traced`.
    progress : callable, optional
        Called with a short message after each run.
    sink : callable, optional
        Called after every traced run with the rows recorded so far (all of them, so
        ``serial_work`` can follow): a failure later leaves those rows with the caller.

    Returns
    -------
    Recording
        Rows with ``n``, ``p``, the configuration parameters, every DAG metric and,
        when ``1 in workers``, ``serial_work`` (mean work of the one-worker runs).

    Raises
    ------
    RecordError
        At the first run that fails or whose trace cannot be turned into a DAG; the
        message names the program, the run (``traced run 2 of 3, p=1``) and the cause.

    Examples
    --------
    Two runs of ``fib 10`` (task cut-off 3), with 1 and 2 workers:

    >>> from probperf.record.build import example_program
    >>> fib = example_program("fib")
    >>> rec = record([fib, "10", "3"], workers=[1, 2], params={"n": 10, "cutoff": 3})
    >>> rec.measurements.frame[["n", "p", "cutoff", "create_task"]]
        n  p  cutoff  create_task
    0  10  1       3           66
    1  10  2       3           66
    >>> record([fib], workers=[1, 2], params={"cutoff": 3})
    Traceback (most recent call last):
    ...
    ValueError: the problem size is missing: give it as a parameter n (--param n=VALUE)
    """
    _check_request(params, workers, reps)
    say = progress or (lambda msg: None)
    # This process turns each trace into DAG metrics between runs; a BLAS or OpenMP pool
    # of its own would then spin on the cores the next run needs. On 2 cores the 2-worker
    # runs came out at 0.067-0.097 s against 0.049-0.050 s, as if one worker were
    # missing, with the stolen time booked as delay: one thread for this process's
    # arithmetic while the program runs.
    with threadpool_limits(limits=1):
        return _record_runs(cmd, workers, params, reps, untraced, tool, timeout, say, sink)


def _record_runs(cmd, workers, params, reps, untraced, tool, timeout, say, sink) -> Recording:
    runs, overhead = [], []
    nan = float("nan")
    for p in workers:
        base = {"wall": nan, "cpu": nan, "elapsed": nan}
        if untraced:
            base = _untraced_result(cmd, p, *run_program(cmd, p, tool, timeout, events=False))
        traced = []
        for r in range(reps):
            label = f"traced run {r + 1} of {reps}, p={p}"
            run = _traced_result(cmd, p, *run_program(cmd, p, tool, timeout, label=label))
            traced.append(run)
            say(_run_summary(run, label))
            if sink is not None:
                sink(_measurements(cmd, params, runs + traced))
        runs.extend(traced)
        overhead.append(_overhead_row(p, base, traced))
    return Recording(_measurements(cmd, params, runs), pd.DataFrame(overhead), runs)
