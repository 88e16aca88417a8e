"""Simulated measurement tables, including the thesis's Dataset A / Dataset B protocol.

Every row is one simulated run with DAG metrics from :func:`probperf.trace.dag_metrics`
(times converted to seconds with the machine's clock) plus ``serial_work``: the work
of a one-worker run of the same ``(n, config)`` and repetition.

Dataset A (per program, configuration fixed): ``train`` on 1-8 workers at small ``n``,
``test`` on 28/32/36 workers at larger ``n``. Dataset B (a configuration parameter
varies too): ``train`` on 1-16 workers at small ``n``; ``test1`` larger ``n`` on 1-16
workers, ``test2`` small ``n`` on 32/36 workers, ``test3`` both.
"""

from __future__ import annotations

import itertools
import zlib
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..data import Measurements
from ..limits import MAX_SIM_RUNS, MAX_SIM_SCALE, MAX_SIM_SEED
from ..progress import reporting, task
from ..trace import dag_metrics
from .apps import APPS, build
from .machine import Machine
from .schedule import simulate

#: Column order of generated tables (after ``n``, ``p`` and the config parameters).
METRIC_COLUMNS = ("time", "work", "delay", "no_work", "critical_path", "create_task",
                  "wait_tasks", "end_task", "serial_work")
_TIME_COLUMNS = ("time", "work", "delay", "no_work", "critical_path", "serial_work")


def _run_seed(seed: int, app: str, n, config: Mapping, p: int, rep: int) -> np.random.SeedSequence:
    """An independent, order-free stream per run: same inputs, same numbers, whatever
    their types (``8``, ``8.0`` and ``np.int64(8)`` key the same stream).

    Examples
    --------
    >>> a = _run_seed(1, "fib", 20, {"cutoff": np.int64(8)}, 2, 0).generate_state(1)
    >>> bool(a == _run_seed(1, "fib", 20.0, {"cutoff": 8}, 2, 0).generate_state(1))
    True
    """
    key = f"{app}|{_plain(n)}|{sorted((k, _plain(v)) for k, v in config.items())}|{_plain(p)}|{_plain(rep)}"
    return np.random.SeedSequence([int(seed), zlib.crc32(key.encode())])  # 32 bits: check_sim_seed


def _plain(value):
    """A number as the Python int it equals, if whole, else as a Python float: one
    spelling per value in a stream's key (numpy 2 spells ``np.int64(8)`` with its type)."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_sim_seed(seed) -> None:
    """A ``ValueError`` unless ``seed`` is a whole number from 0 to
    :data:`probperf.limits.MAX_SIM_SEED`.

    Examples
    --------
    >>> check_sim_seed(7)
    >>> check_sim_seed(2**32)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0 to 2**32 - 1 (the simulator keys its streams by 32 bits), got 4294967296
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SIM_SEED:
        raise ValueError(f"seed must be a whole number from 0 to 2**32 - 1 (the simulator keys its streams by 32 "
                         f"bits), got {seed!r}")


def _grid(config: Mapping[str, object]) -> list[dict]:
    names = list(config)
    values = [v if isinstance(v, (list, tuple, np.ndarray, range)) else [v] for v in config.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def simulate_runs(app: str, points: Iterable[tuple], *, reps: int = 1, seed: int = 0,
                  machine: Machine | None = None, scheduler: str = "ws",
                  progress: bool = False) -> pd.DataFrame:
    """Simulate runs at ``points`` = iterable of ``(n, p, config_dict, split_or_None)``.

    Returns a DataFrame with ``n``, ``p``, every configuration parameter of ``app``,
    :data:`METRIC_COLUMNS` (times in seconds) and ``split`` when any point has one.
    Each ``(n, config)`` DAG is built once; ``serial_work`` comes from a one-worker
    run per ``(n, config, rep)`` (reused when ``p = 1`` is among the points).

    Examples
    --------
    >>> runs = simulate_runs("fib", [(12, 1, {}, "train"), (12, 2, {}, "train"),
    ...                              (14, 2, {"cutoff": 6}, "test")], seed=0)
    >>> runs[["n", "p", "cutoff", "create_task", "split"]]
        n  p  cutoff  create_task  split
    0  12  1      12        464.0  train
    1  12  2      12        464.0  train
    2  14  2       6        126.0   test
    >>> bool((runs.serial_work.iloc[:2] == runs.work.iloc[0]).all())  # from the p=1 run
    True
    """
    if app not in APPS:
        raise ValueError(f"unknown program {app!r}; choose from {', '.join(APPS)}")
    if isinstance(reps, (bool, np.bool_)) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be a positive whole number, got {reps!r}")  # 2.0 or True: not a count
    check_sim_seed(seed)
    machine = machine or Machine()
    defaults = APPS[app].config
    groups = _by_dag(points, defaults)
    total = sum(len(g) for g in groups.values()) * reps
    if total > MAX_SIM_RUNS:  # every caller's limit, before any run (sim run and datasets count theirs first)
        raise ValueError(f"{app}: {total} runs ({reps} per setting), above the limit {MAX_SIM_RUNS} (MAX_SIM_RUNS)")
    done: dict[tuple, list] = {}
    # the largest DAGs first, so that one past MAX_SIM_SEGMENTS fails before the small
    # ones have run; every run has its own seed, so the order changes no number, and
    # the rows are put back in the order of the points
    with reporting(enabled=progress), task(f"simulating {app}", total=total) as step:
        for n, cfg_key in sorted(groups, key=lambda key: -key[0]):
            cfg = dict(cfg_key)
            dag = build(app, n, **cfg)
            done[n, cfg_key] = []
            for rep in range(reps):
                def seed_of(p, n=n, cfg=cfg, rep=rep):
                    return _run_seed(seed, app, n, cfg, p, rep)

                done[n, cfg_key] += _rep_rows(dag, groups[n, cfg_key], cfg, seed_of, machine, scheduler, step)
    frame = pd.DataFrame([row for key in groups for row in done[key]])
    for c in _TIME_COLUMNS:
        frame[c] = frame[c] / machine.clock_hz
    cols = ["n", "p", *defaults, *METRIC_COLUMNS] + (["split"] if "split" in frame else [])
    return frame[cols]


def _by_dag(points, defaults) -> dict[tuple, list]:
    """Points (configuration completed with ``defaults``) grouped by ``(n, config)``,
    i.e. by the DAG they run, which is then built once."""
    points = [(n, int(p), {**defaults, **dict(cfg)}, split) for n, p, cfg, split in points]
    if not points:
        raise ValueError("no points to simulate")
    groups: dict[tuple, list] = {}
    for pt in points:
        groups.setdefault((pt[0], tuple(sorted(pt[2].items()))), []).append(pt)
    return groups


def _rep_rows(dag, pts, cfg, seed_of, machine, scheduler, step) -> list[dict]:
    """One repetition's rows for the points ``pts`` of one DAG; each worker count is
    simulated once (seeded by ``seed_of(p)``), and the one-worker run gives
    ``serial_work``. ``step(label)`` as each row starts (:func:`probperf.progress.task`)."""
    cache: dict[int, dict] = {}

    def metrics(p):
        if p not in cache:
            try:
                tr = simulate(dag, p, machine, scheduler, seed=np.random.default_rng(seed_of(p)))
            except ValueError as exc:  # a run too long to simulate, named by its setting
                from ..cautions import point_text

                raise ValueError(f"the run at {point_text({'n': pts[0][0], 'p': p, **cfg})}: {exc}") from None
            cache[p] = dag_metrics(tr)
        return cache[p]

    serial = metrics(1)["work"]
    rows = []
    for n_, p, _, split in pts:
        step(f"n={n_:g}, p={p}")
        row = {"n": n_, "p": p, **cfg, **metrics(p), "serial_work": serial}
        if split is not None:
            row["split"] = split
        rows.append(row)
    return rows


def generate(app: str, n: Sequence, p: Sequence[int], *, config: Mapping | None = None,
             reps: int = 1, seed: int = 0, machine: Machine | None = None,
             scheduler: str = "ws", progress: bool = False) -> Measurements:
    """Simulate every combination of ``n``, ``p`` and configuration values.

    Parameters
    ----------
    app : str
        Program name (see :data:`probperf.sim.APPS`).
    n, p : number or sequence
        Problem sizes and worker counts.
    config : mapping, optional
        Configuration parameter -> value or list of values (a grid); unspecified
        parameters keep the program's defaults.
    reps : int
        Repetitions per setting (separate rows, different noise).
    seed : int
        Fixes everything; each run's stream depends only on (seed, app, n, config, p, rep).
    machine : Machine, optional
    scheduler : {"ws", "greedy"}
    progress : bool
        Show a rich progress bar.

    Returns
    -------
    Measurements
        ``config`` = the program's configuration parameter names; unit seconds.

    Examples
    --------
    >>> m = generate("fib", [20], [1, 2], config={"cutoff": 4}, seed=1)
    >>> m.config, len(m)
    (['cutoff'], 2)
    >>> float(m.frame["serial_work"][1]) == float(m.frame["work"][0])
    True
    """
    config = dict(config or {})
    if app not in APPS:
        raise ValueError(f"unknown program {app!r}; choose from {', '.join(APPS)}")
    unknown = set(config) - set(APPS[app].config)
    if unknown:
        raise ValueError(f"{app} has no configuration parameter(s) {sorted(unknown)}; "
                         f"it takes {sorted(APPS[app].config) or 'none'}")
    n, p = _numbers(n, "n"), _numbers(p, "p")
    config = {k: _numbers(v, k) for k, v in config.items()}  # a value given twice, as the CLI's --set refuses
    for value in p:  # a worker count is a whole number of workers: 2.5 (or True) is no run to simulate
        if not float(value).is_integer() or value < 1:
            raise ValueError(f"worker counts p must be whole numbers >= 1, got {value!r}")
    points = [(nn, int(pp), cfg, None) for cfg in _grid(config) for nn in n for pp in p]
    frame = simulate_runs(app, points, reps=reps, seed=seed, machine=machine,
                          scheduler=scheduler, progress=progress)
    return Measurements(frame, config=list(APPS[app].config), unit="s", source=f"sim:{app}")


def _numbers(values, name: str) -> list:
    """``values`` (one number or a sequence of them) as a list of distinct finite
    numbers, or a ``TypeError``/``ValueError`` naming ``name`` (helper-82: a string or
    NaN ended in Python's own words, from deep inside the simulation; ``p=[2, 2]`` gave
    two identical rows, where the CLI refuses a value given twice).

    Examples
    --------
    >>> _numbers(20, "n"), _numbers([1, 2.0], "p")
    ([20], [1, 2.0])
    >>> _numbers(["10"], "n")
    Traceback (most recent call last):
    ...
    TypeError: n takes numbers, got '10'
    >>> _numbers([2, 4, 2.0], "p")
    Traceback (most recent call last):
    ...
    ValueError: p gives 2.0 twice; use reps= for repeated runs
    """
    items = list(values) if isinstance(values, (list, tuple, range, np.ndarray, pd.Series)) else [values]
    for v in items:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} takes numbers, got {v!r}")
        if not np.isfinite(v):
            raise ValueError(f"{name} must be finite, got {v!r}")
    seen = set()
    for v in items:
        if float(v) in seen:
            raise ValueError(f"{name} gives {v!r} twice; use reps= for repeated runs")
        seen.add(float(v))
    return items


# -- the thesis protocol ------------------------------------------------------------

#: Per program: Dataset A sizes (train, test), fixed config; Dataset B sizes (train,
#: test) and the varying config parameter's values. Modest on purpose: a whole A+B
#: for one program simulates in well under a minute; ``scale`` enlarges them.
PROTOCOL: dict[str, dict] = {
    "sort": dict(kind="log2", a_train=range(12, 18), a_test=(18, 19, 20),
                 b_train=range(12, 18), b_test=(18, 19, 20),
                 config={"quick_cutoff": 512, "merge_cutoff": 512, "insertion_cutoff": 20},
                 vary=("merge_cutoff", (512, 1024, 2048))),
    "sparselu": dict(kind="linear", power=3, a_train=(8, 12, 16, 20, 24), a_test=(28, 32, 36),
                     b_train=(8, 12, 16, 20, 24), b_test=(28, 32, 36),
                     config={"block": 30}, vary=("block", (20, 30, 40))),
    "fft": dict(kind="log2", a_train=range(10, 16), a_test=(16, 17, 18),
                b_train=range(10, 16), b_test=(16, 17, 18), config={}, vary=None),
    "strassen": dict(kind="log2", power=2.8, a_train=(7, 8, 9, 10), a_test=(11, 12),
                     b_train=(7, 8, 9, 10), b_test=(11,),
                     config={"cutoff": 64, "depth": 7}, vary=("cutoff", (32, 64, 128))),
    "fib": dict(kind="exp", growth=1.618, a_train=(22, 24, 26, 28, 30), a_test=(32, 34, 36),
                b_train=(22, 24, 26, 28, 30), b_test=(32, 34, 36),
                config={"cutoff": 10}, vary=("cutoff", (8, 10, 12))),
    "nqueens": dict(kind="exp", growth=4.9, a_train=(8, 9, 10, 11), a_test=(12, 13, 14),
                    b_train=(8, 9, 10, 11), b_test=(12, 13),
                    config={"cutoff": 3}, vary=("cutoff", (2, 3, 4))),
    "farm": dict(kind="log2", a_train=range(8, 13), a_test=(13, 14, 15),
                 b_train=range(8, 13), b_test=(13, 14, 15),
                 config={"chunk": 1}, vary=("chunk", (1, 2, 4))),
}

A_TRAIN_P = tuple(range(1, 9))
A_TEST_P = (28, 32, 36)
B_TRAIN_P = (1, 2, 4, 8, 12, 16)
B_TEST1_P = (1, 4, 8, 16)
B_TEST23_P = (32, 36)


def max_size(app: str):
    """The largest size the simulator builds for ``app``: the protocol's largest test
    size at :data:`~probperf.limits.MAX_SIM_SCALE` times its work (``None``: no limit
    known, the program has no protocol). Why: past it a single run took minutes and its
    DAG gigabytes, and fib's call counts overflow float64 by n = 1500 (helper-82); one
    limit for ``sim run``, :func:`generate` and :func:`probperf.sim.run`
    (:func:`probperf.sim.apps.build` checks it).

    Examples
    --------
    >>> max_size("sort"), max_size("fib")
    (16777216, 42)
    """
    if app not in PROTOCOL:
        return None
    spec = PROTOCOL[app]
    return max(max(_sizes(spec, key, MAX_SIM_SCALE)) for key in ("a_test", "b_test"))


def _sizes(spec: dict, key: str, scale: float) -> list[int]:
    """The protocol's sizes ``spec[key]`` scaled; ``ValueError`` where the scale is so
    small that sizes fall below 1 or merge (a table of one size has no law to fit).

    Examples
    --------
    >>> _sizes({"kind": "exp", "growth": 2.0, "sizes": [10, 12]}, "sizes", 0.25)
    [8, 10]
    >>> _sizes({"kind": "exp", "growth": 2.0, "sizes": [10, 12]}, "sizes", 1e-9)
    Traceback (most recent call last):
    ...
    ValueError: scale 1e-09 leaves the sizes [10, 12] as [1]: too small to tell sizes apart; use a larger scale
    """
    values = spec[key]
    power = spec.get("power", 1.0)  # work ~ n**power
    if spec["kind"] == "log2":
        shift = int(round(np.log2(scale) / power))
        out = [2 ** max(int(v) + shift, 1) for v in values]  # 2 at least: fft halves its input
    elif spec["kind"] == "exp":  # work ~ growth**n: shift n so the work scales by `scale`
        shift = int(round(np.log(scale) / np.log(spec["growth"])))
        out = [max(1, int(v) + shift) for v in values]
    else:
        out = [max(1, int(round(v * scale ** (1 / power)))) for v in values]
    if len(set(out)) < len(set(values)):
        raise ValueError(f"scale {scale:g} leaves the sizes {list(values)} as {sorted(set(out))}: too small to tell "
                         "sizes apart; use a larger scale")
    return out


def dataset(app: str, which: str = "A", scale: float = 1.0, seed: int = 0, *, reps: int = 1,
            machine: Machine | None = None, progress: bool = False) -> Measurements:
    """A simulated Dataset A or B (thesis protocol) for one program, with ``split``.

    Parameters
    ----------
    app : str
        One of ``sort, sparselu, fft, strassen, fib, nqueens, farm``.
    which : {"A", "B"}
        A: config fixed; splits ``train`` (p = 1..8, small n) and ``test`` (p = 28, 32,
        36, larger n). B: the program's main configuration parameter varies; splits
        ``train`` (p = 1, 2, 4, 8, 12, 16, small n), ``test1`` (larger n, p = 1, 4, 8,
        16), ``test2`` (small n, p = 32, 36), ``test3`` (larger n, p = 32, 36). fft has no
        configuration parameter, so its B differs from A only in the split design.
    scale : float
        Roughly multiplies the work of every run: power-of-two sizes (sort, fft,
        farm; strassen with work ~ n^2.8) shift their exponent, sparselu's block count
        is multiplied by ``scale**(1/3)``, fib's and nqueens' ``n`` shift so their
        exponential work scales by about ``scale``.
    seed : int
        Reproduces the table exactly.

    Examples
    --------
    >>> m = dataset("nqueens", "A", scale=0.75, seed=0)
    >>> sorted(m.frame["split"].unique()), m.config
    (['test', 'train'], ['cutoff'])
    """
    points = dataset_points(app, which, scale)
    frame = simulate_runs(app, points, reps=reps, seed=seed, machine=machine, progress=progress)
    return Measurements(frame, config=list(APPS[app].config), unit="s",
                        source=f"sim:{app}:dataset{which}")


def dataset_points(app: str, which: str = "A", scale: float = 1.0) -> list[tuple]:
    """The settings ``(n, p, config, split)`` of one program's Dataset A or B at
    ``scale`` (:func:`dataset`), one run each per repetition: counted before anything
    is simulated. A scale that leaves sizes merged is a ``ValueError`` naming the
    program.

    Examples
    --------
    >>> len(dataset_points("fft", "A")), dataset_points("fft", "A")[0]
    (57, (1024, 1, {}, 'train'))
    >>> dataset_points("fft", "A", scale=0.001)
    Traceback (most recent call last):
    ...
    ValueError: fft dataset A: scale 0.001 leaves the sizes [10, 11, 12, 13, 14, 15] as [2, 4, 8, 16, 32]: too small to tell sizes apart; use a larger scale
    """
    if app not in PROTOCOL:
        raise ValueError(f"no dataset protocol for {app!r}; choose from {', '.join(PROTOCOL)}")
    if which not in ("A", "B"):
        raise ValueError(f"which must be 'A' or 'B', got {which!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.number)) or not 0 < scale <= MAX_SIM_SCALE:
        raise ValueError(f"scale must be a number above 0 and at most {MAX_SIM_SCALE:g} (MAX_SIM_SCALE), got {scale!r}")
    try:
        return _points(PROTOCOL[app], which, scale)
    except ValueError as exc:
        raise ValueError(f"{app} dataset {which}: {exc}") from None


def _points(spec: dict, which: str, scale: float) -> list[tuple]:
    base = dict(spec["config"])
    if which == "A":
        points = [(n, p, base, "train") for n in _sizes(spec, "a_train", scale) for p in A_TRAIN_P]
        points += [(n, p, base, "test") for n in _sizes(spec, "a_test", scale) for p in A_TEST_P]
    else:
        configs = [base] if spec["vary"] is None else [
            {**base, spec["vary"][0]: v} for v in spec["vary"][1]]
        small, large = _sizes(spec, "b_train", scale), _sizes(spec, "b_test", scale)
        points = []
        for cfg in configs:
            points += [(n, p, cfg, "train") for n in small for p in B_TRAIN_P]
            points += [(n, p, cfg, "test1") for n in large for p in B_TEST1_P]
            points += [(n, p, cfg, "test2") for n in small for p in B_TEST23_P]
            points += [(n, p, cfg, "test3") for n in large for p in B_TEST23_P]
    return points
