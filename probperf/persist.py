"""Model files: data, never code.

A model file is a single safetensors file. Its tensors are the fitted arrays; its
header metadata holds ``format``, ``version``, ``kind`` (the model class) and
``config`` (JSON: hyper-parameters, feature names, scalar fitted state), plus a
SHA-256 digest over config and tensor bytes. Loading never unpickles: safetensors
reads raw little-endian buffers and JSON is parsed with ``json``. A truncated file
fails safetensors' own header/size checks, and any edited byte fails the digest; both
raise :class:`ModelFileError`.

The digest is unkeyed: it detects damage (a truncated copy, a flipped bit), not
tampering, since whoever edits a file can recompute it. So the contents are not
trusted either: :func:`load` checks the header fields' types, turns any failure to
rebuild the model into :class:`ModelFileError`, and finally has the model predict at
its own largest training point, so that a file whose fields disagree with each other
(a tensor of the wrong shape, a mask too short, a zero block size) is refused when
loaded rather than failing later.

Models implement ``_get_state() -> (config: dict, tensors: dict[str, ndarray])`` and a
classmethod ``_from_state(config, tensors)``, and are registered with
:func:`register` so that :func:`load` can rebuild the right class by name.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np

from .outputs import atomic_write

FORMAT = "probperf-model"
VERSION = 1

_REGISTRY: dict[str, type] = {}


#: The advice every message about a bad model file ends with.
REFIT = "re-fit the model (probperf fit) to get a good file"


class ModelFileError(ValueError):
    """A model file that cannot be trusted: truncated, edited, or of another format.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.model")
    >>> open(path, "wb").close()
    >>> try:
    ...     load_state(path)
    ... except ModelFileError as exc:
    ...     print("rejected:", "truncated or corrupt" in str(exc))
    rejected: True
    """


def register(cls):
    """Class decorator: make ``cls`` loadable by :func:`load` under its class name.

    Examples
    --------
    >>> @register
    ... class Constant:
    ...     def __init__(self, value=0.0):
    ...         self.value = value
    ...     def _get_state(self):
    ...         return {"value": self.value}, {}
    ...     @classmethod
    ...     def _from_state(cls, config, tensors):
    ...         return cls(config["value"])
    >>> model_class("Constant").__name__
    'Constant'
    """
    _REGISTRY[cls.__name__] = cls
    return cls


def _digest(config_json: str, tensors: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256(config_json.encode())
    for key in sorted(tensors):
        arr = np.ascontiguousarray(tensors[key])
        h.update(key.encode())
        h.update(str(arr.dtype).encode())
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def save_state(path, kind: str, config: dict, tensors: dict[str, np.ndarray]) -> None:
    """Write a model file atomically (a crash never leaves a half-written file).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.model")
    >>> save_state(path, "Demo", {"alpha": 0.5}, {"coef": np.array([1.0, 2.0])})
    >>> kind, config, tensors = load_state(path)
    >>> kind, config, tensors["coef"].tolist()
    ('Demo', {'alpha': 0.5}, [1.0, 2.0])
    """
    from safetensors.numpy import save_file

    config_json = json.dumps(config, sort_keys=True, allow_nan=True)
    tensors = {k: np.ascontiguousarray(np.asarray(v)) for k, v in tensors.items()}
    meta = {
        "format": FORMAT,
        "version": str(VERSION),
        "kind": kind,
        "config": config_json,
        "sha256": _digest(config_json, tensors),
    }
    atomic_write(path, lambda tmp: save_file(tensors, tmp, metadata=meta))


def load_state(path) -> tuple[str, dict, dict[str, np.ndarray]]:
    """Read and verify a model file; returns ``(kind, config, tensors)``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.model")
    >>> save_state(path, "Demo", {}, {"coef": np.ones(4)})
    >>> raw = bytearray(open(path, "rb").read()); raw[-1] ^= 1
    >>> _ = open(path, "wb").write(bytes(raw))
    >>> try:
    ...     load_state(path)
    ... except ModelFileError as exc:
    ...     print("checksum mismatch" in str(exc))
    True
    """
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as exc:  # safetensors raises several types for corrupt files
        from .formats import SUFFIXES

        if path.suffix.lower() in SUFFIXES:  # a table of runs given where a model goes
            raise ModelFileError(f"{path}: not a model file but measurements ({path.suffix}); "
                                 f"make a model from them with: probperf fit {path} -o MODEL") from None
        raise ModelFileError(f"{path}: not a readable model file (truncated or corrupt: {exc})")
    if meta.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a probperf model file")
    if not meta.get("kind"):
        raise ModelFileError(f"{path}: the model file names no model kind; {REFIT}")
    if meta.get("version") != str(VERSION):
        raise ModelFileError(
            f"{path}: model file version {meta.get('version')} is not supported (expected {VERSION})"
        )
    config_json = meta.get("config", "")
    if _digest(config_json, tensors) != meta.get("sha256"):
        raise ModelFileError(f"{path}: checksum mismatch; the file was modified or damaged")
    try:
        config = json.loads(config_json)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path}: model configuration is not valid JSON ({exc}); {REFIT}")
    except RecursionError:
        raise ModelFileError(f"{path}: model configuration is nested too deeply; {REFIT}") from None
    return meta["kind"], config, tensors


#: Attributes any model may carry that the CLI needs after loading: parameter values
#: that were constant in the training data (so ``--at`` may omit them), the training
#: ranges (to flag extrapolation) and the time unit. Saved beside the model's own state.
EXTRAS = ("defaults_", "train_ranges_", "unit_", "train_points_")


def model_class(kind: str) -> type:
    """The registered model class named ``kind`` (for composite models' sub-states).

    Examples
    --------
    >>> model_class("DagModel").__name__
    'DagModel'
    """
    if kind not in _REGISTRY:
        _import_modules(_MODEL_MODULES)
    if kind not in _REGISTRY:
        _import_modules(_HEAVY_MODEL_MODULES)
    if kind not in _REGISTRY:
        raise ModelFileError(f"unknown model kind {kind!r}")
    return _REGISTRY[kind]


def save(model, path) -> None:
    """Save any registered model (its state plus the :data:`EXTRAS` it carries).

    Examples
    --------
    >>> import os, tempfile
    >>> from probperf.dag import ZeroMetric
    >>> path = os.path.join(tempfile.mkdtemp(), "zero.model")
    >>> save(ZeroMetric(), path)
    >>> type(load(path)).__name__
    'ZeroMetric'
    """
    config, tensors = model._get_state()
    extras = {k: getattr(model, k) for k in EXTRAS if hasattr(model, k)}
    save_state(path, type(model).__name__, {"state": config, "extras": extras}, tensors)


def load(path):
    """Load a model saved by :func:`save`, rebuilding its registered class.

    Examples
    --------
    >>> import os, tempfile
    >>> from probperf.dag import ZeroMetric
    >>> path = os.path.join(tempfile.mkdtemp(), "zero.model")
    >>> zero = ZeroMetric()
    >>> zero.defaults_ = {"p": 8}
    >>> save(zero, path)
    >>> load(path).defaults_
    {'p': 8}
    """
    kind, config, tensors = load_state(path)
    try:
        cls = model_class(kind)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}; {REFIT}")
    if not isinstance(config, dict) or "state" not in config:
        raise ModelFileError(f"{path}: model configuration lacks its state; {REFIT}")
    extras = config.get("extras", {})
    if not isinstance(extras, dict):
        raise ModelFileError(f"{path}: model extras must be a JSON object; {REFIT}")
    try:
        model = cls._from_state(config["state"], tensors)
        for k, v in extras.items():
            if k in EXTRAS:
                setattr(model, k, v)
        _try_prediction(model)
    except ModelFileError:
        raise
    except (Exception, RecursionError) as exc:  # any content: the file is data, never trusted
        raise ModelFileError(f"{path}: model state is inconsistent ({type(exc).__name__}: "
                             f"{_one_line(exc)}); {REFIT}") from None
    return model


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:200] + "..."


def _try_prediction(model) -> None:
    """Predict a few draws at the model's largest training point (a table model with
    ``features_`` and ``train_ranges_``); raises whatever the model raises. A model
    rebuilt from fields that disagree (shapes, masks, sizes) fails here, at load."""
    ranges = getattr(model, "train_ranges_", None)
    features = getattr(model, "features_", None)
    if not isinstance(ranges, dict) or not isinstance(features, list) or not hasattr(model, "predict"):
        return
    import pandas as pd

    point = {c: [float(ranges[c][1])] for c in features}  # KeyError: a feature without a range
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the outcome is judged below, not warned about
        draws = model.predict(pd.DataFrame(point), n_draws=4, seed=0).draws
    if not np.all(np.isfinite(draws)):
        raise ValueError("its prediction at its own training data is not finite")


#: Modules that register model classes: the light ones first; the torch-backed ones
#: (Pyro, GPyTorch, networks) only when a file holds a kind the first do not know.
_MODEL_MODULES = ("probperf.models", "probperf.dag", "probperf.timemodels")
_HEAVY_MODEL_MODULES = ("probperf.models.bayes", "probperf.models.gp", "probperf.models.baselines")


def _import_modules(modules) -> None:
    """Import modules that register model classes (lazily: some pull in torch)."""
    import importlib

    for mod in modules:
        try:
            importlib.import_module(mod)
        except ImportError:
            pass


def nest_models(models: dict) -> tuple[dict, dict]:
    """States of named sub-models (composite models) as one config and one tensor dict.

    Examples
    --------
    >>> from probperf.dag import ZeroMetric
    >>> config, tensors = nest_models({"delay": ZeroMetric()})
    >>> config
    {'delay': {'kind': 'ZeroMetric', 'state': {}}}
    >>> type(unnest_models(config, tensors)["delay"]).__name__
    'ZeroMetric'
    """
    config, tensors = {}, {}
    for name, model in models.items():
        sub_config, sub_tensors = model._get_state()
        config[name] = {"kind": type(model).__name__, "state": sub_config}
        tensors.update(nest(name, sub_config, sub_tensors)[1])
    return config, tensors


def unnest_models(config: dict, tensors: dict) -> dict:
    """Rebuild the sub-models saved with :func:`nest_models`.

    Examples
    --------
    >>> sorted(unnest_models({"a": {"kind": "ZeroMetric", "state": {}}}, {}))
    ['a']
    """
    return {
        name: model_class(sub["kind"])._from_state(sub["state"], unnest(name, tensors))
        for name, sub in config.items()
    }


def nest(prefix: str, config: dict, tensors: dict) -> tuple[dict, dict]:
    """Prefix a sub-model's state so several fit in one file (composite models).

    Examples
    --------
    >>> nest("work", {}, {"coef": np.zeros(2)})[1].keys()
    dict_keys(['work.coef'])
    """
    return config, {f"{prefix}.{k}": v for k, v in tensors.items()}


def unnest(prefix: str, tensors: dict) -> dict:
    """The tensors of one sub-model saved with :func:`nest`.

    Examples
    --------
    >>> unnest("work", {"work.coef": 1, "delay.coef": 2})
    {'coef': 1}
    """
    start = prefix + "."
    return {k[len(start):]: v for k, v in tensors.items() if k.startswith(start)}
