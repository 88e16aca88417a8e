"""Progress of long work (fits, experiments), shown on stderr when a caller asks for it.

Library code reports steps through :func:`task`; nothing is shown unless a caller
(the CLI, unless ``--quiet``) wraps the work in :func:`reporting`. The reporter is
set by context, like GPyTorch's numerical settings, not passed down as a flag.

Examples
--------
Without a reporter, tasks cost nothing and print nothing:

>>> with task("fit components", total=2) as step:
...     step("work")
...     step("delay")
"""

from __future__ import annotations

import contextlib
import contextvars
import sys

_PROGRESS = contextvars.ContextVar("probperf_progress", default=None)


@contextlib.contextmanager
def reporting(enabled: bool = True, file=None):
    """Show the progress of the tasks run inside this block (rich bars on ``file``,
    stderr by default: stdout stays clean for results). Bars vanish when done.

    Examples
    --------
    >>> import io
    >>> with reporting(file=io.StringIO()):
    ...     with task("fit", total=1) as step:
    ...         step("work")
    ...         _PROGRESS.get().tasks[0].description
    'fit: work'
    """
    if not enabled:
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(file=file or sys.stderr)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        token = _PROGRESS.set(progress)
        try:
            yield
        finally:
            _PROGRESS.reset(token)


@contextlib.contextmanager
def task(description: str, total: int | None = None):
    """A task of ``total`` steps; yields ``step(label)``, to call as each step starts
    (``label``, what is being done, is shown beside the description).

    Examples
    --------
    Library code reports unconditionally; without :func:`reporting` nothing shows:

    >>> with task("fit DAG components", total=2) as step:
    ...     step("work")
    """
    progress = _PROGRESS.get()
    if progress is None:
        yield lambda label=None: None
        return
    handle = progress.add_task(description, total=total)
    started = 0

    def step(label=None):
        nonlocal started
        progress.update(handle, completed=started, description=f"{description}: {label}" if label else description)
        started += 1

    try:
        yield step
    finally:
        progress.remove_task(handle)
