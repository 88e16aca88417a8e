"""Metric models with one interface: ``fit(...) -> self``, ``predict(X) -> Predictive``.

* :class:`BayesianBasisRegression` (Pyro): non-negative sparse combination of
  ``n^j log^k n`` and worker terms, multiplicative noise.
* :class:`GaussianProcessModel` (GPyTorch): exact GP on log scales with a kernel given
  as a spec string (``"sm4+linear"``, ``"matern52"``...).

:func:`metric_model` builds either from a short spec, which is what the CLI's
``--kernel`` option and :class:`~probperf.dag.DagModel` use.
"""

from __future__ import annotations

from importlib import import_module

from . import specs
from .base import MetricModel, TableModel
from .mixture import LawMixture

#: Models that pull in torch, Pyro or GPyTorch, imported on first use so that loading
#: and predicting with a law mixture starts in well under a second.
_LAZY = {"CilkviewBounds": ".baselines", "DirectNN": ".baselines", "MultiTaskNN": ".baselines",
         "TwoStepLasso": ".baselines", "BayesianBasisRegression": ".bayes", "GaussianProcessModel": ".gp"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: The spec that selects the Bayesian basis regression instead of a GP kernel.
BASIS_SPEC = specs.BASIS
#: The spec that selects the stacked mixture of closed-form laws (the default).
LAWS_SPEC = specs.LAWS


def metric_model(spec: str = BASIS_SPEC, effort: str = "default", **kwargs) -> MetricModel:
    """A metric model from a spec (see :mod:`probperf.models.specs`): ``"laws"``,
    ``"basis"`` or a GP kernel spec (``"sm4"``, ``"gp:rbf"``, ``"exp:matern52"``).

    Keyword arguments go to the model's constructor.

    Examples
    --------
    >>> type(metric_model("basis")).__name__
    'BayesianBasisRegression'
    >>> metric_model("gp:matern52").kernel
    'matern52'
    """
    return specs.build(spec, effort, **kwargs)


__all__ = ["MetricModel", "TableModel", "specs", "TwoStepLasso", "DirectNN", "MultiTaskNN", "CilkviewBounds", "BayesianBasisRegression", "GaussianProcessModel", "metric_model", "BASIS_SPEC", "LawMixture", "LAWS_SPEC"]
