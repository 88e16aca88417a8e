"""Keep what a benchmark prints: ``benchmarks/results/<name>.md``, included by the docs
page "Benchmarks" (results in the docs come from the scripts, never typed by hand).

Usage inside a benchmark script::

    with report("bench_bayes"):
        main()
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import shlex
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self):
        for s in self.streams:
            s.flush()


@contextlib.contextmanager
def report(name: str, results: Path = RESULTS):
    """Print as usual and, when the block finishes, write the output with the command,
    the date, the wall time and the machine's load to ``results/<name>.md``."""
    buffer = io.StringIO()
    load = os.getloadavg()[0]
    started = time.time()
    with contextlib.redirect_stdout(_Tee(sys.stdout, buffer)):
        yield
    minutes = (time.time() - started) / 60
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0]), *sys.argv[1:]])
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"# {name}",
        "",
        f"`{command}`, finished {when} in {minutes:.1f} min on {os.cpu_count()} cores "
        f"({platform.machine()}, Python {platform.python_version()}; load average "
        f"{load:.1f} at the start).",
        "",
        "```text",
        buffer.getvalue().rstrip(),
        "```",
        "",
    ]
    results.mkdir(parents=True, exist_ok=True)
    tmp = results / f".{name}.md.tmp"
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(results / f"{name}.md")
