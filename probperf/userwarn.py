"""Warnings that point at the user's line, not at probperf's.

Python attributes a warning to the frame ``stacklevel`` steps up, and shows (and
filters "once per location") by it. Counted by hand, that number breaks whenever a call
path gains or loses a frame: a warning of ``Measurements(...)`` pointed into data.py,
one of NUTS six frames up. :func:`warn` finds the first frame outside this package
instead, so a script's or notebook's line is shown whatever the path inside.
"""

from __future__ import annotations

import os
import sys
import warnings

#: this package's folder: frames of files under it are probperf's own
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside probperf
    (the outermost frame when every frame is probperf's, as under the command line).

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("far out", RuntimeWarning)
    >>> caught[0].category.__name__, str(caught[0].message), caught[0].filename.startswith(_PACKAGE)
    ('RuntimeWarning', 'far out', False)
    """
    frame, level = sys._getframe(1), 2  # level 2: warn's caller
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
