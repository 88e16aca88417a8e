"""Time-only models: what a user has when no tracer was used.

* :class:`DirectModel`: one metric model of the target (usually ``time``) over all
  parameters ``(n, p, config)``.
* :class:`PenaltyModel`: Lobachev, Guthe and Loogen's split
  ``T(n,p) = T(n)/p + A(n,p)`` ("Estimating parallel performance", JPDC 2013): the
  sequential time ``T(n)`` and the parallel penalty ``A(n,p)`` modeled separately.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import cautions, persist, unmeasured
from .data import TIME_METRICS, Measurements, MeasurementError, column_baseline, one_worker_baseline
from .limits import draw_count
from .models.base import TableModel
from .models import specs
from .models.points import relations
from .models.specs import build
from .predict import Predictive, check_level, whole_number


class _TimeOnly(TableModel):
    """Shared plumbing: component models built from the ``kernel`` spec at ``effort``."""

    def _draw_seed(self, seed) -> int:
        """The seed of a prediction's draws: the one asked, else the constructor's (as
        :meth:`probperf.dag.DagModel.predict`), so a model's seed reaches its draws."""
        seed = whole_number(seed, "seed", none=True)
        return whole_number(self.seed, "seed") if seed is None else seed

    def _new(self, offset=0, **options):
        # the law mixture refuses on its own to extrapolate a direction with < 3 values
        return build(self.kernel, self.effort, seed=whole_number(self.seed, "seed") + offset, **options)


@persist.register
class DirectModel(_TimeOnly):
    """Model one metric directly over ``(n, p, config)``.

    Parameters
    ----------
    kernel : str
        ``"laws"`` (the default: a stacked mixture of closed-form laws, see
        :class:`~probperf.models.LawMixture`), ``"basis"`` or a GP kernel spec.
    target : str
        The metric to model.
    effort : {"quick", "default", "thorough"}
        Inference effort (:data:`probperf.models.specs.EFFORTS`).
    seed : int
        Seed of the fit and the draws.

    Examples
    --------
    >>> m = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
    ...                   "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2]})
    >>> model = DirectModel(target="time").fit(m)
    >>> model.train_ranges_["p"], model.predict(n=160, p=2).n_points
    ([1.0, 2.0, 2], 1)
    """

    #: at a setting of few-valued configuration parameters that no run had, the interval
    #: spans the nearest measured settings too (:mod:`probperf.unmeasured`)
    spans_unmeasured = True
    _fitted = ("model_",)

    def __init__(self, kernel: str = "laws", target: str = "time", effort: str = "default", seed: int = 0):
        self.kernel = kernel
        self.target = target
        self.effort = effort
        self.seed = seed

    def fit(self, measurements: Measurements) -> "DirectModel":
        """Fit the model of ``kernel`` to the target over all the table's parameters.

        Examples
        --------
        >>> m = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
        ...                   "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2]})
        >>> model = DirectModel().fit(m)
        >>> type(model.model_).__name__, model.features_
        ('LawMixture', ['n', 'p'])
        """
        self._check_table(measurements)
        with self._fitting():
            measurements.require("n", self.target)
            self._remember(measurements, measurements.params, self.target)
            self.model_ = self._new()
            self.model_.fit(measurements, target=self.target)
        return self

    def predict(self, X=None, *, n_draws=None, seed=None, **params) -> Predictive:
        """Predictive draws of the target at the points.

        Parameters
        ----------
        X : DataFrame, mapping or Measurements, optional
            The points, or as keywords: ``predict(n=2**22, p=36)``.
        n_draws : int, optional
            Number of draws (1000 by default).
        seed : int, optional
            Seed of the draws; the constructor's ``seed`` by default.

        Examples
        --------
        >>> m = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
        ...                   "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2]})
        >>> a, b = DirectModel(seed=3).fit(m), DirectModel(seed=3).fit(m)
        >>> bool(a.predict(n=160, p=2).median[0] == b.predict(n=160, p=2, seed=3).median[0])
        True
        """
        pts = self._points_in_reach(X, params)  # a GP or basis regression does not judge them itself
        table, rows = unmeasured.with_neighbours(self, pts)  # a setting no run had spans its nearest
        seed = self._draw_seed(seed)
        drawn = self.model_.predict(table, n_draws=n_draws, seed=seed)
        unit = self.unit_ if self.target in TIME_METRICS else None  # a count has none
        pred = Predictive(unmeasured.pick(drawn.draws, rows, np.random.SeedSequence(seed).spawn(1)[0]), pts,
                          drawn.name, unit)
        return cautions.warn(self, pts, pred)

    def widens_beyond(self) -> bool:
        """Whether the interval grows beyond the training data by a learnt error growth:
        for the law mixture (its discrepancy rate), not for a GP or basis regression.

        Examples
        --------
        >>> m = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
        ...                   "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2]})
        >>> DirectModel().fit(m).widens_beyond()
        True
        """
        from .models.mixture import widens

        self._check_fitted()
        return widens(self.model_)

    def explain(self, X=None, *, level: float = 0.9, n_draws=None, seed=None, **params) -> pd.DataFrame:
        """Each law's own prediction and weight at the points, then the mixture's
        (:meth:`probperf.models.LawMixture.explain`; at a setting no run had, the
        mixture's row is :meth:`predict`'s, which spans the nearest measured settings
        too); only for the law mixture.

        Examples
        --------
        >>> m = Measurements({"n": [10, 20, 40, 80, 160] * 3, "p": [1] * 5 + [2] * 5 + [4] * 5,
        ...                   "time": [1.0, 2.0, 4.0, 8.0, 16.0, 0.5, 1.0, 2.0, 4.0, 8.0, 0.25, 0.5, 1.0, 2.0, 4.0]})
        >>> table = DirectModel().fit(m).explain(n=640, p=4)
        >>> list(table.columns), table["law"].iloc[-1]
        (['n', 'p', 'law', 'weight', 'median', 'lower', 'upper'], 'mixture')
        """
        points = self._points(X, params)  # first: an unfitted model says so
        level = check_level(level)
        if not hasattr(self.model_, "explain"):
            raise ValueError(f"explaining a prediction needs the law mixture (kernel 'laws'); this model's kernel is {self.kernel!r}")
        table = self.model_.explain(points, level=level, n_draws=n_draws, seed=self._draw_seed(seed))
        if len(unmeasured.with_neighbours(self, points)[0]) > len(points):
            # a setting no run had: the mixture's row is what predict gives, spanning
            # the nearest measured settings too (the laws' rows are theirs at the point)
            with cautions.quiet():
                pred = self.predict(points, n_draws=n_draws, seed=seed)
            table.loc[table["law"] == "mixture", ["median", "lower", "upper"]] = np.column_stack(
                [pred.median, *pred.interval(level)])
        return table


@persist.register
class PenaltyModel(_TimeOnly):
    """``T(n,p) = T(n)/p + A(n,p)``: sequential time plus a parallel penalty.

    ``T(n)`` comes from the ``serial_time`` column when present, else ``serial_work``,
    else the ``p == 1`` runs' ``time``. ``A(n,p) = time - T(n)/p`` is the penalty
    (communication, idling, overheads); it is modeled on a log scale, so rows where the
    run was at least as fast as ``T(n)/p`` (super-linear) are left out of its fit. With
    T(n) from the ``p == 1`` runs, A is 0 there by definition and predicted so; with
    T(n) from a column, a one-worker run of the parallel program still pays its task
    overheads (time above ``serial_work``), so those runs enter A's fit and A is
    predicted at ``p = 1`` too (``penalty_at_one_``; helper-65: without, a traced
    sort's one-worker time came out as its serial work, 22 % low, every run outside).

    Parameters
    ----------
    kernel : str
        ``"basis"`` or a GP kernel spec, used for both parts.
    effort, seed
        As in :class:`DirectModel`.

    Examples
    --------
    >>> n = np.repeat([100.0, 200.0, 400.0, 800.0], 3)
    >>> p = np.tile([1, 4, 8], 4)
    >>> runs = Measurements({"n": n, "p": p, "time": 1e-3 * n / p + 0.01 * (p - 1)})
    >>> model = PenaltyModel(kernel="basis", effort="quick").fit(runs)
    >>> pred = model.predict(n=1600, p=8)
    >>> round(float(pred.median[0]) / (1e-3 * 1600 / 8 + 0.07), 1)
    1.0
    """

    _fitted = ("serial_", "penalty_", "size_features_", "relations_", "penalty_at_one_")

    def __init__(self, kernel: str = "basis", effort: str = "default", seed: int = 0):
        self.kernel = kernel
        self.effort = effort
        self.seed = seed

    def fit(self, measurements: Measurements) -> "PenaltyModel":
        """Fit ``T(n)`` to the sequential times and ``A(n,p)`` to the runs with ``p > 1``
        slower than ``T(n)/p``.

        Examples
        --------
        >>> n = np.repeat([100.0, 200.0, 400.0, 800.0], 3)
        >>> p = np.tile([1, 4, 8], 4)
        >>> runs = Measurements({"n": n, "p": p, "time": 1e-3 * n / p + 0.01 * (p - 1)})
        >>> model = PenaltyModel(kernel="laws").fit(runs)
        >>> model.size_features_, type(model.serial_).__name__, type(model.penalty_).__name__
        (['n'], 'LawMixture', 'LawMixture')

        Runs that scale perfectly leave no penalty to model:

        >>> PenaltyModel(kernel="laws").fit(Measurements({"n": n, "p": p, "time": 1e-3 * n / p}))
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: column time: the penalty model needs at least 2 runs with p > 1 slower than T(n)/p
        """
        self._check_table(measurements)
        with self._fitting():
            m = measurements
            m.require("n", "p", "time")
            self._remember(m, m.params, "time")
            frame = m.frame
            size = ["n", *m.config]
            columns = ["serial_time", "serial_work"]
            from_column, serial, _ = column_baseline(frame, size, columns)  # T(n) given, or from the p=1 runs
            if from_column is None:
                serial = one_worker_baseline(frame, size, columns, "time", needed_by="the penalty model", runs=m)
            seq = pd.DataFrame({**{c: frame[c] for c in size}, "y": serial}).drop_duplicates()
            try:  # the first part to see the configuration parameters: its refusal names the model
                self.serial_ = self._new(0).fit(seq[size], seq["y"].to_numpy(), features=size)
            except MeasurementError:
                raise
            except ValueError as exc:
                raise ValueError(f"the penalty model's T(n): {exc}") from None
            penalty = frame["time"].to_numpy() - serial / frame["p"].to_numpy()
            one = frame["p"].to_numpy() == 1
            self.penalty_at_one_ = bool(from_column is not None and np.sum(one & (penalty > 0)) >= 2)
            keep = (~one | self.penalty_at_one_) & (penalty > 0)
            if np.sum(keep & ~one) < 2:
                raise MeasurementError(
                    "the penalty model needs at least 2 runs with p > 1 slower than T(n)/p", m.source, column="time"
                )
            # A(n,p) is fitted on a subset of the runs (p > 1), whose ranges and relations
            # are not the table's: a law mixture checks the points against the whole
            # table here (predict), as a DAG model's parts are (p = 1, 7, 8 measured: p = 4
            # is inside the data, not beyond a part's 7..8)
            unguarded = {"guard": False} if specs.parse(self.kernel).family == specs.LAWS else {}
            self.penalty_ = self._new(1, **unguarded).fit(frame.loc[keep, self.features_], penalty[keep],
                                                          features=self.features_)
            self.size_features_ = size
            self.relations_ = relations(frame[self.features_].to_numpy(dtype=np.float64), self.features_)
        return self

    def widens_beyond(self) -> bool:
        """Whether the interval grows beyond the training data by a learnt error growth:
        when both parts are law mixtures that learnt one.

        Examples
        --------
        >>> n = np.repeat([100.0, 200.0, 400.0, 800.0], 3)
        >>> p = np.tile([1, 4, 8], 4)
        >>> runs = Measurements({"n": n, "p": p, "time": 1e-3 * n / p + 0.01 * (p - 1)})
        >>> PenaltyModel(kernel="laws").fit(runs).widens_beyond()
        True
        """
        from .models.mixture import widens

        self._check_fitted()
        return widens(self.serial_) and widens(self.penalty_)

    def _loaded(self) -> None:
        super()._loaded()
        if not hasattr(self, "relations_"):  # a version 13 file: its A(n,p) checks its own points
            self.relations_ = {}
        if not hasattr(self, "penalty_at_one_"):  # a version 9-15 file: A is 0 at p = 1, as written
            self.penalty_at_one_ = False

    def predict(self, X=None, *, n_draws=None, seed=None, **params) -> Predictive:
        """Time draws ``T(n)/p + A(n,p)`` at the points (joint per draw); ``X``,
        ``n_draws`` and ``seed`` as in :meth:`DirectModel.predict`.

        Examples
        --------
        >>> n = np.repeat([100.0, 200.0, 400.0, 800.0], 3)
        >>> p = np.tile([1, 4, 8], 4)
        >>> runs = Measurements({"n": n, "p": p, "time": 1e-3 * n / p + 0.01 * (p - 1)})
        >>> pred = PenaltyModel(kernel="laws").fit(runs).predict(n=1600, p=[1, 8])
        >>> truth = 1e-3 * 1600 / np.array([1, 8]) + 0.01 * np.array([0, 7])  # no penalty on one worker
        >>> (pred.median / truth).round(2).tolist()
        [1.0, 1.0]
        """
        pts = self._points_in_reach(X, params)  # its A(n,p) does not judge them alone
        S = draw_count(n_draws, 1000)
        seed = self._draw_seed(seed)
        p = pts["p"].to_numpy()
        size = pts[self.size_features_]
        # On one worker the run *is* a sequential run, with its noise, unless T(n) came
        # from a column (penalty_at_one_); elsewhere T(n) enters as the latent curve and
        # the run-to-run noise comes with A(n,p).
        paid = (p > 1) | self.penalty_at_one_
        serial = np.where(
            paid,
            self.serial_.predict(size, n_draws=S, seed=seed, noise=False).draws,
            self.serial_.predict(size, n_draws=S, seed=seed, noise=True).draws,
        )
        # A(n,p) only where it applies: fitted on the runs with p > 1 (and with p = 1
        # where it was), whose relations and ranges a one-worker point need not keep
        penalty = np.zeros((S, len(pts)))
        if np.any(paid):
            penalty[:, paid] = self.penalty_.predict(pts[paid], n_draws=S, seed=seed + 1).draws  # its own draws
        return cautions.warn(self, pts, Predictive(serial / p + penalty, pts, "time", self.unit_))
