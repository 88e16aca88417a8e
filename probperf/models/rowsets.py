"""Arrays computed from a set of runs, shared while one law mixture is fitted.

A mixture fits each of its candidate laws on the same few row sets (all its runs, and
the training and held-out rows of each forward split); the laws share most of their
terms, and their residual GPs share their inputs. Inside :func:`sharing`, such an
array is computed once per row set (the same array object ``X``) and key, and handed
out read-only; outside, it is computed afresh.
"""

from __future__ import annotations

import contextvars
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
    """Share the arrays of :func:`computed` within the block (one law mixture's fit).

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
