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
    stderr by default, and there only on a terminal: stdout stays clean for results,
    a log gets no blank lines). Bars vanish when done.

    Examples
    --------
    >>> import io
    >>> with reporting(file=io.StringIO()):
    ...     with task("fit", total=1) as step:
    ...         step("work")
    ...         _PROGRESS.get().tasks[0].description
    'fit: work'
    """
    if not enabled or _PROGRESS.get() is not None:  # inside another block: its bars show ours
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(file=file or sys.stderr)
    if file is None and not console.is_terminal:
        # a log or a pipe: bars there are only blank lines left behind by each redraw
        yield
        return
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
