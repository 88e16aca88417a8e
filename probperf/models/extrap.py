"""Extra-P (Calotoiu et al., SC 2013; the PyPI package ``extrap``) as a probperf time
model: the competitor the experiments and benchmarks compare against.

Extra-P is installed by ``make install`` (its package metadata pins ``numpy~=1.18`` and a
GUI toolkit, which would replace numpy under torch, so it goes in with ``--no-deps``
plus the two packages its modelling code imports: :data:`EXTRAP_PACKAGES`). Nothing
here installs anything at run time: without Extra-P, :func:`extrap_version` raises
:class:`ExtraPMissing` naming the command.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import Measurements
from ..predict import Predictive
from .base import TableModel
from .baselines import check_single_config

#: Extra-P and the two of its dependencies its modelling code needs.
EXTRAP_PACKAGES = ("extrap", "marshmallow~=3.7", "pycubexr>=1.2.3,!=2.0.0,<3")


class ExtraPMissing(RuntimeError):
    """Extra-P is not installed (the message names the install command).

    Examples
    --------
    >>> issubclass(ExtraPMissing, RuntimeError)
    True
    """


def extrap_version() -> str:
    """The installed Extra-P's version; :class:`ExtraPMissing` says how to install it.

    Examples
    --------
    >>> extrap_version().split(".")[0]
    '4'
    """
    try:
        import extrap
    except ImportError:
        raise ExtraPMissing("Extra-P is not installed; install it with: pip install --no-deps "
                            + " ".join(f"'{p}'" for p in EXTRAP_PACKAGES)) from None
    return extrap.__version__


def extrap_text(frame: pd.DataFrame, params: list[str], target: str = "time") -> str:
    """Runs in Extra-P's text input format: one ``DATA`` line (repetitions) per point.

    Examples
    --------
    >>> f = pd.DataFrame({"n": [2, 2, 4], "time": [1.0, 1.5, 3.0]})
    >>> print(extrap_text(f, ["n"]), end="")
    PARAMETER n
    POINTS 2 4
    REGION main
    METRIC time
    DATA 1 1.5
    DATA 3
    """
    groups = frame.groupby(params[0] if len(params) == 1 else params, sort=True)[target]
    coords = [k if isinstance(k, tuple) else (k,) for k in groups.groups]
    if len(params) == 1:
        pts = " ".join(f"{c[0]:.17g}" for c in coords)
    else:
        pts = " ".join("(" + " ".join(f"{v:.17g}" for v in c) + ")" for c in coords)
    lines = [f"PARAMETER {' '.join(params)}", f"POINTS {pts}", "REGION main", f"METRIC {target}"]
    lines += ["DATA " + " ".join(f"{v:.17g}" for v in values) for _, values in groups]
    return "\n".join(lines) + "\n"


class ExtraP(TableModel):
    """Extra-P's model of one metric (modeler ``default``, negative exponents allowed).

    The model's parameters are those of ``n`` and ``p`` that vary in the training runs
    (Extra-P needs several values per parameter). ``predict`` returns one draw: Extra-P
    gives a point prediction. Its fitted function is Extra-P's own object, not data, so
    the model cannot be written to a model file.

    Examples
    --------
    >>> n = np.array([2.0, 4, 8, 16, 32])
    >>> model = ExtraP().fit(Measurements({"n": n, "p": 1, "time": 3 * n}))
    >>> model.params_, "n^(1)" in model.formula_
    (['n'], True)
    >>> pred = model.predict(n=64)
    >>> pred.n_draws, round(float(pred.draws[0, 0]), 6)
    (1, 192.0)
    """

    def __init__(self, target: str = "time"):
        self.target = target

    def fit(self, measurements: Measurements) -> "ExtraP":
        """Let Extra-P's modeler find the function of ``n`` (and ``p``) for the target.

        Examples
        --------
        >>> n = np.array([2.0, 4, 8, 16, 32])
        >>> model = ExtraP().fit(Measurements({"n": n, "p": 1, "time": 3 * n * np.log2(n)}))
        >>> model.params_, "n^(1) * log2(n)^(1)" in model.formula_  # p does not vary: not a parameter
        (['n'], True)
        """
        self._check_table(measurements)
        with self._fitting():
            extrap_version()
            from extrap.fileio.file_reader.text_file_reader import TextFileReader
            from extrap.modelers.model_generator import ModelGenerator

            measurements.require("n", self.target)
            # n and p alone: a varying cut-off would be averaged away (helper-78); the
            # experiments fit one model per value (the registry entry's per_config)
            check_single_config(measurements, type(self).__name__)
            self._remember(measurements, measurements.params, self.target)
            frame = measurements.frame
            self.params_ = [c for c in ("n", "p") if c in frame and frame[c].nunique() > 1]
            with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                path = Path(tmp) / "extrap_input.txt"
                path.write_text(extrap_text(frame, self.params_, self.target))
                generator = ModelGenerator(TextFileReader().read_experiment(str(path)), modeler="default")
                single = getattr(generator.modeler, "single_parameter_modeler", None) or generator.modeler
                single.allow_negative_exponents = True
                generator.model_all()
            self.function_ = next(iter(generator.models.values())).hypothesis.function
            self.formula_ = self.function_.to_string(*self.params_)
        return self

    def predict(self, X=None, *, n_draws=None, seed=None, **params) -> Predictive:
        """Extra-P's point prediction at the points (one draw).

        Examples
        --------
        >>> n, p = (g.ravel() for g in np.meshgrid([2.0, 4, 8, 16, 32], [1, 2, 4, 8, 16]))
        >>> model = ExtraP().fit(Measurements({"n": n, "p": p, "time": 3 * n / p}))
        >>> pred = model.predict(n=64, p=[1, 32])
        >>> pred.n_draws, pred.draws[0].round(6).tolist()
        (1, [192.0, 6.0])
        """
        from .points import check_extrapolation

        points = self._points(X, params)
        # as every model: a direction with fewer than 3 values in training has no law
        # (Extra-P fitted p from one worker count as a constant, whatever p was asked)
        check_extrapolation(points[self.features_].to_numpy(dtype=float), self.features_, self.train_ranges_)
        values = points[self.params_].to_numpy(dtype=float)
        if len(self.params_) == 1:
            pred = [self.function_.evaluate(float(v[0])) for v in values]
        else:
            pred = [self.function_.evaluate(tuple(float(x) for x in v)) for v in values]
        return Predictive(np.asarray(pred, dtype=float)[None, :], points.reset_index(drop=True), self.target)

    def save(self, path) -> None:
        """Refused: the fitted function is Extra-P's object, which a model file (data,
        never code) cannot hold.

        Examples
        --------
        >>> n = np.array([2.0, 4, 8, 16, 32])
        >>> ExtraP().fit(Measurements({"n": n, "p": 1, "time": 3 * n})).save("fit.model")
        Traceback (most recent call last):
        ...
        TypeError: an Extra-P model is Extra-P's own object, not data: it cannot be saved to a model file; fit it where you predict
        """
        raise TypeError("an Extra-P model is Extra-P's own object, not data: it cannot be saved to a "
                        "model file; fit it where you predict")


__all__ = ["ExtraP", "ExtraPMissing", "extrap_text", "extrap_version", "EXTRAP_PACKAGES"]
