"""probperf: probabilistic performance prediction for task-parallel programs.

The data flow (docs/concepts.md): measurements -> metric models -> DAG model -> prediction ->
report/plot. Heavy modules (torch, gpytorch, pyro) are imported on first use, so
``import probperf`` and the data commands stay fast.

Examples
--------
>>> import probperf as pp
>>> m = pp.Measurements({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]})
>>> len(m)
2
>>> sorted(pp.sim.APPS)[:2]
['farm', 'fft']
"""

from importlib import import_module

from .data import METRICS, Measurements, MeasurementError
from .predict import Predictive

__version__ = "0.1.0"

# name -> module that defines it; resolved lazily by __getattr__.
_LAZY = {
    "read": "probperf.formats",
    "write": "probperf.formats",
    "read_dag_recorder": "probperf.formats",
    "read_extrap": "probperf.formats",
    "write_extrap": "probperf.formats",
    "BayesianBasisRegression": "probperf.models",
    "GaussianProcessModel": "probperf.models",
    "LawMixture": "probperf.models",
    "TwoStepLasso": "probperf.models",
    "DirectNN": "probperf.models",
    "MultiTaskNN": "probperf.models",
    "CilkviewBounds": "probperf.models",
    "DirectModel": "probperf.timemodels",
    "PenaltyModel": "probperf.timemodels",
    "DagModel": "probperf.dag",
    "Prediction": "probperf.dag",
    "fit": "probperf.registry",
    "load": "probperf.persist",
}


#: modules reachable as attributes (``pp.sim``, ``pp.parallel``), imported on first use like the names
_SUBPACKAGES = ("sim", "parallel")


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _SUBPACKAGES:
        return import_module(f"probperf.{name}")
    raise AttributeError(f"module 'probperf' has no attribute {name!r}")


__all__ = ["METRICS", "Measurements", "MeasurementError", "Predictive", *_LAZY, *_SUBPACKAGES]
