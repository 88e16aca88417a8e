"""The 2016 paper's regression designs of the worker-dependent DAG metrics (eq. 10,
12, 15), generalised as in the thesis. Each builds its columns from other metrics, per
run (N x K) or per joint draw (S x N x K): the DAG model fits on measured inputs and
predicts from drawn ones with the same function.
"""

from __future__ import annotations

import numpy as np


def _worker_terms(p: np.ndarray) -> np.ndarray:
    """The paper's worker terms ``[1, (p-1), (p-1)/p]`` as columns (points x 3)."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([np.ones_like(p), p - 1.0, (p - 1.0) / p], axis=-1)


def work_design(serial_work: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Design of eq. (10): ``T1' * [1, (p-1)/p, (p-1)]``; works per draw (S x N).

    Examples
    --------
    >>> work_design(np.array([10.0]), np.array([5])).tolist()
    [[10.0, 8.0, 40.0]]
    """
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), np.shape(serial_work))
    sw = np.asarray(serial_work, dtype=np.float64)
    return np.stack([sw, sw * (p - 1.0) / p, sw * (p - 1.0)], axis=-1)


def delay_design(create_task, wait_tasks, p, n, span=None, per_task_growth=True) -> np.ndarray:
    """Design of eq. (12), extended with steal terms.

    Columns: ``create*w`` and ``wait*w`` with the paper's worker terms
    ``w = [1, (p-1), (p-1)/p]`` (``w = [1, (p-1)/p]`` if not ``per_task_growth``); then ``s*(p-1)*[1, log2 n, log2(n)^2]`` and, when the
    critical path is measured, ``span*(p-1)``. The steal terms are not in the paper:
    work stealing makes O(p T_inf) steal attempts (Blumofe and Leiserson), so the
    thieves' cost grows with the span - polylogarithmic in ``n`` for divide and
    conquer - not with the task count; ``s`` is 1 when the program creates tasks and 0
    when it creates none (nothing to steal: no delay, as in eq. 12). Without them the
    start-up steals of small runs are charged per task and blow up at large ``n``.
    Shapes broadcast, so per-draw counts (S x N) give a per-draw design (S x N x K).

    ``per_task_growth=False`` drops the paper's ``count*(p-1)`` columns: a cost per
    task growing linearly with the workers is contention on a shared structure (a
    central queue: the farm), while with work stealing the extra cost of more workers
    is per steal, and a ``count*(p-1)`` term fitted on small inputs, where steals and
    tasks are confounded, overshoots on large ones (simulated sort and fft: delay 2x
    too high at 8x the size and 2x the workers). The DAG model tries both
    (:data:`~probperf.components.WIRING`, its ``"auto"`` candidates).

    Examples
    --------
    >>> delay_design(np.array([10.0]), np.array([4.0]), np.array([3]), np.array([4.0])).round(3).tolist()
    [[10.0, 20.0, 6.667, 4.0, 8.0, 2.667, 2.0, 4.0, 8.0]]
    """
    create = np.asarray(create_task, dtype=np.float64)
    wait = np.asarray(wait_tasks, dtype=np.float64)
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), create.shape)
    logn = np.broadcast_to(np.log2(np.asarray(n, dtype=np.float64)), create.shape)
    w = _worker_terms(p)
    if not per_task_growth:
        w = w[..., [0, 2]]
    thieves = (create > 0) * (p - 1.0)
    cols = [create[..., None] * w, wait[..., None] * w,
            np.stack([thieves, thieves * logn, thieves * logn**2], axis=-1)]
    if span is not None:
        cols.append((np.asarray(span, dtype=np.float64) * (p - 1.0))[..., None])
    return np.concatenate(cols, axis=-1)


def no_work_design(n, p, span=None) -> np.ndarray:
    """Design of eq. (15) generalised, ``(p-1)^j n^k log2(n)^l``, plus ``span*(p-1)``.

    The span column is Graham's bound: a greedy schedule idles at most
    ``(p-1) T_inf`` (a ramp-up and a drain around the critical path), which the
    paper's ``(p-1)^2`` terms approximate only on few workers. ``span`` may be per
    draw (S x N), giving an (S x N x K) design.

    Examples
    --------
    >>> no_work_design(np.array([4.0]), np.array([3.0]), np.array([5.0])).shape
    (1, 13)
    """
    from .basis import no_work

    base = no_work().design(np.asarray(n, dtype=np.float64), np.asarray(p, dtype=np.float64))
    if span is None:
        return base
    span = np.asarray(span, dtype=np.float64)
    base = np.broadcast_to(base, span.shape + base.shape[-1:])
    extra = (span * (np.asarray(p, dtype=np.float64) - 1.0))[..., None]
    return np.concatenate([base, extra], axis=-1)
