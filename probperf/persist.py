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

What a model file holds is declared once per class: its constructor parameters
(scikit-learn's ``get_params``) and the tuple ``_fitted`` of fitted attributes (each
class lists its own; subclasses add theirs). :func:`state` walks them: arrays become
tensors, registered objects (sub-models, basis sets, scalers) are written by kind with
their own state, containers are walked, everything else is JSON. :func:`rebuild` is the
inverse; a class may define ``_loaded()`` to check or rebuild derived objects after its
fields are set. Classes are registered with :func:`register` so that :func:`load`
rebuilds the right class by name.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path

import numpy as np

from .outputs import atomic_write

FORMAT = "probperf-model"
#: Version 2: declared state (params + fitted fields). Version 1 files (hand-written
#: ``_get_state`` layouts) are refused with a re-fit message. Version 3: law mixtures
#: carry a discrepancy rate (version 2 files lack it and are refused the same way).
#: Version 4: that rate is per training span beyond the data, growing linearly
#: (version 3 rates were per square root of the doublings: refused, re-fit). Version 5:
#: DAG models carry the distribution of one factor on their parts' rates
#: (``discrepancy_scales_``; version 4 files lack it: refused, re-fit). Version 6: a
#: DAG model's idle-time model predicts ``no_work / ((p - 1) T_inf)``
#: (:data:`probperf.components.IDLE_PER_SPAN`); a version 5 model predicted ``no_work``
#: itself, which the new code would rescale: refused, re-fit. Version 7: law mixtures
#: may hold affine laws with an overhead column (a seventh element of their term,
#: :data:`probperf.models.laws.OVERHEADS`) and carry ``checked_curvature``; a version 6
#: reader would build those laws without the column and fail on their coefficients,
#: so it must refuse the file, which the version does (version 6 files: refused, re-fit).
#: Version 8: distances beyond the data are Euclidean over the independent parameters
#: (:data:`probperf.selection.DISTANCE_NORM`), which law mixtures carry
#: (``directions_``); a version 7 rate was learnt on summed distances: refused, re-fit.
#: Version 9: an affine law may carry a lower-order term (an eighth element of its term,
#: :data:`probperf.models.laws.LOWER_ORDER`) and law mixtures carry ``lower_order``; a
#: version 8 reader would build such a law without the column (refused, re-fit).
#: Version 10: law mixtures may hold the saturating law (``_SaturatingLaw``) and carry
#: ``saturating`` and ``bounded_in_size``, and DAG models ``monotone_beyond_``, which a
#: version 9 reader cannot build (it failed with a TypeError; refused by the version
#: now). A version 9 file holds none of
#: them and predicts the same under this code, so it is still read (READS): a bump
#: need not refuse the model files users already have.
#: Version 11: DAG models hold work and delay beyond the measured workers by default
#: (``monotone_beyond_``, :data:`probperf.dag.MONOTONE_BEYOND`) in a new form, a second
#: draw at the edge from the same seeds, and carry ``span_inflated_``; a version 10
#: reader would hold them by its twin columns instead (it refuses the file by its
#: version). A version 9 file, and a version 10 file without the hold, predict as
#: written; a version 10 file that asked for the twin form is refused (re-fit), since
#: this code no longer has it (DagModel._loaded).
#: Version 12: law mixtures may hold the affine laws of the workers alone
#: (``_AffineWorkersLaw``, :data:`probperf.models.laws.AFFINE_WORKERS`), and DAG models a
#: component measured at one setting (``ConstantMetric``), which a version 11 reader
#: cannot build (refused by the version). Version 9-11 files hold
#: none of them and predict as written.
#: Version 13: law mixtures may hold the power law of a count shifted by a fitted s
#: (``_ShiftedLaw``, :data:`probperf.models.laws.SHIFTED_COUNTS`), which a version 12
#: reader cannot build (refused by the version). Version 9-12 files hold none of it
#: (a version 12 file's ``power+log1p`` law is read and predicts as written).
#: Version 14: a penalty model carries its table's ``relations_`` and checks its points
#: against the whole table (its A(n,p), fitted on the runs with p > 1, no longer judges
#: them alone); a version 13 reader would refuse the field. A version 9-13 file's
#: penalty part checks its own points, as written.
#: Version 15: law mixtures carry ``kind_ranges_``, the boxes of their serial and
#: parallel runs (:func:`probperf.selection.kind_ranges`), and widen by the distance
#: beyond a point's own kind; a version 14 reader would refuse the field. A version
#: 9-14 file widens by the whole box, as written.
#: Version 16: a penalty model carries ``penalty_at_one_`` (its A(n,p) fitted and
#: predicted at p = 1 too, where T(n) came from a serial_time or serial_work column); a
#: version 15 reader would refuse the field. A version 9-15 file's A is 0 at p = 1, as
#: written.
#: Version 17: DAG models carry ``zero_at_one_`` (the delay predicted 0 at p = 1 where
#: every one-worker run measured none, :func:`probperf.dag.zero_at_one`); a version 16
#: reader would refuse the field. A version 9-16 file predicts the delay at p = 1 by
#: its law, as written.
#: Version 18: a DAG model's work and delay parts may hold the paper's per-worker law
#: (``_InflationLaw``, :data:`probperf.dag.PART_INFLATION_LAW`), which a version 17
#: reader cannot build (refused by the version; helper-90). Version 9-17 files hold none
#: of it and predict as written.
VERSION = 18
#: The versions this code reads (their files predict as when they were written).
READS = ("9", "10", "11", "12", "13", "14", "15", "16", "17", "18")

_REGISTRY: dict[str, type] = {}


#: The advice every message about a bad model file ends with.
REFIT = "re-fit the model (probperf fit) to get a good file"


def _safetensors_shaped(path) -> bool:
    """Whether ``path`` starts as a safetensors file (probperf's model files are): an
    8-byte little-endian header length, then the JSON header's ``{``. A file that does
    starts as a model and broke (truncated, edited); one that does not is another kind.
    A file too short to tell (empty: a write cut off) or of zeros counts as a model.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.model")
    >>> _ = open(path, "wb").write((2).to_bytes(8, "little") + b"{}")
    >>> _safetensors_shaped(path)
    True
    >>> _ = open(path, "wb").write(b"PK a zip archive")
    >>> _safetensors_shaped(path)
    False
    """
    try:
        with open(path, "rb") as f:
            head = f.read(9)
    except OSError:  # unreadable now: nothing says it is another kind of file
        return True
    # too short to tell, or zeros (a write lost to a crash): taken as a model that broke
    return len(head) < 9 or not any(head) or head[8:9] == b"{"


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
    ...     _fitted = ("level_",)
    ...     def __init__(self, value=0.0):
    ...         self.value = value
    >>> c = Constant(2.0)
    >>> c.level_ = np.array([1.0, 3.0])
    >>> tensors = {}
    >>> state(c, "", tensors), list(tensors)
    ({'params': {'value': 2.0}, 'fitted': {'level_': {'$tensor': 'level_'}}}, ['level_'])
    >>> rebuild(Constant, state(c, "", tensors), tensors).level_.tolist()
    [1.0, 3.0]
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


def _sorted_metadata(data: bytes) -> bytes:
    """A safetensors file's bytes with its metadata in sorted key order. Why: safetensors
    writes the metadata in a hash map's order, which changes from process to process, so
    two saves of one model differed in their bytes (a checksum or a cache saw two models).
    The header keeps its length (the same keys and values, compactly written, padded with
    spaces as safetensors pads it), so the tensors' offsets stay.

    Examples
    --------
    >>> from safetensors.numpy import save
    >>> data = save({"a": np.ones(2)}, metadata={"kind": "k", "format": "f"})
    >>> n = int.from_bytes(data[:8], "little")
    >>> _sorted_metadata(data)[8:8 + n].decode().rstrip()
    '{"__metadata__":{"format":"f","kind":"k"},"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}'
    """
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    header["__metadata__"] = dict(sorted(header.get("__metadata__", {}).items()))
    text = json.dumps(header, separators=(",", ":")).encode()
    if len(text) > n:  # not as compact as safetensors wrote it: keep its bytes
        return data
    return data[:8] + text.ljust(n) + data[8 + n:]


def save_state(path, kind: str, config: dict, tensors: dict[str, np.ndarray], check=None) -> None:
    """Write a model file atomically (a crash never leaves a half-written file); ``check``,
    if given, is called on the written temporary file before it replaces ``path``, so a
    file it refuses never replaces the one there.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.model")
    >>> save_state(path, "Demo", {"alpha": 0.5}, {"coef": np.array([1.0, 2.0])})
    >>> kind, config, tensors = load_state(path)
    >>> kind, config, tensors["coef"].tolist()
    ('Demo', {'alpha': 0.5}, [1.0, 2.0])
    """
    from safetensors.numpy import save

    config_json = json.dumps(config, sort_keys=True, allow_nan=True)
    tensors = {k: np.ascontiguousarray(np.asarray(v)) for k, v in tensors.items()}
    meta = {
        "format": FORMAT,
        "version": str(VERSION),
        "kind": kind,
        "config": config_json,
        "sha256": _digest(config_json, tensors),
    }

    def write(tmp):
        Path(tmp).write_bytes(_sorted_metadata(save(tensors, metadata=meta)))
        if check is not None:
            check(tmp)

    atomic_write(path, write)


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

    _check_path_type(path)
    path = Path(path)
    if not path.is_file():
        what = ("a directory, not a model file" if path.is_dir() else
                "not a regular file (a model is read from a file, not a pipe or a device)" if path.exists() else
                "no such model file")
        raise ModelFileError(f"{path}: {what}")
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as exc:  # safetensors raises several types for corrupt files
        from .formats import SUFFIXES

        if path.suffix.lower() in SUFFIXES:  # a table of runs given where a model goes
            raise ModelFileError(f"{path}: not a model file but measurements ({path.suffix}); "
                                 f"make a model from them with: probperf fit {path} -o MODEL") from None
        if not _safetensors_shaped(path):  # a pickle, a zip, a figure: another tool's file, not a broken one
            raise ModelFileError(f"{path}: not a probperf model file (it does not start as one; "
                                 "write one with: probperf fit DATA -o MODEL)") from None
        raise ModelFileError(f"{path}: not a readable model file (truncated or corrupt: {exc})")
    if meta.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a probperf model file")
    if not meta.get("kind"):
        raise ModelFileError(f"{path}: the model file names no model kind; {REFIT}")
    if meta.get("version") not in READS:
        raise ModelFileError(
            f"{path}: model file version {meta.get('version')} was written by another probperf "
            f"(this one reads versions {', '.join(READS)}); {REFIT}")
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


def is_model_file(path) -> bool:
    """Whether ``path`` is a probperf model file (its header says so; nothing else is
    read), for a reader of measurements to name the slip.

    Examples
    --------
    >>> import os, tempfile
    >>> from probperf.dag import ZeroMetric
    >>> path = os.path.join(tempfile.mkdtemp(), "zero.pp")
    >>> save(ZeroMetric(), path)
    >>> is_model_file(path), is_model_file(os.devnull)
    (True, False)
    """
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            return (f.metadata() or {}).get("format") == FORMAT
    except Exception:  # safetensors raises several types for other files
        return False


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


def save(model, path, check=None) -> None:
    """Save any registered model (its declared state, see :func:`state`); ``check`` as
    in :func:`save_state` (``fit -o`` loads the file back before it replaces one).

    Examples
    --------
    The file holds the model's kind and state; :func:`load` rebuilds the model:

    >>> import os, tempfile
    >>> from probperf.dag import ZeroMetric
    >>> path = os.path.join(tempfile.mkdtemp(), "zero.model")
    >>> save(ZeroMetric(), path)
    >>> load_state(path)[:2]
    ('ZeroMetric', {'state': {'fitted': {}, 'params': {'positive': 0, 'runs': 0}}})
    >>> load(path).predict(np.zeros((2, 1)), n_draws=1).draws.tolist()
    [[0.0, 0.0]]
    """
    if hasattr(model, "_check_fitted"):
        model._check_fitted()  # an unfitted estimator's file could only be refused at load
    tensors = {}
    config = {"state": state(model, "", tensors)}
    save_state(path, type(model).__name__, config, tensors, check)


def check_model_path(path, what: str = "model file") -> None:
    """Refuse a path a model file cannot be written at, naming ``what`` gave it: not a
    path, empty, a directory or a missing folder (:func:`probperf.outputs.check_output`),
    or with a measurements' or a figure's suffix (a slip that would overwrite runs, or a
    name that misleads), or a link to a file of such a suffix (written through, it would
    overwrite what it points at). One check for ``fit -o`` and ``model.save``.

    Examples
    --------
    >>> check_model_path("runs.csv", "-o")
    Traceback (most recent call last):
    ...
    ValueError: -o runs.csv: a model file cannot have the measurements suffix '.csv'; name it e.g. fit.model
    """
    from . import formats
    from .outputs import check_output
    from .plot import figure_suffixes

    _check_path_type(path)
    if not os.fspath(path):
        raise ValueError(f"{what}: the path is empty; name the file, e.g. fit.model")
    check_output(path, what)  # before a fit: minutes of work must not be lost to a bad path
    suffix = Path(path).suffix  # said as written, compared in lower case
    if suffix.lower() in formats.SUFFIXES:
        raise ValueError(f"{what} {os.fspath(path)}: a model file cannot have the measurements suffix {suffix!r}; "
                         "name it e.g. fit.model")
    if suffix.lower().lstrip(".") in figure_suffixes():  # `plot` writes figures; a model named one misleads
        raise ValueError(f"{what} {os.fspath(path)}: a model file cannot have a figure's suffix {suffix!r} "
                         "(probperf plot MODEL -o FIGURE draws one); name it e.g. fit.model")
    real = Path(os.path.realpath(path))  # a link is written through: what it points at counts
    if real != Path(os.path.abspath(path)) and (
            real.suffix.lower() in formats.SUFFIXES or real.suffix.lower().lstrip(".") in figure_suffixes()):
        raise ValueError(f"{what} {os.fspath(path)}: it is a link to {real}, which a model file would overwrite; "
                         "name another file")


def _check_path_type(path) -> None:
    if not isinstance(path, (str, os.PathLike)):  # pathlib would say "expected str, bytes or os.PathLike object"
        raise TypeError(f"a model file is named by a path (a str or a pathlib.Path), got {path!r}"[:200])


def load(path):
    """Load a model saved by :func:`save`, rebuilding its registered class.

    Examples
    --------
    :func:`save` shows a round trip. A file intact on disk (its checksum holds) but
    without the model's state is refused:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "stateless.model")
    >>> save_state(path, "ZeroMetric", {"note": "no state"}, {})
    >>> load(path)
    Traceback (most recent call last):
    ...
    probperf.persist.ModelFileError: .../stateless.model: model configuration lacks its state; re-fit ...
    """
    kind, config, tensors = load_state(path)
    try:
        cls = model_class(kind)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}; {REFIT}")
    if not isinstance(config, dict) or not isinstance(config.get("state"), dict):
        raise ModelFileError(f"{path}: model configuration lacks its state; {REFIT}")
    try:
        model = rebuild(cls, config["state"], tensors)
        if hasattr(model, "_check_fitted"):
            model._check_fitted()  # a model saved before its fit (persist.save refuses one now)
        _try_prediction(model)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except (Exception, RecursionError) as exc:  # any content: the file is data, never trusted
        raise ModelFileError(f"{path}: model state is inconsistent ({type(exc).__name__}: "
                             f"{_one_line(exc)}); {REFIT}") from None
    return model


def _one_line(exc: object) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:200] + "..."


def _try_prediction(model) -> None:
    """Predict a few draws at the model's training run of the largest size (a table
    model with ``features_`` and ``train_points_``; with ``train_ranges_`` alone, at each
    feature's largest value); raises whatever the model raises. A model rebuilt from
    fields that disagree (shapes, masks, sizes) fails here, at load.

    A run, not the features' maxima: where parameters make one another (``p = nnodes *
    ppn * nthreads``) the maxima of all need not be a point the runs allow, and the
    model refuses such a point (found on ExaFMM's runs: every saved model failed to load)."""
    ranges = getattr(model, "train_ranges_", None)
    features = getattr(model, "features_", None)
    runs = getattr(model, "train_points_", None)
    if not isinstance(ranges, dict) or not isinstance(features, list) or not hasattr(model, "predict"):
        return
    for c in features:  # the cautions compare points with them, which the trial below keeps quiet
        _check_range(c, ranges.get(c))
    import pandas as pd

    if isinstance(runs, dict) and all(len(runs.get(c, ())) for c in features):  # else the maxima, below
        i = int(np.argmax(runs["n"])) if "n" in features else 0
        point = {c: [float(runs[c][i])] for c in features}
    else:
        point = {c: [float(ranges[c][1])] for c in features}  # KeyError: a feature without a range
    from .cautions import quiet

    with np.errstate(all="ignore"), warnings.catch_warnings(), quiet():
        warnings.simplefilter("ignore")  # the outcome is judged below, not warned about
        draws = model.predict(pd.DataFrame(point), n_draws=4, seed=0).draws
    if not np.all(np.isfinite(draws)):
        raise ValueError("its prediction at its own training data is not finite")


def _check_range(name, bounds) -> None:
    """A training range as :class:`~probperf.models.base.TableModel` saves it: ``[low,
    high, distinct values]``, finite numbers with ``low <= high`` and a whole count."""
    def real(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and bool(np.isfinite(v))

    if not (isinstance(bounds, list) and len(bounds) == 3 and all(map(real, bounds)) and bounds[0] <= bounds[1]
            and float(bounds[2]).is_integer() and bounds[2] >= 1):
        raise ValueError(f"the training range of {name!r} is not [low, high, distinct values]: {_one_line(bounds)}")


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


# -- declared state ------------------------------------------------------------------

#: Markers of the encoded values that are not plain JSON.
TENSOR, FRAME, KIND, TUPLE = "$tensor", "$frame", "$kind", "$tuple"


def fitted_fields(cls) -> list[str]:
    """The fitted attributes ``cls`` declares (``_fitted``), base classes' first.

    Examples
    --------
    >>> from probperf.models import LawMixture
    >>> fitted_fields(LawMixture)[:2]
    ['features_', 'target_']
    """
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names += [f for f in vars(klass).get("_fitted", ()) if f not in names]
    return names


def params(obj) -> dict:
    """Constructor parameters of ``obj`` (``get_params()`` when it has one, else the
    attributes named like ``__init__``'s arguments: the scikit-learn convention).

    Examples
    --------
    >>> from probperf.models import LawMixture
    >>> params(LawMixture(seed=3))
    {'guard': True, 'discrepancy': True, 'one_worker_level': False, 'residual_gp': None, 'weighting': None, 'growth': None, 'checked_curvature': False, 'lower_order': None, 'noise_profile': None, 'affine_power': None, 'saturating': None, 'bounded_in_size': False, 'seed': 3, 'n_draws': 1000}
    """
    if hasattr(obj, "get_params"):
        return obj.get_params()
    return init_params(obj)


def init_params(obj) -> dict:
    """The attributes named like ``type(obj).__init__``'s arguments (the scikit-learn
    convention: a constructor only stores its keyword arguments). A constructor that
    hands its ``**kwargs`` on to its base class's takes that one's arguments too, so a
    subclass adds parameters without repeating its base's.

    Examples
    --------
    >>> class Scaled:
    ...     def __init__(self, factor=2.0):
    ...         self.factor = factor
    >>> init_params(Scaled(3.0))
    {'factor': 3.0}
    >>> class Shifted(Scaled):
    ...     def __init__(self, shift=0.0, **scaling):
    ...         super().__init__(**scaling)
    ...         self.shift = shift
    >>> init_params(Shifted(1.0, factor=3.0))
    {'shift': 1.0, 'factor': 3.0}
    """
    import inspect

    names: list[str] = []
    for klass in type(obj).__mro__:
        if "__init__" not in vars(klass):
            continue
        args = inspect.signature(klass.__init__).parameters.values()
        names += [a.name for a in args if a.name != "self" and a.name not in names
                  and a.kind not in (a.VAR_POSITIONAL, a.VAR_KEYWORD)]
        if all(a.kind != a.VAR_KEYWORD for a in args):
            break
    return {name: getattr(obj, name) for name in names}


def state(obj, key: str, tensors: dict) -> dict:
    """The declared state of a registered object as JSON; its arrays are added to
    ``tensors`` under keys starting with ``key``. Unset fitted fields are left out.

    Examples
    --------
    >>> from probperf.transforms import Standardizer
    >>> tensors = {}
    >>> state(Standardizer().fit(np.array([[1.0], [3.0]])), "x.", tensors)
    {'params': {}, 'fitted': {'mean_': {'$tensor': 'x.mean_'}, 'scale_': {'$tensor': 'x.scale_'}}}
    >>> tensors["x.mean_"].tolist()
    [2.0]
    """
    fitted = {f: _encode(getattr(obj, f), key + f, tensors) for f in fitted_fields(type(obj)) if hasattr(obj, f)}
    return {"params": _encode(params(obj), key + "params", tensors), "fitted": fitted}


def rebuild(cls, saved: dict, tensors: dict):
    """A new ``cls`` from :func:`state`'s output: constructed from its parameters, then
    its fitted fields set (in declared order), then, if it was fitted, its ``_loaded()``
    check.

    Examples
    --------
    >>> from probperf.transforms import Standardizer
    >>> tensors = {}
    >>> saved = state(Standardizer().fit(np.array([[1.0], [3.0]])), "", tensors)
    >>> rebuild(Standardizer, saved, tensors).transform(np.array([[3.0]])).tolist()
    [[1.0]]
    >>> rebuild(Standardizer, {"params": {}, "fitted": {"ghost_": 1}}, {})
    Traceback (most recent call last):
    ...
    probperf.persist.ModelFileError: Standardizer has no fitted field(s) ['ghost_']; re-fit the model (probperf fit) to get a good file
    """
    fields = fitted_fields(cls)
    if not isinstance(saved, dict) or not all(isinstance(saved.get(k), dict) for k in ("params", "fitted")):
        raise ModelFileError(f"the state of a {cls.__name__} needs 'params' and 'fitted' mappings; {REFIT}")
    unknown = set(saved["fitted"]) - set(fields)
    if unknown:
        raise ModelFileError(f"{cls.__name__} has no fitted field(s) {sorted(unknown)}; {REFIT}")
    obj = cls(**_decode(saved["params"], tensors))
    for f in fields:
        if f in saved["fitted"]:
            setattr(obj, f, _decode(saved["fitted"][f], tensors))
    if saved["fitted"] and hasattr(obj, "_loaded"):  # an unfitted object (a parameter) has nothing to check
        obj._loaded()
    return obj


def _encode(value, key: str, tensors: dict):
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        tensors[key] = value
        return {TENSOR: key}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{key}.{i}", tensors) for i, v in enumerate(value)]
        return {TUPLE: items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        bad = [k for k in value if not isinstance(k, str) or k.startswith("$")]
        if bad:
            raise TypeError(f"cannot save a mapping with key(s) {bad!r}")
        return {k: _encode(v, f"{key}.{k}", tensors) for k, v in value.items()}
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return {FRAME: {"index": _encode(value.index.tolist(), key + ".index", tensors),
                        "columns": {str(c): _encode(value[c].tolist(), f"{key}.{c}", tensors) for c in value}}}
    kind = type(value).__name__
    if _REGISTRY.get(kind) is not type(value):
        raise TypeError(f"cannot save a {kind} (not a registered model class)")
    if hasattr(value, "to_json"):
        return {KIND: kind, "json": value.to_json()}
    return {KIND: kind, "state": state(value, key + ".", tensors)}


def _decode(value, tensors: dict):
    if isinstance(value, list):
        return [_decode(v, tensors) for v in value]
    if not isinstance(value, dict):
        return value
    if TENSOR in value:
        return np.asarray(tensors[value[TENSOR]])
    if TUPLE in value:
        return tuple(_decode(value[TUPLE], tensors))
    if FRAME in value:
        import pandas as pd

        cols = {c: _decode(v, tensors) for c, v in value[FRAME]["columns"].items()}
        return pd.DataFrame(cols, index=_decode(value[FRAME]["index"], tensors))
    if KIND in value:
        cls = model_class(value[KIND])
        if "json" in value:
            return cls.from_json(value["json"])
        return rebuild(cls, value["state"], tensors)
    return {k: _decode(v, tensors) for k, v in value.items()}
