"""DAG builders for BOTS-like programs (the ones the papers measured) and a flat farm.

Every builder takes the problem size ``n`` and the program's configuration parameters
and returns a :class:`~probperf.sim.dag.Dag` whose strand costs follow the
algorithm's operation counts times a per-program constant (cycles per operation).
The constants are plausible for a 2.3 GHz Haswell core, not measured: the point is
the shape of the DAG (task counts, granularity, span), which is what the metrics see.

=========  ======================================  ===================================
program    configuration (defaults)                structure
=========  ======================================  ===================================
fib        cutoff=12 (task-creation depth)         binary tree, serial fib below
nqueens    cutoff=4 (task-creation row)            one task per safe placement
sort       quick_cutoff=512, merge_cutoff=512,     cilksort: 4-way split, 3 merge
           insertion_cutoff=20                     phases; parallel binary merges
fft        (none)                                  radix-4/2 Cooley-Tukey with
                                                   parallel unshuffle/twiddle loops
sparselu   block=30 (submatrix size); n = blocks   BOTS pattern with fill-in;
                                                   fwd/bdiv then bmod per step
strassen   cutoff=64 (naive below), depth=7        7 tasks per level until depth
farm       chunk=1 (items per task)                flat map of n items
=========  ======================================  ===================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .dag import END, SPAWN, WAIT, Dag, grow


def _table(pieces: list[dict], child_keys: tuple[str, ...]) -> dict:
    """Concatenate segment pieces; child parameters default to 0 where absent."""
    pieces = [p for p in pieces if len(p["owner"])]
    if not pieces:
        raise ValueError("a level produced no segments")
    out = {}
    for key in ("owner", "seq", "cost", "kind", *child_keys):
        parts = []
        for p in pieces:
            v = p.get(key)
            parts.append(np.zeros(len(p["owner"])) if v is None else np.asarray(v))
        out[key] = np.concatenate(parts)
    return out


def _leaf(owners, cost) -> dict:
    n = len(owners)
    return dict(owner=owners, seq=np.zeros(n, np.int64), cost=cost, kind=np.full(n, END))


def _fixed(owners, kinds, costs, **children) -> dict:
    """Every owner gets the same segment pattern ``kinds``; arrays are (owners x segs)."""
    k = len(kinds)
    n = len(owners)
    out = dict(
        owner=np.repeat(owners, k),
        seq=np.tile(np.arange(k), n),
        cost=np.broadcast_to(np.asarray(costs, float), (n, k)).ravel(),
        kind=np.tile(np.asarray(kinds, np.int64), n),
    )
    for name, v in children.items():
        out[name] = np.broadcast_to(np.asarray(v), (n, k)).ravel()
    return out


class ParameterError(ValueError):
    """A program parameter out of its range; ``name`` and ``value`` say which, so that
    the command line can name the option that set it (``--set quick_cutoff=0``).

    Examples
    --------
    >>> try:
    ...     sort(1024, quick_cutoff=2)
    ... except ParameterError as exc:
    ...     print(exc.name, exc.value)
    quick_cutoff 2
    """

    def __init__(self, message: str, name: str = "", value=None):  # defaults: unpickled from the message alone
        super().__init__(message)
        self.name, self.value = name, value


def _check_int(name, value, low):
    if int(value) != value or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}", name, value)
    return int(value)


# -- fib ----------------------------------------------------------------------------

FIB_CALL = 12.0  # cycles per serial fib call


def fib(n: int, cutoff: int = 12) -> Dag:
    """Recursive Fibonacci: a task per call above depth ``cutoff``, serial fib below.

    Examples
    --------
    >>> fib(5, cutoff=1).n_tasks
    3
    """
    n = _check_int("n", n, 1)
    cutoff = _check_int("cutoff", cutoff, 0)
    calls = np.zeros(max(n + 2, 3))  # serial calls of fib(k) = 2 F(k+1) - 1
    calls[0] = calls[1] = 1
    for k in range(2, calls.shape[0]):
        calls[k] = calls[k - 1] + calls[k - 2] + 1
    keys = ("k", "d")

    def expand(nodes):
        k, d = nodes["k"].astype(np.int64), nodes["d"].astype(np.int64)
        idx = np.arange(len(k))
        inner = (d < cutoff) & (k >= 2)
        i = idx[inner]
        ki, di = k[inner][:, None], d[inner][:, None]
        zero = np.zeros_like(ki)
        piece = _fixed(i, [SPAWN, SPAWN, WAIT, END], [30, 10, 5, 10],
                       k=np.hstack([ki - 1, ki - 2, zero, zero]), d=np.repeat(di + 1, 4, axis=1))
        leaves = idx[~inner]
        return _table([piece, _leaf(leaves, FIB_CALL * calls[k[~inner]])], keys)

    return grow({"k": np.array([n]), "d": np.array([0])}, expand, footprint=1e3,
                memory_bound=0.15, name="fib", params={"n": n, "cutoff": cutoff})


# -- nqueens ------------------------------------------------------------------------

QUEENS_NODE = 25.0  # cycles per visited board position


def nqueens(n: int, cutoff: int = 4) -> Dag:
    """N-queens search: a task for every safe placement in rows ``< cutoff``.

    Leaf cost is the serial search below: the full search visits about
    ``10**(0.69 n - 2.2)`` positions (fit to known counts for n = 8..14), shared out
    among the leaves in proportion to the free squares of their next row. Shared, so
    that for a cut-off below ``n`` the positions searched, and so the work, do not
    depend on it (a search is the same search whoever runs its subtrees); the cut-off
    changes only the tasks, their overheads and the parallelism. From a cut-off of
    ``n`` on, every placement is a task and the search is the tasks' own costs. (Until
    session 32 each leaf took ``free / (n/2) * total**(left/n)``, which summed to 13x
    more work at cut-off 4 than at 0 for n = 12.)

    Examples
    --------
    >>> nqueens(4, cutoff=1).n_tasks   # root + 4 first-row placements
    5
    """
    n = _check_int("n", n, 1)
    if n > 30:
        raise ParameterError(f"n must be at most 30 for nqueens, got {n}", "n", n)
    cutoff = _check_int("cutoff", cutoff, 0)
    full = (1 << n) - 1
    total = 10 ** (0.69 * n - 2.2)
    keys = ("r", "cols", "d1", "d2")

    def expand(nodes):
        r, cols, d1, d2 = (nodes[k].astype(np.int64) for k in keys)
        idx = np.arange(len(r))
        taken = cols | d1 | d2
        bits = np.int64(1) << np.arange(n, dtype=np.int64)
        free = (~taken[:, None] & bits[None, :]) != 0  # (nodes, n)
        inner = (r < cutoff) & (r < n)
        pieces = []
        i = idx[inner]
        if i.size:
            fr = free[inner]
            owner_s, col = np.nonzero(fr)
            n_child = fr.sum(axis=1)
            own = i[owner_s]
            seq = np.arange(own.shape[0]) - np.repeat(np.cumsum(n_child) - n_child, n_child)
            b = bits[col]
            pieces.append(dict(owner=own, seq=seq, cost=40.0 + 2.0 * r[own], kind=np.full(own.shape[0], SPAWN),
                               r=r[own] + 1, cols=cols[own] | b, d1=((d1[own] | b) << 1) & full,
                               d2=(d2[own] | b) >> 1))
            pieces.append(_fixed(i, [WAIT, END], [10, 10]) | {"seq": np.tile([0, 1], i.size) + np.repeat(n_child, 2)})
        leaves = idx[~inner]
        if leaves.size:
            # one level holds every leaf (grow expands level by level, and every leaf
            # is at the cut-off row, or a solution at row n, a single position)
            share = np.maximum(1, free[~inner].sum(axis=1)).astype(np.float64)
            est = np.where(r[leaves] < n, total * share / share.sum(), 1.0)
            pieces.append(_leaf(leaves, QUEENS_NODE * est))
        return _table(pieces, keys)

    z = np.zeros(1, np.int64)
    return grow({"r": z, "cols": z, "d1": z, "d2": z}, expand, footprint=1e3 * n,
                memory_bound=0.15, name="nqueens", params={"n": n, "cutoff": cutoff})


# -- sort (cilksort) ----------------------------------------------------------------

SORT_CMP = 6.0    # cycles per quicksort comparison
INSERT_CMP = 3.0  # cycles per insertion-sort comparison
MERGE_ELEM = 5.0  # cycles per merged element
SPLIT_STEP = 20.0  # cycles per binary-search step of a parallel merge split


def sort(n: int, quick_cutoff: int = 512, merge_cutoff: int = 512, insertion_cutoff: int = 20) -> Dag:
    """Parallel mergesort (BOTS cilksort) of ``n`` keys.

    Arrays of fewer than ``quick_cutoff`` keys are quicksorted serially (insertion
    sort below ``insertion_cutoff``); larger ones split in four sorted in parallel and
    merged in two rounds; merges of fewer than ``merge_cutoff`` keys are serial,
    larger ones split in two parallel merges.

    Examples
    --------
    >>> sort(4096, 512, 512, 20).counts()["create_task"]
    133
    """
    n = _check_int("n", n, 1)
    qc = _check_int("quick_cutoff", quick_cutoff, 4)
    mc = _check_int("merge_cutoff", merge_cutoff, 2)
    ic = _check_int("insertion_cutoff", insertion_cutoff, 1)
    keys = ("typ", "size")

    def expand(nodes):
        kind, size = nodes["typ"], nodes["size"].astype(np.int64)
        idx = np.arange(len(kind))
        is_sort, is_merge = kind == 0, kind == 1
        pieces = []
        s = idx[is_sort & (size >= qc)]
        if s.size:
            k = size[s][:, None]
            q = k // 4
            z = np.zeros_like(k)
            sizes = np.hstack([q, q, q, k - 3 * q, z, 2 * q, k - 2 * q, z, k, z, z])
            kinds_c = np.array([0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0])
            pieces.append(_fixed(s, [SPAWN] * 4 + [WAIT, SPAWN, SPAWN, WAIT, SPAWN, WAIT, END],
                                 20.0, typ=kinds_c[None, :], size=sizes))
        m = idx[is_merge & (size >= mc)]
        if m.size:
            k = size[m][:, None]
            z = np.zeros_like(k)
            split = SPLIT_STEP * np.log2(np.maximum(k, 2.0))
            pieces.append(_fixed(m, [SPAWN, SPAWN, WAIT, END],
                                 np.hstack([split, np.full_like(split, 5.0), np.full_like(split, 5.0),
                                            np.full_like(split, 5.0)]),
                                 typ=np.array([[1, 1, 0, 0]]), size=np.hstack([k // 2, k - k // 2, z, z])))
        ls = idx[is_sort & (size < qc)]
        if ls.size:
            k = np.maximum(size[ls].astype(float), 1.0)
            runs = np.minimum(k, ic)
            cost = SORT_CMP * k * np.log2(np.maximum(k / runs, 1.0)) + INSERT_CMP * k * runs / 4
            pieces.append(_leaf(ls, cost))
        lm = idx[is_merge & (size < mc)]
        if lm.size:
            pieces.append(_leaf(lm, MERGE_ELEM * size[lm].astype(float)))
        return _table(pieces, keys)

    return grow({"typ": np.zeros(1, np.int64), "size": np.array([n])}, expand,
                footprint=8.0 * n, memory_bound=0.6, name="sort",
                params={"n": n, "quick_cutoff": qc, "merge_cutoff": mc, "insertion_cutoff": ic})


# -- fft ----------------------------------------------------------------------------

FFT_BASE = 10.0      # cycles per element per stage of the serial base FFT
UNSHUFFLE_ELEM = 4.0  # cycles per element of the unshuffle loop
TWIDDLE_ELEM = 3.0   # cycles per element per radix of the twiddle loop
LOOP_GRAIN = 128     # BOTS splits its loops in tasks down to 128 elements


def fft(n: int) -> Dag:
    """Cooley-Tukey FFT of ``n`` points (a power of two), radix 4 (2 when needed).

    Every level runs a parallel unshuffle loop, the ``r`` sub-FFTs in parallel, then a
    parallel twiddle loop; loops split in halves down to 128 elements.

    Examples
    --------
    >>> fft(64).n_tasks   # root, unshuffle loop, 4 base FFTs, twiddle loop
    7
    """
    n = _check_int("n", n, 2)
    if n & (n - 1):
        raise ParameterError(f"fft needs n a power of two, got {n}", "n", n)
    keys = ("typ", "size", "elem")

    def expand(nodes):
        kind, size, elem = nodes["typ"], nodes["size"].astype(np.int64), nodes["elem"].astype(float)
        idx = np.arange(len(kind))
        pieces = []
        for radix in (4, 2):
            sel = (kind == 0) & (size > 16)
            sel &= (size % 4 == 0) if radix == 4 else (size % 4 != 0)
            f = idx[sel]
            if not f.size:
                continue
            k = size[f][:, None]
            z = np.zeros_like(k)
            kinds = [SPAWN, WAIT] + [SPAWN] * radix + [WAIT, SPAWN, WAIT, END]
            ck = np.array([[1, 0] + [0] * radix + [0, 1, 0, 0]])
            sz = np.hstack([k, z] + [k // radix] * radix + [z, k, z, z])
            el = np.array([[UNSHUFFLE_ELEM, 0] + [0] * radix + [0, TWIDDLE_ELEM * radix, 0, 0]])
            pieces.append(_fixed(f, kinds, 20.0, typ=ck, size=sz, elem=el))
        lp = idx[(kind == 1) & (size > LOOP_GRAIN)]
        if lp.size:
            k = size[lp][:, None]
            z = np.zeros_like(k)
            pieces.append(_fixed(lp, [SPAWN, SPAWN, WAIT, END], 15.0, typ=np.array([[1, 1, 0, 0]]),
                                 size=np.hstack([k // 2, k - k // 2, z, z]), elem=elem[lp][:, None]))
        base = idx[(kind == 0) & (size <= 16)]
        if base.size:
            k = size[base].astype(float)
            pieces.append(_leaf(base, FFT_BASE * k * np.log2(np.maximum(k, 2.0))))
        ll = idx[(kind == 1) & (size <= LOOP_GRAIN)]
        if ll.size:
            pieces.append(_leaf(ll, elem[ll] * size[ll]))
        return _table(pieces, keys)

    return grow({"typ": np.zeros(1, np.int64), "size": np.array([n]), "elem": np.zeros(1)}, expand,
                footprint=32.0 * n, memory_bound=0.8, name="fft", params={"n": n})


# -- sparselu -----------------------------------------------------------------------

FLOP = 1.0  # cycles per floating-point operation of the block kernels


def _sparse_pattern(n: int) -> np.ndarray:
    """Initial non-empty blocks of BOTS sparselu's generated matrix."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    empty = ((i < j) & (i % 3 != 0)) | ((i > j) & (j % 3 != 0)) | (i % 2 == 1) | (j % 2 == 1)
    empty &= ~((i == j) | (i == j - 1) | (i - 1 == j))
    return ~empty


def sparselu(n: int, block: int = 30) -> Dag:
    """Blocked sparse LU of an ``n x n`` matrix of ``block x block`` blocks.

    The main task factorises each diagonal block, creates a task per non-empty block
    of the row and column (fwd/bdiv), waits, creates a task per pair updating the
    trailing blocks (bmod, allocating fill-in blocks), waits, and moves on.

    Examples
    --------
    >>> d = sparselu(4, block=8)
    >>> d.n_tasks, d.counts()["wait_tasks"]
    (15, 8)
    """
    n = _check_int("n", n, 1)
    block = _check_int("block", block, 1)
    full = _sparse_pattern(n)
    m3 = float(block) ** 3
    kinds, costs, child = [], [], []
    for kk in range(n):
        row = np.flatnonzero(full[kk, kk + 1:]) + kk + 1
        col = np.flatnonzero(full[kk + 1:, kk]) + kk + 1
        phase1 = np.full(row.size + col.size, FLOP * m3)
        ii, jj = np.meshgrid(col, row, indexing="ij")
        ii, jj = ii.ravel(), jj.ravel()
        fill = ~full[ii, jj]
        full[ii, jj] = True
        lu0 = FLOP * m3 * 2 / 3
        for phase, children, pre in ((1, phase1, lu0), (2, np.full(ii.size, 2 * FLOP * m3), 0.0)):
            spawn_cost = np.full(children.size, 10.0)
            if phase == 2:
                spawn_cost += fill * FLOP * block * block  # allocate and clear a block
            if children.size:
                spawn_cost[0] += pre
            kinds.append(np.full(children.size, SPAWN))
            costs.append(spawn_cost)
            child.append(children)
            kinds.append(np.array([WAIT]))
            costs.append(np.array([0.0 if children.size else pre]) + 10.0)
            child.append(np.zeros(1))
    kinds.append(np.array([END]))
    costs.append(np.array([10.0]))
    child.append(np.zeros(1))
    root = dict(kind=np.concatenate(kinds), cost=np.concatenate(costs), c=np.concatenate(child))
    root["owner"] = np.zeros(root["kind"].shape[0], np.int64)
    root["seq"] = np.arange(root["kind"].shape[0])

    def expand(nodes):
        if "root" in nodes:
            return root
        c = nodes["c"]
        return _leaf(np.arange(c.shape[0]), c) | {"c": c}

    footprint = 4.0 * block * block * float(full.sum())
    return grow({"root": np.zeros(1)}, expand, footprint=footprint, memory_bound=0.4,
                name="sparselu", params={"n": n, "block": block})


# -- strassen -----------------------------------------------------------------------

MUL_FMA = 0.6  # cycles per multiply-add of the naive kernel
ADD_ELEM = 1.0  # cycles per element of a matrix addition


def _strassen_serial(k: np.ndarray, cutoff: int) -> np.ndarray:
    """Cost of a serial Strassen multiply of size ``k`` (naive at ``<= cutoff``)."""
    k = np.asarray(k, dtype=float)
    out = np.zeros_like(k)
    scale = np.ones_like(k)
    size = k.copy()
    while True:
        small = size <= cutoff
        out += np.where(small & (scale > 0), scale * MUL_FMA * size**3, 0.0)
        big = ~small & (scale > 0)
        if not big.any():
            return out
        out += np.where(big, scale * 18 * ADD_ELEM * (size / 2) ** 2, 0.0)
        scale = np.where(big, scale * 7, 0.0)
        size = np.where(big, size / 2, size)


def strassen(n: int, cutoff: int = 64, depth: int = 7) -> Dag:
    """Strassen multiply of ``n x n`` matrices: 7 tasks per level down to ``depth``.

    Below ``depth`` the recursion runs serially inside the task; blocks of at most
    ``cutoff`` rows use the naive kernel.

    Examples
    --------
    >>> strassen(256, cutoff=64, depth=7).n_tasks   # 1 + 7 + 49
    57
    """
    n = _check_int("n", n, 1)
    cutoff = _check_int("cutoff", cutoff, 1)
    depth = _check_int("depth", depth, 0)
    keys = ("k", "d")

    def expand(nodes):
        k, d = nodes["k"].astype(float), nodes["d"]
        idx = np.arange(k.shape[0])
        inner = (k > cutoff) & (d < depth)
        i = idx[inner]
        pieces = []
        if i.size:
            half = (k[inner] / 2)[:, None]
            pre = 10 * ADD_ELEM * half**2
            post = 8 * ADD_ELEM * half**2
            costs = np.hstack([pre] + [np.full_like(pre, 10.0)] * 6 + [np.full_like(pre, 10.0), post])
            z = np.zeros_like(half)
            pieces.append(_fixed(i, [SPAWN] * 7 + [WAIT, END], costs,
                                 k=np.hstack([half] * 7 + [z, z]), d=np.repeat(d[inner][:, None] + 1, 9, axis=1)))
        leaves = idx[~inner]
        if leaves.size:
            pieces.append(_leaf(leaves, _strassen_serial(k[leaves], cutoff)))
        return _table(pieces, keys)

    return grow({"k": np.array([float(n)]), "d": np.array([0])}, expand, footprint=8.0 * 5 * n * n,
                memory_bound=0.5, name="strassen", params={"n": n, "cutoff": cutoff, "depth": depth})


# -- farm ---------------------------------------------------------------------------

FARM_ITEM = 200_000.0  # mean cycles per item (a primality test of a big number)


def farm(n: int, chunk: int = 1) -> Dag:
    """A flat map (as in the Rabin-Miller study): the root creates one task per
    ``chunk`` of ``n`` items and waits; item costs vary (lognormal, fixed input seed).

    Examples
    --------
    >>> farm(10, chunk=3).n_tasks   # root + 4 chunks
    5
    """
    n = _check_int("n", n, 1)
    chunk = _check_int("chunk", chunk, 1)
    m = -(-n // chunk)
    items = np.full(m, chunk, dtype=float)
    items[-1] = n - chunk * (m - 1)
    rng = np.random.default_rng(12345)  # the program's input, not run-to-run noise
    sigma = 0.5
    # a sum of `items` lognormal costs, matched by a lognormal of the same mean/variance
    s2 = np.log1p((np.exp(sigma**2) - 1) / items)
    cost = FARM_ITEM * items * np.exp(rng.normal(-s2 / 2, np.sqrt(s2)))

    def expand(nodes):
        if "root" in nodes:
            kind = np.concatenate((np.full(m, SPAWN), [WAIT, END]))
            return dict(owner=np.zeros(m + 2, np.int64), seq=np.arange(m + 2),
                        cost=np.concatenate((np.full(m, 30.0), [10.0, 10.0])), kind=kind,
                        c=np.concatenate((cost, [0.0, 0.0])))
        c = nodes["c"]
        return _leaf(np.arange(c.shape[0]), c) | {"c": c}

    return grow({"root": np.zeros(1)}, expand, footprint=64.0 * n, memory_bound=0.1,
                name="farm", params={"n": n, "chunk": chunk})


# -- registry -----------------------------------------------------------------------


@dataclass(frozen=True)
class App:
    """A program builder and its configuration parameters with defaults.

    Calling an ``App`` builds its DAG, defaults filled in; an unknown configuration
    parameter is an error that lists the known ones.

    Examples
    --------
    >>> app = APPS["fib"]
    >>> app.name, app.config
    ('fib', {'cutoff': 12})
    >>> app(10, cutoff=2).n_tasks
    7
    >>> app(10, depth=3)
    Traceback (most recent call last):
    ...
    ValueError: fib has no configuration parameter(s) ['depth']; it takes ['cutoff']
    >>> App("fib4", fib, {"cutoff": 4})(10).params
    {'n': 10, 'cutoff': 4}
    """

    name: str
    build: Callable[..., Dag]
    config: dict

    def __call__(self, n, **config) -> Dag:
        unknown = set(config) - set(self.config)
        if unknown:
            raise ValueError(
                f"{self.name} has no configuration parameter(s) {sorted(unknown)}; "
                f"it takes {sorted(self.config) or 'none'}"
            )
        return self.build(n, **{**self.config, **config})


APPS: dict[str, App] = {
    "fib": App("fib", fib, {"cutoff": 12}),
    "nqueens": App("nqueens", nqueens, {"cutoff": 4}),
    "sort": App("sort", sort, {"quick_cutoff": 512, "merge_cutoff": 512, "insertion_cutoff": 20}),
    "fft": App("fft", fft, {}),
    "sparselu": App("sparselu", sparselu, {"block": 30}),
    "strassen": App("strassen", strassen, {"cutoff": 64, "depth": 7}),
    "farm": App("farm", farm, {"chunk": 1}),
}


def build(app: str, n: int, **config) -> Dag:
    """Build the DAG of program ``app`` at size ``n`` (see :data:`APPS`).

    Examples
    --------
    >>> build("fib", 10, cutoff=2).n_tasks
    7
    """
    from .datasets import max_size

    if app not in APPS:
        raise ValueError(f"unknown program {app!r}; choose from {', '.join(APPS)}")
    largest = max_size(app)
    if largest is not None and isinstance(n, (int, float, np.integer, np.floating)) and n > largest:
        raise ValueError(f"{app}: n = {n:g} is above the largest size the simulator builds, {largest} "
                         "(MAX_SIM_SCALE times the work of its largest test size)")
    return APPS[app](n, **config)

