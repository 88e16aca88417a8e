"""Text that reaches a terminal from files or arguments, made safe to show.

A column name, a model file's unit or a path can hold control characters: ESC starts
the sequences that recolour or retitle a terminal or write its clipboard (OSC 52). Every
message that quotes such text passes it through :func:`printable` once, here, whether
the command line prints it or Python shows an exception.
"""

from __future__ import annotations

import re

#: Characters never sent to the terminal as they are: C0 and C1 controls (ESC starts
#: the sequences that recolour, retitle or write the clipboard, OSC 52), line and
#: paragraph separators and the bidirectional overrides that reorder what is shown.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text) -> str:
    r"""``text`` with every control character written as an escape (``\x1b``).

    The one sanitizer for strings that reach the terminal from files or arguments
    (column names, a model file's unit, paths, error messages quoting a file).

    Examples
    --------
    >>> print(printable("time\x1b]52;c;aGk=\x07 [s]"))
    time\x1b]52;c;aGk=\x07 [s]
    """
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


__all__ = ["printable"]
