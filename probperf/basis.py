"""Basis functions for the metric models: ``n^j log2(n)^k`` times a worker term.

The 2016 paper (eqs. 10-15) and the thesis write every DAG metric as a non-negative
combination of a few terms in the problem size ``n`` and the worker count ``p``:
``n^j log^k n`` (how algorithms scale) times one of ``1``, ``p-1``, ``(p-1)/p``,
``(p-1)^2`` or ``1/p`` (how work moves between workers). A :class:`Term` is one such
product, a :class:`BasisSet` an ordered list of them that builds design matrices. Every
term is non-negative for ``n >= 1`` and ``p >= 1``, which is what lets the Bayesian model
keep its coefficients ``>= 0`` and read them as shares of the metric.

The named presets (:data:`PRESETS`) are the paper's equations, generalised as in the
thesis and docs/concepts.md.

Examples
--------
>>> b = serial_work()
>>> len(b), b.names[:3]
(12, ['1', 'log2(n)', 'log2(n)^2'])
>>> b.design([2.0, 4.0])[:, :3].tolist()
[[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]]
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from . import persist

#: Worker terms: name -> function of ``p`` (all zero or positive for p >= 1).
WORKER_TERMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "1": lambda p: np.ones_like(p),
    "p-1": lambda p: p - 1.0,
    "(p-1)/p": lambda p: (p - 1.0) / p,
    "(p-1)^2": lambda p: (p - 1.0) ** 2,
    "1/p": lambda p: 1.0 / p,
}

#: Largest power of log2(n) a term may carry.
MAX_LOG_POWER = 2


def _exponent_text(j: float) -> str:
    """``2`` for 2.0, ``1/3`` for 0.333..., ``1.37`` for other values."""
    if float(j).is_integer():
        return str(int(j))
    frac = Fraction(j).limit_denominator(12)
    if abs(float(frac) - j) < 1e-9:
        return f"({frac.numerator}/{frac.denominator})"
    return f"{j:g}"


@dataclass(frozen=True)
class Term:
    """One basis function ``n^j * log2(n)^k * worker(p)``.

    Parameters
    ----------
    j : float
        Exponent of ``n``; integer or fractional (Extra-P uses e.g. 1/3, 5/4, 3/2).
    k : int
        Power of ``log2(n)``, 0 to 2.
    worker : str
        One of :data:`WORKER_TERMS`: ``"1"``, ``"p-1"``, ``"(p-1)/p"``, ``"(p-1)^2"``,
        ``"1/p"``.

    Examples
    --------
    >>> t = Term(2, 1, "p-1")
    >>> t.name
    'n^2 log2(n) (p-1)'
    >>> t.evaluate([4.0], [3]).tolist()
    [64.0]
    """

    j: float = 0.0
    k: int = 0
    worker: str = "1"

    def __post_init__(self):
        j = float(self.j)
        if not np.isfinite(j) or j < 0:
            raise ValueError(f"Term exponent j must be a finite number >= 0, got {self.j!r}")
        if int(self.k) != self.k or not 0 <= int(self.k) <= MAX_LOG_POWER:
            raise ValueError(f"Term log power k must be an integer 0..{MAX_LOG_POWER}, got {self.k!r}")
        if self.worker not in WORKER_TERMS:
            raise ValueError(
                f"unknown worker term {self.worker!r}; choose one of {list(WORKER_TERMS)}"
            )
        object.__setattr__(self, "j", j)
        object.__setattr__(self, "k", int(self.k))

    @property
    def uses_p(self) -> bool:
        """Whether the term depends on the worker count."""
        return self.worker != "1"

    @property
    def uses_n(self) -> bool:
        """Whether the term depends on the problem size."""
        return self.j != 0 or self.k != 0

    @property
    def name(self) -> str:
        parts = []
        if self.j == 1:
            parts.append("n")
        elif self.j != 0:
            parts.append(f"n^{_exponent_text(self.j)}")
        if self.k == 1:
            parts.append("log2(n)")
        elif self.k > 1:
            parts.append(f"log2(n)^{self.k}")
        if self.worker != "1":
            worker = self.worker if self.worker.startswith("(") else f"({self.worker})"
            parts.append(worker if parts else self.worker)
        return " ".join(parts) or "1"

    def evaluate(self, n, p=None) -> np.ndarray:
        """The term's values at ``n`` (and ``p``, needed only if :attr:`uses_p`).

        Examples
        --------
        >>> Term(1, 1).evaluate([2.0, 8.0]).tolist()
        [2.0, 24.0]
        >>> Term(0, 0, "1/p").evaluate([10.0, 10.0], p=[1, 4]).tolist()
        [1.0, 0.25]
        """
        n = np.asarray(n, dtype=np.float64)
        value = n**self.j if self.j != 0 else np.ones_like(n)
        if self.k:
            value = value * np.log2(n) ** self.k
        if self.uses_p:
            if p is None:
                raise ValueError(f"term {self.name!r} needs the worker count p")
            value = value * WORKER_TERMS[self.worker](np.asarray(p, dtype=np.float64))
        return value

    def to_dict(self) -> dict:
        """The term as a plain dict, the form model files store.

        Examples
        --------
        >>> Term(2, 1, "p-1").to_dict()
        {'j': 2.0, 'k': 1, 'worker': 'p-1'}
        """
        return {"j": self.j, "k": self.k, "worker": self.worker}


def _check_inputs(n, p, need_p: bool, need_log: bool):
    n = np.atleast_1d(np.asarray(n, dtype=np.float64))
    if n.ndim != 1:
        raise ValueError(f"n must be one-dimensional, got shape {n.shape}")
    bad = ~np.isfinite(n) | (n <= 0) | ((n < 1) if need_log else False)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        floor = ">= 1 (log2 terms)" if need_log else "> 0"
        raise ValueError(f"problem size n must be finite and {floor}; index {i} is {float(n[i])!r}")
    if not need_p:
        return n, None
    if p is None:
        raise ValueError("this basis has worker terms; pass the worker count p")
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), n.shape)
    bad = ~np.isfinite(p) | (p < 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"worker count p must be finite and >= 1; index {i} is {float(p[i])!r}")
    return n, p


@persist.register
class BasisSet:
    """An ordered set of :class:`Term` objects; builds design matrices.

    Parameters
    ----------
    terms : iterable of Term (or ``(j, k, worker)`` tuples / dicts)
        Duplicates are dropped, order is kept.

    Examples
    --------
    >>> b = BasisSet([Term(1, 1), Term(2, 0)])
    >>> b.names
    ['n log2(n)', 'n^2']
    >>> b.design([8.0]).tolist()
    [[24.0, 64.0]]
    >>> BasisSet.from_json(b.to_json()) == b
    True
    """

    def __init__(self, terms: Iterable):
        seen: list[Term] = []
        for t in terms:
            t = _as_term(t)
            if t not in seen:
                seen.append(t)
        if not seen:
            raise ValueError("a BasisSet needs at least one term")
        self.terms: tuple[Term, ...] = tuple(seen)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.terms]

    @property
    def uses_p(self) -> bool:
        return any(t.uses_p for t in self.terms)

    def design(self, n, p=None) -> np.ndarray:
        """Design matrix (len(n) x len(self)); ``p`` is needed only for worker terms.

        Examples
        --------
        >>> BasisSet([Term(1, 0), Term(0, 0, "p-1")]).design([10.0, 20.0], p=[2, 4]).tolist()
        [[10.0, 1.0], [20.0, 3.0]]
        """
        need_log = any(t.k > 0 for t in self.terms)
        n, p = _check_inputs(n, p, self.uses_p, need_log)
        return np.column_stack([t.evaluate(n, p) for t in self.terms])

    def subset(self, keep: Callable[[Term], bool]) -> "BasisSet":
        """The terms for which ``keep(term)`` is true.

        Examples
        --------
        >>> serial_work().subset(lambda t: t.k == 0).names
        ['1', 'n', 'n^2', 'n^3']
        """
        return BasisSet([t for t in self.terms if keep(t)])

    def __add__(self, other: "BasisSet") -> "BasisSet":
        return BasisSet(self.terms + tuple(other.terms))

    def __len__(self) -> int:
        return len(self.terms)

    def __iter__(self) -> Iterator[Term]:
        return iter(self.terms)

    def __getitem__(self, i) -> Term:
        return self.terms[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, BasisSet) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(self.terms)

    def __repr__(self) -> str:
        return f"BasisSet([{', '.join(self.names)}])"

    def to_json(self) -> str:
        """JSON text (a list of ``{"j", "k", "worker"}``) for model files.

        Examples
        --------
        >>> BasisSet([Term(1, 1)]).to_json()
        '[{"j": 1.0, "k": 1, "worker": "1"}]'
        """
        return json.dumps([t.to_dict() for t in self.terms])

    @classmethod
    def from_json(cls, text) -> "BasisSet":
        """Inverse of :meth:`to_json`; also accepts the already-parsed list.

        Examples
        --------
        >>> BasisSet.from_json('[{"j": 2, "k": 0, "worker": "1"}]').names
        ['n^2']
        >>> BasisSet.from_json([[1, 1, "p-1"]]).names  # (j, k, worker) triples, parsed
        ['n log2(n) (p-1)']
        """
        data = json.loads(text) if isinstance(text, (str, bytes)) else text
        if not isinstance(data, list):
            raise ValueError("a BasisSet JSON must be a list of terms")
        return cls(data)


def _as_term(t) -> Term:
    if isinstance(t, Term):
        return t
    if isinstance(t, dict):
        return Term(**t)
    if isinstance(t, (tuple, list)):
        return Term(*t)
    raise TypeError(f"cannot make a basis Term from {t!r}")


def normal_form(
    j: Sequence[float] = (0, 1, 2, 3),
    k: Sequence[int] = (0, 1, 2),
    worker: Sequence[str] = ("1",),
) -> BasisSet:
    """All products ``n^j log2(n)^k worker(p)`` (the performance model normal form).

    Examples
    --------
    >>> normal_form(j=(1,), k=(0, 1), worker=("1", "p-1")).names
    ['n', 'n (p-1)', 'n log2(n)', 'n log2(n) (p-1)']
    """
    return BasisSet(Term(jj, kk, w) for jj, kk, w in itertools.product(j, k, worker))


def worker_terms(workers: Sequence[str] = ("1", "p-1", "(p-1)/p")) -> BasisSet:
    """Terms in ``p`` alone (e.g. the delay factors ``c1 + c2 (p-1) + c3 (p-1)/p``).

    Examples
    --------
    >>> worker_terms().names
    ['1', 'p-1', '(p-1)/p']
    """
    return BasisSet(Term(0, 0, w) for w in workers)


# ---- presets: the 2016 paper's equations, generalised as in the thesis ---------------


def serial_work() -> BasisSet:
    """``T1'(n)``: ``n^j log2(n)^k``, 0 <= j <= 3, 0 <= k <= 2 (eq. 11 generalised).

    Examples
    --------
    >>> b = serial_work()
    >>> len(b), b.names[-1]
    (12, 'n^3 log2(n)^2')
    """
    return normal_form()


def work_inflation() -> BasisSet:
    """``T1/T1' - 1 = a1 (p-1)/p + a2 (p-1)`` (eq. 10).

    Examples
    --------
    >>> b = work_inflation()
    >>> b.names
    ['(p-1)/p', 'p-1']
    >>> b.design([8.0], p=[4]).tolist()
    [[0.75, 3.0]]
    """
    return worker_terms(("(p-1)/p", "p-1"))


def task_counts() -> BasisSet:
    """``create_task(n)``, ``wait_tasks(n)`` (eqs. 13/14).

    The thesis uses the same family as ``T1'`` (0 <= j <= 3, 0 <= k <= 2); the constant
    is kept because a depth cut-off makes task counts constant in ``n``.

    Examples
    --------
    >>> task_counts() == serial_work()
    True
    """
    return normal_form()


def no_work() -> BasisSet:
    """``no_work(n, p)``: ``(p-1)^j n^k log2(n)^l``, 1<=j<=2, 0<=k<=2, 0<=l<=1 (eq. 15).

    Examples
    --------
    >>> b = no_work()
    >>> len(b), b.uses_p
    (12, True)
    >>> b.names[:3]
    ['p-1', '(p-1)^2', 'log2(n) (p-1)']
    """
    return normal_form(j=(0, 1, 2), k=(0, 1), worker=("p-1", "(p-1)^2"))


def strong_scaling() -> BasisSet:
    """Elapsed time ``time(n, p)``: a parallel part ``/p``, a serial part, an overhead.

    ``n^j log2(n)^k`` (0 <= j <= 3, 0 <= k <= 1) times ``1/p``, ``1`` and ``p-1``: an
    Amdahl-style split plus a per-worker overhead, for time-only data.

    Examples
    --------
    >>> b = strong_scaling()
    >>> len(b), b.names[:3]
    (24, ['1/p', '1', 'p-1'])
    """
    return normal_form(j=(0, 1, 2, 3), k=(0, 1), worker=("1/p", "1", "p-1"))


#: Preset name -> function returning the :class:`BasisSet`.
PRESETS: dict[str, Callable[[], BasisSet]] = {
    "serial_work": serial_work,
    "work_inflation": work_inflation,
    "task_counts": task_counts,
    "no_work": no_work,
    "strong_scaling": strong_scaling,
}


def preset(name: str) -> BasisSet:
    """The preset called ``name`` (see :data:`PRESETS`).

    Examples
    --------
    >>> preset("no_work") == no_work()
    True
    >>> preset("nope")
    Traceback (most recent call last):
    ...
    ValueError: unknown basis preset 'nope'; choose one of ['no_work', 'serial_work', ...]
    """
    if name not in PRESETS:
        raise ValueError(f"unknown basis preset {name!r}; choose one of {sorted(PRESETS)}")
    return PRESETS[name]()
