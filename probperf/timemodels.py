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

from . import persist
from .data import Measurements, MeasurementError, one_worker_baseline
from .limits import draw_count
from .predict import Predictive, constant_params, prediction_points


class _TableModel:
    """Shared plumbing: fit on a :class:`Measurements`, predict at points/keywords."""

    def _new(self, offset=0, **kwargs):
        from .models import BASIS_SPEC, LAWS_SPEC, metric_model

        kwargs["seed"] = self.seed + offset
        if self.kernel == BASIS_SPEC:
            if self.fast:
                kwargs["inference"] = "svi"
        elif self.kernel != LAWS_SPEC:  # a GP kernel spec (the law mixture takes no options)
            kwargs.setdefault("mean", "linear")
            if self.fast:
                kwargs["n_restarts"] = 1
        return metric_model(self.kernel, **kwargs)

    def _remember(self, m: Measurements):
        frame = m.frame
        self.features_ = m.params
        self.unit_ = m.unit
        self.defaults_ = constant_params(frame, self.features_)
        self.train_ranges_ = {c: [float(frame[c].min()), float(frame[c].max())] for c in self.features_}

    def _points(self, X, params) -> pd.DataFrame:
        return prediction_points(X, params, self.features_, getattr(self, "defaults_", {}))

    def save(self, path) -> None:
        """Write the fitted model to one model file."""
        persist.save(self, path)


@persist.register
class DirectModel(_TableModel):
    """Model one metric directly over ``(n, p, config)``.

    Parameters
    ----------
    kernel : str
        ``"laws"`` (the default: a stacked mixture of closed-form laws, see
        :class:`~probperf.models.LawMixture`), ``"basis"`` or a GP kernel spec.
    target : str
        The metric to model.

    Examples
    --------
    >>> m = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
    ...                   "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2]})
    >>> model = DirectModel(kernel="rbf", fast=True).fit(m)   # doctest: +SKIP
    """

    def __init__(self, kernel: str = "laws", target: str = "time", fast: bool = False, seed: int = 0):
        self.kernel = kernel
        self.target = target
        self.fast = fast
        self.seed = seed

    def fit(self, measurements: Measurements) -> "DirectModel":
        measurements.require("n", self.target)
        self._remember(measurements)
        self.model_ = self._new()
        self.model_.fit(measurements, target=self.target)
        return self

    def predict(self, X=None, *, n_draws=None, seed=0, **params) -> Predictive:
        """Predictive draws of the target at the points."""
        pts = self._points(X, params)
        return self.model_.predict(pts, n_draws=n_draws, seed=seed)

    def _get_state(self):
        parts, tensors = persist.nest_models({"model_": self.model_})
        params = {"kernel": self.kernel, "target": self.target, "fast": self.fast, "seed": self.seed}
        return {"params": params, "features": self.features_, "parts": parts}, tensors

    @classmethod
    def _from_state(cls, config, tensors):
        return _rebuild(cls(**config["params"]), config, tensors)


@persist.register
class PenaltyModel(_TableModel):
    """``T(n,p) = T(n)/p + A(n,p)``: sequential time plus a parallel penalty.

    ``T(n)`` comes from the ``serial_time`` column when present, else ``serial_work``,
    else the ``p == 1`` runs' ``time``. ``A(n,p) = time - T(n)/p`` is the penalty
    (communication, idling, overheads); it is modeled on a log scale, so rows where the
    run was at least as fast as ``T(n)/p`` (super-linear, or ``p == 1`` where A is 0
    by definition) are left out of its fit and ``A`` is predicted as 0 at ``p = 1``.

    Parameters
    ----------
    kernel : str
        ``"basis"`` or a GP kernel spec, used for both parts.

    Examples
    --------
    >>> n = np.repeat([100.0, 200.0, 400.0, 800.0], 3)
    >>> p = np.tile([1, 4, 8], 4)
    >>> runs = Measurements({"n": n, "p": p, "time": 1e-3 * n / p + 0.01 * (p - 1)})
    >>> model = PenaltyModel(kernel="basis", fast=True).fit(runs)
    >>> pred = model.predict(n=1600, p=8)
    >>> round(float(pred.median[0]) / (1e-3 * 1600 / 8 + 0.07), 1)
    1.0
    """

    def __init__(self, kernel: str = "basis", fast: bool = False, seed: int = 0):
        self.kernel = kernel
        self.fast = fast
        self.seed = seed

    def fit(self, measurements: Measurements) -> "PenaltyModel":
        m = measurements
        m.require("n", "p", "time")
        self._remember(m)
        frame = m.frame
        size = ["n", *m.config]
        serial = one_worker_baseline(frame, size, ["serial_time", "serial_work"], "time", m.source,
                                     "the penalty model")
        seq = pd.DataFrame({**{c: frame[c] for c in size}, "y": serial}).drop_duplicates()
        self.serial_ = self._new(0).fit(seq[size], seq["y"].to_numpy(), features=size)
        penalty = frame["time"].to_numpy() - serial / frame["p"].to_numpy()
        keep = (frame["p"].to_numpy() > 1) & (penalty > 0)
        if keep.sum() < 2:
            raise MeasurementError(
                "the penalty model needs at least 2 runs with p > 1 slower than T(n)/p", m.source, column="time"
            )
        self.penalty_ = self._new(1).fit(frame.loc[keep, self.features_], penalty[keep], features=self.features_)
        self.size_features_ = size
        return self

    def predict(self, X=None, *, n_draws=None, seed=0, **params) -> Predictive:
        """Time draws ``T(n)/p + A(n,p)`` at the points (joint per draw)."""
        pts = self._points(X, params)
        S = draw_count(n_draws, 1000)
        p = pts["p"].to_numpy()
        size = pts[self.size_features_]
        # On one worker the run *is* a sequential run, with its noise; on more, T(n)
        # enters as the latent curve and the run-to-run noise comes with A(n,p).
        serial = np.where(
            p > 1,
            self.serial_.predict(size, n_draws=S, seed=seed, noise=False).draws,
            self.serial_.predict(size, n_draws=S, seed=seed, noise=True).draws,
        )
        penalty = self.penalty_.predict(pts, n_draws=S, seed=seed + 1).draws
        return Predictive(serial / p + np.where(p > 1, penalty, 0.0), pts, "time")

    def _get_state(self):
        parts, tensors = persist.nest_models({"serial_": self.serial_, "penalty_": self.penalty_})
        params = {"kernel": self.kernel, "fast": self.fast, "seed": self.seed}
        config = {"params": params, "features": self.features_, "size_features": self.size_features_, "parts": parts}
        return config, tensors

    @classmethod
    def _from_state(cls, config, tensors):
        model = _rebuild(cls(**config["params"]), config, tensors)
        model.size_features_ = config["size_features"]
        return model


def _rebuild(model, config, tensors):
    """Set the features and the sub-models saved by ``_get_state`` on a new instance."""
    model.features_ = config["features"]
    for name, part in persist.unnest_models(config["parts"], tensors).items():
        setattr(model, name, part)
    return model
