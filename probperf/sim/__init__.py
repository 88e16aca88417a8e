"""Simulate task-parallel programs: DAG builders, schedulers, datasets.

* :mod:`~probperf.sim.apps`: BOTS-like programs (``fib``, ``nqueens``, ``sort``,
  ``fft``, ``sparselu``, ``strassen``) and a flat ``farm``, as array DAGs;
* :mod:`~probperf.sim.schedule`: greedy and work-stealing simulation on a
  :class:`Machine`, returning a :class:`probperf.trace.TaskTrace`;
* :mod:`~probperf.sim.datasets`: measurement tables and the thesis's Dataset A/B.

Examples
--------
>>> from probperf import sim
>>> from probperf.trace import dag_metrics
>>> mt = sim.run("fib", 18, p=4, cutoff=4, seed=0)
>>> mt["work"] + mt["delay"] + mt["no_work"] == 4 * mt["time"]
True
"""

from __future__ import annotations

from ..trace import dag_metrics
from .apps import APPS, App, build, farm, fft, fib, nqueens, sort, sparselu, strassen
from .dag import END, WAIT, Dag
from .datasets import PROTOCOL, dataset, generate, simulate_runs
from .machine import Machine
from .schedule import SCHEDULERS, simulate


def run(app: str, n, p: int, *, machine: Machine | None = None, scheduler: str = "ws",
        seed=None, **config) -> dict[str, float]:
    """Build ``app`` at size ``n``, simulate it on ``p`` workers, return its DAG metrics.

    Times are in cycles (see :func:`probperf.trace.dag_metrics` for the keys).

    Examples
    --------
    >>> m = run("fib", 12, p=2, cutoff=4, seed=0)
    >>> m["create_task"], m["work"] + m["delay"] + m["no_work"] == 2 * m["time"]
    (30.0, True)
    """
    return dag_metrics(simulate(build(app, n, **config), p, machine, scheduler, seed))


__all__ = ["APPS", "App", "Dag", "END", "Machine", "PROTOCOL", "SCHEDULERS", "WAIT", "build",
           "dataset", "farm", "fft", "fib", "generate", "nqueens", "run", "simulate",
           "simulate_runs", "sort", "sparselu", "strassen"]
