"""One fit of an experiment: the task functions that ``experiments/*.py`` hand to
:func:`probperf.runner.run_grid`.

They live in the package (not next to the scripts) because Dask workers import a task
function by its module name: every worker of a local or remote cluster that has
probperf installed can import ``probperf.experiment_tasks``, whatever its working
directory or ``sys.path``.

A task is a flat dict naming a dataset file, a model and a seed; the function fits the
model on the file's ``train`` rows, predicts every other split (``test`` for Dataset A
and the published cases; ``test1``, ``test2``, ``test3`` for Dataset B) and returns the
scores of :func:`probperf.evaluate.score` per split plus the per-point predictions (for
actual-vs-predicted plots and calibration curves) as JSON-able lists.

* :func:`fit_metric_task`: one metric model (GP kernel spec or ``"basis"``) of one
  metric (``time``, ``work``, ``delay``, ``no_work``) over ``(n, p, config)``;
* :func:`fit_time_task`: one time model by its name in :data:`probperf.registry.MODELS`
  (the DAG model, direct and penalty models, the baselines, Extra-P).

Dataset files are CSV or Parquet tables with ``n``, ``p``, metric columns, ``split`` and
configuration columns: every other column is taken as a configuration parameter. With a
remote cluster the file paths must be readable by the workers (a shared filesystem).
"""

from __future__ import annotations

import functools
import math
import os
import time
import warnings
from typing import Callable

import numpy as np
import pandas as pd

from .data import METRICS, Measurements
from .evaluate import DEFAULT_CURVE_LEVELS, score, splits_of
from .predict import Predictive

#: Interval levels scored per split (coverage and relative width).
LEVELS = (0.5, 0.9)

#: Metrics a kernel comparison may target.
METRIC_TARGETS = ("time", "work", "delay", "no_work")

#: Settings per experiment effort: ``quick`` is the CI smoke grid, ``full`` the
#: reported one, ``thorough`` the most exact. ``model_effort`` is the models' own level
#: (:data:`probperf.models.specs.EFFORTS`); ``draws`` the predictive draws scored, and
#: ``gp_adam`` / ``gp_lbfgs`` the kernel comparison's optimiser steps.
EFFORT = {
    "quick": dict(draws=300, model_effort="quick", gp_adam=60, gp_lbfgs=20),
    "full": dict(draws=1000, model_effort="default", gp_adam=100, gp_lbfgs=50),
    "thorough": dict(draws=2000, model_effort="thorough", gp_adam=100, gp_lbfgs=50),
}


# -- data --------------------------------------------------------------------------


def data_path(task: dict) -> str:
    """Where a task's dataset is: ``data``, read from the directory ``_root`` when it is
    relative (a field of where, not what: not in the task's key,
    :func:`probperf.runner.task_key`, so results stored in one clone are found in
    another).

    Examples
    --------
    >>> data_path({"data": "data/sim/fib.csv", "_root": "/repo/experiments"})
    '/repo/experiments/data/sim/fib.csv'
    >>> data_path({"data": "/elsewhere/fib.csv", "_root": "/repo/experiments"}), data_path({"data": "fib.csv"})
    ('/elsewhere/fib.csv', 'fib.csv')
    """
    return os.path.join(task.get("_root", ""), task["data"])


@functools.lru_cache(maxsize=16)
def load_data(path: str) -> Measurements:
    """A dataset file as :class:`Measurements` (cached per worker process).

    Parameters are ``n``, ``p`` and every other column that is neither a metric nor
    ``split``.
    """
    path = str(path)
    frame = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
    if "split" not in frame:
        raise ValueError(f"{path}: a dataset file needs a 'split' column")
    config = [c for c in frame.columns if c not in ("n", "p", "split", *METRICS)]
    return Measurements(frame, config=config, source=path)


def _settings(task: dict) -> dict:
    effort = task.get("effort", "full")
    if effort not in EFFORT:
        raise ValueError(f"effort must be one of {sorted(EFFORT)}, got {effort!r}")
    return EFFORT[effort]


def _limit_threads() -> None:
    # One fit per worker process: extra BLAS/torch threads only fight the other workers.
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch is a dependency
        pass


# -- scoring -----------------------------------------------------------------------


def central_level(draws: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per point, the smallest central interval level that contains the truth.

    ``|2 F(y) - 1|`` with ``F`` the draws' empirical CDF (mid-rank for ties): the
    truth lies inside the central ``L`` interval iff this is ``<= L``, so the share of
    points with a value ``<= L`` is the coverage at level ``L`` and one number per
    point gives the whole calibration curve.

    Examples
    --------
    >>> draws = np.arange(1.0, 101.0)[:, None] * [1.0, 1.0]
    >>> central_level(draws, np.array([50.5, 95.5])).round(2).tolist()
    [0.0, 0.9]
    """
    below = np.mean(draws < y, axis=0)
    at = np.mean(draws == y, axis=0)
    cdf = below + 0.5 * at
    return np.abs(2.0 * cdf - 1.0)


def score_split(pred: Predictive, y: np.ndarray, point: bool = False) -> dict:
    """:func:`probperf.evaluate.score` of one split, interval figures NaN for a point fit.

    Examples
    --------
    >>> pred = Predictive(np.arange(1.0, 101.0)[:, None] * [1.0, 2.0])
    >>> s = score_split(pred, np.array([50.0, 100.0]))
    >>> s["n_points"], s["median_ape"], s["coverage_90"]
    (2, 1.0, 1.0)

    A point prediction (one draw) keeps its errors but has no interval figures:

    >>> s = score_split(Predictive(np.array([[50.0, 100.0]])), np.array([50.0, 110.0]), point=True)
    >>> round(s["median_ape"], 3), s["coverage_90"], s["nlpd"]
    (4.545, nan, nan)
    """
    try:
        s = score(pred, y, levels=LEVELS)
    except ValueError:
        # A model may predict a median of exactly 0 (a network clipped at 0): the
        # relative width is undefined there; score the other points' widths.
        s = _score_zero_medians(pred, y)
    if point:
        # A point prediction has no interval: its "coverage" would always be 0.
        for key in list(s):
            if key.startswith(("coverage_", "width_")) or key == "nlpd":
                s[key] = math.nan
    return s


def _score_zero_medians(pred: Predictive, y: np.ndarray) -> dict:
    from .evaluate import ape, coverage, crps

    draws = pred.draws
    apes, point_crps = ape(draws, y), crps(draws, y)
    out = {"n_points": len(y), "median_ape": float(np.median(apes)), "mean_ape": float(np.mean(apes)),
           "crps": float(np.mean(point_crps)), "crps_rel": float(np.mean(point_crps / np.abs(y))),
           "nlpd": math.nan}
    median = np.median(draws, axis=0)
    for level in LEVELS:
        tag = f"{100 * level:.10g}"
        lo, hi = pred.interval(level)  # an overflowed draw stays inf, not NaN
        out[f"coverage_{tag}"] = coverage(draws, y, level)
        nz = median != 0
        out[f"width_{tag}"] = float(np.mean((hi - lo)[nz] / np.abs(median[nz]))) if nz.any() else math.nan
    return out


def _points(split: str, test: Measurements, pred: Predictive, y: np.ndarray, point: bool) -> list[dict]:
    draws = pred.draws
    median = np.median(draws, axis=0)
    (lo50, hi50), (lo90, hi90) = pred.interval(0.5), pred.interval(0.9)
    level = np.full(len(y), np.nan) if point else central_level(draws, y)
    frame = test.frame
    out = []
    for i in range(len(y)):
        row = {"split": split, **{c: _plain(frame[c].iloc[i]) for c in test.params}}
        row.update(y=float(y[i]), median=float(median[i]), lo50=float(lo50[i]), hi50=float(hi50[i]),
                   lo90=float(lo90[i]), hi90=float(hi90[i]), level=float(level[i]))
        out.append(row)
    return out


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _evaluate(predict: Callable[[Measurements], Predictive], tests: dict, target: str,
              point: bool = False) -> tuple[list, list, float]:
    """Scores and points of every test split; returns (scores, points, predict seconds)."""
    scores, points, seconds = [], [], 0.0
    for split, test in tests.items():
        start = time.perf_counter()
        pred = predict(test)
        seconds += time.perf_counter() - start
        y = test.y(target)
        s = score_split(pred, y, point)
        if not point:
            levels = central_level(pred.draws, y)
            s["curve"] = [float(np.mean(levels <= lv)) for lv in DEFAULT_CURVE_LEVELS]
        scores.append({"split": split, **s})
        points += _points(split, test, pred, y, point)
    return scores, points, seconds


def _positive(m: Measurements, target: str) -> Measurements:
    """The rows where ``target`` is positive and finite (log-scale models need them).

    ``no_work`` is 0 at ``p = 1`` by definition and ``delay`` can be 0 there, so those
    rows carry no information for a log-scale fit and no APE can be computed on them.
    """
    values = m.frame[target].to_numpy(dtype=np.float64)
    keep = np.isfinite(values) & (values > 0)
    return m._derive(m.frame[keep]) if not keep.all() else m


# -- metric models (kernel comparison) ---------------------------------------------


def metric_model_for(spec: str, seed: int, settings: dict):
    """The metric model of a kernel comparison: ``"basis"`` or a GP with ``spec``
    (:func:`probperf.models.specs.build`: GPs around the power law, so every kernel
    models the same residual).

    Examples
    --------
    >>> gp = metric_model_for("rbf", seed=0, settings=EFFORT["quick"])
    >>> type(gp).__name__, gp.mean, gp.n_restarts
    ('GaussianProcessModel', 'linear', 1)
    >>> metric_model_for("basis", seed=0, settings=EFFORT["quick"]).inference
    'svi'
    """
    from .models import specs

    options = {"seed": seed}
    if specs.parse(spec).family == "gp":
        options.update(adam_iters=settings["gp_adam"], lbfgs_iters=settings["gp_lbfgs"])
    return specs.build(spec, settings["model_effort"], **options)


def fit_metric_task(task: dict) -> dict:
    """Fit one metric model on a dataset's train rows and score every test split.

    Task fields: ``data`` (dataset file), ``target`` (a metric), ``model`` (kernel spec
    or ``"basis"``), ``seed``, optional ``effort`` (``"full"``/``"quick"``).

    Returns ``n_train``, ``fit_seconds``, ``predict_seconds``, ``scores`` (one dict per
    split: the :func:`~probperf.evaluate.score` figures, the split name and ``curve``,
    the coverage at :data:`~probperf.evaluate.DEFAULT_CURVE_LEVELS`) and ``points``
    (per test point: parameters, truth, median, 50 %/90 % interval, central level).

    Examples
    --------
    A GP with an ``rbf`` kernel on 12 training runs of ``work``, tested at ``n = 2^12``:

    >>> import tempfile
    >>> n, p = np.meshgrid(2.0 ** np.arange(8, 13), [1, 2, 4])
    >>> runs = pd.DataFrame({"n": n.ravel(), "p": p.ravel()})
    >>> runs["work"] = runs.n * (1 + 0.1 * (runs.p - 1))
    >>> runs["split"] = np.where(runs.n == 2**12, "test", "train")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     runs.to_csv(f"{tmp}/runs.csv", index=False)
    ...     out = fit_metric_task({"data": f"{tmp}/runs.csv", "target": "work",
    ...                            "model": "rbf", "seed": 0, "effort": "quick"})
    >>> out["n_train"], [s["split"] for s in out["scores"]], len(out["points"])
    (12, ['test'], 3)
    >>> bool(out["scores"][0]["median_ape"] < 1.0)  # per cent
    True
    >>> fit_metric_task({"data": "runs.csv", "target": "flops", "model": "rbf", "seed": 0})
    Traceback (most recent call last):
    ...
    ValueError: target must be one of ('time', 'work', 'delay', 'no_work'), got 'flops'
    """
    _limit_threads()
    settings = _settings(task)
    target = task["target"]
    if target not in METRIC_TARGETS:
        raise ValueError(f"target must be one of {METRIC_TARGETS}, got {target!r}")
    m = load_data(data_path(task))
    m.require(target)
    splits = {k: _positive(v, target) for k, v in splits_of(m).items()}
    train = splits.pop("train")
    tests = {k: v for k, v in splits.items() if len(v)}
    model = metric_model_for(task["model"], int(task["seed"]), settings)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train, target=target)
    fit_seconds = time.perf_counter() - start

    def predict(test):
        return model.predict(test.points(train.params), n_draws=settings["draws"], seed=int(task["seed"]))

    scores, points, predict_seconds = _evaluate(predict, tests, target)
    return {"n_train": len(train), "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
            "scores": scores, "points": points}


# -- time models (model comparison, published cases) -------------------------------


def time_model_for(name: str, seed: int, settings: dict):
    """A fresh time model by its registry name (:data:`probperf.registry.MODELS`).

    Examples
    --------
    >>> type(time_model_for("dag_basis", seed=0, settings=EFFORT["quick"])).__name__
    'DagModel'
    >>> time_model_for("twostep_lasso", seed=0, settings=EFFORT["quick"]).n_boot
    20
    """
    from . import registry

    return registry.make(name, effort=settings["model_effort"], seed=seed)


def _varying_config(m: Measurements) -> list[str]:
    frame = m.frame
    return [c for c in m.config if frame[c].nunique() > 1]


class _PerConfig:
    """Fit one model per value combination of the varying configuration parameters."""

    def __init__(self, make: Callable[[], object], varying: list[str]):
        self.make, self.varying = make, varying

    def fit(self, train: Measurements):
        self.models_ = {}
        for key, _ in train.frame.groupby(self.varying):
            key = key if isinstance(key, tuple) else (key,)
            where = dict(zip(self.varying, key))
            self.models_[key] = self.make().fit(train.select(**{k: [v] for k, v in where.items()}))
        return self

    def predict(self, points: pd.DataFrame, n_draws: int, seed: int) -> Predictive:
        keys = [tuple(_plain(v) for v in row) for row in points[self.varying].itertuples(index=False)]
        blocks = {}
        for key in dict.fromkeys(keys):
            if key not in self.models_:
                raise ValueError(f"no training rows for configuration {dict(zip(self.varying, key))}")
            idx = [i for i, k in enumerate(keys) if k == key]
            pts = points.iloc[idx].reset_index(drop=True)
            blocks[key] = (idx, self.models_[key].predict(pts, n_draws=n_draws, seed=seed).draws)
        n_out = max(d.shape[0] for _, d in blocks.values())
        draws = np.empty((n_out, len(points)))
        for idx, d in blocks.values():
            # point fits (one draw) are broadcast to the others' draw count
            draws[:, idx] = np.broadcast_to(d, (n_out, len(idx))) if d.shape[0] == 1 else d
        return Predictive(draws, points.reset_index(drop=True), "time")


def fit_time_task(task: dict) -> dict:
    """Fit one time model on a dataset's train rows and score every test split.

    Task fields: ``data`` (dataset file), ``model`` (a name in :data:`probperf.registry.MODELS`),
    ``seed``, optional ``effort``. Returns the fields of :func:`fit_metric_task` and
    ``discrepancy_work``, ``discrepancy_overhead`` (:attr:`DagModel.discrepancy_learnt_`;
    NaN for other models).

    Examples
    --------
    Extra-P (the quickest model to fit) on ``time = 2 n / p``; its point prediction has
    errors but no interval figures:

    >>> import tempfile
    >>> n, p = np.meshgrid(2.0 ** np.arange(8, 13), [1, 2, 4])
    >>> runs = pd.DataFrame({"n": n.ravel(), "p": p.ravel()})
    >>> runs["time"] = 2 * runs.n / runs.p
    >>> runs["split"] = np.where(runs.n == 2**12, "test", "train")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     runs.to_csv(f"{tmp}/runs.csv", index=False)
    ...     out = fit_time_task({"data": f"{tmp}/runs.csv", "model": "extrap", "seed": 0})
    >>> s = out["scores"][0]
    >>> out["n_train"], s["split"], s["n_points"], s["coverage_90"]
    (12, 'test', 3, nan)
    >>> bool(s["median_ape"] < 1.0)  # per cent
    True
    """
    from .registry import entry_of

    _limit_threads()
    settings = _settings(task)
    name, seed = task["model"], int(task["seed"])
    entry = entry_of(name)
    make = functools.partial(time_model_for, name, seed, settings)
    m = load_data(data_path(task))
    splits = splits_of(m)
    train = splits.pop("train")
    varying = _varying_config(train)
    model = _PerConfig(make, varying) if (entry.per_config and varying) else make()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train)
    fit_seconds = time.perf_counter() - start

    def predict(test):
        pts = test.points(train.params)
        return model.predict(pts, n_draws=settings["draws"], seed=seed)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, points, predict_seconds = _evaluate(predict, splits, "time", entry.point)
    # the DAG model's extrapolation-error rates learnt from the training data alone,
    # reported beside the floor probperf.dag.DISCREPANCY
    from .dag import DISCREPANCY_PARTS

    learnt = getattr(model, "discrepancy_learnt_", {})
    rates = {f"discrepancy_{part}": float(learnt.get(part, math.nan)) for part in DISCREPANCY_PARTS}
    return {"n_train": len(train), "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
            **rates, "scores": scores, "points": points}
