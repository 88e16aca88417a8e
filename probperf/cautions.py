"""Cautions that go with a prediction: a point far beyond the data, an interval that
does not widen there, a setting no run had, a mean that rests on a few draws.

The models emit them as :class:`ExtrapolationWarning` from ``predict`` (Python users see
them as warnings); the command line catches them and prints each as one ``warning:``
line. Fits that predict inside themselves (forward validation) silence them
(:func:`quiet`): their points lie beyond sub-fits on purpose.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import warnings

import numpy as np

from . import userwarn
from .limits import is_whole
from .selection import FAR_FACTOR, MIN_DISTINCT, RANGE_RTOL, far_factor, kind_ranges, training_ranges


class ExtrapolationWarning(UserWarning):
    """A prediction to read with care (see the module's text; :func:`warn` shows one).

    Examples
    --------
    >>> issubclass(ExtrapolationWarning, UserWarning)  # shown by default, once per place
    True
    """


_QUIET = contextvars.ContextVar("cautions_quiet", default=False)


def warn(model, points, pred):
    """Warn about ``pred`` at ``points`` of ``model`` (:func:`messages`), one warning each;
    returns ``pred`` (a model's ``predict`` ends with it).

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> from probperf.predict import Predictive
    >>> model = SimpleNamespace(train_ranges_={"n": [10, 100, 10]}, widens_beyond=lambda: True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     pred = warn(model, pd.DataFrame({"n": [50.0, 1e4]}), Predictive(np.ones((50, 2))))
    >>> [(w.category.__name__, str(w.message).split(",")[0]) for w in caught]  # n=50 is inside the data
    [('ExtrapolationWarning', 'n=10000 is 100x the largest training value (100)')]
    """
    if not _QUIET.get():  # inside quiet() not even computed: forward validation predicts many points
        for line in messages(model, points, pred):
            userwarn.warn(line, ExtrapolationWarning)
    return pred


def messages(model, points, pred) -> list[str]:
    """Every caution about ``pred``, the prediction of ``model`` at ``points``.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> from probperf.predict import Predictive
    >>> gp = SimpleNamespace(train_ranges_={"n": [10, 100, 10]})  # no widens_beyond: does not widen
    >>> [line.split(" (")[0].split(",")[0] for line in messages(gp, pd.DataFrame({"n": [1e4]}),
    ...                                                          Predictive(np.ones((50, 1))))]
    ['n=10000 is 100x the largest training value', 'n=10000 lies beyond the training data']
    """
    return (far_beyond(points, getattr(model, "train_ranges_", {})) + beyond_own_kind(model, points)
            + not_finite(points, pred)
            + unreliable_mean(points, pred) + on_critical_path(points, pred) + fixed_width(model, points)
            + unmeasured_setting(model, points) + unwhole_setting(model, points) + coded_setting(model, points)
            + few_worker_counts(model, points)
            + unchecked_beyond(model, points)
            + getattr(model, "_cautions", lambda points: [])(points))  # a model's own (cilkview: runs above its band)


def not_finite(points, pred) -> list[str]:
    """A message (in a list, empty if none) when some draws are not finite (overflow far
    beyond the data): the median and interval there may be inf or NaN, which a caller
    reading numbers would otherwise take as a prediction.

    Examples
    --------
    >>> import pandas as pd
    >>> from probperf.predict import Predictive
    >>> not_finite(pd.DataFrame({"n": [64, 2.0**900]}), Predictive(np.c_[np.ones(4), [1, 2, np.inf, np.nan]]))
    ['the prediction at n=2^900 is not finite in 2 of its 4 draws (overflow far beyond the data): predict closer to the measured range']
    """
    bad = ~np.isfinite(pred.draws)
    if not bad.any():
        return []
    i = int(np.argmax(bad.sum(axis=0)))
    where = point_text(points.iloc[i]) + more_points(int(bad.any(axis=0).sum()) - 1, parens=False)
    return [f"the prediction at {where} is not finite in {int(bad[:, i].sum())} of its {pred.n_draws} draws "
            "(overflow far beyond the data): predict closer to the measured range"]


@contextlib.contextmanager
def quiet():
    """No cautions inside (a fit's own predictions beyond its sub-fits).

    Examples
    --------
    >>> with quiet():
    ...     inside = _QUIET.get()
    >>> inside, _QUIET.get()  # warn returns at once inside
    (True, False)
    """
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


#: Relative tolerance of the below-the-range warning: a value typed as printed (``doctor``
#: and the warnings show 6 significant digits) is not below the range.
SHOWN_RTOL = 1e-6


def far_beyond(points, ranges) -> list[str]:
    """A message per parameter when points lie more than :func:`~probperf.selection.far_factor`
    times above its training range (16x, or one span of the range where nearer), or
    anywhere below a positive range, naming the furthest (a plot's sweep is one line).
    Below, because the forward validation only ever predicts larger values from smaller
    ones: a smaller cut-off or size than any measured is checked by no held-out run
    (session 31's hunt: fib trained on cut-offs 4..14 asked at 2 gave 38x the simulated
    time, its interval missing it, without a word).

    Examples
    --------
    >>> import pandas as pd
    >>> far_beyond(pd.DataFrame({"n": [2.0**24], "p": [36]}), {"n": [4096, 65536], "p": [1, 8]})
    ["n=2^24 is 256x the largest training value (65536): the interval there rests on the model's form (its laws or kernel), not on validated predictions"]
    >>> far_beyond(pd.DataFrame({"p": [1024]}), {"p": [1, 8]})[0].split("; ")[1]
    'nor does it hold overheads that grow only past the measured workers (contention, steals): runs at more workers are what would show them'
    >>> far_beyond(pd.DataFrame({"n": [1e-5]}), {"n": [16, 1024]})[0].split(":")[0]
    'n=1e-05 is 1/1.6e+06 of the smallest training value (16)'
    >>> far_beyond(pd.DataFrame({"n": [333333.0, 333332.0]}), {"n": [333333.333, 1e6]})[0].split(":")[0]
    'n=333332 is just below the smallest training value (333333)'
    >>> far_beyond(pd.DataFrame({"cutoff": [2]}), {"cutoff": [4, 14]})[0].split(", the interval")[0]
    'cutoff=2 is 1/2 of the smallest training value (4): below the measured range, where no forward validation looks (it predicts larger values from smaller)'
    >>> far_beyond(pd.DataFrame({"n": [34]}), {"n": [20, 24]})[0].split(":")[0]
    'n=34 is 1.417x the largest training value (24), more than the range 20..24 spans'
    >>> far_beyond(pd.DataFrame({"solver": [3, 5]}), {"solver": [0, 2]})[0].split(":")[0]  # a code: 3 is within a span
    'solver=5 is 2.5x the largest training value (2), more than the range 0..2 spans'
    >>> far_beyond(pd.DataFrame({"n": [2.0**21, 2.0**24, 2.0**22]}), {"n": [4096, 65536]})[0].split("predictions")[1]
    ' (and 2 more points)'
    """
    return [line for c, (lo, hi, *_) in ranges.items() if c in points and hi > 0
            for line in [_far_line(c, points[c].to_numpy(dtype=float), lo, hi)] if line]


def _far_line(c: str, x: np.ndarray, lo: float, hi: float, below_too: bool = True,
              of: str = "training value", why: str = "") -> str:
    """:func:`far_beyond`'s message on parameter ``c`` at values ``x`` against its range
    ``lo..hi`` ("" when none lies far): "{c}=... is 20x the largest {of} (...)", then
    the interval's caveat and ``why``. ``below_too``: any value below ``lo`` counts."""
    factor = far_factor(lo, hi)
    spans = ("" if factor == FAR_FACTOR else ", the only one measured" if lo == hi
             else f", more than the range {lo:g}..{hi:g} spans")
    above = x > factor * hi * (1 + RANGE_RTOL)  # a measured value written with a rounding error is no step
    # below: past the rounding of a value typed as shown (doctor prints 6 digits)
    below = (x < lo * (1 - SHOWN_RTOL)) if lo > 0 and below_too else np.zeros(len(x), dtype=bool)
    if not (above.any() or below.any()):
        return ""
    with np.errstate(divide="ignore"):  # x = 0 below a positive range: infinitely far
        distance = np.where(above, x / hi, np.where(below, lo / np.maximum(x, 0.0), 0.0))
    k = int(np.argmax(distance))
    if above[k]:
        where = f"{x[k] / hi:.4g}x the largest {of} ({hi:g}){spans}"
    else:
        ratio = f"1/{lo / x[k]:.4g} of" if x[k] * 1.0005 < lo else "just below"  # 1/1 would say nothing
        where = ((ratio if x[k] > 0 else "far below") + f" the smallest {of} ({lo:g}): "
                 "below the measured range, where no forward validation looks (it predicts larger values from "
                 "smaller),")
    more = more_points(int(above.sum() + below.sum()) - 1)
    # many more workers than measured: what no run showed is the first thing to fear
    workers = ("; nor does it hold overheads that grow only past the measured workers (contention, steals): "
               "runs at more workers are what would show them") if c == "p" and above[k] else ""
    there = " the interval" if below[k] else ": the interval"  # the below text ends in its own comma
    return (f"{c}={number_text(x[k])} is {where}{there} there rests on the model's form (its laws "
            f"or kernel), not on validated predictions{more}{workers}{why}")


#: The runs of each kind (:func:`probperf.selection.kind_ranges`), as the cautions name them.
KIND_RUNS = {"serial": "p = 1", "parallel": "p > 1"}


def kinds_apart(runs: dict, names) -> list[tuple[str, str, list, list]]:
    """``(kind, parameter, kind's range, whole range)`` wherever one kind of run (serial,
    p = 1; parallel, p > 1) stops short of the whole table in a parameter by more than
    :func:`~probperf.selection.far_factor` allows, so that predictions of that kind at
    the table's own largest values are far beyond their kind's runs
    (:func:`beyond_own_kind`). ``runs``: parameter -> values, one per run.

    Examples
    --------
    >>> runs = {"n": [4096, 8192, 16384, 32768, 4096, 4096], "p": [1, 1, 1, 1, 2, 6]}
    >>> kinds_apart(runs, ["n", "p"])
    [('parallel', 'n', [4096.0, 4096.0], [4096.0, 32768.0])]
    >>> kinds_apart({"n": [64, 2048, 128, 4096], "p": [1, 1, 4, 4]}, ["n", "p"])  # 2048 -> 4096: near
    []
    >>> kinds_apart({"nnodes": [1, 1, 2, 4, 8, 16], "ppn": [1, 4, 4, 4, 4, 4], "p": [1, 4, 8, 16, 32, 64]},
    ...             ["nnodes", "ppn", "p"])  # serial runs are on one node by p = nnodes * ppn
    []
    """
    from .models.points import relations, worker_factors

    names = [c for c in names if c in runs]
    if "p" not in names:
        return []
    X = np.column_stack([np.asarray(runs[c], dtype=float) for c in names])
    whole, kinds = training_ranges(X, names), kind_ranges(X, names)
    # a parameter that makes p (p = nnodes * ppn) is 1 in every serial run: no run can widen it
    tied = worker_factors(relations(X, names))
    return [(kind, c, box[c][:2], whole[c][:2]) for kind, box in kinds.items() for c in names
            if c != "p" and c not in tied and box[c][1] > 0
            and whole[c][1] > far_factor(*box[c][:2]) * box[c][1] * (1 + RANGE_RTOL)]


def beyond_own_kind(model, points) -> list[str]:
    """A message per parameter when points with p > 1 lie far above the runs with p > 1
    (serial points above the serial runs) though not above the whole table, which
    :func:`far_beyond` judges: the laws share their size terms between the kinds
    (:func:`probperf.selection.kind_ranges`), so the overheads' growth at those sizes
    is the serial runs' carried over, which no held-out run checked. Above only: below
    a kind's range the table's smaller runs of the other kind still bracket the point.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> runs = {"n": [4096, 8192, 16384, 32768, 4096, 4096], "p": [1, 1, 1, 1, 2, 6]}
    >>> model = SimpleNamespace(train_points_=runs, features_=["n", "p"],
    ...                         train_ranges_={"n": [4096, 32768, 4], "p": [1, 6, 3]})
    >>> beyond_own_kind(model, pd.DataFrame({"n": [65536, 65536], "p": [1, 8]}))[0].split(":")[0]
    'n=2^16 is 16x the largest value with p > 1 (4096), the only one measured'
    """
    runs, names = getattr(model, "train_points_", None) or {}, getattr(model, "features_", [])
    if "p" not in points:
        return []
    out = []
    serial = points["p"].to_numpy(dtype=float) <= 1
    for kind, c, (lo, hi), (_, top) in kinds_apart(runs, names):
        if c not in points:
            continue
        x = points[c].to_numpy(dtype=float)[serial if kind == "serial" else ~serial]
        x = x[x <= far_factor(*model.train_ranges_[c][:2]) * top * (1 + RANGE_RTOL)]  # far_beyond speaks of the rest
        other = KIND_RUNS["parallel" if kind == "serial" else "serial"]
        shows = "the serial time" if kind == "serial" else "how the overheads grow"
        line = _far_line(c, x, lo, hi, below_too=False, of=f"value with {KIND_RUNS[kind]}",
                         why=f"; the runs with {other} reach {c}={number_text(top)}, but {shows} with {c} shows only "
                             f"in runs with {KIND_RUNS[kind]}: measure some at larger {c}")
        out += [line] if line else []
    return out


def fixed_width(model, points) -> list[str]:
    """A message when some of ``points`` lie beyond the training data of a model whose
    interval learns no growth of its error there (a GP or basis regression of time, a
    baseline: no ``widens_beyond``), so that it is not read as the laws' interval.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> gp = SimpleNamespace(train_ranges_={"n": [10, 100, 10]})  # no widens_beyond
    >>> fixed_width(gp, pd.DataFrame({"n": [50.0, 150.0]}))[0].split(",")[0]
    'n=150 lies beyond the training data'
    >>> fixed_width(gp, pd.DataFrame({"n": [50.0]})), fixed_width(SimpleNamespace(widens_beyond=lambda: True), None)
    ([], [])
    """
    widening = getattr(model, "widens_beyond", None)
    if widening is not None and widening():
        return []
    beyond = [f"{c}={number_text(x)}" for c, (lo, hi, *_) in getattr(model, "train_ranges_", {}).items() if c in points
              for x in points[c].to_numpy(dtype=float) if x > hi * (1 + RANGE_RTOL) or x < lo * (1 - RANGE_RTOL)]
    if not beyond:
        return []
    return [f"{beyond[0]} lies beyond the training data, and this {type(model).__name__}'s interval does not widen "
            "there (it learns no growth of its error beyond the data; the default law models do): read it as a "
            "lower bound on the uncertainty"]


def training_values(model, c: str) -> np.ndarray:
    """The values of parameter ``c`` in the model's training runs (``train_points_``), one
    per run; empty when the model does not record them.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> training_values(SimpleNamespace(train_points_={"cutoff": [8, 64]}), "cutoff"), training_values(object(), "n")
    (array([ 8., 64.]), array([], dtype=float64))
    """
    return np.asarray((getattr(model, "train_points_", None) or {}).get(c, []), dtype=float)


def more_points(k: int, parens: bool = True) -> str:
    """What follows a point named among ``k + 1``: `` (and 2 more points)`` (without
    ``parens``: `` and 2 more points``), nothing when ``k`` is 0.

    Examples
    --------
    >>> more_points(2), more_points(1, parens=False), more_points(0)
    (' (and 2 more points)', ' and 1 more point', '')
    """
    if k <= 0:
        return ""
    text = f"and {k} more point{'s' * (k > 1)}"
    return f" ({text})" if parens else f" {text}"


def trained_whole(model, c: str) -> bool:
    """Whether every training value of parameter ``c`` is whole (cut-offs, block sizes,
    ranks per node), as the model's runs (``train_points_``) record them; False when
    they do not.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_points_={"cutoff": [8, 64], "alpha": [1, 1.25]})
    >>> trained_whole(m, "cutoff"), trained_whole(m, "alpha"), trained_whole(m, "depth")
    (True, False, False)
    """
    values = training_values(model, c)
    return len(values) > 0 and bool(np.all(is_whole(values)))


def unwhole_setting(model, points) -> list[str]:
    """A message (in a list, empty if none) when a point gives a configuration parameter
    a fraction although every training value of it is whole (``nnodes=0.5``, a cut-off
    of 100.5): a typo more often than a question, and no run can have it. ``n`` is a
    size and may fall between whole values; ``p`` is refused elsewhere.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_points_={"n": [8, 16], "nnodes": [1, 2, 4], "alpha": [1, 1.5]})
    >>> unwhole_setting(m, pd.DataFrame({"n": [12.5, 16], "nnodes": [2, 0.5], "alpha": [1.25, 1]}))
    ['nnodes=0.5 is not whole, though every training value of nnodes is (and no run can have it)']
    """
    out = []
    for c in points.columns:
        if c in ("n", "p") or not trained_whole(model, c):
            continue
        x = points[c].to_numpy(dtype=float)
        off = ~is_whole(x)
        if off.any():
            out.append(f"{c}={number_text(x[off][0])} is not whole, though every training value of {c} is "
                       "(and no run can have it)")
    return out


def coded_values(values) -> int:
    """``k`` when the distinct ``values`` are exactly 0, 1, ..., k with 2 <= k <= 9 (a
    solver 0/1/2: choices coded as numbers, or a small amount such as a level), else 0.

    Examples
    --------
    >>> coded_values([0, 1, 2, 1]), coded_values([0, 1]), coded_values([1, 2, 3]), coded_values([])
    (2, 0, 0, 0)
    """
    values = np.unique(np.asarray(values, dtype=float))
    k = len(values) - 1
    return k if 2 <= k <= 9 and np.array_equal(values, np.arange(k + 1)) else 0


def coded_choice(c: str, k: int) -> str:
    """What a parameter ``c`` of the values 0..k (:func:`coded_values`) means to the
    laws, as ``doctor`` and ``fit`` say it and ``predict`` repeats it.

    Examples
    --------
    >>> coded_choice("solver", 2).split(":")[0]
    'solver takes only the values 0, 1, 2'
    """
    return (f"{c} takes only the values {', '.join(str(i) for i in range(k + 1))}: if they name "
            "choices (an algorithm) rather than amounts, give one 0/1 column per choice but one "
            f"(the laws read one column as an amount: {c}=1 between 0 and {k}, and {c}={k + 1} "
            "as one more step along it)")


def coded_setting(model, points) -> list[str]:
    """A message per configuration parameter of ``points`` whose training values were
    0, 1, ..., k (:func:`coded_choice`): ``fit`` said it once, but a model is predicted
    from later, and where the codes name choices its answer at a *measured* code can be
    far off (a solver whose middle code is the slowest, read as an amount).

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_points_={"n": [1, 2, 3], "solver": [0, 1, 2], "depth": [1, 2, 3]})
    >>> [line.split(":")[0] for line in coded_setting(m, pd.DataFrame({"n": [4], "solver": [1], "depth": [2]}))]
    ['as fitted, solver takes only the values 0, 1, 2']
    """
    out = []
    for c in points.columns:
        k = 0 if c in ("n", "p") else coded_values(training_values(model, c))
        if k:
            out.append(f"as fitted, {coded_choice(c, k)}")
    return out


def unmeasured_setting(model, points) -> list[str]:
    """A message (in a list, empty if none) when the values of some points' parameters
    measured at fewer than MIN_DISTINCT values (a switch, a variant number, two worker
    counts) were never measured together, naming the first such point. Such a parameter
    cannot be extrapolated (predict refuses beyond its range), and between its values or
    in a new combination the model's answer is its form's guess, which for a category
    means nothing. A model that says so (``spans_unmeasured``) spans there the nearest
    measured settings of its configuration parameters too
    (:func:`probperf.unmeasured.with_neighbours`), and the message names them.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_ranges_={"n": [1, 8, 4], "tree": [0, 1, 2], "flat": [0, 1, 2]},
    ...                     train_points_={"n": [1, 8, 1, 8], "tree": [0, 0, 1, 1], "flat": [0, 1, 0, 0]})
    >>> points = pd.DataFrame({"n": [5, 5, 5], "tree": [1, 1, 0.5], "flat": [0, 1, 0]})
    >>> [line.split(" was never measured")[0] for line in unmeasured_setting(m, points)]  # n=5: between sizes
    ['tree=1, flat=1 (and 1 more point)']
    >>> m.spans_unmeasured = True
    >>> unmeasured_setting(m, points)[0].split("guess")[1]
    ', and its interval spans the nearest measured settings too (tree=0, flat=1; tree=1, flat=0)'

    Where the first such point is new only in a size of two values, the point named is
    the first whose interval spans other settings:

    >>> m.train_ranges_["n"] = [1, 8, 2]
    >>> unmeasured_setting(m, pd.DataFrame({"n": [5, 1], "tree": [0, 1], "flat": [0, 1]}))[0].split(" was")[0]
    'n=1, tree=1, flat=1 (and 1 more point)'
    """
    from .unmeasured import few_valued, unmeasured

    few = few_valued(model, points)
    if not few:
        return []
    new = np.flatnonzero(unmeasured(model, points, few))
    if not len(new):
        return []
    # the first point whose interval spans other settings, if any: its message says so
    spans = ((i, _spanned(model, points.iloc[i])) for i in new)  # lazily: the first that spans ends it
    i, spanned = next(((i, text) for i, text in spans if text), (new[0], ""))
    text = ", ".join(f"{c}={number_text(points.iloc[i][c])}" for c in few) + more_points(len(new) - 1)
    return [f"{text} was never measured (these parameters have fewer than {MIN_DISTINCT} values in the "
            "training runs): the prediction there is the model's guess" + spanned]


def _spanned(model, point) -> str:
    """What a model that spans unmeasured settings (``spans_unmeasured``) adds at
    ``point``: its nearest measured settings, when its configuration alone was not
    measured."""
    from .unmeasured import few_valued, measured_settings, nearest_settings, unmeasured

    columns = few_valued(model, point.index, laws_too=False) if getattr(model, "spans_unmeasured", False) else []
    if not columns or not unmeasured(model, point.to_frame().T, columns)[0]:
        return ""
    near = "; ".join(", ".join(f"{c}={number_text(x)}" for c, x in zip(columns, row))
                     for row in nearest_settings(point[columns].to_numpy(dtype=float), measured_settings(model, columns)))
    return f", and its interval spans the nearest measured settings too ({near})"


def few_worker_counts(model, points) -> list[str]:
    """A message (in a list, empty if none) when points lie beyond the largest training
    worker count and the runs with more than one worker had fewer than MIN_DISTINCT
    worker counts (1, 2, 8): the overheads that only multi-worker runs show (delay
    beyond one worker, idle time) are then fitted to two counts, and their growth past
    them is not checked by any held-out run.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_points_={"p": [1, 1, 2, 2, 8, 8]})
    >>> few_worker_counts(m, pd.DataFrame({"p": [4, 32]}))[0].split(":")[0]
    'p=32 is beyond the measured workers, and the runs with more than one worker had only 2 worker counts (2, 8)'
    >>> few_worker_counts(SimpleNamespace(train_points_={"p": [1, 2, 4, 8]}), pd.DataFrame({"p": [32]}))
    []
    """
    if "p" not in points:
        return []
    p = training_values(model, "p")
    x = points["p"].to_numpy(dtype=float)
    far = x[x > p.max() * (1 + RANGE_RTOL)] if len(p) else x[:0]
    few = few_workers(p)
    if not few or not len(far):
        return []
    return [f"p={number_text(far.max())} is beyond the measured workers, and {few}"]


def unchecked_beyond(model, points) -> list[str]:
    """A message per parameter when points lie above a training range of exactly
    MIN_DISTINCT values (3 sizes): such a parameter may be extrapolated, but no forward
    split held its largest value out (:func:`probperf.selection.forward_splits` needs
    MIN_DISTINCT + 1 values: MIN_DISTINCT to fit on, one held out), so neither the laws'
    weights nor how far the interval widens were checked beyond them (session 46's
    hunt: sort on 3 sizes, 2-4x beyond, inside the far limit, missed 7 of 14 points
    without a word). ``p`` is :func:`few_worker_counts`' where that speaks.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_ranges_={"n": [4096, 16384, 3], "p": [1, 16, 5]},
    ...                     train_points_={"n": [4096, 8192, 16384], "p": [1, 2, 16]})
    >>> unchecked_beyond(m, pd.DataFrame({"n": [2.0**15, 8192], "p": [8, 32]}))[0].split(":")[0]
    'n=2^15 is beyond the measured values of n (2x the largest, 2^14), and the runs had only 3 of them'
    >>> unchecked_beyond(m, pd.DataFrame({"n": [8192], "p": [32]}))  # p has 5 values: checked
    []
    """
    out = []
    ranges = getattr(model, "train_ranges_", {})
    for c in unchecked(ranges, training_values(model, "p")):
        if c not in points:
            continue
        hi = ranges[c][1]
        x = points[c].to_numpy(dtype=float)
        above = x[x > hi * (1 + RANGE_RTOL)]
        if len(above):
            # the factor, as the far warning gives it (none where the largest value is <= 0)
            largest = f"{above.max() / hi:.4g}x the largest, {number_text(hi)}" if hi > 0 else f"up to {number_text(hi)}"
            out.append(f"{c}={number_text(above.max())} is beyond the measured values of {c} ({largest}), "
                       f"and the runs had only {MIN_DISTINCT} of them: no forward validation held the largest out (it "
                       f"needs {MIN_DISTINCT + 1}), so neither the laws' weights nor the interval's widening were "
                       f"checked past them; measure at least {MIN_DISTINCT + 1} values of {c}")
    return out


def unchecked(ranges, p) -> list[str]:
    """The parameters of ``ranges`` (name -> ``[min, max, distinct]``) extrapolated with
    no forward split to check them: exactly MIN_DISTINCT values, ``p`` only where
    :func:`few_workers` (``p``: every run's worker count) does not speak already. The
    one rule of :func:`unchecked_beyond` and ``probperf doctor``.

    Examples
    --------
    >>> unchecked({"n": [1, 4, 3], "p": [1, 3, 3], "c": [1, 9, 5]}, [1, 2, 3]), unchecked({"p": [2, 8, 3]}, [2, 4, 8])
    (['n'], ['p'])
    """
    return [c for c, (_, _, *k) in ranges.items()
            if k and k[0] == MIN_DISTINCT and not (c == "p" and few_workers(p))]


def few_workers(p) -> str:
    """What is wrong when the runs with more than one worker (``p``: every run's worker
    count) had fewer than MIN_DISTINCT worker counts, but some ("" otherwise): said by
    :func:`few_worker_counts` and by ``probperf doctor``.

    Examples
    --------
    >>> few_workers([1, 1, 4, 16]).split(":")[0], few_workers([1, 2, 4, 8]), few_workers([1, 1])
    ('the runs with more than one worker had only 2 worker counts (4, 16)', '', '')
    """
    p = np.asarray(p, dtype=float)
    counts = np.unique(p[p > 1])
    if not len(counts) or len(counts) >= MIN_DISTINCT:
        return ""
    shown = ", ".join(number_text(v) for v in counts)
    return (f"the runs with more than one worker had only {len(counts)} worker count{'s' if len(counts) > 1 else ''} "
            f"({shown}): how the overheads grow with the workers is fitted to them without a check; measure at "
            f"least {MIN_DISTINCT} worker counts above one")


#: How the caution about an unreliable mean begins (:func:`unreliable_mean`).
MEAN_CAUTION = "the mean at "


@contextlib.contextmanager
def without_mean_caution():
    """No caution about the mean inside: for a caller that shows medians and quantiles
    only (a band plot, the demo's table), where it warned about a number not shown.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with without_mean_caution():
    ...         warnings.warn(MEAN_CAUTION + "n=2^24 rests on a few extreme draws", ExtrapolationWarning)
    ...         warnings.warn("n=2^24 is 256x the largest training value", ExtrapolationWarning)
    >>> [str(w.message) for w in caught]
    ['n=2^24 is 256x the largest training value']
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=re.escape(MEAN_CAUTION), category=ExtrapolationWarning)
        yield


def unreliable_mean(points, pred) -> list[str]:
    """A message (in a list, empty if none) when the mean of some points' draws rests on
    a few extreme draws (:attr:`probperf.predict.Predictive.mean_reliable`), naming the
    point with the heaviest tail.

    Examples
    --------
    >>> import pandas as pd
    >>> from probperf.predict import Predictive
    >>> rng = np.random.default_rng(0)
    >>> pred = Predictive(np.c_[np.exp(rng.normal(size=1000)), rng.pareto(0.5, 1000) + 1])
    >>> unreliable_mean(pd.DataFrame({"n": [64, 2.0**24]}), pred)[0].split(" (")[0]
    'the mean at n=2^24 rests on a few extreme draws'
    """
    from .predict import mean_k_threshold

    k, limit = pred.mean_tail_k, mean_k_threshold(pred.n_draws)
    bad = np.flatnonzero((k > limit) & np.isfinite(pred.draws).all(axis=0))  # not finite: not_finite says so
    if not len(bad):
        return []
    i = bad[np.argmax(k[bad])]
    more = more_points(len(bad) - 1, parens=False)
    digits = next((d for d in range(2, 17) if round(k[i], d) > round(limit, d)), 17)  # never "0.67 > 0.67"
    return [f"{MEAN_CAUTION}{point_text(points.iloc[i])}{more} rests on a few extreme draws (Pareto k of their "
            f"right tail {k[i]:.{digits}f} > {limit:.{digits}f}; at k >= 1 there is no finite mean): read the median "
            "and the interval"]


#: the share of a point's draws lifted to the critical path from which the time there
#: is said to rest on it: a majority, so that its median is the critical path's
ON_SPAN_SHARE = 0.5


def on_critical_path(points, pred) -> list[str]:
    """A message (in a list, empty if none) when most draws of a DAG model's time at
    some points were lifted to the critical path (the span law, ``time >= T_inf``),
    naming the point with the largest such share. There the parts' time per worker fell
    below the span: the interval is the span law's, its lower end as sound as that law
    this far out (session 46's hunt: a critical path of 1e-5 s in the runs, fitted by
    ``c+n^3 log n``, put the lower end 2.5x above the truth; it was called firm), its
    width only the span's own uncertainty, and the overheads that come on top of the
    span on that many workers (steals along the critical path, contention) are what the
    training runs did not show.

    Examples
    --------
    >>> import pandas as pd
    >>> from probperf.dag import Prediction
    >>> points = pd.DataFrame({"n": [2.0**20, 64], "p": [36, 2]})
    >>> parts = np.full((4, 2), [36.0, 2.0])  # time 1 in every draw at both points
    >>> span = np.array([[1.0, 0.5], [1.0, 0.5], [1.0, 0.5], [0.9, 0.5]])
    >>> pred = Prediction({"work": parts, "delay": 0 * parts, "no_work": 0 * parts, "critical_path": span,
    ...                    "serial_work": parts}, points)
    >>> on_critical_path(points, pred)[0].split(":")[0]
    'at n=2^20,p=36 the time is the critical path in 3 of its 4 draws (their work, delay and idle time per worker fell below it)'
    >>> on_critical_path(points, pred[1:])  # at p=2 the parts stay above it
    []
    """
    if not hasattr(pred, "on_span"):  # not a DAG model's prediction
        return []
    lifted = pred.on_span()
    bad = np.flatnonzero(lifted > ON_SPAN_SHARE)
    if not len(bad):
        return []
    i = bad[np.argmax(lifted[bad])]
    more = more_points(len(bad) - 1)
    return [f"at {point_text(points.iloc[i])} the time is the critical path in {int(round(lifted[i] * pred.n_draws))} "
            f"of its {pred.n_draws} draws (their work, delay and idle time per worker fell below it): the interval "
            "there is the critical path's own law, extrapolated (its lower end holds only as far as that law does: "
            "a span measured tiny and noisy in the runs can grow wild), its width only the critical path's "
            # (not "on this many workers": at a measured worker count too, helper-88)
            f"uncertainty, without the overheads that come on top of the span (steals along it, contention){more}"]


#: fewer draws than this expected beyond each end of an interval: its ends are a few
#: extreme draws (or the smallest and largest), not the quantiles the level names
MIN_TAIL_DRAWS = 5


def few_tail_draws(level: float, n_draws: int, option: str = "--draws") -> list[str]:
    """A message (in a list, empty if none) when an interval of ``level`` from
    ``n_draws`` draws has fewer than :data:`MIN_TAIL_DRAWS` draws expected beyond each
    end: its bounds are then the most extreme draws (with one draw, the draw itself),
    not the quantiles the level claims, and an interval that looks narrow is no
    narrower than the model's. ``option`` names how to ask for more draws.

    Examples
    --------
    >>> few_tail_draws(0.9, 1000), few_tail_draws(0.9, 100), few_tail_draws(0.8, 50)
    ([], [], [])
    >>> few_tail_draws(0.9, 1)[0]
    'a 90% interval from 1 draw has about 0.05 draws beyond each end, so its ends rest on the few most extreme draws, not on the 5% and 95% quantiles: give --draws 100 or more'
    >>> few_tail_draws(0.9999999, 1000)[0].split(": ")[1]
    'lower --level (at most 100000 draws hold 5 beyond each end of a 99.99% interval)'
    """
    from .limits import MAX_DRAWS
    from .predict import level_text

    tail = n_draws * (1 - level) / 2
    if tail >= MIN_TAIL_DRAWS * (1 - 1e-9):  # 100 draws at 0.9: 4.999... in floating point is 5
        return []
    needed = int(np.ceil(2 * MIN_TAIL_DRAWS / (1 - level) - 1e-9))
    needed = int(10 ** np.ceil(np.log10(needed))) if needed > 10 else needed  # a round number to type
    low, high = (1 - level) / 2, (1 + level) / 2
    fix = (f"give {option} {needed} or more" if needed <= MAX_DRAWS else
           f"lower --level (at most {MAX_DRAWS} draws hold {MIN_TAIL_DRAWS} beyond each end of a "
           f"{level_text(1 - 2 * MIN_TAIL_DRAWS / MAX_DRAWS)} interval)")
    text = level_text(level)
    article = "an" if re.match(r"(8|11\D|18\D)", text) else "a"  # an 80%, an 18.5%
    return [f"{article} {text} interval from {n_draws} draw{'s' * (n_draws != 1)} has about {tail:.2g} draws "
            f"beyond each end, so its ends rest on the few most extreme draws, not on the {100 * low:.10g}% and "
            f"{100 * high:.10g}% quantiles: {fix}"]


def point_text(row) -> str:
    """A point as ``n=2^24,p=36`` (:func:`number_text`).

    Examples
    --------
    >>> point_text({"n": 2.0**24, "p": 36.0})
    'n=2^24,p=36'
    """
    return ",".join(f"{c}={number_text(v)}" for c, v in row.items())


def counted(k: int, noun: str) -> str:
    """``k`` and ``noun``, plural unless one: ``1 run``, ``2 runs``.

    Examples
    --------
    >>> counted(1, "run"), counted(0, "row"), counted(12, "run")
    ('1 run', '0 rows', '12 runs')
    """
    return f"{k} {noun}{'' if k == 1 else 's'}"


def number_text(v) -> str:
    """A parameter or result as the tables and warnings print it: powers of two from
    1024 on as ``2^k``, other whole numbers in full, the rest to 4 digits.

    Examples
    --------
    >>> number_text(2.0**24), number_text(36.0), number_text(1e300), number_text(0.0123456)
    ('2^24', '36', '1e+300', '0.01235')
    """
    if isinstance(v, str):
        return v
    v = float(v)
    if v.is_integer() and v >= 1024 and (int(v) & (int(v) - 1)) == 0:
        return f"2^{int(v).bit_length() - 1}"
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v)}"
    return f"{v:.4g}"


def column_texts(values) -> list[str]:
    """:func:`number_text` of each value, with as many more digits as it takes for
    distinct values to read differently (a column of points given as 1000.5 and 1000.4
    would show two rows of 1000).

    Examples
    --------
    >>> column_texts([1000.5, 1000.4, 1000.5, 2.0**20])
    ['1000.5', '1000.4', '1000.5', '2^20']
    >>> column_texts([0.5, 0.25])
    ['0.5', '0.25']
    """
    values = [float(v) for v in values]
    texts = [number_text(v) for v in values]
    for digits in range(5, 18):  # 17 significant digits tell any two doubles apart
        if len(set(texts)) == len(set(values)):
            break
        texts = [t if float(v).is_integer() and abs(v) < 1e15 or t.startswith("2^") else f"{v:.{digits}g}"
                 for v, t in zip(values, texts)]
    return texts
