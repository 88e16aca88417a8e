"""Arrays computed from a set of runs, shared while one law mixture is fitted.

A mixture fits each of its candidate laws on the same few row sets (all its runs, and
the training and held-out rows of each forward split); the laws share most of their
terms, and their residual GPs share their inputs. Inside :func:`sharing`, such an
array is computed once per row set (the same array object ``X``) and key, and handed
out read-only (:func:`computed`); and what depends on the rows' contents alone (a law
fitted on them, a residual GP's inverse) once per contents (:func:`kept`, keyed by
:func:`digest`): the nested forward splits cut the runs at the same places over and
over. Outside, everything is computed afresh.
"""

from __future__ import annotations

import contextvars
import copy
from contextlib import contextmanager

import numpy as np

#: ``(id(X), key) -> (X, value)``; None outside :func:`sharing`. An entry holds X
#: itself, so its id cannot be reused by another array while the cache lives.
_CACHE = contextvars.ContextVar("row_set_arrays", default=None)

#: Row sets larger than this are not cached: there an array costs far more to keep than
#: the Python overhead it saves (which is what the cache is for: the thousands of small
#: law fits on the forward splits of a few hundred runs).
MAX_ROWS = 5000


@contextmanager
def sharing():
    """Share the arrays of :func:`computed` and the values of :func:`kept` within the
    block (one law mixture's fit).

    Examples
    --------
    >>> X, calls = np.arange(3.0)[:, None], []
    >>> with sharing():
    ...     a = computed(X, "log", lambda: calls.append(1) or np.log1p(X[:, 0]))
    ...     b = computed(X, "log", lambda: calls.append(1) or np.log1p(X[:, 0]))
    >>> a is b, len(calls), a.flags.writeable
    (True, 1, False)
    """
    token = _CACHE.set({})
    try:
        yield
    finally:
        _CACHE.reset(token)


def computed(X: np.ndarray, key, compute):
    """``compute()`` (an array, or a tuple of arrays, computed from the rows ``X``): once
    per row set and ``key`` inside :func:`sharing`, then read-only.

    Examples
    --------
    Another array with the same values is another row set (its own entry), and outside
    :func:`sharing` nothing is kept:

    >>> X = np.ones((2, 1))
    >>> with sharing():
    ...     a, b = computed(X, "k", lambda: X[:, 0] * 2), computed(X.copy(), "k", lambda: X[:, 0] * 3)
    >>> a.tolist(), b.tolist(), computed(X, "k", lambda: X[:, 0] * 4).tolist()
    ([2.0, 2.0], [3.0, 3.0], [4.0, 4.0])
    """
    cache = _CACHE.get()
    if cache is None or len(X) > MAX_ROWS:
        return compute()
    hit = cache.get((id(X), key))
    if hit is not None and hit[0] is X:
        return hit[1]
    value = compute()
    for array in value if isinstance(value, tuple) else (value,):
        array.flags.writeable = False
    cache[id(X), key] = (X, value)
    return value


def digest(*arrays) -> bytes:
    """A key for the contents of ``arrays`` (shapes included): equal for equal values,
    whatever array objects hold them.

    Examples
    --------
    >>> a = np.arange(6.0).reshape(3, 2)
    >>> digest(a, a[:, 0]) == digest(a.copy(), np.array([0.0, 2.0, 4.0])), digest(a) == digest(a.T)
    (True, False)
    """
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.digest()


def kept(key, compute):
    """``compute()``, once per ``key`` inside :func:`sharing` (a key that names the
    contents it depends on, :func:`digest`); an exception it raises is kept and raised
    again. Outside :func:`sharing`, computed afresh.

    Why: the forward splits of a mixture's nested validation cut the runs at nearly the
    same places (a split's inner splits are often another split's rows), so a third of
    its law fits repeat one already done on the same rows (6 size parameters, 100
    runs: 12313 fits of 8167 distinct ones).

    Examples
    --------
    >>> calls = []
    >>> with sharing():
    ...     a = kept(("x", digest(np.ones(2))), lambda: calls.append(1) or "fitted")
    ...     b = kept(("x", digest(np.ones(2))), lambda: calls.append(1) or "refitted")
    >>> a, b, len(calls)
    ('fitted', 'fitted', 1)

    A refusal is kept too, and raised again (a fresh copy) without a second try:

    >>> def refuse():
    ...     calls.append(1)
    ...     raise ValueError("no law here")
    >>> with sharing():
    ...     for _ in range(2):
    ...         try:
    ...             kept(("y",), refuse)
    ...         except ValueError as err:
    ...             print(err)
    no law here
    no law here
    >>> len(calls)
    2
    """
    cache = _CACHE.get()
    if cache is None:
        return compute()
    key = ("kept", key)
    if key not in cache:
        try:
            cache[key] = (None, compute())
        except Exception as err:  # kept, so that a refusal costs its fit once too
            cache[key] = (err.with_traceback(None), None)
    err, value = cache[key]
    if err is not None:
        # a copy each time: raising the kept one would chain every caller's frames onto
        # its traceback, alive until the fit ends (10 MB on 200 runs)
        raise copy.copy(err)
    return value
