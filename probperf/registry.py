"""The time models by name: one registry for the CLI (``probperf fit --model``), the
experiments (``experiments/*.py``) and the docs.

Each entry builds a fresh, unfitted model from the same options (``kernel``, ``target``,
``effort``, ``seed``); what each effort level means is declared once, in
:data:`probperf.models.specs.EFFORTS`.

Examples
--------
>>> type(make("dag_basis", effort="quick")).__name__, make("dag_basis").kernel
('DagModel', 'basis')
>>> make("oracle")
Traceback (most recent call last):
...
ValueError: unknown model 'oracle'; choose from auto, dag, dag_basis, dag_sm4, direct, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import progress, userwarn
from .cautions import number_text
from .data import DAG_METRICS, TRAIN_SPLIT, Measurements, labelled_rows, near_labels, near_text, one_setting
from .models.base import check_table
from .models.specs import effort_options


@dataclass(frozen=True)
class Entry:
    """A time model by name.

    ``make(kernel, target, effort, seed)`` builds it; ``needs_dag``: it needs the DAG
    metrics; ``per_config``: it models ``n`` and ``p`` only (with a varying
    configuration parameter, one fit per value, the 2016 paper's practice);
    ``any_target``: it models any metric, not only ``time``; ``saved``: it can be
    written to a model file (Extra-P's fitted function is not data); ``point``: it
    gives a point prediction (no interval to score); ``kernel``: it takes a
    ``kernel`` (a GP spec, ``laws`` or ``basis``), which a baseline of fixed form
    does not; ``effort``: its inference has an effort level to set (bounds and
    Extra-P's least squares have none: ``fit --effort`` refuses them, where
    experiments pass one level to every model).

    Examples
    --------
    >>> MODELS["cilkview"].needs_dag, MODELS["extrap"].saved
    (True, False)
    """

    description: str
    make: Callable[..., object]
    needs_dag: bool = False
    per_config: bool = False
    any_target: bool = False
    saved: bool = True
    point: bool = False
    kernel: bool = True
    effort: bool = True


def _dag(kernel=None):
    def make(k, target, effort, seed):
        from .dag import DagModel

        return DagModel(kernel=k or kernel, effort=effort, seed=seed)  # a --kernel given wins
    return make


def _direct(kernel):
    def make(k, target, effort, seed):
        from .timemodels import DirectModel

        return DirectModel(kernel=k or kernel, target=target, effort=effort, seed=seed)
    return make


def _penalty(k, target, effort, seed):
    from .timemodels import PenaltyModel

    return PenaltyModel(kernel=k or "basis", effort=effort, seed=seed)


def _baseline(name, family=None):
    def make(k, target, effort, seed):
        from .models import baselines

        options = effort_options(family, effort) if family else {}
        return getattr(baselines, name)(seed=seed, **options)
    return make


def _extrap(k, target, effort, seed):
    from .models.extrap import ExtraP

    return ExtraP(target=target)


#: name -> :class:`Entry`. ``auto`` is resolved by :func:`choose`.
MODELS = {
    "dag": Entry("DagModel: one stacked mixture of closed-form laws per DAG metric, joint draws through "
                 "time = (work + delay + no_work) / p", _dag(), needs_dag=True),
    "dag_basis": Entry("DagModel, the 2016 paper's basis regressions for every component",
                       _dag("basis"), needs_dag=True, per_config=True),
    "dag_sm4": Entry("DagModel, GP sm4 for every component", _dag("sm4"), needs_dag=True),
    "direct": Entry("one stacked mixture of closed-form laws of the target over (n, p, config)",
                    _direct("laws"), any_target=True),
    "direct_sm4": Entry("direct GP (sm4, power-law mean) of time", _direct("sm4")),
    "direct_basis": Entry("direct basis regression of time", _direct("basis"), per_config=True),
    # the basis regressions take n and p only (a varying cut-off is refused, never
    # dropped): the experiments fit them once per value, as the 2016 paper did
    "penalty": Entry("penalty model T(n)/p + A(n,p) (Lobachev et al. 2013), basis regressions", _penalty,
                     per_config=True),
    "twostep_lasso": Entry("TwoStepLasso (2016 paper)", _baseline("TwoStepLasso", "lasso"),
                           needs_dag=True, per_config=True, kernel=False),
    "direct_nn": Entry("DirectNN (thesis)", _baseline("DirectNN", "nn"), kernel=False),
    "multitask_nn": Entry("MultiTaskNN (thesis)", _baseline("MultiTaskNN", "nn"), needs_dag=True, kernel=False),
    "cilkview": Entry("Cilkview bounds", _baseline("CilkviewBounds"), needs_dag=True, per_config=True,
                      kernel=False, effort=False),
    "extrap": Entry("Extra-P (default modeler, negative exponents)", _extrap, per_config=True,
                    any_target=True, saved=False, point=True, kernel=False, effort=False),
}

AUTO = "auto"


def names(saved_only: bool = False) -> list[str]:
    """``auto`` and the registered names (only those that can be saved, for ``fit -o``).

    Examples
    --------
    >>> "extrap" in names(), "extrap" in names(saved_only=True)
    (True, False)
    """
    return [AUTO, *(k for k, e in MODELS.items() if e.saved or not saved_only)]


def entry_of(name: str) -> Entry:
    """The registry entry of ``name``; ``ValueError`` lists the names.

    Examples
    --------
    >>> entry_of("extrap").point
    True
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(names())}")
    return MODELS[name]


def make(name: str, *, kernel: str | None = None, target: str = "time", effort: str = "default", seed: int = 0):
    """A fresh model by registry name (``auto`` is not a model: see :func:`choose`).

    Examples
    --------
    >>> make("direct", target="work")
    DirectModel(kernel='laws', target='work', effort='default', seed=0)
    >>> make("dag_basis", kernel="rbf").kernel  # a kernel given wins over the entry's
    'rbf'
    >>> make("penalty", target="work")
    Traceback (most recent call last):
    ...
    ValueError: the penalty model predicts time only; use --model direct for work
    >>> make("cilkview", kernel="rbf")
    Traceback (most recent call last):
    ...
    ValueError: --kernel: the cilkview model has a fixed form and takes no kernel
    """
    entry = entry_of(name)
    if target != "time" and not entry.any_target:
        raise ValueError(f"the {name} model predicts time only; use --model direct for {target}")
    if kernel is not None and not entry.kernel:  # never dropped without a word
        raise ValueError(f"--kernel: the {name} model has a fixed form and takes no kernel")
    model = entry.make(kernel, target, effort, seed)
    if hasattr(model, "component_specs"):  # a DAG model: its designs refused now, before any data are read
        try:
            model.component_specs()
        except ValueError as exc:
            raise ValueError(f"--kernel: {exc}") from None
    return model


def takes_effort(name: str, kernel: str | None = None) -> bool:
    """Whether ``fit --effort`` changes what model ``name`` (with ``kernel``) fits: not
    for an entry without inference (``Entry.effort``), nor for one whose every part is
    a law mixture (closed forms, alike at every level: ``dag`` and ``direct`` by
    default). ``auto`` takes one if either of its choices does.

    Examples
    --------
    >>> takes_effort("direct"), takes_effort("direct", kernel="basis"), takes_effort("dag")
    (False, True, False)
    >>> takes_effort("penalty"), takes_effort("direct_nn"), takes_effort("cilkview"), takes_effort("auto")
    (True, True, False, False)
    """
    from .models.specs import takes_effort as spec_takes_effort

    if name == AUTO:
        return any(takes_effort(n, kernel) for n in ("dag", "direct"))
    if not entry_of(name).effort:
        return False
    model = make(name, kernel=kernel)
    if hasattr(model, "component_specs"):  # a DAG model: one spec per component
        return any(spec_takes_effort(s) for s in model.component_specs().values())
    # a time-only model's spec; a baseline has no spec, and its own knobs follow the effort
    return spec_takes_effort(model.kernel) if hasattr(model, "kernel") else True


def has_serial(m: Measurements) -> bool:
    """Whether the serial work is there: a ``serial_work`` column or one-worker runs.

    Examples
    --------
    >>> has_serial(Measurements({"n": [10, 20], "p": [2, 4], "time": [1.0, 0.6]}))
    False
    """
    return m.has("serial_work") or bool((m.frame["p"] == 1).any())


def dag_lacks(m: Measurements) -> list[str]:
    """What the DAG model (``fit --model dag``; ``auto`` picks it when nothing lacks)
    would miss in ``m``, as phrases (``doctor`` lists them, ``fit`` says them).

    Examples
    --------
    >>> dag_lacks(Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6], "work": [1.0, 1.1]}))
    ['metric delay', 'metric no_work', 'metric create_task', 'metric wait_tasks']
    >>> dag_lacks(Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6], "work": [1.0, None]}))[0]
    'metric work in every run (missing in 1 of 2)'
    """
    frame = m.frame

    def lack(c):  # a column with gaps is not "missing": say how many runs lack it
        gaps = int(frame[c].isna().sum()) if c in frame else len(frame)
        return f"metric {c}" + (f" in every run (missing in {gaps} of {len(frame)})" if gaps < len(frame) else "")

    lacks = [lack(c) for c in DAG_METRICS if not m.has(c)]
    if "n" not in m.params:
        lacks.insert(0, "parameter n")
    if not has_serial(m):
        lacks.append("the sequential baseline (runs with p=1 or a serial_work column)")
    parallel = parallel_runs_lacking(m)
    if parallel and not lacks:  # said last: with no DAG metrics the runs are beside the point
        lacks.append(parallel)
    return lacks


def parallel_runs_lacking(m: Measurements) -> str:
    """What the DAG model lacks in runs on more than one worker, where its idle time is
    modelled (``""`` if nothing): at least :data:`probperf.dag.MIN_POSITIVE`, the runs
    a law of it needs.

    Examples
    --------
    >>> parallel_runs_lacking(Measurements({"n": [10, 20, 10], "p": [1, 1, 2], "time": [1.0, 2.0, 0.6]}))
    'at least 3 runs with p > 1, where idle time is modelled (1 here)'
    """
    from .dag import MIN_POSITIVE

    runs = int((m.frame["p"] > 1).sum())
    return f"at least {MIN_POSITIVE} runs with p > 1, where idle time is modelled ({runs} here)" if runs < MIN_POSITIVE else ""


#: the traced metrics a run must carry where some runs lack one: the DAG metrics, and
#: the critical path where the table has it (the DAG model's span and idle unit,
#: Cilkview's bound; without it in every run the DAG model would drop the span)
SPAN_METRIC = "critical_path"


def traced_runs(m: Measurements) -> tuple[Measurements, str, str]:
    """Where some traced runs lack a DAG metric (a trace lost, a run timed by hand):
    ``(runs, left, lost)``, ``runs`` those with every traced metric when they can stand
    for the table (:func:`_cut`: every measured value of every parameter kept, so no
    direction and no extrapolation distance is lost; no relation the table lacks; more
    runs kept than left out), and ``left`` a sentence saying what is left out; where
    they cannot, ``m`` and ``lost`` saying why. ``(m, "", "")`` where no run lacks one
    (or every run does, or the table has no DAG metrics). The critical path counts
    where some run has it and leaving out the runs without it costs nothing more.

    Examples
    --------
    >>> runs = Measurements({"n": [8, 8, 16, 16, 32, 32], "p": [1, 2] * 3, "time": [1.0, 0.6, 2.0, 1.1, 4.0, 2.2],
    ...                      "work": [1.0, 1.1, 2.0, 2.1, 4.0, 4.2], "delay": [0.0, 0.1, 0.0, 0.1, 0.0, None],
    ...                      "no_work": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "create_task": [7.0, 7, 15, 15, 31, 31],
    ...                      "wait_tasks": [3.0, 3, 7, 7, 15, 15]})
    >>> kept, left, lost = traced_runs(runs)
    >>> len(kept), left.split(":")[0], lost
    (5, '1 of 6 runs lack a traced metric (delay in 1)', '')
    >>> kept, left, lost = traced_runs(runs.with_columns(delay=[0.0, 0.1, 0.0, 0.1, None, None]))
    >>> len(kept), left, lost
    (6, '', 'the runs with every traced metric lack n=32')
    """
    frame = m.frame
    if not all(c in frame for c in DAG_METRICS):
        return m, "", ""
    cut = _cut(m, list(DAG_METRICS))
    if SPAN_METRIC in frame and frame[SPAN_METRIC].notna().any():  # the span too, where that costs nothing
        with_span = _cut(m, [*DAG_METRICS, SPAN_METRIC])
        cut = with_span if not with_span[2] or cut[2] else cut
    lacking, gaps, lost = cut
    if lacking is None:
        return m, "", ""
    if lost:
        return m, "", lost
    counts = ", ".join(f"{c} in {int(k)}" for c, k in gaps.sum().items() if k)
    return m.rows(~lacking), (
        f"{int(lacking.sum())} of {len(frame)} runs lack a traced metric ({counts}): a model of the DAG metrics is "
        f"fitted on the other {int((~lacking).sum())}, which have every measured value of every parameter (--model direct "
        "models every run's time)"), ""


def _cut(m: Measurements, columns: list[str]) -> tuple:
    """``(lacking, gaps, lost)`` of leaving out the runs that lack one of ``columns``:
    the runs left out (None where none or all would be), the gaps per column, and why
    the rest cannot stand for the table ("" where they can): a measured value of a
    parameter lost, a relation between parameters that the table does not hold (predict
    would refuse measured points), or as many runs left out as kept (the DAG model
    would describe a minority of the runs)."""
    from .models.points import relations

    frame = m.frame
    gaps = frame[columns].isna()
    lacking = gaps.any(axis=1).to_numpy()
    if not lacking.any() or lacking.all():
        return None, gaps, ""
    complete = frame[~lacking]
    lost = [f"{c}={number_text(v)}" for c in m.params for v in sorted(set(frame[c].dropna()) - set(complete[c].dropna()))]
    if lost:
        return lacking, gaps, f"the runs with every traced metric lack {', '.join(lost[:3])}" + (", ..." * (len(lost) > 3))
    if 2 * int(lacking.sum()) >= len(frame):
        return lacking, gaps, "the runs with every traced metric are not the majority"
    X, names = frame[m.params].to_numpy(dtype=np.float64), list(m.params)
    new = sorted(set(relations(X[~lacking], names)) - set(relations(X, names)))
    if new:
        return lacking, gaps, (f"in the runs with every traced metric {', '.join(new)} follow{'s' * (len(new) == 1)} "
                               "from the other parameters, unlike in the table")
    return lacking, gaps, ""


def dag_runs(m: Measurements, target: str = "time", model: str = AUTO) -> tuple[Measurements, str]:
    """The runs a model of the DAG metrics (``auto``'s DAG model, or one asked for by
    name: ``needs_dag``) is fitted on, and what was left out as a sentence
    (:func:`traced_runs`); ``m`` and ``""`` for another model, or where ``auto``
    models time alone on the runs kept (one size: :data:`SINGLE_SIZE_DIRECT`). Why
    not time modelled directly on every run: a few lost traces should not cost the
    decomposition, and the DAG model is ``auto``'s choice on traced runs (nested
    forward validation, benchmarks/choose_laws.py).

    Examples
    --------
    >>> runs = Measurements({"n": [8, 16, 32], "p": [1, 1, 1], "time": [1.0, 2.0, 4.0]})
    >>> dag_runs(runs)[1], dag_runs(runs, model="direct")[1]
    ('', '')
    """
    if target != "time" or not (model == AUTO or entry_of(model).needs_dag):
        return m, ""
    complete, left, _ = traced_runs(m)
    if not left or (model == AUTO and choose(complete, target) != "dag"):
        return m, ""
    return complete, left


class ModelChoiceWarning(UserWarning):
    """``fit --model auto`` modelled the time of traced runs alone (:func:`why_not_dag`),
    or left runs without a traced metric out of a DAG model (:func:`dag_runs`).

    Examples
    --------
    >>> import warnings
    >>> runs = Measurements({"n": [8, 16, 32], "p": [1, 1, 1], "time": [1.0, 2.1, 4.0], "work": [1.0, 2.1, 4.0]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = fit(runs, effort="quick")
    >>> caught[0].category.__name__, str(caught[0].message)[:47]
    ('ModelChoiceWarning', 'time is modelled alone: the DAG model needs met')
    """


def why_not_dag(measurements: Measurements, target: str = "time") -> str:
    """Why ``auto`` models time alone on runs that carry some DAG metrics (``""`` when it
    does not, or when the runs carry none: plain timings are no surprise). Said by
    ``fit``: a table with ``work`` but no ``create_task`` would otherwise lose the
    DAG model without a word.

    Examples
    --------
    >>> why_not_dag(Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6], "work": [1.0, 1.1]}))
    'the DAG model needs metric delay, metric no_work, metric create_task, metric wait_tasks'
    >>> why_not_dag(Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6]}))
    ''
    """
    m, _, lost = traced_runs(measurements)  # the reasons are those of the runs a DAG model would get
    if target != "time" or choose(m, target) == "dag" or not any(c in m.frame for c in DAG_METRICS):
        return ""
    lacks = dag_lacks(m)
    if not lacks and one_setting(m):
        return "every run is at one setting, where the DAG model's parts would be constants without a spread"
    if not lacks:  # everything is there: the choice of SINGLE_SIZE_DIRECT
        return ("only p varies (one size), where time modelled directly with its laws of the workers predicts "
                "better (fit --model dag for the decomposition)")
    return f"the DAG model needs {', '.join(lacks)}" + (f"; {lost}" if lost else "")


#: Whether ``auto`` models time directly on traced runs where only ``p`` varies (one
#: size, one configuration: a strong-scaling study), saying so (:func:`why_not_dag`).
#: Why: there the time-only law mixture has its affine laws of the workers
#: (:data:`probperf.models.laws.AFFINE_WORKERS`), and the DAG model's parts, each a ratio
#: over the workers alone, add draws but no size law to share. Registered 2026-11-27
#: about 12:03 UTC, after seed 0 had been seen (nested forward validation on the 128
#: single-size slices of the simulated training sets: time only 0.524, DAG model 0.391;
#: results/choose_laws_time_only_affp.md, choose_laws_affp_dag.md) and before seed 1 of
#: the DAG model was run: adopted if on seed 1's slices time modelled directly (0.560,
#: results/choose_laws_time_only_affp_seed1.md) scores higher than the DAG model.
#: Result: the DAG model 0.451 (median error 7.3 %, 90 % coverage 0.84) against 0.560
#: (5.0 %, 0.96) (``python benchmarks/choose_laws.py --only sim --single-size --dag --seed
#: 1``, results/choose_laws_single_size_dag_seed1.md): adopted, on. ``fit --model dag``
#: still fits the DAG model, which works at one size (probperf.dag.ConstantMetric).
SINGLE_SIZE_DIRECT = True


def choose(measurements: Measurements, target: str = "time") -> str:
    """What ``auto`` means: the DAG model when the DAG metrics and the serial work
    (a ``serial_work`` column or one-worker runs) are there and the target is time,
    else the direct model (with :data:`SINGLE_SIZE_DIRECT`, also where only ``p``
    varies; and where nothing varies, :func:`probperf.data.one_setting`).

    Examples
    --------
    >>> choose(Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6]}))
    'direct'
    """
    m = measurements
    dag = target == "time" and m.has(*DAG_METRICS) and has_serial(m) and not parallel_runs_lacking(m)
    return "dag" if dag and not (SINGLE_SIZE_DIRECT and only_workers_vary(m)) and not one_setting(m) else "direct"


def only_workers_vary(m: Measurements) -> bool:
    """Whether ``p`` is the only parameter of ``m`` with more than one value.

    Examples
    --------
    >>> only_workers_vary(Measurements({"n": [64, 64, 64], "p": [1, 2, 4], "time": [1.0, 0.6, 0.4]}))
    True
    """
    varying = [c for c in m.params if m.frame[c].nunique() > 1]
    return varying == ["p"]


def check_kernel(kernel: str) -> None:
    """A ``ValueError`` unless ``kernel`` is a model spec (``laws``, ``basis`` or a GP
    kernel whose grammar holds, sizes within the resource limits): the one check of
    ``fit --kernel`` and ``pp.fit(kernel=)``.

    Examples
    --------
    >>> check_kernel("")
    Traceback (most recent call last):
    ...
    ValueError: a model spec must be 'laws', 'basis' or a kernel spec, got ''
    """
    from .models import specs

    spec = specs.parse(kernel)
    if spec.family == "gp":  # its grammar too, before the data are read
        from .models.kernels import parse_kernel

        parse_kernel(spec.kernel)


def target_problem(target: str) -> str:
    """What is wrong with ``target`` as the metric a model predicts ("" if nothing).

    Examples
    --------
    >>> target_problem("time"), target_problem("n")[:25], target_problem("speed")[:12]
    ('', 'a parameter, not a metric', 'not a metric')
    """
    from .data import BASE_PARAMS, METRICS

    if target in METRICS:
        return ""
    kind = "a parameter, not a metric" if target in BASE_PARAMS else "not a metric"
    return f"{kind}; a model predicts one of {', '.join(METRICS)}"


def fit(measurements: Measurements, target: str = "time", model: str = AUTO, kernel: str | None = None,
        effort: str = "default", seed: int = 0, split: str | None = TRAIN_SPLIT):
    """Fit the model a user asks for by name (the CLI's ``fit``).

    Runs counted in cycles with a clock rate (``clock_hz``) are fitted in seconds, so
    the model predicts seconds; without a rate the model stays in cycles.

    ``split``: in a table with a ``split`` column, fit on the rows with this label, as
    the CLI's ``fit --split`` does (None or ``""``: every row); a table without one is
    used whole for ``"train"`` and refused for another label
    (:func:`probperf.data.labelled_rows`). Rows without a label are left out, with a
    warning.

    Examples
    --------
    >>> m = Measurements({"n": [10, 20, 40], "p": [1, 1, 1], "time": [1.0, 2.1, 4.0]})
    >>> type(fit(m, effort="quick")).__name__
    'DirectModel'
    >>> held = Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2],
    ...                      "split": ["train", "train", "train", "test"]})
    >>> fit(held, effort="quick").train_ranges_["n"][:2]
    [10.0, 40.0]
    >>> cycles = Measurements({"n": [10, 20, 40], "p": [1, 1, 1], "time": [2e9, 4.2e9, 8e9]}, unit="cycles",
    ...                       clock_hz=2e9)
    >>> fit(cycles, effort="quick").unit_
    's'
    >>> fit(held, target="n")
    Traceback (most recent call last):
    ...
    ValueError: target 'n': a parameter, not a metric; a model predicts one of time, work, ...
    """
    check_table(measurements, "fit")  # before choose() asks it for metrics
    problem = target_problem(target)
    if problem:
        raise ValueError(f"target {target!r}: {problem}")
    if kernel is not None:  # "" is no spec (it once fitted the default laws)
        try:
            check_kernel(kernel)
        except ValueError as exc:
            raise ValueError(f"kernel {kernel!r}: {exc}") from None
    # held-out rows never reach a fit unasked
    if split is not None and not isinstance(split, str):  # one label, as --split takes it
        raise TypeError(f"split is one label (a str, or None for every row), got {split!r}")
    near = near_labels(measurements, split)
    measurements, unlabelled = labelled_rows(measurements, split, "pass split=None to fit every row")
    if unlabelled:
        userwarn.warn(f"{unlabelled} row(s) without a split label are left out of the fit on split={split!r}; "
                      "pass split=None to fit every row")
    if near:  # as the CLI says it
        userwarn.warn(f"fitting on split={split!r}: {near_text(near)}")
    # a clock rate given is used: a model in cycles would predict cycles of a machine the
    # user named in hertz (predict has no rate to convert with); without one the model
    # stays in cycles and says so in its unit
    measurements = measurements.in_unit("s")
    measurements, left = dag_runs(measurements, target, model)
    if left:  # said, never dropped without a word (the CLI says it with the file's name)
        userwarn.warn(left, ModelChoiceWarning)
    from .doctor import averaged_runs, coded_choices, disturbed_runs, repeat_spread

    # doctor's cautions, said at the fit (a run in another unit is far off too: said once)
    for line in [*coded_choices(measurements), averaged_runs(measurements),
                 repeat_spread(measurements) or disturbed_runs(measurements)]:
        if line:
            userwarn.warn(line)
    name = choose(measurements, target) if model == AUTO else model
    estimator = make(name, kernel=kernel, target=target, effort=effort, seed=seed)
    if name.startswith("dag"):
        return estimator.fit(measurements)  # reports its components' progress itself
    with progress.task(f"fit {name} ({target})") as step:
        step()
        fitted = estimator.fit(measurements)
    alone = why_not_dag(measurements, target) if model == AUTO else ""
    if alone:  # traced runs, yet time is modelled alone: said once it is (not before a refusal of the runs)
        userwarn.warn(f"time is modelled alone: {alone}", ModelChoiceWarning)  # the CLI says it with the file's name
    return fitted


__all__ = ["Entry", "MODELS", "AUTO", "ModelChoiceWarning", "names", "entry_of", "make", "takes_effort", "has_serial", "dag_lacks", "traced_runs", "dag_runs", "why_not_dag", "choose", "target_problem", "fit"]
