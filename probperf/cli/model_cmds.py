"""``probperf fit``, ``predict`` and ``plot``, ``demo`` (the command-line contracts: docs/cli.md)."""

from __future__ import annotations

import contextlib
import json
import re
import warnings
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .. import registry
from ..data import COUNT_METRICS, RESULT_COLUMNS, TRACED_METRICS, TRAIN_SPLIT, metric_label
from ..limits import MAX_DRAWS, MAX_EXACT_INT, MAX_SIM_SEED
from ..predict import level_text
from ..cautions import (ExtrapolationWarning, column_texts, few_tail_draws, kinds_apart, number_text, point_text,
                        without_mean_caution)
from ._app import (app, bad_input, console, fail, number, parse_assignments, parse_points, require_stdout,
                   say_written, shown, split_rows, warn)
from . import reading as reading_options
from .reading import read_measurements, reads_measurements

#: what ``fit --model`` takes: the registry's models that can be saved to a model file
MODELS = tuple(registry.names(saved_only=True))
#: Why predict refuses an inf/nan median or bound (never printed with exit 0).
NOT_FINITE = "the prediction is not finite (overflow far beyond the data); predict closer to the measured range"
#: Why predict refuses a run time whose median (or interval's lower end) is 0 or below:
#: no run takes no time, so the model does not hold at that point (a reference model's
#: ``n^j log^k n`` terms all vanish at n = 1, say; a network's draws fall below 0 and are
#: clipped there), and an interval [0, 0] would claim a certainty it has not.
NOT_POSITIVE = ("the {what} at {point} is {value:g}, but a run time is positive: the model does not "
                "hold there; predict closer to the measured range or fit --model auto")


@app.command()
@reads_measurements()
def fit(
    data: str = typer.Argument(..., metavar="DATA",
                               help="Measurements file or quoted glob (.csv .parquet .jsonl .stat .txt .extrap), as for validate."),
    *,
    target: str = typer.Option("time", help="Metric to predict."),
    model: str = typer.Option("auto", help=f"{' | '.join(MODELS)} (see the docs' Concepts page, section Models)."),
    kernel: Optional[str] = typer.Option(None, help="'laws' (default: stacked closed-form laws), 'basis' or a GP kernel spec such as 'sm4+linear'."),
    output: Path = typer.Option(..., "-o", "--output", help="Model file to write."),
    reading: dict,
    split: Optional[str] = typer.Option(TRAIN_SPLIT, help="Fit on rows with this split label, when the table has one."),
    effort: str = typer.Option("default", help="Inference effort of --kernel basis or a GP kernel: quick | default | "
                               "thorough (NUTS, more GP restarts); the default law mixtures have none."),
    fast: bool = typer.Option(False, "--fast", hidden=True, help="Same as --effort quick (kept for old scripts)."),
    seed: str = typer.Option("0", metavar="INTEGER", help="Random seed."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars (they go to stderr)."),
):
    """Fit a model and save it to a model file."""
    from .. import persist, progress
    from ..data import MeasurementError
    from ..doctor import averaged_runs, fixed_directions

    if model not in MODELS:
        fail(f"--model must be one of {', '.join(MODELS)}, got {model!r}")
    problem = registry.target_problem(target)
    if problem:
        fail(f"--target {target!r}: {problem}")
    seed = number("--seed", seed, integer=True, low=0)
    asked = effort  # the hidden --fast (old scripts) asks for speed, which a model without effort has already
    effort = "quick" if fast else effort
    with bad_input():
        if kernel is not None:
            _check_spec("--kernel", kernel)
        _check_spec("--effort", effort)
        if model != registry.AUTO:  # before the data are read: a kernel or target the model refuses
            registry.make(model, kernel=kernel, target=target, effort=effort)
        if asked != "default" and not registry.takes_effort(model, kernel):  # never dropped without a word
            raise ValueError(_no_effort(model, kernel))
        persist.check_model_path(output, "-o")  # before the fit: minutes of work must not be lost to a bad path
    m = read_measurements([data], reading)
    with bad_input():
        m = split_rows(m, split, "fitting on")
        averaged = averaged_runs(m)
        if averaged:  # said before the fit, not dropped without a word
            warn(f"{shown(data)}: {averaged}")
        m, left = registry.dag_runs(m, target, model)
        if left:  # runs without a trace: left out of the DAG model, and said
            warn(f"{shown(data)}: {left}")
        with progress.reporting(enabled=not quiet), warnings.catch_warnings():
            warnings.simplefilter("ignore", registry.ModelChoiceWarning)  # said above, with the file's name
            if averaged:  # likewise
                warnings.filterwarnings("ignore", message=re.escape(averaged))
            try:
                # the rows were chosen above (split_rows), where it is said which
                fitted = registry.fit(m, target=target, model=model, kernel=kernel, effort=effort, seed=seed,
                                      split=None)
            except MeasurementError as exc:  # names its file (and line) already
                if model != registry.AUTO and target == "time" and exc.column in TRACED_METRICS:
                    # a model of the DAG metrics asked for by name on times alone: the way on
                    raise MeasurementError(f"{exc.message}; times alone are modelled with --model auto",
                                           exc.source, exc.line, exc.column) from None
                raise
            except ValueError as exc:  # a model refusing these runs: say which file they came from
                if str(exc).startswith("--"):  # an option's fault, named (a design --kernel cannot take)
                    raise
                raise ValueError(f"{data}: {exc}") from None
        no_dag = registry.why_not_dag(m, target) if model == registry.AUTO else ""
        if no_dag:  # the runs were traced, yet time is modelled alone: say why (once it could be; not before a refusal)
            warn(f"{shown(data)}: time is modelled alone: {no_dag}")
        persist.check_model_path(output)
        persist.save(fitted, output, check=_loads_back)
    say_written(output, f"saved {type(fitted).__name__} to {shown(output)}")
    if hasattr(fitted, "specs_"):  # a DAG model: say which model each metric got
        say_written(output, "components: " + _component_models(fitted), markup=False)
    elif hasattr(getattr(fitted, "model_", None), "weights_"):
        say_written(output, f"{fitted.target}: laws{_leading_law(fitted.model_)}", markup=False)
    # predict will refuse there: said now; not for the baselines of a fixed form in n and
    # p (uses_config False: TwoStepLasso, Cilkview bounds), which predict anywhere (helper-90)
    ranges = getattr(fitted, "train_ranges_", {}) if getattr(fitted, "uses_config", True) else {}
    for note in fixed_directions(ranges):
        say_written(output, f"note: {note}", markup=False)


def _loads_back(written) -> None:
    """Load the model file just written (before it replaces ``-o``), as predict will: a
    model that cannot (a bug, never the user's input) is reported now, not after the
    user has moved on, and the file ``-o`` named is left as it was."""
    from .. import persist

    try:
        persist.load(written)
    except persist.ModelFileError as exc:  # without the temporary file's name, gone by then
        reason = str(exc).replace(f"{written}: ", "")
        raise RuntimeError(f"the fitted model does not load back, so it was not written ({reason})") from None


def _no_effort(model: str, kernel: Optional[str]) -> str:
    """Why ``fit --effort`` is refused for ``model``, which has no effort setting."""
    if model != registry.AUTO and not registry.entry_of(model).effort:
        return f"--effort: the {model} model has no inference to tune and takes no effort level"
    laws = f"--kernel {kernel}" if kernel else "its default laws"
    return (f"--effort: the {model} model has no effort setting with {laws}: "
            "law mixtures are closed forms, fitted alike at every level; leave --effort out, or give "
            "--kernel basis or a GP kernel")


def _check_spec(option: str, value: str) -> None:
    """Refuse a bad ``--kernel`` spec (sizes past the resource limits included) or
    ``--effort`` before any data is read; ``ValueError`` names the option."""
    from ..models import specs
    from ..registry import check_kernel

    try:
        if option == "--effort":
            specs.check_effort(value)
        else:
            check_kernel(value)
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None


def _component_models(model, names=None) -> str:
    """Which model each metric of a DAG model got, with a law mixture's heaviest law:
    ``work=laws(power+one(p) 61%), ...`` (``names``: those metrics only).

    Examples
    --------
    >>> class Dag:
    ...     specs_ = {"work": "laws", "delay": "matern52"}
    ...     components_ = {}
    >>> _component_models(Dag())
    'work=laws, delay=matern52'
    """
    return ", ".join(f"{k}={v}{_leading_law(model.components_.get(k))}" for k, v in model.specs_.items()
                     if names is None or k in names)


def _leading_law(model) -> str:
    """``(law weight%)`` of a law mixture's heaviest law, else nothing.

    Examples
    --------
    >>> class Fitted:
    ...     weights_ = {"power": 0.25, "exp(n)": 0.75}
    >>> _leading_law(Fitted())
    '(exp(n) 75%)'
    >>> from probperf.dag import ConstantMetric
    >>> _leading_law(ConstantMetric(2.0))
    '(the value measured at its one setting)'
    """
    from ..dag import ConstantMetric, ZeroMetric

    if isinstance(model, (ConstantMetric, ZeroMetric)):  # too few runs for a law: what it is instead
        if not isinstance(model, ZeroMetric):
            return "(the value measured at its one setting)"
        if model.positive:
            return f"(0: positive in only {model.positive} of {model.runs} runs, too few for a law)"
        return "(0 in every run)"
    weights = getattr(model, "weights_", None)
    if not weights:
        return ""
    name = max(weights, key=weights.get)
    law = getattr(model, "laws_", {}).get(name)
    from ..models.laws import readable

    return f"({readable(law.label(name) if law is not None else name)} {weights[name]:.0%})"


@app.command()
def predict(
    model_file: Path = typer.Argument(..., metavar="MODEL", help="Model file written by 'probperf fit'."),
    at: List[str] = typer.Option(..., "--at", help="Point, e.g. n=2**30,p=36 (repeatable); a range gives a point per "
                                 "value: p=16..64 every integer, n=2**20..2**24 the powers of 2."),
    level: str = typer.Option("0.9", metavar="FLOAT", help="Interval level in (0, 1)."),
    format: str = typer.Option("table", "--format", help="table | json | csv."),
    explain: bool = typer.Option(False, help="Print the work/delay/no_work decomposition (DAG model), or each law's "
                                 "prediction and weight (time-only law mixture)."),
    draws: str = typer.Option("1000", metavar="INTEGER", help=f"Number of joint predictive draws (at most {MAX_DRAWS})."),
    seed: str = typer.Option("0", metavar="INTEGER", help="Seed of the draws."),
    fastest: bool = typer.Option(False, "--fastest", help="Add prob_fastest: the chance, from the joint draws, that "
                                 "each point is the fastest of the points asked (to choose a setting, e.g. "
                                 "--at n=2**24,p=36,cutoff=2**4..2**10)."),
):
    """Predict at one or more points: median, mean and a central interval."""
    from .. import persist

    require_stdout()
    if format not in ("table", "json", "csv"):
        fail(f"--format must be table, json or csv, got {format!r}")
    if format == "csv" and explain:  # per-law and per-term blocks are nested: not one row per point
        fail("--explain adds nested blocks that a CSV row cannot hold; use --format json or table")
    level = _level(level)
    draws = number("--draws", draws, integer=True, low=1, high=MAX_DRAWS, limit="MAX_DRAWS")
    seed = number("--seed", seed, integer=True, low=0)
    rows = parse_points(at, "--at")
    with bad_input():
        model = _load_model(model_file)
        frame = checked_points(model, rows, "--at")
        unique, where = distinct_points(frame)
        if fastest and len(unique) < len(frame):  # each copy would be "the fastest" alike: chances summing past 1
            i = next(i for i in range(len(where)) if where[i] in where[:i])
            point = ",".join(f"{c}={number_text(v)}" for c, v in frame.iloc[i].items())
            fail(f"--at: the point {point} is given twice; --fastest compares distinct points")
        if fastest and "n" in frame and frame["n"].nunique() > 1:  # a choice among settings of one problem
            warn(f"--fastest: the points differ in n ({', '.join(column_texts(frame['n'].drop_duplicates()))}): "
                 "it compares run times of different problem sizes, not settings of one")
        with np.errstate(all="ignore"), cautions_caught() as cautions:
            # overflow far beyond the data is reported below, once, as a non-finite prediction
            warnings.simplefilter("ignore", RuntimeWarning)
            with refused_as("--at"):
                pred = model.predict(unique, n_draws=draws, seed=seed)
            chance = pred.chance_smallest()[where] if fastest else None  # among the distinct points
            laws = _laws_behind(model, pred, unique, level, draws, seed) if explain else None
            pred = pred[where]  # every point asked, in the order asked
            laws = None if laws is None else _per_point(laws, len(unique), where)
            summary = pred.summary(level)
            if chance is not None:
                summary["prob_fastest"] = chance
    _refuse_impossible(summary, laws, frame, pred.name)
    for line in cautions + few_tail_draws(level, draws):
        warn(line)  # after any refusal: one line then
    unit = getattr(model, "unit_", "s")
    rows = _json_rows(summary)
    reliable = pred.mean_reliable
    for row, beyond, sound in zip(rows, model_beyond(model, frame), reliable):
        row["target"] = pred.name or "time"  # what the numbers are of: a metric model's file says it nowhere else
        row["unit"] = "count" if pred.name in COUNT_METRICS else unit  # seconds, clock cycles or a task count
        row["beyond"] = beyond  # which rows the far-out warnings are about
        # false: the mean rests on a few extreme draws (the caution on stderr); a script
        # choosing by expected time would choose by noise there
        row["mean_reliable"] = bool(sound)
    if getattr(model, "has_span_", False):  # a DAG model with a traced span: the share of draws resting on it
        for row, share in zip(rows, pred.on_span()):
            row["on_span"] = float(share)
    if format == "csv":  # one line per point, the JSON rows' columns (a spreadsheet's or pandas' input)
        import csv
        import sys

        out = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        out.writeheader()
        out.writerows(rows)
        return
    if format == "json":
        if laws is not None:
            _attach(rows, "laws", laws, lambda part: [
                {k: (r[k] if k == "law" else float(r[k])) for k in ("law", "weight", "median", "lower", "upper")}
                for r in part.to_dict("records")])
            noise = laws.attrs.get("noise")
            for row, spread in zip(rows, noise["spread"] if noise else []):
                row["noise_spread"] = spread  # relative to the training runs' typical spread
        elif explain:
            _attach(rows, "decomposition", pred.decomposition(level), lambda part: {
                r.term: {"share": r.share, "share_lower": r.share_lower, "share_upper": r.share_upper,
                         "median": r.median, "lower": r.lower, "upper": r.upper}
                for r in part.itertuples()})
        try:
            text = json.dumps(rows, indent=2, allow_nan=False)  # NaN and Infinity are not JSON
        except ValueError:
            fail(NOT_FINITE)
        print(text)
        return
    # the point's columns, the model's parameters first: a baseline's rows also carry the
    # constant cut-offs it leaves out, which belong in the title with the model's own
    features = list(getattr(model, "features_", frame.columns))
    params = features + [c for c in summary.columns if c not in RESULT_COLUMNS and c not in features]
    _print_table(summary, f"predicted {metric_label(pred.name or 'time', unit)}, {level_text(level)} interval",
                 params, unreliable_mean=~reliable)
    if laws is not None:
        _print_laws(laws, level, "counts" if pred.name in COUNT_METRICS else unit)
    elif explain:
        _print_decomposition(pred.decomposition(level), level, unit,
                             _component_models(model, ("work", "delay", "no_work")) if hasattr(model, "specs_") else "")


def _level(text: str) -> float:
    level = float(number("--level", text))  # its range said below, one way at both ends
    if not 0 < level < 1:
        percent = f" (a percentage? {level:g} % is --level {level / 100:g})" if 1 < level < 100 else ""
        fail(f"--level must be in (0, 1), got {text}{percent}")
    return level


def checked_points(model, rows, option: str):
    """The points of ``option`` as a table, checked against the model: a parameter it
    does not know is refused by name, and ``n``/``p`` must be valid where given.

    Examples
    --------
    >>> class Fitted:
    ...     features_ = ["n", "p"]
    >>> checked_points(Fitted(), [{"n": 1024, "p": 4}], "--at").to_dict("list")
    {'n': [1024], 'p': [4]}
    """
    import pandas as pd

    from ..models.points import complete_points, relations_of
    from ..predict import prediction_points

    frame = pd.DataFrame(rows)
    # a baseline of n and p alone also takes the one configuration it was fitted at,
    # which its predictions show with each point
    fixed = model.fixed_config() if hasattr(model, "fixed_config") else {}
    features = [*getattr(model, "features_", frame.columns), *fixed]
    unknown = [c for c in frame.columns if c not in features]
    if unknown:
        raise ValueError(f"{option}: the model has no parameter {unknown[0]!r}; "
                         f"its parameters are {', '.join(features)}")
    # a parameter the others make in every run (p = nnodes * ppn) may be left out; worked
    # out as a fraction (ppn at nnodes=4, p=6) it is predicted and warned of, as a fraction
    # typed is (probperf.cautions.unwhole_setting) and as model.predict does: one rule
    frame = complete_points(frame, relations_of(model))
    defaults = {**(getattr(model, "defaults_", None) or {}), **fixed}
    missing = [c for c in features if c not in frame.columns and c not in defaults]
    if missing:  # a parameter constant in training may be left out; the others not
        raise ValueError(f"{option}: give {_lacking(model, missing)} too (the model's parameters are "
                         f"{', '.join(features)})")
    for i, row in enumerate(rows):  # several points: each gives what the others give, or takes the default
        lacking = [c for c in frame.columns if pd.isna(frame[c].iloc[i]) and c not in defaults]
        if lacking:
            raise ValueError(f"{option} {point_text(pd.Series(row))} (point {i + 1}): give {_lacking(model, lacking)} "
                             f"too, as the other points do")
    frame = frame.fillna({c: v for c, v in defaults.items() if c in frame})
    try:
        prediction_points(frame, {}, list(frame.columns))  # n > 0, p a positive integer
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None
    return frame


def _lacking(model, names) -> str:
    """What a point must add, of the parameters ``names`` it lacks: each, except that of
    the members of a relation one may stay out (the others make it): ``p, one of nodes,
    ppn`` rather than ``nodes, ppn`` when ``ppn = p / nodes``.

    Examples
    --------
    >>> class Fitted:
    ...     relations_ = {"ppn": {"kind": "log", "terms": [["log", "p"], ["log", "nodes"]], "coef": [0.0, 1.0, -1.0]}}
    >>> _lacking(Fitted(), ["n", "nodes", "ppn"]), _lacking(Fitted(), ["n", "ppn"])
    ('n, one of nodes, ppn', 'n, ppn')
    """
    from ..models.points import relation_groups

    parts, left = [], list(names)
    for members in relation_groups(model):
        group = [m for m in left if m in members]
        if len(group) >= 2:  # all but one of them
            k = len(group) - 1
            parts.append(f"{'one' if k == 1 else k} of {', '.join(group)}")
            left = [m for m in left if m not in group]
    return ", ".join([*left, *parts])


def distinct_points(frame):
    """The distinct points of ``frame`` and, per row, the position of its point among
    them: a point asked twice (``n=2**20`` and ``n=1048576,p=8`` when p defaults to 8)
    is predicted once and answered alike, not twice with Monte Carlo differences.

    Examples
    --------
    >>> import pandas as pd
    >>> unique, where = distinct_points(pd.DataFrame({"n": [1024.0, 2048.0, 1024.0], "p": [8.0, 8.0, 8.0]}))
    >>> unique["n"].tolist(), where.tolist()
    ([1024.0, 2048.0], [0, 1, 0])
    """
    unique = frame.drop_duplicates(ignore_index=True)
    position = {tuple(row): i for i, row in enumerate(unique.itertuples(index=False))}
    return unique, np.array([position[tuple(row)] for row in frame.itertuples(index=False)])


@contextlib.contextmanager
def refused_as(option: str):
    """Inside: a model's refusal of a point (``ValueError``) is named as the option that
    gave the point, as every other complaint about it is.

    Examples
    --------
    >>> try:
    ...     with refused_as("--at"):
    ...         raise ValueError("cannot predict p=64")
    ... except ValueError as exc:
    ...     str(exc)
    '--at: cannot predict p=64'
    """
    try:
        yield
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None


@contextlib.contextmanager
def cautions_caught():
    """Inside: the models' cautions (:class:`probperf.cautions.ExtrapolationWarning`)
    collected in the list it yields, each once, to be printed as one ``warning:`` line
    each after the command's own checks; other warnings pass as usual.

    Examples
    --------
    >>> from probperf.cautions import ExtrapolationWarning
    >>> with cautions_caught() as lines:
    ...     for _ in range(2):
    ...         warnings.warn("n=2^30 is far out", ExtrapolationWarning)
    >>> lines
    ['n=2^30 is far out']
    """
    lines = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExtrapolationWarning)
        yield lines
    for w in caught:
        if issubclass(w.category, ExtrapolationWarning):
            if str(w.message) not in lines:
                lines.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def _refuse_impossible(summary, laws, frame, name) -> None:
    """Exit 2 on a prediction that is not finite (or a law's, with ``--explain``), or
    on a run time whose median or interval's lower end is not positive."""
    # an infinite mean (a few draws overflowed) is shown as unreliable, not refused: the
    # median and interval are what to read there, as plot draws them
    numbers = summary.drop(columns=[c for c in [*frame.columns, "mean"] if c in summary], errors="ignore")
    finite = np.isfinite(numbers.to_numpy(dtype=float)).all(axis=1)
    if not finite.all():  # the first such point named: several --at may be given
        fail(NOT_FINITE.replace("is not finite", f"at {point_text(frame.iloc[int(np.argmin(finite))])} is not finite"))
    if laws is not None and not np.all(np.isfinite(laws[["median", "lower", "upper"]].to_numpy(dtype=float))):
        fail("a law's " + NOT_FINITE.removeprefix("the "))
    if name in (None, "time"):  # the median, or an interval's lower end (a network's draws clipped at 0)
        for column, what in (("median", "predicted time"), ("lower", "lower end of the predicted time's interval")):
            if np.any(summary[column] <= 0):
                i = int(np.argmax(summary[column].to_numpy() <= 0))
                fail(NOT_POSITIVE.format(what=what, point=point_text(frame.iloc[i]), value=summary[column].iloc[i]))


def _laws_behind(model, pred, frame, level, draws, seed):
    """For --explain: each law's prediction of a time-only law mixture (None for a DAG
    model, which explains by its decomposition)."""
    if hasattr(pred, "decomposition"):
        return None
    if not hasattr(model, "explain"):
        raise ValueError(f"--explain needs a DAG model or a time-only law mixture; this file holds a {type(model).__name__}")
    return model.explain(frame, level=level, n_draws=draws, seed=seed)


def _per_point(table, n_points, where):
    """``table``'s blocks of rows (one block per distinct point, in order) repeated in
    the order ``where`` asks for them; the table's attrs kept."""
    import pandas as pd

    blocks = _blocks(table, n_points)
    out = pd.concat([blocks[i] for i in where], ignore_index=True)
    out.attrs = dict(table.attrs)
    if "noise" in out.attrs:
        out.attrs["noise"] = {**out.attrs["noise"], "spread": [out.attrs["noise"]["spread"][i] for i in where]}
    return out


def _blocks(table, n_points) -> list:
    """``table`` cut into one block of rows per point: an explanation has the same
    number of rows for every point, in point order."""
    per = len(table) // n_points
    return [table.iloc[per * i: per * (i + 1)] for i in range(n_points)]


def _attach(rows, key, table, as_json):
    """Give each point's JSON row ``key``: its block of ``table`` as ``as_json`` makes it."""
    for row, block in zip(rows, _blocks(table, len(rows))):
        row[key] = as_json(block)


def model_beyond(model, points) -> list[float]:
    """:func:`beyond_factor` of ``points`` from ``model``'s training runs, by kind of
    run too (what predict's ``beyond`` says, and the demo's table).

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> model = SimpleNamespace(train_ranges_={"n": [1024, 65536, 5], "p": [1, 8, 4]}, features_=["n", "p"])
    >>> model_beyond(model, pd.DataFrame({"n": [65536, 2**19], "p": [36, 8]}))
    [4.5, 8.0]
    """
    kinds = kinds_apart(getattr(model, "train_points_", None) or {}, getattr(model, "features_", []))
    return beyond_factor(getattr(model, "train_ranges_", {}), points, kinds)


def beyond_factor(ranges, points, kinds=()) -> list[float]:
    """Per point, how far it lies outside the training range, as the largest factor over
    its parameters: above a range ``x / largest``, below it ``smallest / x``; 1 inside
    (below a range that reaches 0, or at a value of 0 or less, no factor measures the
    distance). The far-out warnings name one point and a count; this names each.
    ``kinds``: where one kind of run stops short of the table
    (:func:`probperf.cautions.kinds_apart`), a point of that kind above its own runs'
    largest value is that factor beyond too, as its warning says.

    Examples
    --------
    >>> import pandas as pd
    >>> beyond_factor({"n": [1024, 4096, 3], "p": [1, 8, 4]}, pd.DataFrame({"n": [2048, 65536, 512], "p": [4, 8, 16]}))
    [1.0, 16.0, 2.0]
    >>> beyond_factor({"c": [0, 4, 5]}, pd.DataFrame({"c": [400, 0]}))
    [100.0, 1.0]
    >>> beyond_factor({"n": [1024, 4096, 3], "p": [1, 8, 4]}, pd.DataFrame({"n": [4096, 4096], "p": [1, 8]}),
    ...               kinds=[("parallel", "n", [1024.0, 1024.0], [1024.0, 4096.0])])  # p > 1 at n = 1024 only
    [1.0, 4.0]
    """
    out = np.ones(len(points))
    for kind, c, (_, hi), _ in kinds:
        if c in points and "p" in points and hi > 0:
            x, p = points[c].to_numpy(dtype=float), points["p"].to_numpy(dtype=float)
            mine = (p <= 1) if kind == "serial" else (p > 1)
            out = np.maximum(out, np.where(mine & (x > hi), x / hi, 1.0))
    for c, (lo, hi, *_) in ranges.items():
        if c not in points:
            continue
        x = points[c].to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            above = np.where((x > hi) & (hi > 0), x / hi, 1.0)  # a range from 0 up still has a largest value
            below = np.where((x < lo) & (x > 0) & (lo > 0), lo / np.where(x > 0, x, 1.0), 1.0)
        out = np.maximum(out, np.maximum(above, below))
    return [float(f) for f in out]


def _json_rows(summary):
    """The summary as JSON records: a parameter with a whole value (n, p, a cut-off given
    as 1024) is written as an integer, as the user wrote it; results stay floats, and an
    infinite mean is null."""
    def value(k, v):
        if k == "mean" and not np.isfinite(v):  # overflowed draws (mean_reliable false): no number
            return None
        whole = k not in RESULT_COLUMNS and float(v).is_integer() and abs(v) <= MAX_EXACT_INT
        return int(v) if whole else float(v)

    return [{k: value(k, v) for k, v in rec.items()} for rec in summary.to_dict("records")]


#: what the table shows for a mean that rests on a few extreme draws, and why
NO_MEAN, NO_MEAN_NOTE = "-", "-: the mean rests on a few extreme draws (see the warning); read the median"


def _print_table(summary, title, params=(), unreliable_mean=None):
    """The predictions, numbers never wrapped: a configuration parameter with one value
    at every point moves to the title, so that at 80 columns the numbers keep the room.
    A mean that rests on a few extreme draws (``unreliable_mean``, per row) is shown as
    :data:`NO_MEAN`, with a note: its digits would be noise, read as a number."""
    fixed = [c for c in params if c not in ("n", "p") and c in summary and summary[c].nunique() == 1]
    if fixed:
        title += " at " + ", ".join(f"{c}={number_text(summary[c].iloc[0])}" for c in fixed)
    summary = summary.drop(columns=fixed)
    blank = np.zeros(len(summary), dtype=bool) if unreliable_mean is None else np.asarray(unreliable_mean)
    # a point's values with the digits that tell the points apart (column_texts)
    points = {c: column_texts(summary[c]) for c in summary.columns if c not in RESULT_COLUMNS}
    cells = [[NO_MEAN if c == "mean" and blank[i] else f"{v:.10g}" if c == "level" else
              points[c][i] if c in points else number_text(v)
              for c, v in zip(summary.columns, rec)]  # a level of 0.999999 is not 1 (4 digits would say so)
             for i, rec in enumerate(summary.itertuples(index=False))]
    widths = [max(len(str(c)), *(len(row[j]) for row in cells)) for j, c in enumerate(summary.columns)]
    table = Table(title=shown(title))
    if sum(widths) + 3 * len(widths) + 1 <= console.width:
        for c in summary.columns:
            table.add_column(shown(c), justify="right", no_wrap=True)
        for row in cells:
            table.add_row(*row)
    else:  # too many parameters for a column each: the point in one column that wraps, the numbers whole
        varying = [c for c in summary.columns if c not in RESULT_COLUMNS]
        texts = [", ".join(f"{c}={points[c][i]}" for c in varying) for i in range(len(cells))]
        results = [c for c in summary.columns if c in RESULT_COLUMNS and c != "level"]  # the level is in the title
        # wide enough for its longest "name=value," so it wraps between parameters, not inside a number
        longest = max(len(shown(token)) for text in texts for token in text.split(" "))
        if longest + sum(widths[list(summary.columns).index(c)] for c in results) + 3 * len(results) + 4 > console.width:
            _print_lines(title, texts, results, [[row[list(summary.columns).index(c)] for c in results] for row in cells])
            if blank.any():
                console.print(NO_MEAN_NOTE)
            return
        table.add_column("point", overflow="fold", min_width=longest)
        for c in results:
            table.add_column(c, justify="right", no_wrap=True)
        for text, row in zip(texts, cells):
            table.add_row(shown(text), *(row[list(summary.columns).index(c)] for c in results))
    if blank.any():
        table.caption = NO_MEAN_NOTE
    console.print(table)


def _print_lines(title, points, names, values) -> None:
    """The predictions as one line per point, for a terminal too narrow for the table
    (its columns would be cut off): ``n=120, p=8: median 5.329 [4.828, 5.931], mean 5.344``,
    and the chance of being the fastest with ``--fastest`` (helper-86: the lines left out
    what the option asks)."""
    console.print(shown(title), highlight=False)
    for point, row in zip(points, values):
        v = dict(zip(names, row))
        mean = f", mean {v['mean']}" if "mean" in v else ""
        fastest = f", fastest with chance {v['prob_fastest']}" if "prob_fastest" in v else ""
        console.print(shown(f"{point}: median {v['median']} [{v['lower']}, {v['upper']}]{mean}{fastest}"),
                      highlight=False)


def _shown_params(table, values) -> list[str]:
    """The point columns of an explanation worth a column: n, p and the parameters
    that differ between points (a constant configuration is noise there)."""
    return [c for c in table.columns if c not in values and (c in ("n", "p") or table[c].nunique() > 1)]


#: How ``--explain`` names each law weighting in its caption (laws.WEIGHTINGS).
WEIGHTING_NAMES = {"stacking": "stacking on forward splits", "evidence": "the laws' evidence"}


def _noise_text(noise) -> str | None:
    """The caption's line on a noise profile: over which parameters, and the spread of
    runs at the points relative to the training runs' typical spread.

    Examples
    --------
    >>> _noise_text({"over": ["ppn", "p"], "spread": [0.5, 1.25]})
    "noise profiled over ppn, p: run-to-run spread at these points 0.5x to 1.25x a typical run's"
    >>> _noise_text(None) is None
    True
    """
    if not noise:
        return None
    lo, hi = min(noise["spread"]), max(noise["spread"])
    at = f"{lo:.3g}x" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g}x to {hi:.3g}x"
    return f"noise profiled over {', '.join(noise['over'])}: run-to-run spread at these points {at} a typical run's"


#: Laws of less weight are counted, not listed, in ``predict --explain``'s table (the
#: JSON lists them all): a law under 1 % moves the mixture's quantiles by less than the
#: Monte Carlo error of the default 1000 draws, and a list of 31 laws hid the few that count.
MIN_SHOWN_WEIGHT = 0.01


#: The narrowest a law's name may fold to in ``--explain``'s table before the table
#: gives way to a line per row: a name cut to a few characters (its column got what
#: the numbers left, 0 at 80 columns with three parameters) says nothing.
MIN_LAW_WIDTH = 20


def _print_cells(title, header, rows, caption=None, point=0, keys=None, folds=()) -> None:
    """Rows of text cells as a table whose numbers are never cut, or, where the
    terminal is too narrow for it, as a line per row (:func:`_print_lines_by_point`).
    The first ``point`` cells are the point's (``keys``: which point each row is of);
    columns in ``folds`` (a law's name) may fold down to :data:`MIN_LAW_WIDTH`."""
    if not rows:
        return

    def width(cell):  # as the terminal shows it: an escaped "\\[" is one "["
        return Text.from_markup(cell).cell_len

    widths = [max(width(h), *(width(r[j]) for r in rows)) for j, h in enumerate(header)]
    folded = [min(w, MIN_LAW_WIDTH) if h in folds else w for h, w in zip(header, widths)]
    if sum(folded) + 3 * len(header) + 1 > console.width:
        _print_lines_by_point(title, header, rows, caption, point, keys)
        return
    table = Table(title=title, caption=caption)
    for h, w in zip(header, folded):
        fold = h in folds
        table.add_column(h, justify="right", no_wrap=not fold, overflow="fold", min_width=w if fold else None)
    for r in rows:
        table.add_row(*r)
    console.print(table)


def _print_lines_by_point(title, header, rows, caption, point, keys) -> None:
    """:func:`_print_cells`' lines: each point (``n=2^20, p=36``) once, then its rows
    indented, led by their name (the cell after the point's), an interval after its
    value: ``work: share 97.7% [97.6%, 97.7%], median 0.17 [0.17, 0.18]``."""
    console.print(title, highlight=False)
    keys = range(len(rows)) if keys is None else keys
    last = object()
    for key, r in zip(keys, rows):
        if point and key != last:
            console.print(", ".join(f"{h}={v}" for h, v in zip(header[:point], r[:point])) + ":", highlight=False)
            last = key
        items = []
        for h, v in zip(header[point + 1:], r[point + 1:]):
            if v and h.endswith("interval") and items:
                items[-1] += f" {v}"
            elif v:
                items.append(f"{h} {v}")
        # indented as a block: a line the terminal wraps stays under its point
        console.print(Padding(f"{r[point]}: " + ", ".join(items), (0, 0, 0, 2), expand=False), highlight=False)
    if caption:
        console.print(caption, highlight=False)


def _point_cells(table, params) -> list[list[str]]:
    """Each row's point cells: the values with the digits that tell the points apart
    (:func:`~probperf.cautions.column_texts`; ``c=0.12345`` and ``c=0.12346`` are two)."""
    texts = [column_texts(table[c]) for c in params]
    return [[t[i] for t in texts] for i in range(len(table))]


def _print_laws(laws, level, unit="s"):
    shares = laws.attrs.get("weightings", {})
    # a fixed order (a saved model's mapping may come back in another one)
    order = [k for k in WEIGHTING_NAMES if k in shares] + [k for k in shares if k not in WEIGHTING_NAMES]
    caption = ("weights: " + " + ".join(f"{shares[k]:.0%} {WEIGHTING_NAMES.get(k, k)}" for k in order)
               if len(shares) > 1 else None)
    # each line shown on its own: shown() makes a newline visible, not a line break
    lines = [shown(t) for t in (caption, _noise_text(laws.attrs.get("noise"))) if t]
    params = _shown_params(laws, ("law", "weight", "median", "lower", "upper"))
    cells = _point_cells(laws, params)
    rows, keys, point = [], [], 0  # the mixture closes each point's list

    def add(i, r, law=None):
        # shown: a law's bracketed form ("[n^1 nnodes^6e-05]") is text, not rich markup (it vanished)
        rows.append([*map(shown, cells[i]), shown(law or r["law"]), f"{r['weight']:.1%}",
                     "" if law else number_text(r["median"]),
                     "" if law else shown(f"[{number_text(r['lower'])}, {number_text(r['upper'])}]")])
        keys.append(point)

    small = []  # the point's laws under MIN_SHOWN_WEIGHT, listed only if there is one
    for i, r in enumerate(laws.to_dict("records")):
        if r["law"] != "mixture" and r["weight"] < MIN_SHOWN_WEIGHT:
            small.append((i, r))
            continue
        if r["law"] == "mixture":
            if len(small) > 1:
                add(i, {**r, "weight": sum(s["weight"] for _, s in small)},
                    f"{len(small)} more, each under {MIN_SHOWN_WEIGHT:.0%}")
            else:
                for j, s in small:
                    add(j, s)
            small = []
        add(i, r)
        point += r["law"] == "mixture"
    _print_cells(shown(f"the laws behind the prediction ({level_text(level)} intervals in {unit}; "
                       "a law alone, the mixture with the discrepancy beyond the data)"),
                 [*map(shown, params), "law", "weight", "median", "interval"], rows,
                 "\n".join(lines) or None, point=len(params), keys=keys, folds=("law",))


def _print_decomposition(decomp, level, unit="s", models=""):
    params = _shown_params(decomp, ("term", "share", "share_lower", "share_upper", "median", "lower", "upper"))
    cells = _point_cells(decomp, params)
    rows = [[*map(shown, cells[i]), r["term"], f"{r['share']:.1%}",
             shown(f"[{r['share_lower']:.1%}, {r['share_upper']:.1%}]"),  # "[inf, ...]" is no markup tag
             number_text(r["median"]), shown(f"[{number_text(r['lower'])}, {number_text(r['upper'])}]")]
            for i, r in enumerate(decomp.to_dict("records"))]
    first = decomp["term"].iloc[0] if len(decomp) else None
    keys = np.cumsum((decomp["term"] == first).to_numpy())  # each point's terms start with the same one
    # each share is a median over the draws, of a different draw each time: they need
    # not add up (the shares of any one draw do)
    caption = "shares: medians over the draws, which need not add up to 100 %" + (
        f"\nterms' models (their heaviest law): {shown(models)}" if models else "")
    _print_cells(shown(f"decomposition of p * time ({level_text(level)} intervals, terms in {unit})"),
                 [*map(shown, params), "term", "share", "share interval", "median", "interval"], rows, caption,
                 point=len(params), keys=keys)


@app.command()
def plot(
    model_file: Path = typer.Argument(..., metavar="MODEL", help="Model file written by 'probperf fit'."),
    vs: str = typer.Option("n", "--vs", help="Sweep n, p or a configuration parameter of the model (e.g. a cut-off)."),
    at: str = typer.Option(..., "--at", help="Fixed parameters, e.g. n=2**24,p=36; the --vs parameter's value is the sweep's "
                                              "end when beyond the measured range (else, or left out, the sweep spans that range)."),
    output: Path = typer.Option(..., "-o", "--output", help="Figure file: .png (also without a suffix), .svg, .pdf "
                                "or another format matplotlib writes (.jpg, .eps, ...)."),
    data: Optional[Path] = typer.Option(None, help="Measurements to overlay (default: the training runs)."),
    unit: Optional[str] = reading_options.UNIT,
    clock_hz: Optional[str] = reading_options.CLOCK,
):
    """Draw the median and 50 %/90 % bands against measured points."""
    from .. import persist
    from ..data import METRICS, MISSING_CONFIG, UNKNOWN_COLUMN, MeasurementError, Measurements
    from ..plot import check_sweep, figure_format, matching_runs, plot_band, save_figure, sweep, unit_slip

    ranged = next((item for item in at.split(",") if ".." in item.partition("=")[2]), None)
    if ranged is not None:  # predict's range syntax: said as plot's way, not as a value that is no number
        fail(f"--at {ranged.strip()!r}: plot draws one band along --vs; give every parameter one value, the "
             "--vs one where the band ends (ranges are predict's --at)")
    point = parse_assignments(at, "--at", "n=2**24,p=36")
    units = reading_options.unit_options(unit, clock_hz)  # checked even where nothing would use them
    if units and data is None:  # the training runs are drawn in the model's own unit
        fail(f"{'--unit' if unit is not None else '--clock-hz'}: it says how to read the times of --data, "
             "and no --data is given")
    with bad_input():
        from ..formats import input_files
        from ..outputs import check_not_input

        fmt = figure_format(output)
        model = _load_model(model_file)  # a missing model said as such, before -o is compared with it
        check_not_input(output, [model_file, *(input_files(data) if data is not None else [])], "-o", "the figure")
        check_sweep(model, vs)
        if vs not in point and vs in getattr(model, "train_ranges_", {}) and (
                not swept_relation(model, vs) or _carried(model, vs, point)):
            # the swept parameter left out of --at: the sweep spans its measured range (in a
            # relation, as ppn = p / nnodes, where --at leaves another of it to work out)
            point[vs] = float(model.train_ranges_[vs][1])
        frame = checked_points(model, [point], "--at")
        with warnings.catch_warnings(), np.errstate(all="ignore"):  # a refusal names the point asked, not the
            warnings.simplefilter("ignore")  # sweep's first point past the data; warnings come with the sweep
            with refused_as("--at"):
                model.predict(frame, n_draws=2, seed=0)
        broken, kept = swept_relation(model, vs), _carried(model, vs, point)
        if broken and not kept:  # refused here: the laws would blame the sweep's first point, which no one gave
            others = [m for m in _members(model, vs) if m != vs]
            raise ValueError(f"--vs {vs}: {broken} in every training run, and a sweep of {vs} alone would break it; "
                             f"leave one of {', '.join(others)} out of --at and the sweep works it out at each "
                             f"{vs}")
        if data is not None:
            from .. import formats

            # the model's configuration parameters, declared as its fit declared them
            config = [c for c in getattr(model, "features_", []) if c not in ("n", "p")]
            try:
                measured = formats.read(data, **({"config": config} if config else {}), **units)
            except MeasurementError as exc:  # plot has no --config: the model's parameters are the only ones
                reading_options.clock_refused(exc)
                if exc.message.startswith(UNKNOWN_COLUMN):
                    raise MeasurementError(f"column {exc.column!r} is no parameter of the model {model_file} "
                                           f"(its parameters: {', '.join(model.features_)}) nor a metric",
                                           exc.source, exc.line, exc.column) from None
                if exc.message.startswith(MISSING_CONFIG):
                    raise MeasurementError(f"no column {exc.column!r}, a parameter of the model {model_file}",
                                           exc.source, exc.line, exc.column) from None
                raise
            # n missing (a .stat file carries no n; the reader refuses a missing p or
            # configuration column): the runs' place on the band is unknown (helper-84: a
            # KeyError along n, runs drawn at the wrong n along p), in a relation too
            absent = [c for c in model.features_ if c not in measured.frame]
            if absent:
                raise MeasurementError(f"no column {absent[0]!r}, a parameter of the model {model_file}: the runs "
                                       "cannot be placed on the band", measured.source, column=absent[0])
            varied = [c for c in measured.config if c not in model.features_ and measured.frame[c].nunique() > 1]
            if varied:  # its runs would be drawn together, settings the model never told apart
                raise MeasurementError(f"{varied[0]!r} varies in these runs but is no parameter of the model "
                                       f"{model_file} (its parameters: {', '.join(model.features_)}); give runs "
                                       f"at one {varied[0]}", measured.source, column=varied[0])
            measured = measured.in_unit(getattr(model, "unit_", "s"))  # as fit converts them (unit_slip reads it)
        elif getattr(model, "train_points_", None):
            # the model's parameters and the metrics; a column of the runs that is none of
            # its parameters (a constant cut-off, which a baseline leaves out) is not drawn on
            runs = {c: v for c, v in model.train_points_.items() if c in model.features_ or c in METRICS}
            measured = Measurements(runs, [c for c in runs if c not in ("n", "p") and c in model.features_],
                                    unit=getattr(model, "unit_", "s"))
        else:
            measured = None
        with cautions_caught() as cautions:  # the sweep's far end, as predict warns
            fig = plot_band(model, vs=vs, at=point, data=measured)
        save_figure(fig, output, fmt)
    say_written(output, f"wrote {shown(output)} ({fmt.upper()})")
    if data is not None:  # --data given and nothing of it drawn: said, not silent
        fixed = sweep(model, vs, point, num=1).iloc[0].to_dict()
        target = getattr(model, "target", None) or "time"
        if not len(matching_runs(measured, vs, fixed, target)):
            warn(f"--data {shown(data)}: no run with {target} measured at "
                 + ",".join(f"{k}={number_text(v)}" for k, v in fixed.items() if k != vs) + "; none drawn")
        elif slip := unit_slip(model, measured, vs, fixed, target,
                                  read_as_cycles=units.get("unit") == "cycles"):
            warn(f"--data {shown(data)}: {slip}")
    for line in cautions:
        warn(line)


def _members(model, vs: str) -> list[str]:
    """The parameters of the relations ``vs`` is in (``vs`` included)."""
    from ..models.points import relation_groups

    return list(dict.fromkeys(m for group in relation_groups(model) if vs in group for m in group))


def _carried(model, vs: str, point) -> bool:
    """Whether a sweep of ``vs`` keeps its relations: the point leaves out a parameter
    of each, which :func:`probperf.models.points.complete_points` works out per point."""
    from ..models.points import relation_groups

    return all(any(m not in point and m != vs for m in group) for group in relation_groups(model) if vs in group)


def swept_relation(model, vs: str) -> str:
    """The relation a sweep of ``vs`` alone (the others fixed) would break, as
    ``ppn = p / nodes``, or ``""``: a parameter the others make in every training run
    (``relations_`` of the laws) is ``vs`` or is made from it.

    Examples
    --------
    >>> class Laws:
    ...     relations_ = {"ppn": {"kind": "log", "terms": [["log", "p"], ["log", "nodes"]],
    ...                           "coef": [0.0, 1.0, -1.0]}}
    >>> class Fitted:
    ...     model_ = Laws()
    >>> swept_relation(Fitted(), "p"), swept_relation(Fitted(), "n")
    ('ppn = p / nodes', '')
    """
    from ..models.points import relation_members, relation_text, relations_of

    for c, rel in relations_of(model).items():
        if vs in relation_members(c, rel):
            return f"{c} = {relation_text(rel)}"
    return ""


#: The demo's truths are simulated at these offsets from ``--seed`` (apart from the
#: training runs' stream); the largest bounds the seeds it takes.
TRUTH_SEEDS = (1000, 2000)


@app.command()
def demo(
    output: Path = typer.Option(Path("demo_band.png"), "-o", "--output", help="Band plot to write."),
    # the demo's law mixtures take no effort level: kept for old scripts, it advertises none
    effort: str = typer.Option("default", hidden=True, help="Only 'default': the law mixtures take no effort level."),
    fast: bool = typer.Option(False, "--fast", hidden=True, help="Same as --effort quick (kept for old scripts)."),
    seed: str = typer.Option("0", metavar="INTEGER", help="Seed of the simulation and the fit."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars (they go to stderr)."),
):
    """The main job on a built-in example: simulate, fit the DAG model, extrapolate.

    Simulates a parallel merge sort on 1-8 workers at n = 2^12..2^16 (2 repetitions),
    fits the DAG model, predicts 8x the largest size on up to 36 workers and, as users
    do, far out: 64x and 256x the largest size on 36 workers; then compares with runs
    simulated there (the truth the model never saw). A minute or two on 2 cores, most
    of it simulating the far truths.
    """
    import time as clock

    import numpy as np

    from .. import progress
    from ..dag import DagModel
    from ..outputs import check_output
    from ..plot import figure_format, plot_band, save_figure
    from ..sim import generate

    # it seeds the simulation too, and the truths' simulations at seed + 1000 and + 2000
    seed = number("--seed", seed, f"the truths are simulated at --seed + {TRUTH_SEEDS[-1]}, which the "
                  f"simulator takes up to {MAX_SIM_SEED}", integer=True, low=0, high=MAX_SIM_SEED - TRUTH_SEEDS[-1])
    asked, effort = effort, "quick" if fast else effort  # --fast: as in fit
    with bad_input():
        _check_spec("--effort", effort)
        if asked != "default" and not registry.takes_effort("dag"):  # as in fit: never dropped without a word
            raise ValueError("--effort: the demo's DAG model is made of law mixtures, closed forms fitted alike "
                             "at every level; leave --effort out")
        fmt = figure_format(output)
        check_output(output, "-o")  # before a minute of work
    started = clock.perf_counter()
    sizes, workers = [2**k for k in range(12, 17)], list(range(1, 9))
    console.print("simulating sort: n = 2^12..2^16, p = 1..8, 2 repetitions", highlight=False)
    train = generate("sort", sizes, workers, reps=2, seed=seed, progress=not quiet)
    with progress.reporting(enabled=not quiet):
        model = DagModel(effort=effort, seed=seed).fit(train)
    big = 8 * sizes[-1]
    far = [64 * sizes[-1], 256 * sizes[-1]]
    targets = [(big, 8), (big, 16), (big, 36), (sizes[-1], 36)] + [(n, 36) for n in far]
    console.print(f"simulating the truth at n = 2^{int(np.log2(big))} on up to 36 workers, and at "
                  f"{', '.join(f'2^{int(np.log2(n))}' for n in far)} on 36", highlight=False)
    import pandas as pd

    truth = pd.concat([
        generate("sort", [big, sizes[-1]], [8, 16, 36], reps=3, seed=seed + TRUTH_SEEDS[0]).aggregate("mean").frame,
        generate("sort", far, [36], reps=1, seed=seed + TRUTH_SEEDS[0], progress=not quiet).frame])

    points = pd.DataFrame(targets, columns=["n", "p"])
    with without_mean_caution():  # the table shows medians and intervals, no mean
        pred = model.predict(points, n_draws=2000, seed=seed)
    table = _demo_table(pred, truth, targets, model_beyond(model, points))
    console.print(table)
    decomp = pred[[2]].decomposition(0.9)
    decomp[["median", "lower", "upper"]] *= 1e3  # in ms, as the table above
    _print_decomposition(decomp, 0.9, unit="ms")
    measured = generate("sort", [big], [1, 2, 4, 8, 16, 24, 36], reps=1, seed=seed + TRUTH_SEEDS[1])
    fig = plot_band(model, vs="p", at={"n": big, "p": 36}, data=measured,
                    title=f"sort, n = 2^{int(np.log2(big))} (8x the largest training size)")
    with bad_input():
        save_figure(fig, output, fmt)
    console.print(f"band plot: {shown(output)}   total {clock.perf_counter() - started:.0f} s", highlight=False)


def _load_model(path: str):
    """The model of a model file, refused (``ValueError``) unless it is one ``fit`` makes
    (a :class:`~probperf.models.base.TableModel`): a metric model saved on its own (a
    DAG model's part, a ``LawMixture``) predicts its own scale without the table's
    ranges, so its warnings beyond the data and its ``beyond`` would be missing or wrong."""
    from .. import persist
    from ..models.base import MetricModel, TableModel

    model = persist.load(path)
    if not isinstance(model, TableModel):
        part = " (a metric model: one part of a model)" if isinstance(model, MetricModel) else ""
        raise ValueError(f"{path}: it holds a {type(model).__name__}{part}, not a model that predict and plot "
                         "take; save one with probperf fit, or pp.fit(...).save(path) in Python")
    return model


def _demo_table(pred, truth, targets, beyond) -> Table:
    """The demo's predicted-vs-simulated table, in ms (sort runs take milliseconds:
    readable at 80 columns); ``beyond``: each target's :func:`beyond_factor` (n's
    factor alone said 1x for 36 workers trained on 8)."""
    import numpy as np

    lo, hi = pred.interval(0.9)
    table = Table(title="sort: predicted vs simulated time \\[ms] (90 % interval)")
    # every header whole at 80 columns (a pipe, a file): a wide interval folds instead
    for c in ("n", "beyond", "p", "median", "90 % interval", "simulated", "error", "inside"):
        table.add_column(c, justify="right", min_width=len(c), no_wrap=c != "90 % interval", overflow="fold")
    for i, (n, p) in enumerate(targets):
        true = float(truth.loc[(truth["n"] == n) & (truth["p"] == p), "time"].iloc[0])
        ms = [1e3 * v for v in (pred.median[i], lo[i], hi[i], true)]
        table.add_row(f"2^{int(np.log2(n))}", f"{beyond[i]:.3g}x", str(p), f"{ms[0]:.3g}",
                      f"[{ms[1]:.3g}, {ms[2]:.3g}]", f"{ms[3]:.3g}", f"{pred.median[i] / true - 1:+.0%}",
                      "yes" if lo[i] <= true <= hi[i] else "NO")
    return table
