"""What a table of runs can support: the report behind ``probperf doctor``.

Before a first fit a user wants to know what the runs allow: in which directions
(``n``, ``p``, each configuration parameter) a prediction may leave the measured
range, how far before ``probperf predict`` warns, whether the DAG model can be used,
and whether the traced metrics add up. :func:`diagnose` answers from the rules the
models themselves apply, never from a second copy of them: a direction is
extrapolated only if :func:`~probperf.models.points.check_extrapolation` lets a point
beyond the range through, the far warning starts at
:func:`~probperf.selection.far_factor` times the largest value, the DAG model needs
:data:`~probperf.data.DAG_METRICS` and a sequential baseline, and the identity is
:func:`~probperf.data.identity_residual`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from .cautions import coded_choice, coded_values
from .data import BASE_PARAMS, IDENTITY_RTOL, MeasurementError, Measurements, row_name, span_excess
from .limits import MAX_EXACT_INT
from .models.laws import PARAM_MAX, VALUE_RANGE
from .selection import MIN_DISTINCT, far_factor

#: Tolerance of ``work + delay + no_work = p * time`` (relative, largest over runs):
#: the data module's :data:`~probperf.data.IDENTITY_RTOL`, 0.1 %. Why that size: a
#: traced run satisfies the identity exactly (each worker is always in exactly one of
#: the three states, and the tracer sums the same clock), so what remains is rounding
#: where the values were written down. A value rounded to 4 significant digits is off
#: by at most 0.05 %, the sum of three such values and ``p * time`` together by at
#: most 0.1 %; 5 or more digits stay 10x below. A real accounting error is of another
#: size: a worker whose states were not traced, or a tracer switched on late, removes
#: a share of ``1/p`` of the budget (2.8 % at 36 workers, still 0.1 % at 1000).
TOLERANCE = IDENTITY_RTOL

#: How a direction's values are named in messages: (one, many).
_WORDS = {"n": ("problem size", "problem sizes"), "p": ("worker count", "worker counts")}


@dataclass(frozen=True)
class Direction:
    """One input direction (``n``, ``p`` or a configuration parameter) of the runs.

    ``extrapolates``: whether ``predict`` accepts points beyond ``[low, high]``;
    ``far``: the value past which it warns that the prediction is far out (``None``
    when it cannot go beyond ``high`` at all); ``note``: the same in words.

    Examples
    --------
    >>> Direction("p", 4, 1.0, 8.0, True, 128.0, "4 worker counts").far
    128.0
    """

    name: str
    distinct: int
    low: float
    high: float
    extrapolates: bool
    far: float | None
    note: str


@dataclass(frozen=True)
class Identity:
    """The identity ``work + delay + no_work = p * time`` over the runs.

    ``worst``: the largest absolute relative residual (``None`` without the four
    metrics), ``row``: the row where it occurs (from 0), ``ok``: ``worst`` within
    ``tolerance``.

    Examples
    --------
    >>> Identity(0.12, 3, TOLERANCE).ok, Identity(None, None, TOLERANCE).ok
    (False, True)
    """

    worst: float | None
    row: int | None
    tolerance: float

    @property
    def ok(self) -> bool:
        return self.worst is None or self.worst <= self.tolerance


@dataclass(frozen=True)
class Report:
    """What a table of runs supports (see :func:`diagnose`).

    Examples
    --------
    >>> report = diagnose(Measurements({"p": [1, 2, 4], "time": [4.0, 2.1, 1.2]}))
    >>> report.to_dict()["directions"][0]["far"]  # 4 x the largest: the range's own ratio
    16.0
    """

    rows: int
    unit: str
    directions: list[Direction]
    metrics: list[str]
    dag_model: bool
    identity: Identity
    problems: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    #: The clock rate of times in cycles, where the runs carry one (None otherwise).
    clock_hz: float | None = None
    #: Why ``fit`` (auto) models time directly although the DAG model is usable ("" when
    #: it fits the DAG model, or cannot): :func:`probperf.registry.why_not_dag`.
    auto_direct: str = ""

    def to_dict(self) -> dict:
        """Plain JSON-ready data (an infinite residual or far limit becomes the string ``"inf"``).

        Examples
        --------
        >>> import json
        >>> d = diagnose(Measurements({"p": [1, 2, 4], "time": [4.0, 2.1, 1.2]})).to_dict()
        >>> sorted(d)
        ['auto_direct', 'clock_hz', 'dag_model', 'directions', 'identity', 'metrics', 'problems', 'relations', 'rows', 'unit']
        >>> d["identity"]  # times alone: the identity is not checked, so "ok" is null
        {'worst': None, 'row': None, 'tolerance': 0.001, 'ok': None}
        >>> json.loads(json.dumps(d)) == d
        True
        """
        out = asdict(self)
        # null where the runs lack the four metrics: not checked, so neither held nor broken
        out["identity"]["ok"] = None if self.identity.worst is None else self.identity.ok
        worst = self.identity.worst
        if worst is not None and not np.isfinite(worst):
            out["identity"]["worst"] = str(worst)
        for d in out["directions"]:  # a far limit past float64 (16 x 1e308) is no limit: as "inf"
            for k in ("low", "high", "far"):
                if d[k] is not None and not np.isfinite(d[k]):
                    d[k] = str(d[k])
        return out


def diagnose(m: Measurements) -> Report:
    """What the runs in ``m`` can support, and what is missing.

    Parameters
    ----------
    m : Measurements
        The runs a model would be fitted on.

    Returns
    -------
    Report
        One :class:`Direction` per parameter, whether the DAG model can be fitted,
        the :class:`Identity` check and ``problems``: one sentence per thing that
        limits the predictions (empty when nothing does).

    Examples
    --------
    >>> m = Measurements({"n": [1024, 2048, 4096, 1024], "p": [8, 8, 8, 8],
    ...                   "time": [1.0, 2.1, 4.3, 1.1]})
    >>> report = diagnose(m)
    >>> [(d.name, d.distinct, d.extrapolates, d.far) for d in report.directions]
    [('n', 3, True, 16384.0), ('p', 1, False, None)]
    >>> report.problems[0]
    'only one worker count (8): cannot predict other p; measure at least 3 values of p'
    """
    from .models.base import DIAGNOSE, check_table

    check_table(m, DIAGNOSE)
    from .cautions import few_workers, unchecked

    ranges, p = m.ranges(), m.frame["p"] if "p" in m.frame else []
    alone = unchecked({name: list(r) for name, r in ranges.items()}, p)
    near = {*alone, *(["p"] if few_workers(p) else [])}  # predict warns just past the largest (kinds_limits says why)
    directions = [_direction(name, lo, hi, k, name in near) for name, (lo, hi, k) in ranges.items()]
    problems = [d.note for d in directions if _limits(d)]
    problems += _unchecked(directions, alone)
    problems += kinds_limits(m) + _missing(m)
    averaged = averaged_runs(m)
    if averaged:
        problems.append(averaged)
    spread = repeat_spread(m) or disturbed_runs(m)  # a run in another unit is far off too: said once
    if spread:
        problems.append(spread)
    problems += coded_choices(m)
    problems += _broken_relations(m)
    problems += beyond_law_range(m)
    identity = _identity(m)
    if not identity.ok:
        problems.append(f"identity work + delay + no_work = p * time off by {percent(identity.worst)} in "
                        f"{_run(m, identity.row, f'tolerance {percent(identity.tolerance)}', column='time')}: "
                        "was the tracer on for the whole run, and are time and the DAG metrics from "
                        "the same run?")
    problems += _span_longer(m)
    from . import registry

    usable = not registry.dag_lacks(registry.traced_runs(m)[0])
    return Report(rows=len(m), unit=m.unit, directions=directions, metrics=m.metrics, dag_model=usable,
                  identity=identity, problems=problems, relations=_relations(m),
                  clock_hz=m.clock_hz if m.unit == "cycles" else None,
                  auto_direct=registry.why_not_dag(m) if usable else "")


#: At most this share of the runs (and at least one run) may break a relation that
#: the others all keep for it to be reported as a slip rather than as no relation: a
#: typo is one run in a hundred, a genuinely free parameter breaks it in most.
MAX_BREAKING_SHARE = 0.01


def _broken_relations(m: Measurements) -> list[str]:
    """One sentence per parameter that the others make in all runs but a few (one run
    of 261 with p doubled): such a slip silently turns the relation off, so the laws
    take the parameter as free and predict accepts points that break it.

    Examples
    --------
    >>> runs = [(n, a * b, a, b, n / (a * b)) for n in (8, 16, 32) for a in (1, 2, 4) for b in (1, 2, 4)]
    >>> runs += [(n, a * b, a, b, n / (a * b)) for n in (64, 128) for a in (1, 2, 4) for b in (1, 2, 4)]
    >>> runs[40] = (128, 64, 4, 4, 8.0)  # p typed 64 for 16
    >>> m = Measurements(dict(zip(["n", "p", "nnodes", "ppn", "time"], map(list, zip(*runs)))),
    ...                  config=["nnodes", "ppn"])
    >>> _relations(m), _broken_relations(m)[0].split(": ")[0]
    ([], 'ppn = p / nnodes in 44 of 45 runs, but not at n=128,p=64,nnodes=4,ppn=4')
    """
    from .cautions import point_text
    from .models.points import breaks_relation, relation_text, relations
    from .models.terms import natural_term, term_values

    names = list(m.params)
    X = m.frame[names].to_numpy(dtype=np.float64)
    if _relations(m):  # the relations hold in every run: nothing broken
        return []
    varying = [c for i, c in enumerate(names) if len(np.unique(X[:, i])) >= 2]
    terms = {c: term_values(natural_term(X, names, c), X, names) for c in varying}
    limit = max(1, int(MAX_BREAKING_SHARE * len(X)))
    rng = np.random.default_rng(0)
    for c in varying:
        others = [o for o in varying if o != c]
        A = np.column_stack([np.ones(len(X)), *(terms[o] for o in others)])
        if len(X) < A.shape[1] + 4:
            continue
        # an exact relation through a few runs drawn at random (a slip in 1 % of the runs
        # spares 6 of them 94 % of the time; 8 draws miss it less than once in 10^9):
        # linear in the runs, where trimming the worst run one at a time was quadratic
        for _ in range(8):
            some = rng.choice(len(X), size=A.shape[1] + 2, replace=False)
            coef = np.linalg.lstsq(A[some], terms[c][some], rcond=None)[0]
            trial = {"kind": natural_term(X, names, c)[0], "terms": [natural_term(X, names, o) for o in others],
                     "coef": coef}
            off, _ = breaks_relation(c, trial, X, names)
            if 0 < off.sum() <= limit:
                break
        else:
            continue
        # the relation as doctor words a kept one (ppn = p / nnodes), over the runs that keep it
        out = []
        for d, rel in relations(X[~off], names).items():
            broken, _ = breaks_relation(d, rel, X, names)
            if 0 < broken.sum() <= limit:
                rows = np.flatnonzero(broken)
                where = "; ".join(point_text(m.frame[names].iloc[i]) for i in rows[:3])
                out.append(f"{d} = {relation_text(rel)} in {len(X) - len(rows)} of {len(X)} runs, but not at "
                           f"{where}: a typo? Kept in every run, the relation would let predict check points "
                           "against it")
        return out  # one slip breaks the relation of each of its parameters: said once
    return []


def _relations(m: Measurements) -> list[str]:
    """One sentence per parameter that the others make in every run (``ppn`` next to
    ``p`` and ``nnodes``): the laws take it from them, so ``predict`` refuses a point
    that changes it alone.

    Examples
    --------
    >>> runs = [(n, a * b, a, b, n / (a * b)) for n in (8, 16) for a in (1, 2, 4) for b in (1, 2)]
    >>> m = Measurements(dict(zip(["n", "p", "nnodes", "ppn", "time"], map(list, zip(*runs)))),
    ...                  config=["nnodes", "ppn"])
    >>> _relations(m)
    ['ppn = p / nnodes in every run: the laws take ppn from the others, so a prediction must keep that']
    """
    from .models.points import relation_text, relations

    X = m.frame[m.params].to_numpy(dtype=np.float64)
    return [f"{c} = {relation_text(rel)} in every run: the laws take {c} from the others, so a prediction "
            "must keep that" for c, rel in relations(X, m.params).items()]


def _direction(name: str, lo, hi, k: int, alone: bool = False) -> Direction:
    """The direction ``name`` of ``k`` values from ``lo`` to ``hi``; ``alone``: its
    values are too few for a forward validation to check (:func:`_unchecked`), so
    predict warns just beyond ``hi``, before its far warning (helper-84: the note named
    only the far one, the problems line the near one)."""
    lo, hi, k = float(lo), float(hi), int(k)
    one, many = _WORDS.get(name, (f"value of {name}", f"values of {name}"))
    if not _extrapolates(name, lo, hi, k):
        if k == 1:
            note = f"only one {one} ({value(lo)}): cannot predict other {name}"
        else:
            note = f"only {k} {many} ({value(lo)}..{value(hi)}): cannot predict {name} outside that range"
        note += f"; measure at least {MIN_DISTINCT} values of {name}"
        return Direction(name, k, lo, hi, False, None, note)
    if not hi > 0:  # the far warning measures in multiples of the largest value
        return Direction(name, k, lo, hi, True, None, f"{k} {many}: can be extrapolated")
    factor = far_factor(lo, hi)
    far = factor * hi
    # below the range at once: the forward validation only predicts larger values from smaller
    # (p below one worker is no point at all)
    below = f" or below {value(lo)} (the smallest)" if lo > 0 and not (name == "p" and lo <= 1) else ""
    near = f"beyond {value(hi)} (unchecked: no forward validation) and again " if alone else ""
    return Direction(name, k, lo, hi, True, far, f"{k} {many}: can be extrapolated; predict warns "
                     f"{near}beyond {value(far)} ({factor:.3g}x the largest){below}")


def fixed_directions(ranges: dict) -> list[str]:
    """What a fitted model cannot predict, from its training ranges (``name ->
    [min, max, distinct]``, a model's ``train_ranges_``): one sentence per parameter
    with too few values to extrapolate, as doctor says it, for ``fit`` to say when it
    saves a model that predict will refuse beyond those values.

    Examples
    --------
    >>> fixed_directions({"n": [1000.0, 2000.0, 2], "p": [1.0, 8.0, 4]})
    ['only 2 problem sizes (1000..2000): cannot predict n outside that range; measure at least 3 values of n']
    >>> fixed_directions({"n": [1000.0, 8000.0, 4], "p": [8.0, 8.0, 1], "cutoff": [64.0, 64.0, 1]})
    ['only one worker count (8): cannot predict other p; measure at least 3 values of p']

    (A cut-off held at one value is a choice, not a gap, as doctor has it.)
    """
    directions = [_direction(name, lo, hi, k) for name, (lo, hi, k) in ranges.items()]
    return [d.note for d in directions if _limits(d)]


def _limits(d: Direction) -> bool:
    """Whether direction ``d`` limits the predictions. A configuration parameter held
    at one value is a choice, not a gap: the model predicts for that value. n and p at
    one value, or anything at two, limit them."""
    return not d.extrapolates and (d.name in BASE_PARAMS or d.distinct > 1)


def _extrapolates(name: str, lo: float, hi: float, k: int) -> bool:
    """Whether ``predict`` accepts a point beyond ``hi``: asks the very check the law
    models run (:func:`~probperf.models.points.check_extrapolation`), so doctor and
    predict cannot disagree."""
    from .models.points import check_extrapolation

    try:
        check_extrapolation(np.array([[hi + max(1.0, abs(hi))]]), [name], {name: [lo, hi, k]})
    except ValueError:
        return False
    return True


def averaged_runs(m: Measurements) -> str:
    """A sentence when the rows of ``m`` are averages of repetitions (a ``reps`` column
    above 1, or ``<metric>_std`` columns, as :meth:`~probperf.data.Measurements.aggregate`
    writes), else ``""``. No model reads those columns: each row is taken as one run,
    so the spread of one run is learnt from the spread of means, too small by about
    the square root of the repetitions, and the intervals are those of a mean.

    Examples
    --------
    >>> m = Measurements({"n": [8, 16, 32], "p": [1, 2, 4], "time": [1.0, 1.1, 1.2],
    ...                   "time_std": [0.1, 0.1, 0.2], "reps": [5, 5, 3]})
    >>> averaged_runs(m)
    'the rows are means of 3..5 runs each (columns reps, time_std): no model reads those columns, each row is taken as one run, so the spread of a single run is underestimated and the intervals are too narrow for one; give every run as a row'
    >>> averaged_runs(Measurements({"n": [8], "p": [1], "time": [1.0], "reps": [1]}))
    ''
    """
    frame = m.frame
    stds = [c for c in frame.columns if str(c).endswith("_std")]
    reps = frame["reps"].to_numpy() if "reps" in frame else np.ones(1)
    if reps.max() <= 1 and not stds:
        return ""
    counts = (f"{int(reps.min())}..{int(reps.max())}" if reps.min() != reps.max() else f"{int(reps.max())}"
              ) if reps.max() > 1 else "several"
    columns = (["reps"] if "reps" in frame and reps.max() > 1 else []) + stds
    return (f"the rows are means of {counts} runs each (column{'s' * (len(columns) > 1)} {', '.join(columns)}): "
            "no model reads those columns, each row is taken as one run, so the spread of a single run is "
            "underestimated and the intervals are too narrow for one; give every run as a row")


#: Repeated runs of one setting whose times differ by more than this factor are reported.
#: Why (first principles): the run-to-run spread of one program at one setting (system
#: noise, clock frequency, thread placement) is tens of percent, rarely 2x; a factor of
#: 10 is another computation or another unit (a run in ms among runs in s), and every
#: model would take it as noise: a wider interval everywhere and a median pulled off.
MAX_REPEAT_SPREAD = 10.0


def repeat_spread(m: Measurements) -> str:
    """A sentence when runs of one setting (every parameter the same) differ in time by
    more than :data:`MAX_REPEAT_SPREAD`, else ``""``: naming the widest setting.

    Examples
    --------
    >>> m = Measurements({"n": [8, 8, 16, 16], "p": [2, 2, 2, 2], "time": [1.1, 110.0, 2.0, 2.2]})
    >>> repeat_spread(m)
    'runs of one setting differ by up to 100x in time (1.1 and 110 s at n=8, p=2; 1 of 2 settings with repeats): a run in another unit, or of another computation? every model takes the spread as noise, which pulls the fit and distorts the intervals everywhere (wider or narrower); fix or drop such runs'
    >>> repeat_spread(Measurements({"n": [8, 8], "p": [1, 1], "time": [1.0, 1.5]}))
    ''
    """
    if "time" not in m.frame:
        return ""
    runs = m.frame[[*m.params, "time"]].dropna()
    runs = runs[runs["time"] > 0]
    groups = runs.groupby(m.params, sort=False)["time"]
    lo, hi = groups.min(), groups.max()
    repeated = groups.size() > 1
    ratio = (hi / lo)[repeated]
    wide = ratio[ratio > MAX_REPEAT_SPREAD]
    if wide.empty:
        return ""
    top = wide.idxmax()  # the widest setting: a tuple of values, or one value for one parameter
    where = ", ".join(f"{c}={value(v)}" for c, v in zip(m.params, top if len(m.params) > 1 else (top,)))
    return (f"runs of one setting differ by up to {wide.max():.3g}x in time ({value(lo[top])} and "
            f"{value(hi[top])} {m.unit} at {where}; {len(wide)} of {int(repeated.sum())} settings "
            "with repeats): "
            f"a run in another unit, or of another computation? {TAKEN_AS_NOISE}; fix or drop such runs")


#: What a run far from its setting's others does to every model (said by both checks).
TAKEN_AS_NOISE = "every model takes the spread as noise, which pulls the fit and distorts the intervals everywhere " \
                 "(wider or narrower)"

#: Chance that :func:`disturbed_runs` names a run of a table whose repeats differ only by
#: normal noise at the table's own spread: a family-wise rate over all its repeated runs
#: (a Bonferroni bound), so a large table is not flagged more often than a small one.
#: Why (first principles): the note costs a look; at 1 % a clean table is almost never
#: flagged, while a run 4x off among repeats 3 % apart lies some 40 of their sds out.
DISTURBED_ALPHA = 0.01
#: ... and the run must differ from its setting's others by more than this factor:
#: repeats of one program at one setting rarely differ by 2x (the comment of
#: MAX_REPEAT_SPREAD), so a nearer run is a spread the table's noise estimate may just
#: understate (noisier small runs beside quiet large ones), not a disturbed run.
DISTURBED_FACTOR = 2.0


def _pair_differences(y, setting) -> np.ndarray:
    """``|y_i - y_j|`` of every two runs of one setting (each pair once), grouped by the
    settings' sizes so that a table of many settings costs one pass per size."""
    order = np.argsort(setting, kind="stable")
    ys, ss = y[order], setting[order]
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    sizes = np.diff(np.r_[starts, len(ys)])
    out = []
    for k in np.unique(sizes):
        block = ys[starts[sizes == k][:, None] + np.arange(k)]  # settings x runs
        i, j = np.triu_indices(k, 1)
        out.append(np.abs(block[:, i] - block[:, j]).ravel())
    return np.concatenate(out)


def _others_mean(values, setting, k) -> np.ndarray:
    """Per run, the mean of ``values`` over the other runs of its ``setting`` (``k``
    runs each)."""
    return (np.bincount(setting, weights=values)[setting] - values) / (k - 1)


def disturbed_runs(m: Measurements) -> str:
    """A sentence when a run lies far from the other runs of its setting, measured by
    the table's own repeat spread, else ``""``: more than DISTURBED_FACTOR away and
    beyond the Bonferroni bound of DISTURBED_ALPHA over the runs with repeats (another
    job, a frequency change, a cold cache; session 47's hunt: a 4x run among repeats 3 %
    apart was not flagged by :func:`repeat_spread`, meant for units, and widened the
    intervals 3x). The spread is the median log difference of two runs of one setting
    over all such pairs (robust to the few runs flagged), and a run's deviation is
    from the mean of its setting's others (with two runs, either may be the one),
    less the rounding of the times (:func:`probperf.models.laws.resolution`).

    Examples
    --------
    >>> n = [8, 8, 8, 16, 16, 16, 32, 32, 32]
    >>> time = [1.0, 1.03, 0.98, 2.0, 2.05, 8.1, 4.0, 3.9, 4.1]
    >>> disturbed_runs(Measurements({"n": n, "p": [2] * 9, "time": time})).split(":")[0]
    'a run is far from the other runs of its setting (8.1 s at n=16, p=2 against 2.02 s for the others, 4x, where two runs of one setting in this table typically differ by 3 %; 1 of 3 settings with repeats)'
    >>> disturbed_runs(Measurements({"n": n, "p": [2] * 9, "time": time[:5] + [2.6] + time[6:]}))  # 1.3x: not
    ''
    """
    from statistics import NormalDist  # not scipy.stats: its import costs every fit half a second

    from .models.laws import resolution

    if "time" not in m.frame:
        return ""
    norm = NormalDist()
    runs = m.frame[[*m.params, "time"]].dropna()
    runs = runs[runs["time"] > 0]
    setting = runs.groupby(m.params, sort=False).ngroup().to_numpy()
    k = np.bincount(setting)[setting]
    runs, setting, k = runs[k > 1], setting[k > 1], k[k > 1]
    if not len(runs):
        return ""
    t = runs["time"].to_numpy(dtype=float)
    y = np.log(t)
    pairs = _pair_differences(y, setting)
    sigma = np.median(pairs) / (np.sqrt(2.0) * norm.inv_cdf(0.75))  # a pair's difference has sd sigma sqrt(2)
    others = _others_mean(y, setting, k)
    # rounded times may hide half a quantum each way: each run is moved by it toward
    # the others, and the others toward it, before the deviation is measured
    half = resolution(t) / 2.0
    lower, upper = np.log(t - half), np.log(t + half)
    off = np.maximum(0.0, np.where(y > others, lower - _others_mean(upper, setting, k),
                                   _others_mean(lower, setting, k) - upper))
    with np.errstate(divide="ignore", invalid="ignore"):  # identical repeats: any deviation left is far
        z = off / (sigma * np.sqrt(1.0 + 1.0 / (k - 1)))
    far = (z > norm.inv_cdf(1.0 - DISTURBED_ALPHA / (2.0 * len(t)))) & (off > np.log(DISTURBED_FACTOR))
    if not far.any():
        return ""
    i = int(np.argmax(np.where(far, off, -np.inf)))  # the farthest run is named
    where = ", ".join(f"{c}={value(runs[c].iloc[i])}" for c in m.params)
    # settings, not runs, are counted: beside a run far off, its setting's others lie far
    # from means that hold it
    count = f"{len(np.unique(setting[far]))} of {len(np.unique(setting))} settings with repeats"
    return (f"a run is far from the other runs of its setting ({value(t[i])} {m.unit} at {where} against "
            f"{np.exp(others[i]):.3g} {m.unit} for the others, {np.exp(abs(y[i] - others[i])):.2g}x, where two "
            f"runs of one setting in this table typically differ by {np.expm1(np.median(pairs)) * 100:.2g} %; "
            f"{count}): a disturbed run (another job, a frequency change)? {TAKEN_AS_NOISE}; check or drop such runs")


def coded_choices(m: Measurements) -> list[str]:
    """A sentence per configuration parameter that looks like choices coded as numbers:
    only the values 0, 1, ..., k with k >= 2 (a solver 0/1/2). The laws read such a
    column as an amount (solver 1 halfway between 0 and 2, and solver=3 one more step
    along it, warned of only as beyond the measured values), so if the values name choices, one 0/1 column per choice but one
    is what they need; a real amount (a level, a depth) may stay.

    Examples
    --------
    >>> m = Measurements({"n": [8, 8, 8, 16], "p": [1, 1, 1, 2], "solver": [0, 1, 2, 2], "depth": [1, 2, 3, 4],
    ...                   "time": [1.0, 0.6, 1.4, 1.5]}, config=["solver", "depth"])
    >>> coded_choices(m)
    ['solver takes only the values 0, 1, 2: if they name choices (an algorithm) rather than amounts, give one 0/1 column per choice but one (the laws read one column as an amount: solver=1 between 0 and 2, and solver=3 as one more step along it)']
    """
    codes = {c: coded_values(m.frame[c]) for c in m.config}
    return [coded_choice(c, k) for c, k in codes.items() if k]


def beyond_law_range(m: Measurements, metrics: bool = True) -> list[str]:
    """A sentence per column with values the fits refuse (said by ``validate`` and
    ``doctor`` before a fit fails on it): a parameter with one above
    :data:`~probperf.models.laws.PARAM_MAX` (every fit refuses it), and unless not
    ``metrics``, a metric with a positive value beyond
    :data:`~probperf.models.laws.VALUE_RANGE` (refused where a law models it).

    Examples
    --------
    >>> beyond_law_range(Measurements({"n": [1, 1e40], "p": [1, 1], "time": [1e-200, 2.0]}))
    ['n has values beyond 1e+30 (1 .. 1e+40), which the laws of fit refuse; give them in another unit', 'time has values beyond 1e-150..1e+150 (1e-200 .. 2), which the laws of fit refuse; give them in another unit']
    """
    lo, hi = VALUE_RANGE
    wide = [(c, f"{PARAM_MAX:g}") for c in m.params if (m.frame[c] > PARAM_MAX).any()]
    wide += [(c, f"{lo:g}..{hi:g}") for c in m.metrics * metrics
             if ((m.frame[c] > 0) & ((m.frame[c] < lo) | (m.frame[c] > hi))).any()]
    return [f"{c} has values beyond {limit} ({m.frame[c].min():g} .. {m.frame[c].max():g}), which the laws of fit "
            "refuse; give them in another unit" for c, limit in wide]


def _unchecked(directions, names) -> list[str]:
    """Sentences for the directions ``names``, of exactly MIN_DISTINCT values,
    extrapolated without a check, as ``predict`` warns beyond them
    (:func:`~probperf.cautions.unchecked`, the rule both apply)."""
    out = []
    for d in directions:
        if d.name in names:
            many = _WORDS.get(d.name, (None, f"values of {d.name}"))[1]
            out.append(f"only {d.distinct} {many} ({value(d.low)}..{value(d.high)}): {d.name} may be extrapolated, but "
                       f"no forward validation checks it (one needs {MIN_DISTINCT + 1}: {MIN_DISTINCT} to fit on, one "
                       f"held out), and predict warns beyond {value(d.high)}; measure at least {MIN_DISTINCT + 1} "
                       f"values of {d.name}")
    return out


def kinds_limits(m: Measurements) -> list[str]:
    """Sentences for the worker counts that limit predictions beyond them, as ``predict``
    warns (:mod:`probperf.cautions`): fewer than MIN_DISTINCT worker counts above one
    (:func:`~probperf.cautions.few_workers`), and one kind of run, serial or with p > 1,
    that stops short of the table's sizes (:func:`~probperf.cautions.kinds_apart`).

    Examples
    --------
    >>> m = Measurements({"n": [4096, 8192, 16384, 4096, 4096], "p": [1, 1, 1, 2, 6],
    ...                   "time": [1.0, 2, 4, 0.6, 0.3]})
    >>> for line in kinds_limits(m):
    ...     print(line)
    the runs with more than one worker had only 2 worker counts (2, 6): how the overheads grow with the workers is fitted to them without a check; measure at least 3 worker counts above one
    the runs with p > 1 reach n=2^12 only, the table n=2^14: with p > 1 predict warns above n=2^12, where how the overheads grow with n is carried over from the runs with p = 1; measure runs with p > 1 at larger n
    """
    from .cautions import KIND_RUNS, few_workers, kinds_apart, number_text

    if "p" not in m.params:
        return []
    runs = {c: m.frame[c].to_numpy(dtype=float) for c in m.params}
    few = few_workers(runs["p"]) if m.frame["p"].nunique() >= MIN_DISTINCT else ""  # else: too few values of p at all
    out = [few] if few else []
    for kind, c, (lo, hi), (_, top) in kinds_apart(runs, m.params):
        shows = "the serial time" if kind == "serial" else "how the overheads grow"
        other = KIND_RUNS["parallel" if kind == "serial" else "serial"]
        out.append(f"the runs with {KIND_RUNS[kind]} reach {c}={number_text(hi)} only, the table {c}={number_text(top)}: "
                   f"with {KIND_RUNS[kind]} predict warns above {c}={number_text(far_factor(lo, hi) * hi)}, where "
                   f"{shows} with {c} is carried over from the runs with {other}; measure runs with "
                   f"{KIND_RUNS[kind]} at larger {c}")
    return out


def _missing(m: Measurements) -> list[str]:
    """Sentences for what is missing beyond the directions: ``n``, DAG metrics, time."""
    out = []
    try:
        m.require("n")
    except MeasurementError as exc:  # the message that names the three ways to give n
        out.append(f"no problem size: {exc.message}")
    from . import registry

    traced, left, lost = registry.traced_runs(m)  # what fit does with runs that lack a trace
    if registry.dag_runs(m)[1]:  # said only where fit (auto) leaves them out
        out.append(left)
    lacks = registry.dag_lacks(traced)
    timed = "time" in m.frame and m.frame["time"].notna().any()
    if lacks:
        refusal = _direct_refusal(m) if timed else ""  # its law fits only where there are times to fit
        # one sentence for what fit does instead, never two that disagree (helper-88, -90):
        # nothing for time where no run has one, refuse, or model the time directly
        instead = ("and no run has a time: run times cannot be predicted (fit --target NAME models a metric the "
                   "runs have)" if not timed
                   else f"nor can time be modelled directly: {refusal}: fit refuses these runs" if refusal
                   else "nor can time be modelled directly while some runs lack it (below)" if not m.has("time")
                   else "fit uses a direct model of the time instead")
        out.append(f"the DAG model cannot be used: it needs {', '.join(lacks)}{f' ({lost})' if lost else ''}; {instead}")
    if m.has("time") or not timed:
        return out
    gaps = f"time is missing in {_runs_without(m, 'time')}"  # some runs lack it
    out.append(f"{gaps} and there is no DAG model to make it: fit refuses these runs; drop them or fill them in"
               if lacks else f"{gaps}: the DAG model does not need it (its time is (work + delay + no_work) / p), "
               "so fit keeps these runs; a model of time alone (--model direct) refuses them")
    return out


def _direct_refusal(m: Measurements) -> str:
    """Why ``fit`` cannot model the time of ``m`` directly either ("" if it can, or if
    the runs have no time: said apart): no size, or too few runs for any law, as the
    law mixture words it.

    Examples
    --------
    >>> _direct_refusal(Measurements({"n": [10, 20], "p": [1, 1], "time": [1.0, 2.0]}))
    '2 runs are too few to fit any law of time'
    """
    from .models.laws import candidate_laws
    from .models.mixture import too_few_runs

    if "n" not in m.params:
        return "there is no problem size n"
    rows = m.frame[m.frame["time"].notna()] if "time" in m.frame else m.frame.iloc[:0]
    if not len(rows) or candidate_laws(rows[m.params].to_numpy(dtype=np.float64), list(m.params)):
        return ""
    return too_few_runs(len(rows), "time")


def _runs_without(m: Measurements, metric: str) -> str:
    """``"K of N runs (the first at line L)"`` for a metric some runs lack (the line in
    the file where known, else the run's number)."""
    gaps = m.frame[metric].isna().to_numpy()
    where = f"run {int(np.argmax(gaps)) + 1}"
    try:
        m.require(metric)
    except MeasurementError as exc:
        where = f"line {exc.line}" if exc.line is not None else where
    return f"{int(gaps.sum())} of {len(m)} runs (the first at {where})"


def _span_longer(m: Measurements) -> list[str]:
    """Where a run's critical path exceeds its time or its work (beyond the identity's
    tolerance): one sentence each, with the worst run (``data.SpanWarning``).

    Examples
    --------
    >>> _span_longer(Measurements({"n": [8, 16], "p": [2, 2], "time": [1.0, 2.0], "critical_path": [0.5, 5.0]}))
    ['critical path longer than the run time in 1 of 2 runs, 2.5x in run 2 of 2: are time and the DAG metrics from the same run, in one unit?']
    """
    out = []
    for ratio, what in zip(span_excess(m.frame), ("run time", "work")):
        off = ratio > 1.0 + TOLERANCE
        if off.any():
            row = int(np.nanargmax(np.where(off, ratio, np.nan)))
            out.append(f"critical path longer than the {what} in {int(off.sum())} of {len(m)} runs, {ratio[row]:.3g}x "
                       f"in {_run(m, row, column='critical_path')}: are time and the DAG metrics from the same run, in one unit?")
    return out


def _run(m: Measurements, row: int, *notes: str, column: str | None = None) -> str:
    """Run ``row`` (0-based) of ``m`` for people: its number among the runs looked at
    and where the table has it (its file and line, the field's line in a ``.stat``
    file with ``column``, or its row before ``--split`` cut the table), with ``notes``.

    Examples
    --------
    >>> runs = Measurements({"n": [8, 16, 32], "p": [2, 2, 2], "time": [1.0, 2.0, 3.0]})
    >>> _run(runs, 1, "tolerance 0.1 %"), _run(runs.rows(np.array([True, False, True])), 1)
    ('run 2 of 3 (tolerance 0.1 %)', 'run 2 of 2 (3rd row)')
    """
    err = m.row_error("", row, column)
    where = ", ".join([str(err.source)] * (err.source is not None) + [f"line {err.line}"] * (err.line is not None))
    cut = err.message.removesuffix(": ")  # "3rd row" of an in-memory table, counted before a cut
    where = where or (cut if cut and cut != row_name(row) else "")
    notes = [where] * bool(where) + list(notes)
    return f"run {row + 1} of {len(m)}" + (f" ({'; '.join(notes)})" if notes else "")


def _identity(m: Measurements) -> Identity:
    resid = np.abs(m.identity_residual())
    if np.isnan(resid).all():
        return Identity(None, None, TOLERANCE)
    row = int(np.nanargmax(resid))
    return Identity(float(resid[row]), row, TOLERANCE)


def value(x: float) -> str:
    """A parameter value for people: integers in full, others to 6 digits.

    Examples
    --------
    >>> value(16 * 65536.0), value(0.25), value(1e300)
    ('1048576', '0.25', '1e+300')
    """
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) <= MAX_EXACT_INT else f"{x:.6g}"


def percent(x: float) -> str:
    """A relative value as a percentage for people: three significant digits.

    Examples
    --------
    >>> percent(0.12), percent(0.001), percent(0.123456), percent(0.0), percent(12.345), percent(1e305)
    ('12 %', '0.1 %', '12.3 %', '0 %', '1234 %', '1e+307 %')
    """
    v = 100 * float(x)
    return f"{v:.0f} %" if 1000 <= abs(v) < 1e6 else f"{v:.3g} %"  # whole up to a million, then a power


__all__ = ["Direction", "Identity", "Report", "TOLERANCE", "beyond_law_range", "diagnose", "percent", "value"]
