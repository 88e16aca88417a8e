"""Figures: prediction bands against measured points, actual-vs-predicted.

Matplotlib with the Agg backend (no screen needed); every function draws on an ``ax``
it is given or creates one, and returns the figure.
"""

from __future__ import annotations

import os
import textwrap
import warnings
from typing import Mapping

import numpy as np
import pandas as pd

from . import userwarn
from .cautions import ExtrapolationWarning, number_text, trained_whole, training_values, without_mean_caution
from .selection import far_factor
from .limits import is_whole
from .data import COUNT_METRICS, Measurements, check_positive_finite, metric_label
from .predict import UNKNOWN_PARAM, Predictive, check_level, level_text, point_table


def _axes(ax):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    _check_ax(ax)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    return ax.figure, ax


def sweep(model, vs: str, at: Mapping, lo: float | None = None, hi: float | None = None, num: int = 40) -> pd.DataFrame:
    """Points along ``vs``, other parameters fixed at ``at`` (or the model's constant
    defaults); the sweep covers the training values and reaches ``at[vs]``, beyond
    them on either side. Log-spaced (:func:`log_axis`), else evenly; whole numbers
    where ``vs`` takes only whole values (:func:`_whole`: ``p``, a cut-off measured at
    8, 16, ..., 512).

    Examples
    --------
    >>> class Fitted:
    ...     train_ranges_ = {"n": [1024, 4096], "p": [1, 8], "cutoff": [8, 512], "code": [0, 2]}
    ...     train_points_ = {"cutoff": [8, 64, 512], "code": [0, 1, 2], "p": [1, 7, 8]}
    >>> sweep(Fitted(), "p", {"n": 4096, "p": 16})["p"].tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 11.0, 13.0, 16.0]
    >>> sweep(Fitted(), "n", {"n": 256, "p": 4}, num=3)["n"].round(6).tolist()
    [256.0, 1024.0, 4096.0]
    >>> sweep(Fitted(), "cutoff", {"n": 4096, "p": 4}, num=4)["cutoff"].tolist()
    [8.0, 32.0, 64.0, 128.0, 512.0]
    >>> sweep(Fitted(), "code", {"n": 4096, "p": 4})["code"].tolist()
    [0.0, 1.0, 2.0]
    >>> sweep(Fitted(), "cutoff", {"n": 4096, "p": 4, "cutoff": 64.5}, num=4)["cutoff"].tolist()
    [8.0, 32.0, 64.0, 64.5, 128.0, 512.0]
    >>> sweep(Fitted(), "p", {"n": [4096, 8192]})
    Traceback (most recent call last):
    ...
    ValueError: at: n takes one value in a sweep along p, got [4096, 8192]; make one band per value
    """
    many = [k for k, v in at.items() if np.ndim(v) != 0]
    if many:  # numpy's "operands could not be broadcast" named nothing
        raise ValueError(f"at: {many[0]} takes one value in a sweep along {vs}, got {at[many[0]]!r}; "
                         "make one band per value")
    ranges = getattr(model, "train_ranges_", {})
    end = at.get(vs)
    lo = lo if lo is not None else min(ranges.get(vs, [1, 1])[0], float(end if end is not None else np.inf))
    hi = hi if hi is not None else max(float(at.get(vs, lo)), ranges.get(vs, [lo, lo])[1])
    whole = _whole(model, vs)
    if vs == "p":
        lo, hi = max(lo, 1), max(hi, 1)
    if whole:  # no more points than whole values between
        num = min(num, int(hi - lo) + 1)
    grid = np.geomspace(lo, hi, num=num) if log_axis(lo) else np.linspace(lo, hi, num=num)
    if whole:  # the measured values among them: a band through p = 7 where p = 7 was run
        measured = training_values(model, vs)
        grid = np.round(grid)
        grid = np.union1d(grid[(grid >= lo) & (grid <= hi)], measured[(measured >= lo) & (measured <= hi)])
        if end is not None:  # the value asked, whole or not (a warning names it if not), and only it
            grid = np.union1d(grid, [float(end)])
    points = {k: v for k, v in at.items() if k != vs}
    for k, v in getattr(model, "defaults_", {}).items():
        points.setdefault(k, v)
    points[vs] = grid
    return pd.DataFrame({k: np.broadcast_to(np.asarray(v, dtype=float), grid.shape) for k, v in points.items()})


def _whole(model, vs: str) -> bool:
    """Whether a sweep of ``vs`` keeps to whole values: ``p`` always, ``n`` never (a
    size is continuous enough), any other parameter where every training value is
    whole (cut-offs, block sizes; a parameter measured at 1.25 is continuous). A
    value asked that is not whole joins the sweep alone (:func:`sweep`; helper-65: a
    cut-off of 64.5 inside the range made the whole sweep fractional, and the warning
    named 8.9, a value nobody typed).

    Examples
    --------
    >>> class Fitted:
    ...     train_points_ = {"n": [8, 16], "cutoff": [8, 64], "alpha": [1, 1.25, 2]}
    >>> [_whole(Fitted(), v) for v in ("p", "n", "cutoff", "alpha")]
    [True, False, True, False]
    """
    if vs in ("p", "n"):
        return vs == "p"
    # nothing known of its values: drawn as continuous
    return trained_whole(model, vs)


def unwhole(model, points, given) -> list[tuple[int, str]]:
    """``(row, parameter)`` where a parameter worked out from the others (not in
    ``given``, a per-row mask or a set of names) is not whole although :func:`_whole`
    says the parameter keeps to whole values (``p``; ranks per node measured 1, 2, 4):
    ``ppn = p / nodes`` at ``p=16, nodes=3`` is no layout a machine runs.

    Examples
    --------
    >>> import pandas as pd
    >>> class Fitted:
    ...     train_points_ = {"ppn": [1, 2, 4]}
    >>> unwhole(Fitted(), pd.DataFrame({"nodes": [4.0, 3.0], "ppn": [4.0, 16 / 3]}), {"nodes"})
    [(1, 'ppn')]
    """
    out = []
    for c in points.columns:
        derived = ~given[c].to_numpy() if hasattr(given, "columns") and c in given else np.full(len(points), c not in given)
        x = points[c].to_numpy(dtype=float)
        bad = derived & ~is_whole(x) & ~np.isnan(x)
        if bad.any() and _whole(model, c):
            out += [(int(i), c) for i in np.flatnonzero(bad)]
    return sorted(out)


def log_axis(lo: float) -> bool:
    """Whether a sweep from ``lo`` runs on a log scale: sizes, workers and cut-offs grow
    by factors, but a parameter reaching 0 or below (a code, an offset) has no log.

    Examples
    --------
    >>> log_axis(1.0), log_axis(0.0)
    (True, False)
    """
    return lo > 0


def _check_ax(ax) -> None:
    """Refuse an ``ax`` that is no matplotlib Axes, before the minutes of a prediction."""
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes (fig, ax = plt.subplots()), got {type(ax).__name__}")


def _check_model(model, who: str) -> None:
    """Refuse what is no fitted model (``None``, a path) by name, before it is used."""
    if not callable(getattr(model, "predict", None)):  # any model with predict(points, n_draws) (duck typed)
        kind = type(model).__name__
        raise TypeError(f"{who} needs a fitted model (DagModel, DirectModel or PenaltyModel, or probperf.load(path)), "
                        f"got {kind}")


def _checked_at(model, at) -> dict:
    """``at`` as a dict of the model's parameters, each value a finite number: a name the
    model does not know (or a metric, ``time=3``) is refused, never drawn into a title.

    Examples
    --------
    >>> class Fitted:
    ...     features_ = ["n", "p"]
    >>> _checked_at(Fitted(), {"n": 64, "time": 3})
    Traceback (most recent call last):
    ...
    ValueError: at: the model has no parameter 'time'; its parameters are n, p
    """
    if at is None:
        return {}
    if not isinstance(at, Mapping):
        raise TypeError(f"at must be a mapping of parameter -> value (at={{'n': 2**20, 'p': 36}}), "
                        f"got {type(at).__name__}")
    at = dict(at)
    features = list(getattr(model, "features_", at))
    unknown = [k for k in at if k not in features]
    if unknown:
        raise ValueError("at: " + UNKNOWN_PARAM.format(name=unknown[0], features=", ".join(features)))
    if at:
        point_table(at, list(at))  # each value a finite number, named if not
    return at


def check_sweep(model, vs: str) -> None:
    """``ValueError`` unless ``vs`` is a parameter of ``model`` (what ``--vs`` may name).

    Examples
    --------
    >>> class Fitted:
    ...     features_ = ["n", "p", "cutoff"]
    >>> check_sweep(Fitted(), "depth")
    Traceback (most recent call last):
    ...
    ValueError: --vs must be one of the model's parameters (n, p, cutoff), got 'depth'
    """
    params = list(getattr(model, "features_", ("n", "p")))
    if vs not in params:
        raise ValueError(f"--vs must be one of the model's parameters ({', '.join(params)}), got {vs!r}")


#: Largest magnitude (and, inverted, smallest) a band's log axes are asked to draw.
#: Why: matplotlib's log axes fail beyond about 1e260 (matplotlib 3.11: an OverflowError while
#: placing the ticks from 1e270 on, or an empty figure where its 5 % margins leave the
#: floats), measured for both axes, bases 2 and 10; 1e200 stays well inside on any
#: version. A sweep or a band beyond it is refused with a message, not drawn wrong.
AXIS_MAX = 1e200


def _check_axis(values, what: str, vs: str = "", x=None) -> None:
    """Refuse ``values`` a band's log axis cannot draw (:data:`AXIS_MAX`): named by the
    most extreme one, or, along a sweep ``x`` of ``vs``, by the first point beyond."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    off = np.flatnonzero((values > AXIS_MAX) | ((values < 1 / AXIS_MAX) & (values > 0)))
    if not len(off):
        return
    if x is None:
        told = f"reaches {number_text(values[off][np.argmax(np.abs(np.log10(values[off])))])}"
    else:
        told = f"is {number_text(values[off[0]])} from {vs}={number_text(x[off[0]])} on"
    raise ValueError(f"{what} {told}, beyond what a plot's log axis draws ({1 / AXIS_MAX:g} to {AXIS_MAX:g}); "
                     f"end the sweep closer to the measured range")


def plot_band(model, vs: str = "n", at: Mapping | None = None, data: Measurements | None = None,
              levels=(0.5, 0.9), n_draws: int = 2000, ax=None, title: str | None = None):
    """Median and central bands of predicted time along ``n``, ``p`` or a configuration
    parameter of the model (a task cut-off: which one is fastest at the target size).

    Parameters
    ----------
    model : fitted DagModel, DirectModel or PenaltyModel
    vs : str
        The axis to sweep (``n``, ``p`` or a parameter in ``model.features_``); other
        parameters are fixed at ``at``.
    at : mapping
        Values of the other parameters (and the sweep's end, if beyond training).
    data : Measurements, optional
        Measured runs to draw as points (those matching ``at`` on the fixed parameters).
    levels : float or tuple of float
        Interval levels to shade, each in (0, 1).

    Examples
    --------
    >>> from probperf.predict import Predictive
    >>> class PowerLaw:  # any fitted model with predict(points, n_draws) -> Predictive
    ...     train_ranges_ = {"n": [2**10, 2**14], "p": [1, 8]}
    ...     def predict(self, pts, n_draws):
    ...         t = 1e-8 * pts["n"].to_numpy() / pts["p"].to_numpy()
    ...         noise = np.random.default_rng(0).lognormal(0, 0.05, (n_draws, len(pts)))
    ...         return Predictive(t * noise, pts)
    >>> fig = plot_band(PowerLaw(), vs="p", at={"n": 2**16, "p": 36})
    >>> fig.axes[0].get_xlabel()
    'p'
    """
    if hasattr(model, "_check_fitted"):
        model._check_fitted()  # before its (absent) training ranges shape the sweep
    else:
        _check_model(model, "plot_band")
    _check_ax(ax)
    check_sweep(model, vs)
    at = _checked_at(model, at)
    levels = [check_level(level) for level in np.atleast_1d(levels).tolist()]
    if data is not None and not isinstance(data, Measurements):
        raise TypeError(f"data must be a probperf Measurements table (pp.Measurements(frame)), got {type(data).__name__}")
    from .models.points import complete_points, relations_of

    # a parameter the others make (p = nnodes * ppn), left out of ``at``, follows the sweep,
    # at the points where it is whole if it always was (ranks per node)
    defaults = getattr(model, "defaults_", {})
    held = {vs, *at, *defaults}  # swept, given or constant in training; the rest follows the sweep
    pts = complete_points(sweep(model, vs, at), relations_of(model))
    unfixed = [c for c in getattr(model, "features_", []) if c not in pts]
    if unfixed:  # varied in training, so no default: the band needs a value (its largest, say)
        largest = {c: training_values(model, c).max(initial=-np.inf) for c in unfixed}
        example = ", ".join(f"{c!r}: {number_text(v) if np.isfinite(v) else '...'}" for c, v in largest.items())
        raise ValueError(f"the band along {vs} needs a value of {', '.join(unfixed)}, which varied in training: "
                         f"give it in at, e.g. at={{{example}}}")
    _check_axis(pts[vs], f"the sweep of {vs} (the training values and the point asked)")
    if pts[vs].nunique() < 2:  # one value, however many points (a geometric grid from 100 to 100)
        raise ValueError(f"--vs {vs}: the model was trained at one value of {vs} ({number_text(pts[vs].iloc[0])}) "
                         f"and the point asks for no other; nothing to sweep")
    broken = unwhole(model, pts, held)
    kept = pts.drop(index=pts.index[sorted({i for i, _ in broken})]).reset_index(drop=True)
    if kept[vs].nunique() < 2:  # helper-85: said "trained at one value", or crashed on an empty table
        fixed = ", ".join(f"{k}={number_text(v)}" for k, v in pts.iloc[0].items() if k in held and k != vs)
        raise ValueError(f"--vs {vs}: at {fixed}, {'no' if kept.empty else 'one'} value of {vs} in the sweep keeps "
                         f"{broken[0][1]} whole, as it was in every training run; nothing to sweep")
    pts = kept
    given = {k: v for k, v in pts.iloc[0].to_dict().items() if k in held}
    # overflow far out is refused below, once; the band shows no mean, so no caution about it
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with without_mean_caution():  # inside: its filter must come before "always"
            pred = model.predict(pts, n_draws=n_draws)
    for w in said:  # cautions said again from here, so that they point at the caller's plot_band line
        if issubclass(w.category, ExtrapolationWarning):
            userwarn.warn(w.message, w.category)
        else:  # any other warning as it was raised, where it was raised
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    x = pts[vs].to_numpy()
    # what is drawn, the bands' ends, is checked, not every draw: a few draws overflowing
    # far out leave a finite band (predict gives it), whose end the axis check names
    for level in sorted(levels, reverse=True):  # the widest reaches furthest
        what = f"the {level_text(level)} interval"
        for bound in pred.interval(level):
            bad = np.flatnonzero(~np.isfinite(bound))
            _check_axis(bound[:bad[0]] if len(bad) else bound, what, vs, x)  # the nearer fault first
            if len(bad):
                raise ValueError(f"{what} is not finite from {vs}={number_text(x[bad[0]])} on (overflow far "
                                 "beyond the data); end the sweep closer to the measured range")
    fig, ax = _axes(ax)
    # wider bands lighter: 0.18, 0.34, 0.5 for three, every level drawn however many
    for level, alpha in zip(sorted(levels, reverse=True), np.minimum(0.18 + 0.16 * np.arange(len(levels)), 0.9)):
        lo, hi = pred.interval(level)
        ax.fill_between(x, lo, hi, color="C0", alpha=alpha, lw=0, label=f"{level_text(level)} interval")
    ax.plot(x, pred.median, color="C0", lw=2, label="median")
    metric, unit = pred.name or "time", getattr(model, "unit_", "s")
    if data is not None:
        data = data.in_unit(unit)  # cycles with a rate, in seconds as fit converts them
        if data.unit != unit and metric not in COUNT_METRICS:  # seconds on a cycles axis: orders of magnitude off
            how = " or the clock rate they were counted at (--clock-hz HZ)" if data.unit == "cycles" else ""
            if unit == "cycles":  # seconds cannot become cycles without a rate; a file of counts read as seconds can
                how = " (a file of cycle counts is read with --unit cycles)"
            raise ValueError(f"the measurements drawn (--data) are in {data.unit}, the model in {unit}: give runs in "
                             f"the model's unit{how}")
        _measured(ax, data, vs, given, metric)
    ranges = getattr(model, "train_ranges_", {})
    if vs in ranges:
        ax.axvline(ranges[vs][1], color="gray", ls=":", lw=1, label="largest training value")
        far = far_factor(*ranges[vs][:2]) * ranges[vs][1]
        if ranges[vs][1] > 0 and x.max() > far:  # where predict starts to warn: the laws' form alone
            ax.axvline(far, color="gray", ls="--", lw=1, label=f"{far_factor(*ranges[vs][:2]):.3g}x beyond: the laws' form alone")
        if x.min() < ranges[vs][0]:  # below the range predict warns at once: no forward split looks there
            ax.axvline(ranges[vs][0], color="gray", ls="-.", lw=1, label="smallest training value")
    measured = np.unique(training_values(model, vs))
    if len(measured):  # where the runs were, even where none matches the fixed point (n=2^24)
        ax.plot(measured, np.full(len(measured), 0.03), "^", color="C1", ms=6, clip_on=False,
                transform=ax.get_xaxis_transform(), label=f"{vs} of the training runs")
    if log_axis(x.min()):
        ax.set_xscale("log", base=2)
        shown = ax.get_xlim()  # the sweep and the runs drawn (helper-85: wide --data runs on a narrow sweep)
        if np.log2(max(shown)) - np.log2(min(shown)) < 2:  # two powers of 2 at most inside (70..120 had none):
            from matplotlib import ticker                 # plain numbers, or the sweep cannot be read (helper-84)

            ax.xaxis.set_major_locator(ticker.MaxNLocator(nbins=5))
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: number_text(v)))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_yscale("log")
    ax.set_xlabel(vs)
    ax.set_ylabel(metric_label(metric, unit))
    fixed = ", ".join(f"{k}={number_text(v)}" for k, v in given.items() if k != vs)
    ax.legend(fontsize=8)
    fit_title(ax, title or f"predicted {metric} vs {vs} ({fixed})")
    return fig


def fit_title(ax, text: str, margin: float = 4.0) -> None:
    """Give ``ax`` the title ``text`` and lay its figure out, wrapping the title onto
    more lines until it lies inside the figure, ``margin`` pixels from each edge.

    A title is centred on its axes, so a long one (a model with many fixed parameters)
    was cut at both edges of the figure.

    Examples
    --------
    >>> fig, ax = _axes(None)
    >>> fit_title(ax, "predicted time vs p (" + ", ".join(f"cutoff{i}=512" for i in range(8)) + ")")
    >>> len(ax.get_title().splitlines())
    2
    """
    fig = ax.figure
    title = ax.set_title(text)
    fig.tight_layout()
    # Each pass narrows the lines by the ratio of room to width; text measures almost
    # in proportion to its characters, so one or two passes do. The bound only guards
    # against a font whose widths defy that.
    for _ in range(10):
        box = title.get_window_extent(fig.canvas.get_renderer())
        centre = (box.x0 + box.x1) / 2
        room = 2 * (min(centre, fig.bbox.width - centre) - margin)
        if box.width <= room:
            return
        longest = max(len(line) for line in title.get_text().splitlines())
        title.set_text(textwrap.fill(text, max(1, min(longest - 1, int(longest * room / box.width)))))
        fig.tight_layout()


def matching_runs(data: Measurements, vs: str, fixed: Mapping, metric: str = "time") -> pd.DataFrame:
    """The runs of ``data`` a band along ``vs`` at ``fixed`` draws as points: those with
    ``metric`` measured and every other parameter at its fixed value.

    Examples
    --------
    >>> runs = Measurements({"n": [8, 16, 16], "p": [1, 1, 2], "time": [1.0, 2.0, 1.1]})
    >>> matching_runs(runs, "n", {"n": 64, "p": 1})["n"].tolist(), len(matching_runs(runs, "n", {"p": 4}))
    ([8, 16], 0)
    """
    frame = data.frame
    if metric not in frame:
        return frame.iloc[:0]
    mask = frame[metric].notna().to_numpy().copy()
    for k, v in fixed.items():
        if k != vs and k in frame:
            mask &= np.isclose(frame[k].to_numpy(dtype=float), float(v))
    return frame[mask]


#: How far the runs drawn may lie from the band's median (a factor, either way) before
#: plot asks whether they are in another unit. Why 100: a model that was fitted on such
#: runs is within a few tens of per cent of them, and a unit mixed up is a factor of
#: 1000 (ms, s) or about 1e9 (cycles); a factor of 100 is neither a fit nor noise.
UNIT_SLIP = 100.0


def unit_slip(model, data: Measurements, vs: str, fixed: Mapping, metric: str = "time",
              read_as_cycles: bool = False) -> str:
    """A caution when the runs drawn lie :data:`UNIT_SLIP` or more from the model's
    median at the same points (seconds read as cycles, milliseconds as seconds), else "";
    ``read_as_cycles``: the runs were read with a unit and clock rate already, so the
    caution does not advise them.

    Examples
    --------
    >>> class Model:
    ...     features_ = ["n", "p"]
    ...     def predict(self, X, n_draws=None, seed=None):
    ...         return type("P", (), {"median": 1e-3 * X["n"].to_numpy()})()
    >>> runs = Measurements({"n": [8, 16], "p": [1, 1], "time": [8e6, 1.6e7]})
    >>> unit_slip(Model(), runs, "n", {"p": 1}).split("?")[0], unit_slip(Model(), runs.with_columns(time=[0.01, 0.02]), "n", {"p": 1})
    ('the runs drawn are about 1e+09x the band: in another unit', '')
    >>> unit_slip(Model(), runs, "n", {"p": 1}, read_as_cycles=True)
    'the runs drawn are about 1e+09x the band: in another unit?'
    """
    sub = matching_runs(data, vs, fixed, metric)
    if not len(sub) or any(f not in sub for f in model.features_):
        return ""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the band's own cautions are said already
        median = np.asarray(model.predict(sub[model.features_], n_draws=200, seed=0).median, dtype=float)
    ratio = float(np.median(sub[metric].to_numpy(dtype=float) / median))
    if not np.isfinite(ratio) or 1 / UNIT_SLIP < ratio < UNIT_SLIP:
        return ""
    hint = ("" if read_as_cycles  # read so already: no circular advice (helper-84)
            else " (a CSV or JSON file of cycle counts is read with --unit cycles --clock-hz HZ; times must be in seconds)")
    return f"the runs drawn are about {ratio:.3g}x the band: in another unit?{hint}"


def _measured(ax, data: Measurements, vs: str, fixed: Mapping, metric: str = "time"):
    sub = matching_runs(data, vs, fixed, metric)
    if len(sub):
        ax.scatter(sub[vs], sub[metric], color="k", s=14, zorder=3, label="measured")


def plot_actual_vs_predicted(actual, pred, level: float = 0.9, ax=None, label: str | None = None):
    """Predicted median with ``level`` error bars against measured values (log-log).

    Examples
    --------
    >>> from probperf.predict import Predictive
    >>> truth = np.array([1.0, 2.0, 4.0])
    >>> pred = Predictive(truth * np.random.default_rng(1).lognormal(0, 0.1, (500, 3)))
    >>> fig = plot_actual_vs_predicted(truth, pred)
    >>> fig.axes[0].get_xlabel()
    'measured'
    """
    if not isinstance(pred, Predictive):
        raise TypeError(f"pred must be a Predictive (a model's predict), got {type(pred).__name__}")
    actual = np.asarray(actual, dtype=float).ravel()
    if len(actual) != pred.n_points:
        raise ValueError(f"{len(actual)} measured values for {pred.n_points} predicted points")
    check_positive_finite(actual, "actual (on log axes)")
    fig, ax = _axes(ax)
    lo, hi = pred.interval(level)
    med = pred.median
    ax.errorbar(actual, med, yerr=[med - lo, hi - med], fmt="o", ms=3, alpha=0.7, label=label)
    lim = [min(actual.min(), lo.min()), max(actual.max(), hi.max())]
    ax.plot(lim, lim, "k--", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured")
    ax.set_ylabel(f"predicted (median, {level_text(level)} interval)")
    if label:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figure_suffixes() -> dict[str, str]:
    """The figure formats matplotlib writes, ``{suffix: description}``.

    Examples
    --------
    >>> "png" in figure_suffixes() and "csv" not in figure_suffixes()
    True
    """
    from matplotlib.backend_bases import FigureCanvasBase

    return FigureCanvasBase.get_supported_filetypes()


def figure_format(path, what: str = "-o") -> str:
    """The format a figure is written in at ``path``, from its suffix (``png`` when it
    has none), after :func:`~probperf.outputs.check_output`; an unknown suffix is a
    ``ValueError`` naming the formats matplotlib writes.

    Examples
    --------
    >>> figure_format("band.svg"), figure_format("band")
    ('svg', 'png')
    """
    from .outputs import check_output

    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    known = figure_suffixes()
    if suffix and suffix not in known:
        raise ValueError(f"{what} {os.fspath(path)}: unknown figure format {suffix!r}; use one of "
                         f"{', '.join(sorted(known))}")
    if suffix == "pgf":  # matplotlib writes PGF by running a TeX system, which is not Python's
        import shutil

        import matplotlib

        tex = matplotlib.rcParams["pgf.texsystem"]
        if shutil.which(tex) is None:
            raise ValueError(f"{what} {os.fspath(path)}: a .pgf figure needs {tex} (matplotlib's "
                             "pgf.texsystem), which is not installed here; write .pdf or .svg")
    check_output(path, what)
    return suffix or "png"


def save_figure(fig, path, fmt: str) -> None:
    """Write ``fig`` to exactly ``path`` in format ``fmt``, atomically (a temporary file
    renamed onto it), so a failed or interrupted save leaves no half-written figure.

    Examples
    --------
    >>> import os, tempfile
    >>> fig, ax = _axes(None)
    >>> path = os.path.join(tempfile.mkdtemp(), "band")
    >>> save_figure(fig, path, figure_format(path))
    >>> open(path, "rb").read(4)
    b'\x89PNG'
    """
    import logging

    from .outputs import atomic_write

    if fmt in ("ps", "eps"):  # said once in the tool's words, not by matplotlib's log
        userwarn.warn(f"{os.fspath(path)}: PostScript has no transparency, so the bands are drawn "
                      "opaque; write .pdf or .svg to keep them see-through")
    ps_log = logging.getLogger("matplotlib.backends.backend_ps")
    level = ps_log.level
    ps_log.setLevel(logging.ERROR)
    try:
        atomic_write(path, lambda tmp: _savefig(fig, tmp, fmt, os.path.basename(os.fspath(path))))
    finally:
        ps_log.setLevel(level)


def _savefig(fig, tmp: str, fmt: str, name: str) -> None:
    """``fig.savefig`` into ``tmp``; compressed SVG gzipped here, so that the gzip header
    names the figure (``name`` less ``z``), not the temporary file (helper-84: ``gunzip
    -N`` restored ``.band.svgz.x1y2.tmp``)."""
    if fmt != "svgz":
        fig.savefig(tmp, format=fmt)
        return
    import gzip
    import io

    svg = io.BytesIO()
    fig.savefig(svg, format="svg")
    svg_name = name[:-1] if name[-1:] in "zZ" else name  # band.svgz, BAND.SVGZ -> band.svg, BAND.SVG
    with open(tmp, "wb") as raw, gzip.GzipFile(filename=svg_name, mode="wb", fileobj=raw) as out:
        out.write(svg.getvalue())
