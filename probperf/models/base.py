"""The interfaces every model shares.

* :class:`Estimator`: scikit-learn's conventions (constructor parameters, ``repr``)
  and model files (``save`` / ``load``, declared ``_fitted`` state).
* :class:`MetricModel`: one metric over parameters (the DAG model's components).
* :class:`TableModel`: a model fitted on a whole :class:`~probperf.data.Measurements`
  table that predicts time at points (the DAG model, the time-only models, the
  baselines, Extra-P): it remembers what a user of a loaded model file needs.

``fit(X, y)`` or ``fit(measurements, target=...)`` returns ``self``;
``predict(X)`` returns a :class:`~probperf.predict.Predictive` of joint draws;
``save(path)`` / ``load(path)`` use :mod:`probperf.persist` (data, never code).

Subclasses implement ``_fit(X, y)`` with ``X`` a float64 array whose columns are
``self.features_`` (raw scale: ``n``, ``p``, config params) and ``y`` the positive
metric values, and ``_predict_draws(X, n_draws, rng_seed)`` returning an array of
shape (n_draws, n_points) on the metric's own scale, and declare their fitted
attributes in ``_fitted`` (what a model file holds, see :mod:`probperf.persist`).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Sequence

import numpy as np
import pandas as pd

from .. import persist
from ..data import Measurements, as_points
from ..limits import draw_count
from ..predict import Predictive, constant_params, point_table, prediction_points, whole_number

DEFAULT_DRAWS = 1000


class Estimator:
    """Constructor parameters, ``repr``, ``save`` and ``load`` for every model.

    Examples
    --------
    >>> class Scaled(Estimator):
    ...     def __init__(self, factor=2.0):
    ...         self.factor = factor
    >>> Scaled(3.0)
    Scaled(factor=3.0)
    >>> Scaled().save("x.model")
    Traceback (most recent call last):
    ...
    RuntimeError: Scaled is not fitted; call fit() first
    """

    @contextmanager
    def _fitting(self):
        """The body of a ``fit``: it starts from no fitted state (a re-fit keeps none of
        an earlier fit's, diagnostics included: every public attribute ending in ``_``,
        scikit-learn's convention), and a failed fit leaves none either, so the model
        is never a mix of two fits."""
        self._forget()
        try:
            yield
        except BaseException:
            self._forget()
            raise

    def _forget(self) -> None:
        for field in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            del self.__dict__[field]

    def _check_fitted(self):
        if not hasattr(self, "features_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit() first")

    def save(self, path) -> None:
        """Write the fitted model to ``path`` (a safetensors file; see :mod:`probperf.persist`).

        Examples
        --------
        >>> import os, tempfile
        >>> from probperf.models import LawMixture
        >>> model = LawMixture().fit({"n": [8, 16, 32, 64, 128]}, [24.0, 48.0, 96.0, 192.0, 384.0])
        >>> path = os.path.join(tempfile.mkdtemp(), "work.model")
        >>> model.save(path)
        >>> os.path.getsize(path) > 0
        True
        """
        self._check_fitted()
        persist.check_model_path(path)  # a directory, a missing folder, runs' suffix: by name
        persist.save(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`.

        Examples
        --------
        The loaded model predicts what the saved one did, draw for draw:

        >>> import os, tempfile
        >>> from probperf.models import BayesianBasisRegression, LawMixture
        >>> model = LawMixture(seed=3).fit({"n": [8, 16, 32, 64, 128]}, [24.0, 48.0, 96.0, 192.0, 384.0])
        >>> path = os.path.join(tempfile.mkdtemp(), "work.model")
        >>> model.save(path)
        >>> loaded = LawMixture.load(path)
        >>> at = {"n": [256]}
        >>> loaded.seed, bool(np.array_equal(loaded.predict(at).draws, model.predict(at).draws))
        (3, True)

        Loading through another class checks what the file holds:

        >>> BayesianBasisRegression.load(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        probperf.persist.ModelFileError: .../work.model holds a LawMixture, not a BayesianBasisRegression
        """
        model = persist.load(path)
        if not isinstance(model, cls):
            raise persist.ModelFileError(f"{path} holds a {type(model).__name__}, not a {cls.__name__}")
        return model

    def get_params(self) -> dict:
        """Constructor parameters (scikit-learn convention).

        Examples
        --------
        >>> from probperf.models import TwoStepLasso
        >>> model = TwoStepLasso(n_boot=0)
        >>> model.get_params()
        {'n_boot': 0, 'n_folds': 5, 'seed': 0}
        >>> TwoStepLasso(**{**model.get_params(), "seed": 1})  # a copy with one change
        TwoStepLasso(n_boot=0, n_folds=5, seed=1)
        """
        return persist.init_params(self)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


#: Who checks a table to report on it, not to fit it (``probperf doctor``).
DIAGNOSE = "diagnose"


def check_table(measurements, who: str) -> None:
    """Refuse runs that are not a :class:`Measurements` (``TypeError``), have no rows
    or, unless ``who`` is :data:`DIAGNOSE`, parameter values the fits cannot take
    (``ValueError``, :func:`probperf.doctor.beyond_law_range`), naming ``who`` was given them.

    Examples
    --------
    >>> m = Measurements({"n": [10, 20], "p": [1, 1], "time": [1.0, 2.0]})
    >>> check_table(m.rows(np.array([False, False])), "fit")
    Traceback (most recent call last):
    ...
    ValueError: fit: the table has no rows: nothing to fit
    """
    if not isinstance(measurements, Measurements):
        raise TypeError(f"{who} expects a probperf Measurements table (pp.Measurements(frame, config=[...]) or "
                        f"pp.read(path)), got {type(measurements).__name__}")
    if not len(measurements):
        raise ValueError(f"{who}: the table has no rows: nothing to fit")
    if who != DIAGNOSE:  # doctor lists them among the problems
        from ..doctor import beyond_law_range

        # a parameter (every model takes them all); a metric is refused by the law
        # that models it, not where a model leaves it alone
        wide = beyond_law_range(measurements, metrics=False)
        if wide:
            raise ValueError(f"{who}: {wide[0]}")


class TableModel(Estimator):
    """Base of the models fitted on a whole table of runs that predict at points.

    ``fit(measurements)`` calls :meth:`_remember`, which records what a loaded model
    file must still know: the input features, the parameters that were constant in
    training (so a prediction point may omit them), each feature's training range and
    number of distinct values (extrapolation checks and warnings), the time unit, and
    the training runs themselves (plots).

    Examples
    --------
    >>> m = Measurements({"n": [10, 20, 40], "p": [2, 2, 2], "time": [1.0, 2.0, 4.0]})
    >>> t = TableModel()
    >>> t._remember(m, ["n", "p"], "time")
    >>> t.defaults_, t.train_ranges_["n"], t._points(None, {"n": 80}).to_dict("list")
    ({'p': 2}, [10.0, 40.0, 3], {'n': [80.0], 'p': [2.0]})
    """

    _fitted = ("features_", "unit_", "defaults_", "train_ranges_", "train_points_")

    def _check_table(self, measurements) -> None:
        """A ``TypeError`` unless the runs are a :class:`Measurements` (a DataFrame's
        configuration parameters must be declared: ``Measurements(frame, config=[...])``),
        a ``ValueError`` where it has no rows (one cut from a table, ``m.rows(mask)``) or
        an option is wrong (:meth:`_check_params`: ``target="n"`` once fitted n)."""
        check_table(measurements, f"{type(self).__name__}.fit")
        self._check_params()

    def _check_params(self) -> None:
        """The constructor's options a table model may have (``target``, ``kernel``,
        ``effort``, ``seed``), each checked as a fit checks it; ``ValueError`` names the
        first that is wrong. Subclasses with more options extend it.

        Examples
        --------
        >>> from probperf.timemodels import DirectModel
        >>> DirectModel(seed=-1)._check_params()
        Traceback (most recent call last):
        ...
        ValueError: seed must be a whole number >= 0, got -1
        """
        from ..registry import target_problem
        from .specs import check_effort, parse

        target = getattr(self, "target", "time")
        if target_problem(target):
            raise ValueError(f"{type(self).__name__}(target={target!r}): {target_problem(target)}")
        if getattr(self, "kernel", None) is not None:
            parse(self.kernel)
        if hasattr(self, "effort"):
            check_effort(self.effort)
        if hasattr(self, "seed"):
            whole_number(self.seed, "seed")

    def _loaded(self) -> None:
        """Check a loaded model file's fields beside its arrays (:func:`probperf.persist.load`
        calls it): its options as a fit checks them and its time unit, so an edited field
        is refused at load with the rest of the file, not at some later prediction."""
        from ..data import UNITS

        if self.unit_ not in UNITS:
            raise ValueError(f"unit_ {self.unit_!r:.40} is not a time unit probperf fits in ({', '.join(UNITS)})")
        self._check_params()

    def _remember(self, m: Measurements, features: Sequence[str], target: str) -> None:
        frame = m.frame
        self.features_ = list(features)
        self.unit_ = m.unit
        self.defaults_ = constant_params(frame, self.features_)
        self.train_ranges_ = {c: [float(frame[c].min()), float(frame[c].max()), int(frame[c].nunique())]
                              for c in self.features_}
        cols = [c for c in [*m.params, target] if c in frame]
        self.train_points_ = {c: [float(v) for v in frame[c]] for c in cols}

    def _points(self, X, params) -> pd.DataFrame:
        from .points import relations_of

        self._check_fitted()  # every predict starts here: an unfitted model says so
        return prediction_points(X, params, self.features_, getattr(self, "defaults_", {}), relations_of(self))

    def _points_in_reach(self, X, params) -> pd.DataFrame:
        """:meth:`_points`, checked against the whole table (its ranges and relations,
        :func:`~probperf.models.points.check_points` and
        :func:`~probperf.models.points.check_extrapolation`): for a model whose parts
        are fitted on subsets of its runs, which must not judge the points alone, and
        for one whose inner model does not judge them (a GP, a network: helper-78's
        GP predicted p=8 from runs at p=4 alone, as if it knew)."""
        from .points import check_extrapolation, check_points, relations_of

        pts = self._points(X, params)
        values = pts[self.features_].to_numpy(dtype=np.float64)
        check_points(values, self.features_, self.train_ranges_, relations_of(self))
        check_extrapolation(values, self.features_, self.train_ranges_)
        return pts


def _training_arrays(X, y, target, features) -> tuple[list, np.ndarray, np.ndarray]:
    """The feature names, the ``X`` array and ``y`` of :meth:`MetricModel.fit`, checked."""
    if isinstance(X, Measurements):
        if y is None:
            if target is None:
                raise ValueError("fit(measurements) needs target='<metric>'")
            y = X.y(target)
        features = list(features or X.params)
        frame = X.points(features)
    else:
        if y is None:
            raise ValueError("fit(X, y) needs y")
        frame = as_points(X, features)
        features = list(features or frame.columns)
    try:
        y = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"y must be numbers, one per row of X; got {y!r:.60}") from None
    Xa = frame[features].to_numpy(dtype=np.float64)
    if len(y) != len(Xa):
        raise ValueError(f"X has {len(Xa)} rows but y has {len(y)} values")
    if not np.all(np.isfinite(Xa)):
        raise ValueError("X contains NaN or infinite values")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    return features, Xa, y


class MetricModel(Estimator):
    """Base class: input handling, ``predict`` wrapper, persistence.

    Not used directly; see :class:`~probperf.models.BayesianBasisRegression` and
    :class:`~probperf.models.GaussianProcessModel`.

    Examples
    --------
    A subclass supplies ``_fit`` and ``_predict_draws``; here, a model whose every draw
    is the training mean:

    >>> class MeanModel(MetricModel):
    ...     def _fit(self, X, y):
    ...         self.mean_ = y.mean()
    ...     def _predict_draws(self, X, n_draws, seed, noise=True):
    ...         return np.full((n_draws, len(X)), self.mean_)
    >>> MeanModel().predict({"n": [16], "p": [4]})
    Traceback (most recent call last):
    ...
    RuntimeError: MeanModel is not fitted; call fit() first
    >>> m = MeanModel().fit(np.array([[8.0, 1.0], [8.0, 2.0]]), [3.0, 5.0])
    >>> m.features_
    ['n', 'p']
    >>> pred = m.predict({"n": [16], "p": [4]}, n_draws=5)
    >>> pred.n_draws, pred.mean.tolist()
    (5, [4.0])
    """

    #: default number of predictive draws
    n_draws: int = DEFAULT_DRAWS
    #: fitted attributes saved in a model file (subclasses add theirs)
    _fitted = ("features_", "target_")

    def draws_pointwise(self) -> bool:
        """Whether a draw at a point depends on the point and the seed alone, not on the
        other points asked with it, so that two calls with one seed share every deviate
        at a point (true of closed-form laws and regressions; a GP's joint draw mixes
        its deviates over the points asked). The DAG model compares such draws at a
        point and at the edge of its data (:data:`probperf.dag.MONOTONE_BEYOND`).

        Examples
        --------
        >>> from probperf.models import BayesianBasisRegression
        >>> BayesianBasisRegression().draws_pointwise()
        True
        """
        return True

    def fit(self, X, y=None, *, target: str | None = None, features: Sequence[str] | None = None):
        """Fit to ``(X, y)`` or to a :class:`Measurements` and one of its metrics.

        Parameters
        ----------
        X : Measurements, DataFrame, mapping or array
            Parameters of the training runs. For a :class:`Measurements`, ``y`` is
            taken from its ``target`` metric.
        y : array-like, optional
            The metric, positive, one value per row of ``X``.
        target : str, optional
            Metric column to model when ``X`` is a :class:`Measurements`.
        features : sequence of str, optional
            Parameter columns to use (default: all of the table's parameters, or
            ``("n", "p")`` for a bare array).

        Returns
        -------
        self

        Examples
        --------
        A concrete model (:class:`~probperf.models.LawMixture`) fitted to one metric of a
        table, or to bare arrays:

        >>> from probperf.models import LawMixture
        >>> m = Measurements({"n": [8, 16, 32, 64, 128], "p": 1, "work": [24.0, 48.0, 96.0, 192.0, 384.0]})
        >>> model = LawMixture().fit(m, target="work", features=["n"])
        >>> model.features_, model.target_
        (['n'], 'work')
        >>> LawMixture().fit(np.array([[8.0], [16.0], [32.0], [64.0]]), [24.0, 48.0, 96.0, 192.0],
        ...                  features=["n"]).features_
        ['n']
        """
        with self._fitting():  # a fit that fails, even on its input, leaves no fit behind
            features, Xa, y = _training_arrays(X, y, target, features)
            self.features_ = features
            self.target_ = target
            self._fit(Xa, y)
        return self

    def predict(self, X, n_draws: int | None = None, seed: int | None = 0, noise: bool = True) -> Predictive:
        """Joint posterior-predictive draws (observation noise included) at ``X``.

        Parameters
        ----------
        X : DataFrame, mapping, Measurements or array
            Points with (at least) the fitted features as columns.
        n_draws : int, optional
            Number of joint draws (default :attr:`n_draws`).
        seed : int, optional
            Seed for reproducible draws.
        noise : bool
            Include observation (run-to-run) noise. Without it the draws are of the
            latent metric, which is what feeds other models in the DAG model.

        Examples
        --------
        >>> from probperf.models import LawMixture
        >>> n = [8.0, 16.0, 32.0, 64.0, 128.0]
        >>> model = LawMixture().fit({"n": n}, [3 * v for v in n])
        >>> pred = model.predict({"n": [256.0, 512.0]}, n_draws=200, seed=1)
        >>> pred.draws.shape, (pred.median / [768.0, 1536.0]).round(1).tolist()
        ((200, 2), [1.0, 1.0])
        """
        self._check_fitted()
        # other columns are left out (features may be chosen at fit); NaN is refused by name
        points = point_table(X, self.features_, known_only=False)
        Xa = points.to_numpy(dtype=np.float64)
        draws = self._predict_draws(Xa, draw_count(n_draws, self.n_draws), whole_number(seed, "seed", none=True),
                                    noise=noise)
        return Predictive(draws, points, self.target_)
