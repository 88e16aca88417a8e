"""Read the binary event file written by the OMPT tool (layout in ``ompt_tool.c``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"PPTRACE1"
VERSION = 1

#: One event: monotonic time (ns), kind, a 32-bit argument and two 64-bit ids.
EVENT_DTYPE = np.dtype([("t", "<u8"), ("kind", "<u4"), ("x", "<u4"), ("a", "<u8"), ("b", "<u8")])

# Event kinds (EV_* in ompt_tool.c).
INIT, FINI, THREAD_BEGIN = 1, 2, 3
PARALLEL_BEGIN, PARALLEL_END = 4, 5
IMPLICIT_BEGIN, IMPLICIT_END = 6, 7
TASK_CREATE, TASK_SCHEDULE = 8, 9
SYNC_BEGIN, SYNC_END = 10, 11
WAIT_BEGIN, WAIT_END = 12, 13
TASK_DEPEND = 14

#: Callbacks in the order of the tool's ``missing_callbacks`` bit mask.
CALLBACKS: tuple[str, ...] = (
    "thread_begin",
    "parallel_begin",
    "parallel_end",
    "implicit_task",
    "task_create",
    "task_schedule",
    "sync_region",
    "sync_region_wait",
    "dependences",
)


class TraceFileError(ValueError):
    """The event file is missing, truncated or not written by this tool.

    A :class:`ValueError` whose message starts with the file's path.

    Examples
    --------
    >>> read_events("/nonexistent/trace.bin")
    Traceback (most recent call last):
    ...
    probperf.record.events.TraceFileError: /nonexistent/trace.bin: no trace written
    """


@dataclass
class Events:
    """Events of one run: ``threads[i]`` is the structured array of thread ``i``.

    Examples
    --------
    >>> events = Events([np.zeros(3, EVENT_DTYPE), np.zeros(2, EVENT_DTYPE)])
    >>> events.n_events, events.source
    (5, '<memory>')
    """

    threads: list[np.ndarray]
    source: str = "<memory>"

    @property
    def n_events(self) -> int:
        return sum(len(t) for t in self.threads)


def read_events(path) -> Events:
    """Parse an event file; raise :class:`TraceFileError` naming the file on any defect.

    Examples
    --------
    A file with one thread and two events: the 24-byte header (magic, version, thread
    count, missing-callback mask, padding), the thread's 16-byte block header (id,
    event count), then the events:

    >>> import os, tempfile
    >>> ev = np.zeros(2, EVENT_DTYPE)
    >>> ev["t"], ev["kind"] = [100, 900], [INIT, FINI]
    >>> raw = (MAGIC + np.array([VERSION, 1, 0, 0], "<u4").tobytes()
    ...        + np.array([0, 2], "<u8").tobytes() + ev.tobytes())
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "trace.bin")
    ...     _ = open(path, "wb").write(raw)
    ...     events = read_events(path)
    ...     _ = open(path, "wb").write(raw[:-8])  # cut into the last event
    ...     try:
    ...         read_events(path)
    ...     except TraceFileError as exc:
    ...         print(str(exc).replace(tmp, "TMP"))
    TMP/trace.bin: truncated in the events of thread 0
    >>> events.n_events, events.threads[0]["t"].tolist()
    (2, [100, 900])
    """
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise TraceFileError(f"{source}: no trace written") from None
    if raw[:8] != MAGIC:
        raise TraceFileError(f"{source}: not a probperf trace (bad magic)")
    if len(raw) < 24:
        raise TraceFileError(f"{source}: truncated header")
    version, n_threads, missing, _ = np.frombuffer(raw, "<u4", 4, 8)
    if version != VERSION:
        raise TraceFileError(f"{source}: trace version {version}, expected {VERSION}")
    if missing:
        names = [c for i, c in enumerate(CALLBACKS) if missing & (1 << i)]
        raise TraceFileError(
            f"{source}: the OpenMP runtime refused the OMPT callbacks {', '.join(names)}; "
            "use LLVM's libomp (clang -fopenmp)"
        )
    offset, threads = 24, []
    for i in range(int(n_threads)):
        if offset + 16 > len(raw):
            raise TraceFileError(f"{source}: truncated in the block of thread {i}")
        n = int(np.frombuffer(raw, "<u8", 1, offset + 8)[0])
        offset += 16
        if offset + n * EVENT_DTYPE.itemsize > len(raw):
            raise TraceFileError(f"{source}: truncated in the events of thread {i}")
        threads.append(np.frombuffer(raw, EVENT_DTYPE, n, offset))
        offset += n * EVENT_DTYPE.itemsize
    if offset != len(raw):
        raise TraceFileError(f"{source}: {len(raw) - offset} unexpected bytes after the last thread")
    return Events(threads, source)
