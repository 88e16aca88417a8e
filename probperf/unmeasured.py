"""Settings no training run had, of the parameters measured at few values (a switch,
one-hot algorithm columns), and the measured settings nearest to them.

Such a parameter carries no law (fewer than MIN_DISTINCT values), so where its values
meet in a combination no run had (``tree=1, flat=1`` after runs with one or the other)
the model's answer is its form's guess: the laws multiply the two effects, which nothing
in the runs checks; the effects may as well not stack. With nothing to weigh the
alternatives, the interval there spans, with equal weights, the model's own draws and
its draws at each nearest measured setting (fewest such parameters changed, the others
and the sizes and workers kept), one choice per joint draw for every point: a run that
changed only some of the switches is one answer the data do support. The cautions say
so (:func:`probperf.cautions.unmeasured_setting`). (Found by session 47's hunt: a
combination of two one-hot columns no run had was warned of as a guess but given a
+-8 % interval.) A parameter the others make (``ppn`` beside ``p`` and ``nnodes``) is
left out, with every other member of its relation: changing one alone breaks it; the
sizes and workers too: they carry
laws, and between two measured sizes the laws' interpolation is not a guess of the same
kind.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .data import BASE_PARAMS
from .selection import MIN_DISTINCT, RANGE_RTOL


def few_valued(model, points, laws_too: bool = True) -> list[str]:
    """The parameters of ``points`` measured at more than one but fewer than
    MIN_DISTINCT values in ``model``'s training runs; without ``laws_too``, only the
    configuration parameters that no relation ties to others.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_ranges_={"n": [1, 8, 2], "tree": [0, 1, 2], "depth": [1, 9, 4]},
    ...                     train_points_={"n": [1, 8, 1, 8], "tree": [0, 0, 1, 1], "depth": [1, 9, 5, 3]})
    >>> points = pd.DataFrame({"n": [4], "tree": [1], "depth": [3]})
    >>> few_valued(m, points), few_valued(m, points, laws_too=False)
    (['n', 'tree'], ['tree'])
    """
    ranges, runs = getattr(model, "train_ranges_", {}), getattr(model, "train_points_", None) or {}
    few = [c for c, (lo, hi, distinct, *_) in ranges.items() if 1 < distinct < MIN_DISTINCT and c in runs and c in points]
    if laws_too or not few:
        return few
    tied = _tied(model) | set(BASE_PARAMS)
    return [c for c in few if c not in tied]


def _tied(model) -> set[str]:
    """The members of every relation between the training runs' parameters
    (``p = nnodes * ppn``): the model's own (:func:`~probperf.models.points.relations_of`),
    else found in its runs (a GP keeps none, yet a copy of a point that changed ``ppn``
    alone would be a setting no run could have)."""
    from .models.points import relation_members, relations, relations_of

    found = relations_of(model)
    if not found:
        names = [c for c in model.train_ranges_ if c in model.train_points_]  # the parameters, not the target
        found = relations(np.array([model.train_points_[c] for c in names], dtype=float).T, names)
    return {c for name, rel in found.items() for c in relation_members(name, rel)}


def unmeasured(model, points: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Per point, whether its setting of ``columns`` is one no training run had.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_points_={"a": [0, 1, 0], "b": [0, 0, 1]})
    >>> unmeasured(m, pd.DataFrame({"a": [1, 1], "b": [0, 1]}), ["a", "b"]).tolist()
    [False, True]
    """
    return ~is_measured(points[columns].to_numpy(dtype=float), measured_settings(model, columns))


def measured_settings(model, columns: list[str]) -> np.ndarray:
    """The distinct settings of ``columns`` in ``model``'s training runs, one per row.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> measured_settings(SimpleNamespace(train_points_={"a": [0, 1, 0, 0], "b": [0, 0, 1, 0]}), ["a", "b"]).tolist()
    [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    """
    runs = model.train_points_
    return np.unique(np.array([runs[c] for c in columns], dtype=float).T, axis=0)


def is_measured(setting: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Per row of ``setting`` (points x columns), whether some row of ``measured`` has
    it (each value within RANGE_RTOL).

    Examples
    --------
    >>> is_measured(np.array([[0.0, 1.0], [1.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [True, False]
    """
    return np.array([np.any(np.all(np.isclose(measured, row, rtol=RANGE_RTOL, atol=0), axis=1)) for row in setting],
                    dtype=bool)


def nearest_settings(setting: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """The rows of ``measured`` that differ from ``setting`` (one point's values) in the
    fewest parameters.

    Examples
    --------
    >>> nearest_settings(np.array([1.0, 1.0]), np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    changed = (~np.isclose(measured, setting, rtol=RANGE_RTOL, atol=0)).sum(axis=1)
    return measured[changed == changed.min()]


def with_neighbours(model, points: pd.DataFrame) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """``points`` followed by, for each point at an unmeasured setting of the few-valued
    configuration parameters (:func:`few_valued` without laws), a copy at each of its
    :func:`nearest_settings`; and per point the rows of the whole table it draws from
    (its own first).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(train_ranges_={"n": [1, 8, 4], "tree": [0, 1, 2], "flat": [0, 1, 2]},
    ...                     train_points_={"n": [1, 8, 1, 8], "tree": [0, 0, 1, 1], "flat": [0, 1, 0, 0]})
    >>> table, rows = with_neighbours(m, pd.DataFrame({"n": [5, 5], "tree": [0, 1], "flat": [1, 1]}))
    >>> table.to_dict("list"), [r.tolist() for r in rows]
    ({'n': [5, 5, 5, 5], 'tree': [0.0, 1.0, 0.0, 1.0], 'flat': [1.0, 1.0, 1.0, 0.0]}, [[0], [1, 2, 3]])
    """
    rows = [np.array([i]) for i in range(len(points))]
    few = few_valued(model, points, laws_too=False)
    if not few:
        return points, rows
    measured = measured_settings(model, few)
    setting = points[few].to_numpy(dtype=float)
    copies = []
    for i in np.flatnonzero(~is_measured(setting, measured)):
        near = nearest_settings(setting[i], measured)
        start = len(points) + sum(len(c) for c in copies)
        copies.append(points.iloc[[i] * len(near)].assign(**{c: near[:, j] for j, c in enumerate(few)}))
        rows[i] = np.r_[i, start:start + len(near)]
    if not copies:
        return points, rows
    return pd.concat([points, *copies], ignore_index=True), rows


def pick(draws: np.ndarray, rows: list[np.ndarray], seed) -> np.ndarray:
    """Per draw, each point's value from one of its ``rows`` (columns of ``draws``, draws
    x rows of the whole table), chosen with equal chances by one uniform number per draw
    shared by every point (a draw is one answer: the same alternative at every point of
    a sweep whose rows line up).

    Examples
    --------
    >>> draws = np.array([[1.0, 10.0, 20.0, 2.0]] * 1000)  # point 0 from columns 0 or 3, point 1 from 1 or 2
    >>> picked = pick(draws, [np.array([0, 3]), np.array([1, 2]), np.array([2])], seed=0)
    >>> [np.unique(picked[:, j]).tolist() for j in range(3)], bool(0.45 < np.mean(picked[:, 0] == 2.0) < 0.55)
    ([[1.0, 2.0], [10.0, 20.0], [20.0]], True)
    >>> bool(np.all((picked[:, 0] == 2.0) == (picked[:, 1] == 20.0)))  # one choice per draw
    True
    """
    if all(len(r) == 1 for r in rows):
        return draws[:, [int(r[0]) for r in rows]]
    u = np.random.default_rng(seed).random(len(draws))
    at = np.arange(len(draws))
    return np.column_stack([draws[at, r[np.minimum((u * len(r)).astype(int), len(r) - 1)]] for r in rows])
