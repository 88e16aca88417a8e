"""The simulated machine: core counts, runtime overheads, contention and noise knobs."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


@dataclass(frozen=True)
class Machine:
    """Knobs of the simulated shared-memory machine and task runtime.

    Defaults look like the papers' server: two sockets of 18 Haswell cores at
    2.3 GHz with 45 MB of L3 each, running a work-first work-stealing runtime
    (MassiveThreads/Cilk style). All times are in clock cycles; the work-stealing
    scheduler takes the overheads in whole cycles (rounded).

    Parameters
    ----------
    sockets, cores_per_socket : int
        Topology; workers fill socket 0 first.
    clock_hz : float
        Clock rate, to convert cycles to seconds.
    cache_bytes : float
        Shared last-level cache of the whole machine.
    create_overhead : float
        Cycles a worker spends creating a task (between the creating strand and the
        child's first strand).
    wait_overhead : float
        Cycles of a wait that finds its children done, or of resuming a waiting task.
    pop_overhead : float
        Cycles to pop a continuation from the worker's own deque.
    steal_latency : float
        Cycles from a successful steal probe to the stolen strand starting (moving the
        frame to the thief).
    steal_attempt : float
        Cycles per steal probe; failed probes repeat every ``steal_attempt``.
    share_inflation : float
        Work inflation term ``a1 (b-1)/b`` (data moved between caches when ``b``
        workers are busy), scaled by the program's memory exposure.
    worker_inflation : float
        Work inflation term ``a2 (b-1)`` (bandwidth contention growing with busy
        workers).
    numa_inflation : float
        Extra inflation times the fraction of busy workers beyond the first socket.
    thief_weight : float
        How much an idle (stealing) worker loads the memory system compared with a
        busy one: contention uses ``b + thief_weight * (p - b)`` busy workers.
    coherence : float
        Share of the contention felt even by working sets that fit in cache; the
        rest grows as ``footprint / (footprint + cache_bytes)``.
    strand_noise : float
        Lognormal sigma of each strand's cost (independent per strand).
    run_noise : float
        Lognormal sigma of a factor common to all strands of one run.

    Examples
    --------
    >>> m = Machine()
    >>> m.cores
    36
    >>> float(m.inflation(1, footprint=1e9, memory_bound=0.5)[1])
    1.0
    """

    sockets: int = 2
    cores_per_socket: int = 18
    clock_hz: float = 2.3e9
    cache_bytes: float = 90e6
    create_overhead: float = 300.0
    wait_overhead: float = 150.0
    pop_overhead: float = 50.0
    steal_latency: float = 2000.0
    steal_attempt: float = 400.0
    share_inflation: float = 0.25
    worker_inflation: float = 0.01
    numa_inflation: float = 0.3
    thief_weight: float = 0.25
    coherence: float = 0.5
    strand_noise: float = 0.03
    run_noise: float = 0.01

    def __post_init__(self):
        for name in ("sockets", "cores_per_socket"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"Machine.{name} must be >= 1")
        for name in ("clock_hz", "cache_bytes"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Machine.{name} must be positive")
        for name in ("create_overhead", "wait_overhead", "pop_overhead", "steal_latency",
                     "steal_attempt", "share_inflation", "worker_inflation", "numa_inflation",
                     "thief_weight", "coherence", "strand_noise", "run_noise"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= 0):
                raise ValueError(f"Machine.{name} must be finite and >= 0, got {v!r}")
        if self.coherence > 1 or self.thief_weight > 1:
            raise ValueError("Machine.coherence and Machine.thief_weight must be in [0, 1]")

    @property
    def cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @classmethod
    def ideal(cls, **changes) -> "Machine":
        """No overheads, no contention, no noise: the greedy-scheduler ideal.

        Examples
        --------
        >>> m = Machine.ideal(sockets=1)  # other knobs as keywords, too
        >>> m.cores, m.steal_latency, m.strand_noise
        (18, 0.0, 0.0)
        """
        zero = dict(create_overhead=0.0, wait_overhead=0.0, pop_overhead=0.0, steal_latency=0.0,
                    steal_attempt=0.0, share_inflation=0.0, thief_weight=0.0, worker_inflation=0.0,
                    numa_inflation=0.0, strand_noise=0.0, run_noise=0.0)
        return cls(**{**zero, **changes})

    def replace(self, **changes) -> "Machine":
        """A copy with some knobs changed, checked as a new machine is.

        Examples
        --------
        >>> Machine().replace(sockets=1).cores
        18
        >>> Machine().replace(run_noise=-1)
        Traceback (most recent call last):
        ...
        ValueError: Machine.run_noise must be finite and >= 0, got -1
        """
        return replace(self, **changes)

    def inflation(self, p: int, footprint: float, memory_bound: float) -> np.ndarray:
        """Strand-time factor by number of busy workers ``b = 0..p`` (index ``b``).

        ``1 + memory_bound * pressure * (a1 (e-1)/e + a2 (e-1) + numa * beyond/e)``
        with ``e = b + thief_weight (p - b)`` the effective load,
        ``pressure = coherence + (1 - coherence) * footprint / (footprint + cache)``
        and ``beyond`` the part of ``e`` past the first socket.

        Examples
        --------
        >>> m = Machine()
        >>> m.inflation(4, footprint=1e9, memory_bound=0.5).round(3).tolist()  # 0..4 of 4 workers busy
        [1.0, 1.055, 1.079, 1.094, 1.104]
        >>> m.inflation(4, footprint=1e9, memory_bound=0.0).tolist()  # no memory exposure: no contention
        [1.0, 1.0, 1.0, 1.0, 1.0]
        """
        b = np.arange(p + 1, dtype=float)
        b = b + self.thief_weight * (p - b)
        bb = np.maximum(b, 1.0)
        pressure = self.coherence + (1 - self.coherence) * footprint / (footprint + self.cache_bytes)
        beyond = np.maximum(0.0, b - self.cores_per_socket)
        terms = (self.share_inflation * (bb - 1) / bb + self.worker_inflation * (bb - 1)
                 + self.numa_inflation * beyond / bb)
        return 1.0 + memory_bound * pressure * terms
