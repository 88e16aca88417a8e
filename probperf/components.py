"""The DAG model's components, each declared once: what it depends on, what its model
sees, and which models the ``"auto"`` choice tries.

A component is one DAG metric (``work``, ``delay``, ...). Its model maps *inputs* to
a target, and the metric is ``scale * target``: a GP or a law mixture sees the
parameters (``n``, ``p``, the configuration) and predicts a ratio (``work / T1'``,
``delay`` per task), the paper's basis regressions see a design built from other
metrics (eq. 10, 12, 15). :meth:`Component.inputs` builds both from the component's
*parents*, measured (one value per run, in fitting and in the choice) or drawn (one
per draw and point, in prediction): one function serves fit, choice and prediction.

:data:`WIRING` lists the components in the order they are drawn (parents first).
Changing how ``delay`` is modeled means editing its declaration here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from .designs import delay_design, no_work_design, work_design
from .models import specs

#: Spec of the delay regression without per-task growth with the workers
#: (:func:`~probperf.designs.delay_design` with ``per_task_growth=False``).
STEAL_SPEC = specs.STEAL
#: Prefix of a GP spec around an exponential law in ``n`` (fib, n-queens).
EXP_PREFIX = specs.EXP_PREFIX


def is_design_spec(spec: str) -> bool:
    """Whether ``spec`` names a basis regression (on a design or a basis set).

    Examples
    --------
    >>> is_design_spec("basis-steal"), is_design_spec("laws")
    (True, False)
    """
    return specs.parse(spec).family == specs.BASIS


# -- what a component model sees ------------------------------------------------------

@dataclass
class Features:
    """Inputs that are a table of parameters (GP, law mixture, basis over ``n``).

    Examples
    --------
    >>> f = Features(pd.DataFrame({"n": [8.0, 16.0, 32.0]}))
    >>> f.take(np.array([True, False, True])).table["n"].tolist(), bool(f.usable().all())
    ([8.0, 32.0], True)
    """

    table: pd.DataFrame

    def take(self, mask) -> "Features":
        """The rows of ``mask`` (the runs a component is fitted on).

        Examples
        --------
        >>> Features(pd.DataFrame({"n": [8.0, 16.0]})).take(np.array([False, True])).table["n"].tolist()
        [16.0]
        """
        return Features(self.table.iloc[np.flatnonzero(mask)])

    def usable(self) -> np.ndarray:
        """Which rows can inform a fit: all of them (a parameter row always can).

        Examples
        --------
        >>> Features(pd.DataFrame({"n": [8.0, 16.0]})).usable().tolist()
        [True, True]
        """
        return np.ones(len(self.table), dtype=bool)

    def fit(self, model, y, target: str):
        """``model`` fitted to ``y`` over the table's columns (its refusal names ``target``).

        Examples
        --------
        >>> from probperf.models import LawMixture
        >>> f = Features(pd.DataFrame({"n": [8.0, 16.0, 32.0, 64.0, 128.0]}))
        >>> f.fit(LawMixture(discrepancy=False), 2 * f.table["n"].to_numpy() ** 2, "work").features_
        ['n']
        """
        return model.fit(self.table, y, target=target, features=list(self.table.columns))  # a refusal names it

    def draws(self, model, S: int, seed: int, noise: bool) -> np.ndarray:
        """``S`` draws of ``model`` at each row (``S x N``), with or without run noise.

        Examples
        --------
        With a model of one value everywhere (a component measured at one setting):

        >>> from probperf.dag import ConstantMetric
        >>> Features(pd.DataFrame({"n": [8.0, 16.0]})).draws(ConstantMetric(3.0), 2, seed=0, noise=False).tolist()
        [[3.0, 3.0], [3.0, 3.0]]
        """
        return model.predict(self.table, n_draws=S, seed=seed, noise=noise).draws

    def median(self, model) -> np.ndarray:
        """Median prediction without observation noise.

        Examples
        --------
        >>> from probperf.dag import ConstantMetric
        >>> Features(pd.DataFrame({"n": [8.0, 16.0]})).median(ConstantMetric(3.0)).tolist()
        [3.0, 3.0]
        """
        return model.predict(self.table, n_draws=200, seed=0, noise=False).median


@dataclass
class Design:
    """Inputs that are a design matrix of the paper's regressions (N x K, or per draw
    S x N x K).

    Examples
    --------
    A run that created no tasks has an all-zero delay design row: it cannot inform
    the fit.

    >>> Design(np.array([[2.0, 1.0], [0.0, 0.0]])).usable().tolist()
    [True, False]
    """

    matrix: np.ndarray

    def take(self, mask) -> "Design":
        """The rows of ``mask``.

        Examples
        --------
        >>> Design(np.array([[2.0, 1.0], [4.0, 3.0]])).take(np.array([False, True])).matrix.tolist()
        [[4.0, 3.0]]
        """
        return Design(self.matrix[mask])

    def usable(self) -> np.ndarray:
        """Which rows can inform a fit: not an all-zero row (a run without tasks).

        Examples
        --------
        >>> Design(np.array([[2.0, 1.0], [0.0, 0.0]])).usable().tolist()
        [True, False]
        """
        # an all-zero design row (no tasks) cannot explain anything
        return self.matrix.sum(axis=1) > 0

    def fit(self, model, y, target: str):
        """``model`` (a basis regression) fitted to ``y`` on the design.

        Examples
        --------
        A delay of 2 per task plus 0.5 per task and extra worker:

        >>> from probperf.models import BayesianBasisRegression
        >>> d = Design(np.array([[10.0, 0.0], [10.0, 10.0], [20.0, 60.0], [40.0, 280.0]]))
        >>> y = d.matrix @ [2.0, 0.5]
        >>> model = d.fit(BayesianBasisRegression(inference="svi", svi_steps=50, num_samples=100), y, "delay")
        >>> model.coef_samples_.mean(axis=0).round(1).tolist()
        [2.0, 0.5]
        """
        return model.fit_design(self.matrix, y)

    def draws(self, model, S: int, seed: int, noise: bool) -> np.ndarray:
        """``S`` draws of ``model`` at each row (``S x N``); a design model's draws
        are its coefficients' (``noise`` is for parameter models).

        Examples
        --------
        >>> from probperf.dag import ConstantMetric
        >>> Design(np.array([[10.0, 0.0], [20.0, 60.0]])).draws(ConstantMetric(3.0), 2, seed=0, noise=False).tolist()
        [[3.0, 3.0], [3.0, 3.0]]
        """
        return model.predict_design(self.matrix, n_draws=S, seed=seed)

    def median(self, model) -> np.ndarray:
        """Median prediction at each row.

        Examples
        --------
        >>> from probperf.dag import ConstantMetric
        >>> Design(np.array([[10.0, 0.0], [20.0, 60.0]])).median(ConstantMetric(3.0)).tolist()
        [3.0, 3.0]
        """
        return model.predict_median_design(self.matrix)


# -- the components --------------------------------------------------------------------

@dataclass(frozen=True)
class Component:
    """One DAG metric as the DAG model predicts it.

    ``over_p``: modeled over ``(n, p, config)`` and drawn with run-to-run noise (a
    new run's), else over ``(n, config)`` and drawn without (a quantity that feeds
    another component, not a run being predicted). ``parents``: metrics its inputs
    need (drawn before it). ``design``: the paper's
    design for a basis-regression spec (``None``: the basis regression sees the
    parameters). ``per``: the quantity (of the parents and ``p``) a parameter model's
    target is divided by (``None``: the metric itself). ``candidates``: the ``"auto"`` choice's specs,
    given whether a configuration parameter varies. ``multi_worker``: only runs with
    ``p > 1`` inform it, and it is 0 at ``p = 1``. ``one_per_size``: its column repeats
    one value per size (the one-worker run) on every run, so it is fitted on the
    distinct values only (repeating them would fake certainty).

    Examples
    --------
    The work's GP sees the parameters and predicts ``work / T1'``; its basis
    regression sees the paper's design built from the serial work:

    >>> work = BY_NAME["work"]
    >>> pts = pd.DataFrame({"n": [64.0], "p": [4.0]})
    >>> inputs, scale = work.inputs("laws", pts, {"serial_work": np.array([10.0])}, ["n", "p"])
    >>> type(inputs).__name__, scale.tolist()
    ('Features', [10.0])
    >>> inputs, scale = work.inputs("basis", pts, {"serial_work": np.array([10.0])}, ["n", "p"])
    >>> type(inputs).__name__, inputs.matrix.tolist()
    ('Design', [[10.0, 7.5, 30.0]])
    """

    name: str
    over_p: bool
    candidates: Callable[[bool], list[str]]
    parents: tuple[str, ...] = ()
    design: Callable | None = None
    per: Callable | None = None
    multi_worker: bool = False
    one_per_size: bool = False

    def inputs(self, spec: str, points: pd.DataFrame, parents: dict, features: list[str]):
        """``(inputs, scale)`` at ``points`` from measured (N) or drawn (S x N) parents.

        ``features``: the model's parameter columns (with or without ``p``). The metric
        is ``scale * target``.

        Examples
        --------
        The delay's law mixture sees the parameters and predicts the delay per task
        operation (a creation or a wait), so its scale is their count:

        >>> pts = pd.DataFrame({"n": [64.0], "p": [4.0]})
        >>> parents = {"create_task": np.array([20.0]), "wait_tasks": np.array([5.0])}
        >>> inputs, scale = BY_NAME["delay"].inputs("laws", pts, parents, ["n", "p"])
        >>> type(inputs).__name__, list(inputs.table.columns), np.ravel(scale).tolist()
        ('Features', ['n', 'p'], [25.0])
        """
        if self.design is not None and is_design_spec(spec):
            n, p = (points[c].to_numpy(dtype=np.float64) for c in ("n", "p"))
            return Design(self.design(spec, parents, n, p)), 1.0
        scale = 1.0 if self.per is None else self.per(parents, points["p"].to_numpy(dtype=np.float64))
        return Features(points[features]), scale


def _size_candidates(config_varies: bool) -> list[str]:
    # the paper's basis sees n alone: a cut-off changes task counts by powers of it
    gps = ["matern52", EXP_PREFIX + "matern52"]
    return gps if config_varies else ["basis", *gps]


def _work_design(spec, parents, n, p):
    return work_design(parents["serial_work"], p)


def _delay_design(spec, parents, n, p):
    return delay_design(parents["create_task"], parents["wait_tasks"], p, n, parents.get("critical_path"),
                        per_task_growth=not specs.parse(spec).steal)


def _no_work_design(spec, parents, n, p):
    return no_work_design(n, p, parents.get("critical_path"))


def _per_task(parents, p):
    return parents["create_task"] + parents["wait_tasks"]


#: Whether the idle time's law mixture (or GP) models ``no_work / ((p - 1) T_inf)``
#: rather than ``no_work`` itself (T_inf: the critical path; ``p - 1`` without one).
#: Why: a greedy schedule idles at most ``(p - 1) T_inf`` in total (Graham's bound,
#: ``p T_p <= T_1 + (p - 1) T_inf``), and work stealing stays within a constant
#: factor of it in expectation (Blumofe & Leiserson 1999), so the ratio is O(1) and
#: varies slowly, where the idle time itself grows with the workers and the span.
#: Chosen by nested forward validation on the 14 simulated training sets, by a rule
#: fixed before the run (adopt if the mean log score is higher, no more failed
#: splits): 0.474 against 0.447 without (``python benchmarks/choose_laws.py --only
#: sim --variants pmnf+disc+parts-span+scale3+one+idle``, results/choose_laws_idle.md;
#: better on sort/B -1.15 -> -0.33 and fft/B, worse on sparselu). (Candour: before
#: the run I tabulated the ratio on training *and* test rows of the simulator; it
#: stayed O(1) from training to test on 5 of 7 programs and grew 5-25x on farm and
#: sparselu. The form is Graham's bound, and the choice was made on training rows only.)
#: (Read again at prediction time, not saved with a model: changing it changes what a
#: saved DAG model predicts, so a change must come with a new probperf.persist.VERSION.)
#: Re-checked on the simulator fixed 2026-11-29 (a woken thief searched alone, which
#: inflated idle time and delay at many workers; benchmarks/choose_laws.py's session-52
#: record): the default without it scores 0.693 / 0.755 (seeds 0 / 1) against 0.799 / 0.846: stays.
IDLE_PER_SPAN = True


def _idle_unit(parents, p):
    span = parents.get("critical_path")
    unit = np.maximum(p - 1.0, 0.0)
    return unit if span is None else unit * span


def _no_work_per(parents, p):
    return _idle_unit(parents, p) if IDLE_PER_SPAN else 1.0


# The GP comes first among a worker-dependent component's candidates: validation
# extrapolates one step, the real prediction several, and on near-ties the design
# regressions (products of (p-1)^j with growing counts) were the ones that diverged
# further out (simulated Dataset B: delay of sort, idle time of sparselu), while a power
# law grows the least. Likewise the delay design without per-task growth before the
# paper's full one. Matérn-5/2: the best calibrated kernel of experiments/compare_kernels.
WIRING = (
    Component("serial_work", over_p=False, candidates=_size_candidates, one_per_size=True),
    Component("create_task", over_p=False, candidates=_size_candidates),
    Component("wait_tasks", over_p=False, candidates=_size_candidates),
    Component("work", over_p=True, candidates=lambda _: ["matern52", "basis"], parents=("serial_work",),
              design=_work_design, per=lambda parents, p: parents["serial_work"]),
    # after the work: a span inflated as the run's work is (probperf.dag.SPAN_INFLATED)
    Component("critical_path", over_p=False, candidates=_size_candidates, parents=("serial_work", "work")),
    Component("delay", over_p=True, candidates=lambda _: ["matern52", STEAL_SPEC, "basis"],
              parents=("create_task", "wait_tasks", "critical_path"), design=_delay_design, per=_per_task),
    Component("no_work", over_p=True, candidates=lambda _: ["matern52", "basis"], parents=("critical_path",),
              design=_no_work_design, per=_no_work_per, multi_worker=True),
)

# Fitting every per-size component (task counts, critical path) on its distinct (size,
# value) rows, as ``one_per_size`` does for the serial work (a deterministic count that
# every run repeats is one observation, not one per run), was asked twice and rejected
# both times by rules fixed before the runs: 0.524 against 0.525 on the 14 simulated
# training sets (session 21, commit ba42f30), and in session 25 0.741 / 0.705 against
# 0.740 / 0.707 on all outer splits (seeds 0 / 1) but 0.365 / 0.428 against 0.388 / 0.471
# on the splits that extrapolate furthest in n, which the rule required to be higher
# (benchmarks/choose_laws.py --only sim, suffix +distinct after +chkall,
# results/choose_laws_distinct2*.md). Run it at commit ba42f30 (switch DISTINCT_PER_SIZE).

#: Components by name.
BY_NAME = {c.name: c for c in WIRING}
