"""Metric models with one interface: ``fit(...) -> self``, ``predict(X) -> Predictive``.

* :class:`BayesianBasisRegression` (Pyro): non-negative sparse combination of
  ``n^j log^k n`` and worker terms, multiplicative noise.
* :class:`GaussianProcessModel` (GPyTorch): exact GP on log scales with a kernel given
  as a spec string (``"sm4+linear"``, ``"matern52"``...).

:func:`metric_model` builds either from a short spec, which is what the CLI's
``--kernel`` option and :class:`~probperf.dag.DagModel` use.
"""

from __future__ import annotations

from .base import MetricModel
from .baselines import CilkviewBounds, DirectNN, MultiTaskNN, TwoStepLasso
from .bayes import BayesianBasisRegression
from .gp import GaussianProcessModel
from .laws import LawMixture

#: The spec that selects the Bayesian basis regression instead of a GP kernel.
BASIS_SPEC = "basis"
#: The spec that selects the stacked mixture of closed-form laws (the default).
LAWS_SPEC = "laws"


def metric_model(spec: str = BASIS_SPEC, **kwargs) -> MetricModel:
    """A metric model from a spec: ``"basis"`` or a GP kernel spec (``"sm4"``, ``"gp:rbf"``).

    Keyword arguments go to the model's constructor.

    Examples
    --------
    >>> type(metric_model("basis")).__name__
    'BayesianBasisRegression'
    >>> metric_model("gp:matern52").kernel
    'matern52'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"model spec must be 'basis' or a kernel spec, got {spec!r}")
    spec = spec.strip()
    if spec == BASIS_SPEC:
        return BayesianBasisRegression(**kwargs)
    if spec == LAWS_SPEC:
        return LawMixture(**kwargs)
    if spec.startswith("gp:"):
        spec = spec[3:]
    return GaussianProcessModel(kernel=spec, **kwargs)


__all__ = ["MetricModel", "TwoStepLasso", "DirectNN", "MultiTaskNN", "CilkviewBounds", "BayesianBasisRegression", "GaussianProcessModel", "metric_model", "BASIS_SPEC", "LawMixture", "LAWS_SPEC"]
