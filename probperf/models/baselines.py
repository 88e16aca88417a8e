"""Baseline time models from the earlier work that probperf replaces.

All four are *time* models: ``fit`` takes a whole :class:`~probperf.data.Measurements`
table (each needs different metrics from it) and ``predict`` returns a
:class:`~probperf.predict.Predictive` of joint ``time`` draws (draws x points).

:class:`TwoStepLasso`
    The two-step model of Namsraijav & Taura (2016), eqs. (9)-(15), thesis eqs.
    (6.1)-(6.7): intermediate models for serial work, work inflation, task counts,
    delay and no_work, each fitted with ``LassoLarsCV(positive=True)``, combined by
    ``time = (T1 + delay + no_work) / p``. Interval: wild residual bootstrap of the
    whole two-step pipeline plus resampled relative residuals.
:class:`DirectNN`
    The thesis's "Direct NN" (ch. 5): two hidden ReLU layers of 64 units, one dropout
    layer before the read-out, trained with Adam on ``time * workers`` under the loss
    weighted by worker count (eq. 5.1); random search of dropout and learning rate
    with early stopping on a validation split. Interval: MC dropout.
:class:`MultiTaskNN`
    The thesis's "Multi-task NN" (sec. 6.2): the same shared layers with one head per
    metric, trained by picking a random task per step. Time comes from the time head,
    as in the thesis. Interval: MC dropout.
:class:`CilkviewBounds`
    Cilkview's band ``T1/p <= time <= T1/p + 1.7 * burdened span`` with ``T1``,
    ``critical_path`` and the task counts from positive LassoLars fits. Draws are
    uniform within the band (a band, not a probability statement).
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

import numpy as np

from .. import cautions, persist
from ..data import DAG_METRICS, METRICS, Measurements, MeasurementError
from ..limits import draw_count
from ..predict import Predictive, prediction_points
from ..transforms import Standardizer, log_inputs, log_mask
from .base import DEFAULT_DRAWS, TableModel

__all__ = ["TimeModel", "TwoStepLasso", "DirectNN", "MultiTaskNN", "CilkviewBounds"]


#: Cilkview's span coefficient: 2 * delta with delta = 0.85 (the paper, eq. (4)).
CILKVIEW_SPAN_FACTOR = 1.7


class TimeModel(TableModel):
    """Shared input handling for the baselines: fitted on a whole table, predict time.

    Subclasses set :attr:`uses_config` (whether configuration parameters are inputs)
    and implement ``_required(measurements)`` (metrics to check) and
    ``_fit_table(measurements)`` and ``_predict_draws``, and declare their fitted
    state in ``_fitted`` (:class:`~probperf.models.base.TableModel` gives ``save``,
    ``load`` and what every table model remembers). ``predict`` takes a table of points or keywords (``n=..., p=...``),
    completed and checked by :func:`probperf.predict.prediction_points` with the
    fitted :attr:`features_`; parameters constant in training may be omitted.

    Examples
    --------
    >>> TwoStepLasso.uses_config, DirectNN.uses_config
    (False, True)
    """

    #: Whether configuration parameters are model inputs (else only ``n``, ``p``).
    uses_config: bool = True
    #: default number of predictive draws
    n_draws: int = DEFAULT_DRAWS

    def fit(self, measurements, y=None, *, target: str = "time", features=None):
        """Fit to a :class:`~probperf.data.Measurements` table.

        Parameters
        ----------
        measurements : Measurements
            Training runs with the metrics the model needs.
        y, target : ignored apart from a check
            Present for interface compatibility; these models always predict ``time``.
        features : sequence of str, optional
            Parameter columns used as inputs (default: ``n``, ``p`` and, for the
            neural nets, the table's configuration parameters).

        Returns
        -------
        self

        Raises
        ------
        MeasurementError
            If a metric the model needs is missing (the message names it), or the
            table is too small to fit.

        Examples
        --------
        On simulated traced runs (:meth:`predict` shows a fit checked against a closed form):

        >>> import probperf as pp
        >>> from probperf.sim import generate
        >>> runs = generate("fib", [14, 15, 16], [1, 2, 4], config={"cutoff": 4}, seed=0)
        >>> TwoStepLasso(n_boot=0).fit(runs).features_
        ['n', 'p']

        A model of the DAG metrics says which one a table of times lacks:

        >>> TwoStepLasso().fit(pp.Measurements({"n": [1, 2, 3], "p": [1, 1, 1], "time": [1.0, 2.0, 3.0]}))
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: column work: metric 'work' is needed but missing (a metric of traced runs: 'probperf record' writes it)
        """
        with self._fitting():
            self._check_table(measurements)
            if y is not None or target != "time":
                raise ValueError(f"{type(self).__name__} models time only; pass the table alone")
            measurements.require(*self._required(measurements))
            features = list(features or (measurements.params if self.uses_config else ["n", "p"]))
            for f in ("n", "p"):
                if f not in features:
                    raise ValueError(f"features must include {f!r}, got {features}")
            self._remember(measurements, features, "time")
            self._fit_table(measurements)
        return self

    def predict(self, X=None, n_draws: int | None = None, seed: int | None = 0, **params):
        """Joint draws of ``time`` at ``X`` (or at keyword points ``n=..., p=...``).

        Parameters
        ----------
        X : DataFrame, mapping, Measurements or array, optional
            Points with the fitted features as columns; a parameter that was constant
            in training may be left out.
        n_draws : int, optional
            Number of joint draws (default :attr:`n_draws`; point fits give one row).
        seed : int, optional
            Seed for reproducible draws.
        **params
            The point(s) as keywords when ``X`` is not given.

        Returns
        -------
        Predictive

        Examples
        --------
        >>> model = TwoStepLasso(n_boot=0).fit(_closed_form_runs())  # the class example's runs
        >>> pred = model.predict(n=2**14, p=8)  # or a table: model.predict({"n": [2**14], "p": [8]})
        >>> truth = (2**14 * 1.7 + 3 * 2**10 * 8 + 0.5 * 2**14 * 49) / 8
        >>> pred.n_draws, round(float(pred.median[0] / truth), 3)  # n_boot=0: a point estimate
        (1, 1.0)
        """
        self._check_fitted()
        # a network learns any shape, so it cannot go along a parameter measured at fewer
        # than 3 values (helper-78: DirectNN predicted a cut-off it saw once); a fixed
        # form may (Cilkview bounds any p from one-worker runs: its premise)
        points = self._points_in_reach(X, params) if self.uses_config else self._points(X, params)
        draws = self._predict_draws(self._inputs(points), draw_count(n_draws, self.n_draws), seed)
        return cautions.warn(self, points, Predictive(draws, points, "time"))  # they learn no widening: said

    def _points(self, X, params) -> pd.DataFrame:
        """The points, as every table model takes them; a model of n and p alone also
        takes the configuration its runs were fitted at (one value each: the fit
        refuses more), as a table of runs holds it, and refuses any other value of it."""
        if self.uses_config:
            return super()._points(X, params)
        self._check_fitted()
        fixed = self.fixed_config()
        names = [*self.features_, *fixed]
        pts = prediction_points(X, params, names, {**getattr(self, "defaults_", {}), **fixed})
        for c, v in fixed.items():
            other = pts[c].to_numpy() != v
            if other.any():
                raise ValueError(f"{type(self).__name__} was fitted at {c}={v:g} only and models n and p alone: "
                                 f"it cannot predict {c}={pts[c][other].iloc[0]:g}")
        return pts  # the configuration shown with each point (a prediction's table, JSON), not an input

    def fixed_config(self) -> dict:
        """The configuration the runs had one value of, which a model of n and p alone
        takes in a point (that value only) and shows with it; none where the model
        uses the configuration.

        Examples
        --------
        >>> model = TwoStepLasso(n_boot=0).fit(_closed_form_runs(cutoff=16))  # the class example's, at one cut-off
        >>> model.fixed_config()
        {'cutoff': 16.0}
        >>> model.predict(n=2**14, p=8, cutoff=32)
        Traceback (most recent call last):
        ...
        ValueError: TwoStepLasso was fitted at cutoff=16 only and models n and p alone: it cannot predict cutoff=32
        """
        if self.uses_config:
            return {}
        return {c: v[0] for c, v in self.train_points_.items() if c not in self.features_ and c not in METRICS}

    def _inputs(self, points: pd.DataFrame) -> np.ndarray:
        """The model's inputs at ``points``: their columns of :attr:`features_` (a
        configuration the runs had one value of is in the points, not an input)."""
        return points[self.features_].to_numpy(np.float64)

    def _required(self, measurements: Measurements) -> tuple[str, ...]:
        raise NotImplementedError

    def _fit_table(self, measurements: Measurements) -> None:
        raise NotImplementedError

    def _columns(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` and ``p`` columns of a raw feature matrix."""
        return X[:, self.features_.index("n")], X[:, self.features_.index("p")]


def _closed_form_runs(**config) -> Measurements:
    """Traced runs at n = 2^8..2^12, p = 1, 2, 4 whose DAG metrics follow known laws
    (work ``n (1 + 0.1 (p - 1))``, ``n / 16`` tasks created and waited for, delay
    ``3 p`` per task, idle time ``0.5 n (p - 1)^2``): the examples' known answer.
    ``config``: configuration parameters held at one value.

    Examples
    --------
    >>> runs = _closed_form_runs(cutoff=16)
    >>> len(runs), runs.config, float(runs.frame["time"].iloc[0])  # n = 256, p = 1: 256 + 3 * 16
    (15, ['cutoff'], 304.0)
    """
    n, p = (g.ravel() for g in np.meshgrid(2.0 ** np.arange(8, 13), [1, 2, 4]))
    tasks = n / 16
    runs = {"n": n, "p": p, **config, "work": n * (1 + 0.1 * (p - 1)), "delay": 3 * tasks * p,
            "no_work": 0.5 * n * (p - 1) ** 2, "create_task": tasks, "wait_tasks": tasks}
    runs["time"] = (runs["work"] + runs["delay"] + runs["no_work"]) / p
    return Measurements(runs, config=list(config))


def check_single_config(measurements: Measurements, model: str) -> None:
    """The baselines of n and p alone (the DAG-based ones, Extra-P) model n and p only;
    a varying config parameter is an error (pooled, its settings would be averaged).

    Examples
    --------
    >>> m = Measurements({"n": [1, 2], "p": [1, 1], "cut": [4, 8], "time": [1.0, 2.0]}, config="cut")
    >>> check_single_config(m, "ExtraP")
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: column cut: ExtraP models n and p only, but configuration parameter 'cut' takes 2 values; select one value first (m.select(cut=...))
    """
    frame = measurements.frame
    for c in measurements.config:
        if frame[c].nunique() > 1:
            raise MeasurementError(
                f"{model} models n and p only, but configuration parameter {c!r} takes "
                f"{frame[c].nunique()} values; select one value first (m.select({c}=...))",
                measurements.source,
                column=c,
            )


def _serial_work(measurements: Measurements) -> tuple[np.ndarray, np.ndarray]:
    """``(n, T1'(n))`` rows: the serial_work column, or work of the one-worker runs."""
    frame = measurements.frame
    if "serial_work" in frame and frame["serial_work"].notna().any():
        rows = frame[frame["serial_work"].notna()]
        return rows["n"].to_numpy(float), rows["serial_work"].to_numpy(float)
    one = frame[frame["p"] == 1]
    if len(one) == 0:
        raise MeasurementError(
            "metric 'serial_work' is needed but missing, and there are no one-worker "
            "(p=1) runs whose work could stand in for it",
            measurements.source,
            column="serial_work",
        )
    return one["n"].to_numpy(float), one["work"].to_numpy(float)


# -- positive LassoLars fits ----------------------------------------------------------


class _Lasso:
    """One non-negative, cross-validated LassoLars fit ``y ~ D @ coef``.

    This is ``LassoLarsCV(positive=True, fit_intercept=False)`` with two changes.

    * Scaling: the paper fitted raw basis values; ``n^3`` and ``1`` differ by ~20
      orders of magnitude, which makes both LARS and the L1 penalty depend on units.
      Every column is divided by its root mean square (and ``y`` by its own) before
      the fit and the coefficients are mapped back, so ``coef_`` applies to raw
      features. The objective stays the paper's: absolute squared error, no intercept
      beyond the basis' constant term, all coefficients >= 0.
    * The cross-validation is LassoLarsCV's (LARS-lasso path per fold, held-out
      squared error interpolated on the union of the folds' penalties, smallest mean
      wins, then ``LassoLars`` at that penalty on all rows), re-implemented on
      ``sklearn.linear_model.lars_path``: ``LassoLarsCV`` (1.9) raises when a fold's
      path ends at a penalty of -1e-16, which exact or nearly collinear data (the
      ``n^j log^k n`` columns) produce. The folds are shuffled, since rows sorted by
      ``n`` would turn unshuffled folds into extrapolation along ``n``.
    """

    def __init__(self, n_folds: int = 5, seed: int = 0):
        self.n_folds = n_folds
        self.seed = seed

    @staticmethod
    def _scales(D, y):
        col = np.sqrt(np.mean(D**2, axis=0))
        col = np.where(col > 0, col, 1.0)
        ys = float(np.sqrt(np.mean(y**2)))
        return col, ys if ys > 0 else 1.0

    def fit(self, D, y, what: str):
        D = np.asarray(D, float)
        y = np.asarray(y, float)
        if len(y) < 3:
            raise MeasurementError(
                f"need runs at 3 or more settings to fit {what}, got {len(y)}", column=what
            )
        self.col_, self.yscale_ = self._scales(D, y)
        if not np.any(y > 0):  # e.g. no_work from one-worker runs only: identically 0
            self.alpha_ = 0.0
        else:
            self.alpha_ = self._cv_alpha(D / self.col_, y / self.yscale_)
        self.coef_ = self.refit(D, y)
        self.residual_ = y - D @ self.coef_
        return self

    def _cv_alpha(self, X, y) -> float:
        from sklearn.linear_model import lars_path
        from sklearn.model_selection import KFold

        folds = KFold(min(self.n_folds, len(y)), shuffle=True, random_state=self.seed)
        paths = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LARS warns on collinear basis columns
            for train, test in folds.split(X):
                alphas, _, coefs = lars_path(X[train], y[train], method="lasso", positive=True)
                # ascending penalties; the coefficients are piecewise linear between them
                paths.append((np.maximum(alphas[::-1], 0.0), coefs[:, ::-1], test))
        grid = np.unique(np.concatenate([a for a, _, _ in paths]))
        mse = np.zeros(len(grid))
        for alphas, coefs, test in paths:
            at_grid = np.array([np.interp(grid, alphas, c) for c in coefs])
            mse += np.mean((y[test, None] - X[test] @ at_grid) ** 2, axis=0)
        return float(grid[np.argmin(mse)])

    def refit(self, D, y) -> np.ndarray:
        """Raw-scale coefficients for targets ``y`` at the cross-validated penalty."""
        from sklearn.linear_model import LassoLars

        if not np.any(y > 0):
            return np.zeros(D.shape[1])
        model = LassoLars(alpha=self.alpha_, fit_intercept=False, positive=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(D / self.col_, y / self.yscale_)
        return np.clip(model.coef_, 0.0, None) * self.yscale_ / self.col_


def _mean_by_n(n: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One row per distinct ``n`` (mean ``y``): metrics of ``n`` alone repeat across ``p``,
    and repeated rows would leak between cross-validation folds."""
    values, inverse = np.unique(n, return_inverse=True)
    return values, np.bincount(inverse, weights=y) / np.bincount(inverse)


def _rademacher(rng, size) -> np.ndarray:
    return rng.integers(0, 2, size=size) * 2.0 - 1.0


@persist.register
class TwoStepLasso(TimeModel):
    """The two-step LassoLars model of Namsraijav & Taura (2016), eqs. (9)-(15).

    Six intermediate models, each a non-negative ``LassoLarsCV`` fit on the paper's
    basis (:mod:`probperf.basis` presets), combined as in the paper's fig. 5:

    * ``T1'(n)``: ``serial_work`` (or the work of the one-worker runs) on
      :func:`~probperf.basis.serial_work` (``n^j log2^k n``, j <= 3, k <= 2);
    * ``T1(n,p) = T1'(n) (a0 + a1 (p-1)/p + a2 (p-1))`` from ``work`` (eq. 10; ``a0``
      is fitted rather than fixed at 1, so a traced one-worker run may differ from
      the serial run);
    * ``create_task(n)``, ``wait_tasks(n)`` on :func:`~probperf.basis.task_counts`;
    * ``delay(n,p) = create_task(n)(c1 + c2 (p-1) + c3 (p-1)/p) + wait_tasks(n)(c4 +
      c5 (p-1) + c6 (p-1)/p)`` (eq. 12) with the *fitted* task counts as features;
    * ``no_work(n,p)`` on :func:`~probperf.basis.no_work` (eq. 15, thesis eq. 6.7);

    then ``time = (T1 + delay + no_work) / p`` (eq. 9). Features are scaled to unit
    root mean square before each fit (the paper used raw values; see :class:`_Lasso`),
    the objective stays absolute squared error with all coefficients >= 0.

    Interval: a wild (Rademacher) residual bootstrap of the whole two-step pipeline:
    each replicate refits every stage, at its cross-validated penalty, to fitted
    values plus sign-flipped residuals, with the next stage's features built from the
    replicate's upstream fits. A draw is one replicate's time times ``1 + e`` with
    ``e`` a resampled relative residual of ``work + delay + no_work`` (run-to-run
    noise). With ``n_boot=0`` the model is a point estimate (one draw).

    Parameters
    ----------
    n_boot : int
        Bootstrap replicates (each refits the six stages).
    n_folds : int
        Cross-validation folds of ``LassoLarsCV`` (shuffled).
    seed : int
        Seeds the folds, the bootstrap and the residual draws.

    Examples
    --------
    Traced runs whose metrics follow known laws (:func:`_closed_form_runs`): work
    ``n (1 + 0.1 (p - 1))``, ``n / 16`` tasks, delay ``3 p`` per task, idle time
    ``0.5 n (p - 1)^2``; the prediction at ``n = 2^14, p = 8`` recovers them:

    >>> model = TwoStepLasso(n_boot=0).fit(_closed_form_runs())
    >>> truth = (2**14 * 1.7 + 3 * 2**10 * 8 + 0.5 * 2**14 * 49) / 8
    >>> round(float(model.predict(n=2**14, p=8).median[0] / truth), 2)
    1.0
    """

    uses_config = False
    STAGES: tuple[str, ...] = ("serial_work", "work", "create_task", "wait_tasks", "delay", "no_work")

    def __init__(self, n_boot: int = 100, n_folds: int = 5, seed: int = 0):
        self.n_boot = n_boot
        self.n_folds = n_folds
        self.seed = seed

    def _required(self, measurements):
        return DAG_METRICS

    @staticmethod
    def _bases() -> dict:
        from .. import basis

        return {
            "serial_work": basis.serial_work(),
            "work": basis.worker_terms(("1",)) + basis.work_inflation(),
            "create_task": basis.task_counts(),
            "wait_tasks": basis.task_counts(),
            "delay": basis.worker_terms(("1", "p-1", "(p-1)/p")),
            "no_work": basis.no_work(),
        }

    # The chained designs: each takes upstream values (R x N, one row per replicate).
    def _work_design(self, serial, p):
        return serial[..., None] * self.bases_["work"].design(np.ones_like(p), p)

    def _delay_design(self, create, wait, p):
        w = self.bases_["delay"].design(np.ones_like(p), p)
        return np.concatenate([create[..., None] * w, wait[..., None] * w], axis=-1)

    def _fit_table(self, measurements):
        if self.n_boot < 0:
            raise ValueError(f"n_boot must be >= 0, got {self.n_boot}")
        check_single_config(measurements, type(self).__name__)
        frame = measurements.frame
        n, p = frame["n"].to_numpy(float), frame["p"].to_numpy(float)
        # Metrics of n alone are fitted on one row per distinct n.
        rows_n = {"serial_work": _mean_by_n(*_serial_work(measurements))}
        for m in ("create_task", "wait_tasks"):
            rows_n[m] = _mean_by_n(n, frame[m].to_numpy(float))
        y = {m: frame[m].to_numpy(float) for m in ("work", "delay", "no_work")}
        y.update({m: yn for m, (_, yn) in rows_n.items()})
        self.bases_ = self._bases()
        B = self.bases_
        fixed = {m: B[m].design(nn) for m, (nn, _) in rows_n.items()}
        fixed["no_work"] = B["no_work"].design(n, p)
        lassos = {s: _Lasso(self.n_folds, self.seed) for s in self.STAGES}

        def chain(fit_stage):
            """Run the stages in order; ``fit_stage(stage, design)`` returns coefficients.

            The work and delay designs are built from this run's upstream fits, so a
            bootstrap replicate carries its T1' and task-count errors downstream.
            """
            coefs = {s: fit_stage(s, fixed[s]) for s in fixed}
            serial, create, wait = (
                B[s].design(n) @ coefs[s] for s in ("serial_work", "create_task", "wait_tasks")
            )
            coefs["work"] = fit_stage("work", self._work_design(serial, p))
            coefs["delay"] = fit_stage("delay", self._delay_design(create, wait, p))
            return coefs

        designs = {}

        def full_fit(stage, D):
            designs[stage] = D
            return lassos[stage].fit(D, y[stage], stage).coef_

        point = chain(full_fit)
        fitted = {s: designs[s] @ point[s] for s in self.STAGES}
        rng = np.random.default_rng(self.seed)

        def boot_fit(stage, D):
            flips = _rademacher(rng, len(fitted[stage]))
            return lassos[stage].refit(D, fitted[stage] + lassos[stage].residual_ * flips)

        replicates = [chain(boot_fit) for _ in range(self.n_boot)]
        self.coef_ = {s: np.array([point[s]] + [r[s] for r in replicates]) for s in self.STAGES}
        self.alpha_ = {s: lassos[s].alpha_ for s in self.STAGES}
        total = sum(y[m] for m in ("work", "delay", "no_work"))
        total_hat = fitted["work"] + fitted["delay"] + fitted["no_work"]
        ok = total_hat > 0
        self.relative_residual_ = total[ok] / total_hat[ok] - 1.0 if ok.any() else np.zeros(1)

    def _metrics(self, X, replicates) -> dict:
        """Every intermediate metric and time at raw points ``X``: ``{name: (R x N)}``.

        ``replicates`` selects coefficient rows (0 is the fit to all data, 1..n_boot
        the bootstrap replicates).
        """
        n, p = self._columns(np.asarray(X, float))
        C = {s: c[replicates] for s, c in self.coef_.items()}
        B = self.bases_
        serial = C["serial_work"] @ B["serial_work"].design(n).T
        out = {"serial_work": serial}
        out["work"] = np.einsum("rnk,rk->rn", self._work_design(serial, p), C["work"])
        for stage in ("create_task", "wait_tasks"):
            out[stage] = C[stage] @ B[stage].design(n).T
        delay_d = self._delay_design(out["create_task"], out["wait_tasks"], p)
        out["delay"] = np.einsum("rnk,rk->rn", delay_d, C["delay"])
        out["no_work"] = C["no_work"] @ B["no_work"].design(n, p).T
        out["time"] = (out["work"] + out["delay"] + out["no_work"]) / p
        return out

    def _predict_draws(self, X, n_draws, seed):
        if self.n_boot == 0:
            return self._metrics(X, [0])["time"]
        rng = np.random.default_rng(seed)
        time = self._metrics(X, slice(1, None))["time"]
        rows = rng.integers(0, self.n_boot, size=n_draws)
        noise = rng.choice(self.relative_residual_, size=(n_draws, X.shape[0]))
        return np.maximum(time[rows] * (1.0 + noise), 0.0)

    def predict_metric(self, X=None, metric: str = "work", n_draws=None, seed=0, **params):
        """Draws of one intermediate model (``serial_work``, ``work``, ``create_task``,
        ``wait_tasks``, ``delay``, ``no_work``) over the bootstrap replicates.

        Fit uncertainty only (no run-to-run noise); one row when ``n_boot=0``.

        Returns
        -------
        Predictive
            Rows drawn from the bootstrap replicates' predictions.

        Examples
        --------
        >>> model = TwoStepLasso(n_boot=0).fit(_closed_form_runs())  # the class example's runs
        >>> work = model.predict_metric(n=2**14, p=8, metric="work")
        >>> work.name, round(float(work.median[0] / (1.7 * 2**14)), 3)  # work = n (1 + 0.1 (p - 1))
        ('work', 1.0)
        """
        self._check_fitted()
        if metric not in self.STAGES:
            raise ValueError(f"unknown intermediate metric {metric!r}; choose one of {self.STAGES}")
        points = self._points(X, params)
        X = self._inputs(points)
        if self.n_boot == 0:
            return Predictive(self._metrics(X, [0])[metric], points, metric)
        values = self._metrics(X, slice(1, None))[metric]
        rows = np.random.default_rng(seed).integers(0, self.n_boot, size=draw_count(n_draws, self.n_draws))
        return Predictive(values[rows], points, metric)

    def coefficients(self):
        """The fitted (all-data) coefficients: a DataFrame of ``stage, term, coef``.

        Terms of ``work`` multiply ``T1'(n)``; those of ``delay`` multiply the fitted
        ``create_task`` (first half) and ``wait_tasks`` (second half).

        Examples
        --------
        >>> coef = TwoStepLasso(n_boot=0).fit(_closed_form_runs()).coefficients()  # the class example's runs
        >>> for stage, term, value in coef[coef["coef"] > 1e-6].itertuples(index=False):
        ...     print(f"{stage:12} {term:16} {value:.3g}")
        serial_work  n                1
        work         T1'*1            1
        work         T1'*p-1          0.1
        create_task  n                0.0625
        wait_tasks   n                0.0625
        delay        create_task*1    3
        delay        create_task*p-1  3
        no_work      n (p-1)^2        0.5
        """
        import pandas as pd

        self._check_fitted()
        rows = []
        for stage in self.STAGES:
            names = self.bases_[stage].names
            if stage == "delay":
                names = [f"create_task*{t}" for t in names] + [f"wait_tasks*{t}" for t in names]
            if stage == "work":
                names = [f"T1'*{t}" for t in names]
            rows += [(stage, t, float(c)) for t, c in zip(names, self.coef_[stage][0])]
        return pd.DataFrame(rows, columns=["stage", "term", "coef"])

    _fitted = ("alpha_", "bases_", "coef_", "relative_residual_")


@persist.register
class CilkviewBounds(TimeModel):
    """Cilkview's performance band (He, Leiserson & Leiserson 2010), fitted to DAG metrics.

    ``lower = max(T1/p, critical_path)`` (work and span laws) and
    ``upper = T1/p + 1.7 * burdened_span`` (the paper's eq. (4) with delta = 0.85).
    Cilkview charges a fixed burden (~15,000 instructions) on each continuation and
    return edge of the span. Without a trace of the critical path we estimate:

    * burden per edge = ``delay(n,p) / (create_task(n) + wait_tasks(n))``: the
      measured scheduling overhead per task event at that worker count;
    * burdened edges on the span = ``2 log2(1 + create_task(n))``: one continuation
      and one return edge per level of a balanced spawn tree;
    * ``burdened_span = critical_path + 2 log2(1 + create_task) * burden``.

    ``T1``, ``delay`` and the task counts come from a :class:`TwoStepLasso` point
    fit; ``critical_path(n,p)`` from a non-negative ``LassoLarsCV`` on
    ``n^j log2^k n`` times ``1`` and ``p-1``. ``predict`` draws uniformly in
    ``[lower, upper]`` (one position per draw, shared by all points): a band, not a
    probability statement. Cilkview's upper bound holds for work stealing with
    ``no_work`` bounded by the span; when ``no_work`` grows like ``(p-1)^2`` (the
    2016 paper's observation) the true time leaves the band at large ``p``.

    Parameters
    ----------
    n_folds : int
        Cross-validation folds of each ``LassoLarsCV``.
    seed : int
        Seeds the folds and the draws.

    Examples
    --------
    The bounds need the span: runs traced without the critical path are refused (a
    program whose bounds hold beyond the data is in :meth:`bounds`).

    >>> CilkviewBounds().fit(_closed_form_runs())
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: column critical_path: metric 'critical_path' is needed but missing ...
    """

    uses_config = False

    def __init__(self, n_folds: int = 5, seed: int = 0):
        self.n_folds = n_folds
        self.seed = seed

    def _required(self, measurements):
        return (*DAG_METRICS, "critical_path")

    @staticmethod
    def _span_basis():
        from .. import basis

        return basis.normal_form(worker=("1", "p-1"))

    def _fit_table(self, measurements):
        check_single_config(measurements, type(self).__name__)  # said as this model, not its inner one
        self.dag_ = TwoStepLasso(n_boot=0, n_folds=self.n_folds, seed=self.seed).fit(measurements)
        frame = measurements.frame
        n, p = frame["n"].to_numpy(float), frame["p"].to_numpy(float)
        span = _Lasso(self.n_folds, self.seed).fit(
            self._span_basis().design(n, p), frame["critical_path"].to_numpy(float), "critical_path"
        )
        self.span_coef_ = span.coef_
        self.span_alpha_ = span.alpha_
        self._check_band(measurements)

    def _check_band(self, measurements) -> None:
        """Say at the fit what :meth:`_cautions` says at each prediction."""
        from .. import userwarn

        for line in self._cautions(None):
            userwarn.warn(line)

    def _cautions(self, points) -> list[str]:
        """How many training runs lie above the fitted upper bound, said with every
        prediction (:func:`probperf.cautions.messages`), not only at the fit: a band its
        own runs leave is no bound there (delay and no_work the span does not bound, see
        the class's text), and beyond the data it holds no better. From the runs the
        model keeps (``train_points_``), so a loaded model says it too."""
        import pandas as pd

        runs = pd.DataFrame(self.train_points_)
        _, upper = self._bounds(self._inputs(runs))
        above = int(np.sum(runs["time"].to_numpy(float) > upper))
        return [f"cilkview: {above} of {len(runs)} training runs take longer than the fitted upper bound: the runs "
                "break its assumptions (idle and scheduling time bounded by the span)"] if above else []

    def bounds(self, X=None, **params) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` time bounds per point (points as for :meth:`predict`).

        Examples
        --------
        A program whose idle time is bounded by its span (``no_work = span * (p - 1)``),
        as Cilkview's upper bound assumes: the band holds beyond the largest training ``n``.

        >>> import numpy as np, probperf as pp
        >>> n, p = (g.ravel() for g in np.meshgrid(2.0 ** np.arange(10, 15), [1, 2, 4, 8]))
        >>> tasks, span = n / 16, 50 * np.log2(n) ** 2
        >>> runs = {"n": n, "p": p, "work": 3 * n, "delay": 2 * tasks * p, "no_work": span * (p - 1),
        ...         "create_task": tasks, "wait_tasks": tasks, "critical_path": span}
        >>> runs["time"] = (runs["work"] + runs["delay"] + runs["no_work"]) / p
        >>> lower, upper = CilkviewBounds().fit(pp.Measurements(runs)).bounds(n=2**16, p=[1, 8, 64])
        >>> lower.round().tolist()  # work / p, until the span (50 log2(n)^2 = 12800) is longer
        [196608.0, 24576.0, 12800.0]
        >>> p = np.array([1, 8, 64])
        >>> truth = (3 * 2**16 + 2 * 2**12 * p + 12800 * (p - 1)) / p
        >>> bool(np.all((lower <= truth) & (truth <= upper)))
        True
        """
        self._check_fitted()
        return self._bounds(self._inputs(self._points(X, params)))

    def _bounds(self, X):
        n, p = self._columns(X)
        m = {k: v[0] for k, v in self.dag_._metrics(X, [0]).items()}
        span = self._span_basis().design(n, p) @ self.span_coef_
        events = m["create_task"] + m["wait_tasks"]
        with np.errstate(divide="ignore", invalid="ignore"):
            burden = np.where(events > 0, m["delay"] / events, 0.0)
        burdened_span = span + 2.0 * np.log2(1.0 + m["create_task"]) * burden
        lower = np.maximum(m["work"] / p, span)
        upper = m["work"] / p + CILKVIEW_SPAN_FACTOR * burdened_span
        return lower, np.maximum(upper, lower)

    def _predict_draws(self, X, n_draws, seed):
        lower, upper = self._bounds(X)
        u = np.random.default_rng(seed).random((n_draws, 1))
        return lower + u * (upper - lower)

    _fitted = ("span_alpha_", "dag_", "span_coef_")


# -- neural networks (thesis ch. 5 and sec. 6.2) --------------------------------------

HIDDEN = 64

#: Parameter tensors of the network, in order: two shared layers, then the heads.
_NET_KEYS = ("w1", "b1", "w2", "b2", "wh", "bh")


def _init_net(n_inputs: int, n_heads: int, gen) -> dict:
    """Uniform(+-1/sqrt(fan_in)) initialisation (torch's Linear default), seeded."""
    import torch

    def uniform(shape, fan_in):
        bound = 1.0 / math.sqrt(fan_in)
        return ((torch.rand(shape, generator=gen) * 2 - 1) * bound).requires_grad_()

    return {
        "w1": uniform((n_inputs, HIDDEN), n_inputs),
        "b1": uniform((HIDDEN,), n_inputs),
        "w2": uniform((HIDDEN, HIDDEN), HIDDEN),
        "b2": uniform((HIDDEN,), HIDDEN),
        "wh": uniform((HIDDEN, n_heads), HIDDEN),
        "bh": uniform((n_heads,), HIDDEN),
    }


def _hidden(net: dict, X):
    """Output of the second hidden layer (before dropout)."""
    h = (X @ net["w1"] + net["b1"]).relu()
    return (h @ net["w2"] + net["b2"]).relu()


def _weighted_mse(pred, target, weight):
    """Eq. (5.1) of the thesis, ``sum w_i (y_i - y(x_i))^2``, divided by ``sum w_i``.

    The division only rescales the loss (Adam is invariant to that) and makes
    validation losses of different sizes comparable.
    """
    return (weight * (pred - target) ** 2).sum() / weight.sum()


class _NeuralTimeModel(TimeModel):
    """Shared machinery of :class:`DirectNN` and :class:`MultiTaskNN`.

    Inputs: the parameters (``n``, ``p``, config) as they are (the thesis) or, with
    ``log_scale=True``, ``log2`` of the positive ones; standardised. Targets, per task: ``time * p`` for time (the thesis's *time_workers*), the metric
    itself otherwise, each standardised. Loss: squared error weighted by the run's
    worker count (thesis eq. 5.1). One dropout layer sits between the second hidden
    layer and the heads; MC dropout at prediction time gives the draws.
    """

    def __init__(
        self,
        n_search: int = 4,
        dropout: tuple[float, float] = (0.05, 0.3),
        learning_rate: tuple[float, float] = (1e-3, 3e-2),
        max_epochs: int = 1000,
        patience: int = 100,
        batch_size: int = 32,
        val_fraction: float = 0.2,
        log_scale: bool = False,
        seed: int = 0,
    ):
        self.n_search = n_search
        self.dropout = dropout
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.patience = patience
        self.batch_size = batch_size
        self.val_fraction = val_fraction
        self.log_scale = log_scale
        self.seed = seed

    # subclasses: the metrics, one per head; "time" first
    def _tasks(self, measurements: Measurements) -> list[str]:
        raise NotImplementedError

    def _required(self, measurements):
        return tuple(self._tasks(measurements))

    def _check_params(self):
        lo, hi = self.dropout
        if not 0.0 <= lo <= hi < 1.0:
            raise ValueError(f"dropout range must satisfy 0 <= low <= high < 1, got {self.dropout}")
        lo, hi = self.learning_rate
        if not 0.0 < lo <= hi:
            raise ValueError(f"learning_rate range must be positive, got {self.learning_rate}")
        if self.n_search < 1 or self.max_epochs < 1 or self.batch_size < 1:
            raise ValueError("n_search, max_epochs and batch_size must be >= 1")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in (0, 1), got {self.val_fraction}")

    def _fit_table(self, measurements):
        import torch

        self._check_params()
        self.tasks_ = self._tasks(measurements)
        Xraw = measurements.X(self.features_)
        p = Xraw[:, self.features_.index("p")]
        Y = np.column_stack([measurements.y(t) for t in self.tasks_])
        Y[:, 0] = Y[:, 0] * p  # time_workers, the thesis's target
        if len(Y) < 4:
            raise MeasurementError(f"need at least 4 runs to train a network, got {len(Y)}")
        # Raw inputs (log_scale=False) are the thesis's choice: a ReLU net is piecewise
        # linear in its inputs, so it then extrapolates time*p linearly in n and p.
        self.log_mask_ = log_mask(Xraw) if self.log_scale else np.zeros(Xraw.shape[1], bool)
        self.x_scaler_ = Standardizer().fit(log_inputs(Xraw, self.log_mask_))
        self.y_scaler_ = Standardizer().fit(Y)
        X = torch.as_tensor(self.x_scaler_.transform(log_inputs(Xraw, self.log_mask_)), dtype=torch.float32)
        Z = torch.as_tensor(self.y_scaler_.transform(Y), dtype=torch.float32)
        w = torch.as_tensor(np.array(p, dtype=np.float32))  # a copy: a column of a read-only frame is read-only
        rng = np.random.default_rng(self.seed)
        n_val = max(1, int(round(self.val_fraction * len(Y))))
        perm = rng.permutation(len(Y))
        val, train = perm[:n_val], perm[n_val:]
        best = None
        self.search_ = []
        for trial in range(self.n_search):
            dropout = float(rng.uniform(*self.dropout))
            lr = float(np.exp(rng.uniform(*np.log(self.learning_rate))))
            net, loss, epochs = self._train(X, Z, w, train, val, dropout, lr, self.seed + trial)
            self.search_.append({"dropout": dropout, "learning_rate": lr, "val_loss": loss, "epochs": epochs})
            if best is None or loss < best[1] or best[0] is None:
                best = (net, loss, dropout, lr)
        net, self.val_loss_, self.dropout_, self.learning_rate_ = best
        if net is None:
            raise RuntimeError(
                f"{type(self).__name__}: training diverged (NaN loss) in all {self.n_search} "
                f"trials; lower the learning_rate range {self.learning_rate}"
            )
        self.net_ = {k: v.detach().numpy().astype(np.float32) for k, v in net.items()}
        from .. import userwarn

        self._misfit = None  # a re-fit works it out again
        for line in self._cautions(None):  # said at the fit, and with every prediction
            userwarn.warn(line)

    #: How far (a factor) a network's mean may miss one of its own training runs before
    #: every prediction says so: an order of magnitude, where a prediction is of no use
    #: whatever its interval (helper-78: on runs spanning 9 decades the raw-scale
    #: network, fitted by squared error, missed its smallest runs 600,000x).
    MISFIT_FACTOR = 10.0

    def _cautions(self, points) -> list[str]:
        """How far the network's mean misses its own training runs' time, when by more
        than :data:`MISFIT_FACTOR` (from ``train_points_``, so a loaded model says it
        too); worked out once per model object, not at every prediction."""
        if getattr(self, "_misfit", None) is None:
            self._misfit = self._misfit_lines()
        return list(self._misfit)

    def _misfit_lines(self) -> list[str]:
        import pandas as pd

        runs = pd.DataFrame(self.train_points_)
        X = runs[self.features_].to_numpy(dtype=np.float64)
        h, net = self._hidden(X)
        head = self.tasks_.index("time")  # inverted dropout: the mean network is the unthinned one
        mean = (h @ net["wh"][:, head] + net["bh"][head]) * self.y_scaler_.scale_[head] + self.y_scaler_.mean_[head]
        time = mean / X[:, self.features_.index("p")]  # the head's target is time * p
        y = runs["time"].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(time > 0, np.maximum(time / y, y / time), np.inf)
        worst = int(np.argmax(factor))
        if factor[worst] <= self.MISFIT_FACTOR:
            return []
        at = ", ".join(f"{c}={v:g}" for c, v in zip(self.features_, X[worst]))
        miss = "predicts no positive time" if not np.isfinite(factor[worst]) else f"misses it {factor[worst]:.3g}x"
        scale = "" if self.log_scale else (" (inputs and time on the raw scale, the thesis's design: squared error "
                                           "fits the longest runs and leaves the shortest)")
        return [f"{type(self).__name__} does not reproduce its own training runs: at {at} it {miss}"
                f"{scale}; fit --model direct, or this network with log_scale=True in Python"]

    def _train(self, X, Z, w, train, val, dropout, lr, seed):
        """Adam with early stopping on the weighted validation loss of the time head."""
        import torch

        gen = torch.Generator().manual_seed(seed)
        net = _init_net(X.shape[1], Z.shape[1], gen)
        opt = torch.optim.Adam(list(net.values()), lr=lr)
        train_t = torch.as_tensor(train)
        Xv, Zv, wv = X[val], Z[val, 0], w[val]
        best_loss, best_net, best_epoch = math.inf, None, 0
        keep = 1.0 - dropout
        # One epoch = one pass over the training rows per task, so that with a random
        # task per step each head sees about one pass per epoch.
        for epoch in range(1, self.max_epochs + 1):
            order = torch.cat(
                [train_t[torch.randperm(len(train_t), generator=gen)] for _ in range(Z.shape[1])]
            )
            for batch in order.split(self.batch_size):
                task = self._step_task(Z.shape[1], gen)
                h = _hidden(net, X[batch])
                mask = (torch.rand(h.shape, generator=gen) < keep).float() / keep
                out = (h * mask) @ net["wh"][:, task] + net["bh"][task]
                loss = _weighted_mse(out, Z[batch, task], w[batch])
                opt.zero_grad()
                loss.backward()
                opt.step()
            with torch.no_grad():
                # Dropout off for validation: the expected network (inverted dropout).
                v = _weighted_mse(_hidden(net, Xv) @ net["wh"][:, 0] + net["bh"][0], Zv, wv).item()
            if v < best_loss - 1e-12:
                best_loss, best_epoch = v, epoch
                best_net = {k: t.detach().clone() for k, t in net.items()}
            elif epoch - best_epoch >= self.patience:
                break
        return best_net, best_loss, best_epoch

    def _step_task(self, n_tasks: int, gen) -> int:
        """The head trained at this step (always time for a single-task network)."""
        return 0

    def _head_draws(self, X: np.ndarray, head: int, n_draws: int, seed) -> np.ndarray:
        """MC-dropout draws of one head on its standardised scale, (draws x points).

        Dropout acts only between the second hidden layer and the heads, so the
        hidden activations are computed once and each draw applies one dropout mask
        to every point: row ``s`` is one thinned network, a coherent joint draw.
        """
        h, net = self._hidden(X)
        keep = 1.0 - self.dropout_
        rng = np.random.default_rng(seed)
        masks = (rng.random((n_draws, HIDDEN)) < keep) / keep
        return (masks * net["wh"][:, head]) @ h.T + net["bh"][head]

    def _hidden(self, X: np.ndarray) -> tuple[np.ndarray, dict]:
        """The second hidden layer's activations at ``X`` (before the dropout) and the
        weights as float64."""
        Z = self.x_scaler_.transform(log_inputs(X, self.log_mask_))
        net = {k: v.astype(np.float64) for k, v in self.net_.items()}
        h = np.maximum(Z @ net["w1"] + net["b1"], 0.0)
        return np.maximum(h @ net["w2"] + net["b2"], 0.0), net

    def _metric_draws(self, X, metric, n_draws, seed) -> np.ndarray:
        head = self.tasks_.index(metric)
        out = self._head_draws(X, head, n_draws, seed)
        out = out * self.y_scaler_.scale_[head] + self.y_scaler_.mean_[head]
        if metric == "time":
            out = out / self._columns(X)[1]
        # A ReLU net extrapolates linearly and can cross zero; metrics are >= 0.
        return np.maximum(out, 0.0)

    def _predict_draws(self, X, n_draws, seed):
        return self._metric_draws(X, "time", n_draws, seed)

    _fitted = ("tasks_", "dropout_", "learning_rate_", "val_loss_", "search_", "net_", "log_mask_",
               "x_scaler_", "y_scaler_")

    def _loaded(self) -> None:
        self.log_mask_ = np.asarray(self.log_mask_, dtype=bool)


@persist.register
class DirectNN(_NeuralTimeModel):
    """The thesis's *Direct NN*: a network from parameters straight to time.

    Two hidden layers of 64 ReLU units and one dropout layer before the linear
    read-out (thesis fig. 5.1). Inputs ``(n, p, config params)``, standardised;
    raw as in the thesis by default, ``log2`` with ``log_scale=True``. The target is
    *time_workers* ``= time * p`` and the loss is the thesis's eq. (5.1),
    ``sum_i p_i (y_i - y(x_i))^2``, on the standardised target (the same minimiser:
    standardising only rescales the loss). Adam on mini-batches; early stopping on a
    random validation split; random search of the dropout rate (uniform) and the
    learning rate (log-uniform) with the best validation loss kept.

    Only the ``time`` metric is needed. The interval is MC dropout: each draw is the
    network with one random dropout mask (model uncertainty only, no run-to-run noise).

    Parameters
    ----------
    n_search : int
        Random-search trials (each trains one network).
    dropout : (float, float)
        Range of the dropout rate. The thesis drew keep-probability from (0, 0.9),
        i.e. dropout in (0.1, 1); with a small search budget that range mostly
        produces useless networks, so the default is narrower.
    learning_rate : (float, float)
        Range of Adam's learning rate, sampled log-uniformly (thesis: [1e-6, 1]).
    max_epochs, patience : int
        Epoch limit and early-stopping patience (epochs without a better validation loss).
    batch_size : int
        Mini-batch size.
    val_fraction : float
        Share of the runs held out for validation.
    log_scale : bool
        Feed ``log2`` of the positive parameters instead of their raw values. The
        thesis used raw values, and with its linear target that is what extrapolates:
        a ReLU net is piecewise linear in its inputs, so on raw ``n`` it continues
        ``time * p`` linearly in ``n``, while on ``log2 n`` it continues linearly in
        ``log n`` and falls far short at larger ``n`` (simulated ``sort``, 4x the
        largest training ``n``: median error 4-12 % raw, 45-48 % log2).
    seed : int
        Seeds the split, the search, the initialisation and the mini-batches.

    Examples
    --------
    >>> import numpy as np, probperf as pp
    >>> n, p = np.meshgrid(2.0 ** np.arange(8, 12), [1, 2, 4]); n, p = n.ravel(), p.ravel()
    >>> m = pp.Measurements({"n": n, "p": p, "time": n / p + 50.0})
    >>> model = DirectNN(n_search=1, max_epochs=20).fit(m)
    >>> model.predict({"n": 2048, "p": 4}, n_draws=50).draws.shape
    (50, 1)
    """

    def _tasks(self, measurements):
        return ["time"]


@persist.register
class MultiTaskNN(_NeuralTimeModel):
    """The thesis's *Multi-task NN*: shared layers, one head per DAG metric.

    The network of :class:`DirectNN` with one linear head per task: ``time`` (as
    *time_workers*) and the extra tasks, each target standardised on its own. As in
    the thesis, every training step picks one task at random and back-propagates that
    task's worker-weighted loss; early stopping watches the time head. Time is
    predicted from the time head (thesis fig. 6.4), not from the metric heads;
    :meth:`predict_metric` gives the others.

    Parameters
    ----------
    tasks : sequence of str or "auto"
        Extra tasks. Default: ``work``, ``delay``, ``no_work``, ``create_task``,
        ``wait_tasks``, ``critical_path``. ``"auto"`` applies the thesis's rule: the
        two of ``work``, ``delay``, ``no_work`` with the highest Pearson correlation
        with time, plus ``create_task``, ``wait_tasks`` and ``critical_path``.
    **training
        The search and training settings, as for :class:`DirectNN` (``n_search``,
        ``dropout``, ``learning_rate``, ``max_epochs``, ``patience``, ``batch_size``,
        ``val_fraction``, ``log_scale``, ``seed``).

    Examples
    --------
    >>> runs = _closed_form_runs()  # traced runs whose metrics follow known laws
    >>> model = MultiTaskNN(tasks=["work", "delay"], n_search=1, max_epochs=20).fit(runs)
    >>> model.tasks_
    ['time', 'work', 'delay']
    """

    DEFAULT_TASKS = ("work", "delay", "no_work", "create_task", "wait_tasks", "critical_path")

    def __init__(self, tasks: Sequence[str] | str = DEFAULT_TASKS, **training):
        # the search and training settings are DirectNN's, declared once in the base
        # class (get_params finds them there: persist.init_params)
        super().__init__(**training)
        self.tasks = tasks

    def _tasks(self, measurements):
        if isinstance(self.tasks, str):
            if self.tasks != "auto":
                raise ValueError(f"tasks must be a list of metrics or 'auto', got {self.tasks!r}")
            return ["time", *self._thesis_tasks(measurements)]
        extra = [t for t in self.tasks if t != "time"]
        if not extra:
            raise ValueError("MultiTaskNN needs at least one extra task besides time")
        return ["time", *extra]

    @staticmethod
    def _thesis_tasks(measurements) -> list[str]:
        """Two of work/delay/no_work most correlated with time, plus the counts and span."""
        candidates = ("work", "delay", "no_work")
        measurements.require("time", *candidates)
        time = measurements.y("time")
        corr = {}
        for c in candidates:
            y = measurements.y(c)
            corr[c] = np.corrcoef(time, y)[0, 1] if np.std(y) > 0 else -np.inf
        chosen = sorted(candidates, key=lambda c: -corr[c])[:2]
        return [c for c in candidates if c in chosen] + ["create_task", "wait_tasks", "critical_path"]

    def _step_task(self, n_tasks, gen):
        import torch

        return int(torch.randint(n_tasks, (1,), generator=gen))

    def predict_metric(self, X, metric: str, n_draws: int | None = None, seed: int | None = 0):
        """MC-dropout draws of one head (``time`` or an extra task) at ``X``.

        Returns
        -------
        Predictive
            One row per draw, each from the network with one random dropout mask.

        Examples
        --------
        >>> model = MultiTaskNN(tasks=["work", "delay"], n_search=1, max_epochs=20).fit(_closed_form_runs())
        >>> work = model.predict_metric({"n": [1024], "p": [2]}, "work", n_draws=50)
        >>> work.name, work.draws.shape
        ('work', (50, 1))
        >>> model.predict_metric({"n": [1024], "p": [2]}, "no_work")
        Traceback (most recent call last):
        ...
        ValueError: no head for 'no_work'; the heads are ['time', 'work', 'delay']
        """
        self._check_fitted()
        if metric not in self.tasks_:
            raise ValueError(f"no head for {metric!r}; the heads are {self.tasks_}")
        points = self._points(X, {})
        draws = self._metric_draws(self._inputs(points), metric, draw_count(n_draws, self.n_draws), seed)
        return Predictive(draws, points, metric)
