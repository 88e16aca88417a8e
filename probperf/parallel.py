"""Independent pieces of one fit spread over the machine's cores.

A law mixture's nested forward validation fits the whole mixture once per forward split
of the runs, each on its own rows, and a DAG model fits each part on the measured runs
alone: most of a fit's time, and independent work. :func:`starmap` runs such pieces in
forked worker processes, one per free core, and returns their results in order, the same
numbers as one after another (each piece sees the state of the fit at the moment of the
call, as a forked process inherits it), and the warnings they raised, said again by the
calling process.

It runs them one after another instead where a pool costs more than it saves or cannot
work: one free core (:func:`free_cores`: a machine kept busy by other work, such as a
parallel test run, gains nothing from more processes); too few runs (:data:`MIN_ROWS`);
where it may not fork (:func:`can_fork`: a daemonic ``dask`` or pool worker, whose
siblings have the other cores; not Linux; torch loaded); or inside :func:`serial`.
"""

from __future__ import annotations

import contextlib
import contextvars
import multiprocessing
import os
import sys
import warnings

#: Fewer runs than this: the pieces run one after another. Why: below it a whole
#: time-only fit takes about a second (benchmarks/bench_speed.py, 10 rows: 0.4 s), and
#: forking the workers and sending the pieces back costs tens of milliseconds each.
MIN_ROWS = 50

_SERIAL = contextvars.ContextVar("serial", default=False)


def cores() -> int:
    """The cores this process may run on.

    Examples
    --------
    >>> cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def free_cores() -> int:
    """The cores of :func:`cores` that other processes do not keep busy now: the threads
    running or ready to run on the machine (Linux's ``/proc/loadavg``) less this
    process's own (its BLAS threads among them). A parallel test run or a second fit
    leaves one of two cores: forked workers would only take turns with it. (Not the
    load average: it lags by a minute, so a fit's own workers, just finished, would
    count as other work for the rest of the fit.) All of :func:`cores` where this cannot
    be read.

    Examples
    --------
    >>> 1 <= free_cores() <= cores()
    True
    """
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0])
        own = 0
        for thread in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                with open(f"/proc/self/task/{thread}/stat") as f:
                    own += f.read().rsplit(")", 1)[1].split()[0] == "R"
    except (OSError, ValueError, IndexError):  # not Linux
        return cores()
    return max(1, cores() - max(0, running - own))


@contextlib.contextmanager
def serial():
    """Run the pieces of :func:`starmap` one after another inside this block.

    Examples
    --------
    >>> with serial():
    ...     starmap(pow, [(2, 3), (3, 2)], rows=1000)
    [8, 9]
    """
    token = _SERIAL.set(True)
    try:
        yield
    finally:
        _SERIAL.reset(token)


def can_fork() -> bool:
    """Whether this process may fork workers for a fit: on Linux (macOS has ``fork`` but
    its system libraries are not safe in a forked child, and Python there spawns by
    default; Windows has none), not daemonic, and without torch loaded (its OpenMP thread
    pools do not survive a fork, and a forked worker of a test process that had run GP
    fits once hung; the law mixtures need no torch, so a fit from the command line forks).

    Examples
    --------
    >>> isinstance(can_fork(), bool)
    True
    """
    return (sys.platform.startswith("linux") and not multiprocessing.current_process().daemon
            and "torch" not in sys.modules)


def _workers(jobs: int, rows: int) -> int:
    """How many processes to run ``jobs`` pieces of a fit of ``rows`` runs in (1: none)."""
    if jobs < 2 or rows < MIN_ROWS or _SERIAL.get() or not can_fork():
        return 1
    return min(free_cores(), jobs)


def _start_worker() -> None:
    """A worker's set-up: one BLAS thread (the cores are the workers'), and no progress
    bars (the parent draws its own)."""
    from threadpoolctl import threadpool_limits

    from . import progress

    threadpool_limits(1, user_api="blas")
    progress._PROGRESS.set(None)


def _run(fn, args) -> tuple:
    """``fn(*args)`` in a worker, and the warnings it raised (message, category, file,
    line), to be said again by the parent: a worker prints nothing itself (a forked copy
    of a lock on stderr may be held by a thread that is not there)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [(w.message, w.category, w.filename, w.lineno) for w in caught]


def starmap(fn, jobs, rows: int) -> list:
    """``[fn(*job) for job in jobs]``, in worker processes where that pays (see the module's
    text; ``rows``: the runs of the fit the pieces belong to). ``fn`` and the results
    must pickle (a module's function; arrays, tuples, dicts).

    Examples
    --------
    >>> starmap(divmod, [(7, 2), (9, 4), (1, 1)], rows=1000)
    [(3, 1), (2, 1), (1, 0)]
    """
    jobs = list(jobs)
    n = _workers(len(jobs), rows)
    if n > 1:
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        # an executor, not a multiprocessing.Pool: a worker that dies (killed, out of
        # memory) breaks it with an error where a Pool waits for the lost piece forever
        # (seen once); the pieces then run here
        try:
            with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                                     initializer=_start_worker) as pool:
                done = list(pool.map(_run, [fn] * len(jobs), jobs))
        except BrokenProcessPool:
            from . import userwarn

            userwarn.warn("a worker process of the fit died; its pieces ran again in this process", RuntimeWarning)
        else:
            for _, said in done:  # through this process's filters, as if raised here
                for message, category, filename, lineno in said:
                    warnings.warn_explicit(message, category, filename, lineno)
            return [out for out, _ in done]
    return [fn(*job) for job in jobs]
