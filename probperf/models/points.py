"""The points a fitted law model may be asked at: the relations every training run
held between its parameters (``p = nnodes * ppn``), which a point must keep and which
complete a point that leaves one member out, and the checks that refuse a point a law
cannot take (a log of a non-positive value, a parameter with too few distinct values).
"""

from __future__ import annotations

import numpy as np

from ..limits import is_whole
from ..selection import MIN_DISTINCT, RANGE_RTOL
from .terms import natural_term, power_terms, term_values

#: Tolerance of a point against a relation of :func:`relations`, on its log (or value)
#: scale, relative to the value where it exceeds 1: the relations are exact in the
#: data (a product, a copy), and a point typed with 6 significant digits keeps them.
RELATION_TOL = 1e-6


def relations(X, names) -> dict:
    """The varying parameters the law terms leave out because the others make them
    (:func:`~probperf.models.terms.power_terms`), each as its log (or, not all
    positive, its value) = an affine function of the kept parameters' terms (see
    ``relations_`` of :class:`~probperf.models.mixture.LawMixture`).

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> rel = relations(X, ["nnodes", "ppn", "p"])["ppn"]
    >>> rel["kind"], rel["terms"], np.round(rel["coef"], 12).tolist()
    ('log', [['log', 'p'], ['log', 'nnodes']], [0.0, 1.0, -1.0])
    """
    distinct = {c: len(np.unique(X[:, i])) for i, c in enumerate(names)}
    base = power_terms(X, names, distinct)
    kept = {t[1] for t in base}
    A = np.column_stack([np.ones(len(X)), *(term_values(t, X, names) for t in base)])
    out = {}
    for c in names:
        if distinct[c] >= 2 and c not in kept:
            kind = natural_term(X, names, c)[0]
            coef = np.linalg.lstsq(A, term_values((kind, c), X, names), rcond=None)[0]
            out[c] = {"kind": kind, "terms": [list(t) for t in base], "coef": [float(b) for b in coef]}
    return out


def breaks_relation(c: str, rel, X, names) -> tuple[np.ndarray, np.ndarray]:
    """Per run of ``X``, whether it breaks the relation ``rel`` of ``c`` (beyond
    :data:`RELATION_TOL`), and the value of ``c`` the relation implies there (on its
    log or value scale, as ``rel["kind"]``).

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> rel = relations(X, ["nnodes", "ppn", "p"])["ppn"]
    >>> off, implied = breaks_relation("ppn", rel, np.array([[2.0, 2.0, 4.0], [2.0, 2.0, 5.0]]), ["nnodes", "ppn", "p"])
    >>> off.tolist(), np.exp(implied).round(6).tolist()
    ([False, True], [2.0, 2.5])
    """
    implied = rel["coef"][0] + sum(b * term_values(tuple(t), X, names) for b, t in zip(rel["coef"][1:], rel["terms"]))
    given = term_values((rel["kind"], c), X, names)
    return np.abs(given - implied) > RELATION_TOL * np.maximum(1.0, np.abs(implied)), implied


def check_points(X, names, ranges, relations) -> None:
    """Refuse points a law cannot take, naming the first: a value not positive where the
    laws take the log of a parameter (every training value positive), a negative value
    of a parameter never negative in training, and a point
    that breaks a relation every training run held (``relations``: a parameter the
    others make, which the laws leave out; a point that changed it alone would be
    predicted as if it had not changed).

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> names = ["nnodes", "ppn", "p"]
    >>> ranges = {c: [X[:, i].min(), X[:, i].max()] for i, c in enumerate(names)}
    >>> check_points(np.array([[2.0, 2.0, 5.0]]), names, ranges, relations(X, names))
    Traceback (most recent call last):
    ...
    ValueError: ppn=2 breaks a relation of every training run (ppn = p / nnodes, here 2.5): the laws take ppn from the others, so give a point that keeps it
    >>> check_points(np.array([[-1.0]]), ["level"], {"level": [0.0, 8.0]}, {})
    Traceback (most recent call last):
    ...
    ValueError: level must not be negative at a prediction point, got -1
    """
    X = np.asarray(X, dtype=np.float64)
    for i, c in enumerate(names):
        if c in ranges and ranges[c][0] > 0 and np.any(X[:, i] <= 0):
            # a parameter in the laws, or one a relation gives by its log
            raise ValueError(f"{c}={X[X[:, i] <= 0, i][0]:g}: {c} enters on the log scale (every training value "
                             f"is positive, {_range(*ranges[c][:2])}); predict at {c} > 0")
        if c in ranges and ranges[c][0] >= 0 and np.any(X[:, i] < 0):
            # as measurements never are (probperf.data); a count's shifted log has no value there
            raise ValueError(f"{c} must not be negative at a prediction point, got {X[X[:, i] < 0, i][0]:g}")
    for c, rel in relations.items():
        off, implied = breaks_relation(c, rel, X, names)
        if off.any():
            j = int(np.argmax(off))
            value = np.exp(implied[j]) if rel["kind"] == "log" else implied[j]
            raise ValueError(f"{c}={X[j, names.index(c)]:g} breaks a relation of every training run "
                             f"({c} = {relation_text(rel)}, here {value:.4g}): the laws take {c} from the "
                             "others, so give a point that keeps it")


def relations_of(model) -> dict:
    """The relations (:func:`relations`) a fitted model's laws keep: a DAG model's own,
    a time-only model's law mixture's (``model_``), else none.

    Examples
    --------
    >>> class Laws:
    ...     relations_ = {"ppn": {}}
    >>> class Direct:
    ...     model_ = Laws()
    >>> relations_of(Direct()), relations_of(object())
    ({'ppn': {}}, {})
    """
    found = getattr(model, "relations_", None)
    if found is None:
        found = getattr(getattr(model, "model_", None), "relations_", None)
    return dict(found or {})


def worker_factors(relations: dict) -> set:
    """The parameters that make ``p`` with others, ``p`` included (``p = nnodes * ppn``:
    all three); empty where ``p`` is in no relation. One answer for the holds beyond the
    measured workers and the cautions that speak of serial runs.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> sorted(worker_factors(relations(X, ["nnodes", "ppn", "p"]))), worker_factors({})
    (['nnodes', 'p', 'ppn'], set())
    """
    groups = [relation_members(c, rel) for c, rel in (relations or {}).items()]
    return {m for group in groups if "p" in group for m in group}


def size_floor(ranges: dict, relations: dict) -> float | None:
    """The smallest training size ``n`` (``ranges``: name -> ``(low, high, ...)``),
    below which time is held at its value there (:data:`~probperf.models.laws.SMALLER_NO_SLOWER`),
    or None where that hold does not act: off, no ``n``, or ``n`` made of other
    parameters (``n = m * k``: an edge at ``n`` alone would break the relation). One
    rule for time modelled directly and the DAG model.

    Examples
    --------
    >>> X = np.array([[4.0, 2.0, 8.0], [8.0, 2.0, 16.0], [8.0, 4.0, 32.0], [16.0, 1.0, 16.0]])
    >>> size_floor({"n": (64.0, 4096.0)}, {}), size_floor({"m": (2, 8)}, {})
    (64.0, None)
    >>> print(size_floor({"n": (8.0, 32.0)}, relations(X, ["m", "k", "n"])))  # n = m * k
    None
    """
    from . import laws

    if not laws.SMALLER_NO_SLOWER or "n" not in ranges:
        return None
    if any("n" in relation_members(c, rel) for c, rel in (relations or {}).items()):
        return None
    return float(ranges["n"][0])


def worker_edges(points, ranges: dict, relations: dict) -> tuple:
    """``(rows, edges)``: the positions of ``points`` (a DataFrame) with a factor of
    ``p`` above its training range (``ranges``: name -> ``(low, high, ...)``; ``p =
    nnodes * ppn``), and those points with every such factor set to its range's top
    and ``p`` worked out from ``relations``: the largest measured machine at the
    point's own setting, where the holds beyond the workers compare. A point whose
    edge has no fewer workers, or whose ``p`` the relations do not give, is left out.

    Examples
    --------
    >>> import pandas as pd
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> rel = relations(X, ["nnodes", "ppn", "p"])
    >>> pts = pd.DataFrame({"nnodes": [2.0, 32.0], "ppn": [2.0, 4.0], "p": [4.0, 128.0]})
    >>> rows, edges = worker_edges(pts, {"nnodes": [1, 4, 3], "ppn": [1, 4, 3], "p": [2, 8, 3]}, rel)
    >>> rows.tolist(), edges.to_dict("list")
    ([1], {'nnodes': [4.0], 'ppn': [4.0], 'p': [16.0]})
    """
    cols = [c for c in sorted(worker_factors(relations) - {"p"}) if c in points and c in ranges]
    beyond = np.zeros(len(points), dtype=bool)
    for c in cols:
        beyond |= points[c].to_numpy(dtype=np.float64) > ranges[c][1]
    rows = np.flatnonzero(beyond)
    edges = points.iloc[rows].reset_index(drop=True)
    for c in cols:
        edges[c] = np.minimum(edges[c].to_numpy(dtype=np.float64), ranges[c][1])
    edges["p"] = np.nan
    p_edge = complete_points(edges, relations)["p"].to_numpy(dtype=np.float64)
    keep = np.isfinite(p_edge) & (p_edge < points["p"].to_numpy(dtype=np.float64)[rows])
    edges["p"] = p_edge
    return rows[keep], edges[keep].reset_index(drop=True)


def relation_members(c: str, rel) -> list[str]:
    """``c`` and the parameters its relation makes it from (nonzero coefficients).

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> relation_members("ppn", relations(X, ["nnodes", "ppn", "p"])["ppn"])
    ['ppn', 'p', 'nnodes']
    """
    return [c] + [col for b, (_, col) in zip(rel["coef"][1:], rel["terms"]) if not np.isclose(b, 0.0)]


def relation_groups(model) -> list[list[str]]:
    """Per relation a fitted model's laws keep (:func:`relations_of`), its members
    (:func:`relation_members`): the parameters of which a point may leave one out.

    Examples
    --------
    >>> class Fitted:
    ...     relations_ = {"ppn": {"kind": "log", "terms": [["log", "p"], ["log", "nodes"]], "coef": [0.0, 1.0, -1.0]}}
    >>> relation_groups(Fitted())
    [['ppn', 'p', 'nodes']]
    """
    return [relation_members(c, rel) for c, rel in relations_of(model).items()]


def complete_points(points, relations: dict):
    """``points`` with each parameter of a relation that a point leaves out (a missing
    column, or NaN) worked out from the others, where it is the only member missing:
    ``p`` from ``nnodes`` and ``ppn`` when ``p = nnodes * ppn`` in every training run,
    or ``ppn`` from ``p`` and ``nnodes``. A value within 1e-9 of a whole number is
    whole (the logs' rounding). Points missing more than one member are left as they
    are, for the caller to name what they lack.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> import pandas as pd
    >>> rel = relations(X, ["nnodes", "ppn", "p"])
    >>> complete_points(pd.DataFrame({"nnodes": [16, 8], "ppn": [32, 4]}), rel).to_dict("list")
    {'nnodes': [16, 8], 'ppn': [32, 4], 'p': [512.0, 32.0]}
    >>> complete_points(pd.DataFrame({"nnodes": [16.0], "p": [64.0]}), rel)["ppn"].tolist()
    [4.0]
    """
    out = points.copy()
    for _ in range(len(relations)):  # a value one relation works out may complete another
        changed = False
        for c, rel in relations.items():
            changed |= _complete(out, c, rel)
        if not changed:
            break
    return out


def _complete(out, c: str, rel) -> bool:
    """Fill in ``out`` (in place) the one missing member of the relation of ``c`` per
    point; whether any was. Where every term is a log (a product of powers), the value
    is that product, its exponents and factor snapped to whole numbers within 1e-9, so
    that ``16 / 3`` comes out as Python divides it, not through exp and log."""
    members = relation_members(c, rel)
    n = len(out)
    kinds = {c: rel["kind"], **{col: kind for kind, col in rel["terms"]}}
    coef = {col: b for b, (_, col) in zip(rel["coef"][1:], rel["terms"])}
    values = {m: out[m].to_numpy(dtype=np.float64) if m in out else np.full(n, np.nan) for m in members}
    missing = np.column_stack([np.isnan(values[m]) for m in members])
    one = missing.sum(axis=1) == 1
    if not one.any():
        return False

    def snap(x):
        return np.round(x) if abs(x - np.round(x)) < 1e-9 * max(1.0, abs(x)) else x

    product = all(kinds[k] == "log" for k in members)
    for j, m in enumerate(members):
        rows = one & missing[:, j]
        if not rows.any():
            continue
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if product:  # c = factor * prod x_i^b_i, solved for the member missing
                factor = snap(np.exp(rel["coef"][0]))
                others = factor * np.prod([values[k] ** snap(coef[k]) for k in members[1:] if k != m], axis=0)
                value = others if m == c else (values[c] / others) ** (1.0 / snap(coef[m]))
            else:
                t = {k: np.log(v) if kinds[k] == "log" else v for k, v in values.items()}
                others = rel["coef"][0] + sum(coef[k] * t[k] for k in members[1:] if k != m)
                term = others if m == c else (t[c] - others) / coef[m]
                value = np.exp(term) if kinds[m] == "log" else term
        values[m] = np.where(rows, np.where(is_whole(value), np.round(value), value), values[m])
        out[m] = values[m]
    return True


def relation_text(rel) -> str:
    """The right-hand side of a relation of :func:`relations`, for people:
    ``p / nnodes``, ``2 * n``, ``1.5 + 0.5 * x``.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> relation_text(relations(X, ["nnodes", "ppn", "p"])["ppn"])
    'p / nnodes'
    """
    terms = [tuple(t) for t in rel["terms"]]
    if rel["kind"] == "log":  # a product of powers
        factor = np.exp(rel["coef"][0])
        parts = [] if np.isclose(factor, 1.0) else [f"{factor:.4g}"]
        for b, (kind, col) in zip(rel["coef"][1:], terms):
            if np.isclose(b, 0.0):
                continue
            power = "" if np.isclose(abs(b), 1.0) else f"^{abs(b):.4g}"
            name = col if kind == "log" else f"exp({col})"
            parts.append(("/ " if b < 0 else "* ") + name + power)
        text = " ".join(parts).removeprefix("* ")
        return f"1 {text}" if text.startswith("/") else text
    parts = [f"{rel['coef'][0]:.4g}"]
    for b, (kind, col) in zip(rel["coef"][1:], terms):
        if not np.isclose(b, 0.0):
            parts.append(f"{'-' if b < 0 else '+'} {abs(b):.4g} * " + (f"log({col})" if kind == "log" else col))
    return " ".join(parts)


def check_extrapolation(X, names, ranges) -> None:
    """Refuse points outside the training range of a parameter that had fewer than
    :data:`~probperf.selection.MIN_DISTINCT` distinct values (``ranges``: name ->
    ``[min, max, distinct]``): no law can be told from another along it.

    Examples
    --------
    >>> check_extrapolation(np.array([[64.0, 36.0]]), ["n", "p"], {"n": [8, 32, 3], "p": [8, 8, 1]})
    Traceback (most recent call last):
    ...
    ValueError: only 1 distinct value of 'p' in the training data (8): cannot predict p=36; measure at least 3 values of p
    """
    X = np.asarray(X, dtype=np.float64)
    for i, c, (lo, hi, k), outside in _outside_few(X, names, ranges):
        if outside.any():
            seen = f"only {k} distinct value{'s' if k > 1 else ''} of {c!r} in the training data ({_range(lo, hi)})"
            raise ValueError(f"{seen}: cannot predict {c}={X[outside, i][0]:.10g}; "
                             f"measure at least {MIN_DISTINCT} values of {c}")


def unreachable(X, names, ranges) -> np.ndarray:
    """Which rows of ``X`` :func:`check_extrapolation` refuses: for a forward
    validation, whose held-out runs a sub-fit on fewer values of a parameter cannot
    predict (a cut-off varied only at the largest size), to leave them out rather than
    fail the fit.

    Examples
    --------
    >>> unreachable(np.array([[64.0, 8.0], [64.0, 36.0]]), ["n", "p"], {"n": [8, 32, 3], "p": [8, 8, 1]}).tolist()
    [False, True]
    """
    X = np.asarray(X, dtype=np.float64)
    out = np.zeros(len(X), dtype=bool)
    for *_, outside in _outside_few(X, names, ranges):
        out |= outside
    return out


def _outside_few(X, names, ranges):
    """``(column, name, range, rows outside it)`` per parameter with fewer than
    MIN_DISTINCT training values."""
    for i, c in enumerate(names):
        if c in ranges and len(ranges[c]) >= 3 and ranges[c][2] < MIN_DISTINCT:
            lo, hi, _ = ranges[c]
            yield i, c, ranges[c], (X[:, i] < lo * (1 - RANGE_RTOL)) | (X[:, i] > hi * (1 + RANGE_RTOL))


def _range(lo, hi) -> str:
    return f"{lo:g}" if lo == hi else f"{lo:g}..{hi:g}"
