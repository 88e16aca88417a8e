"""Numbers from people and files: the one parser, and the limits every command applies.

Every number probperf takes in passes through here: command-line values
(``--at n=2**20``, ``--p 1..8``, ``--draws 500``, ``--clock-hz 2.3e9``), the cells of
CSV, JSON lines, Parquet, ``.stat`` and Extra-P files, and the values of a
:class:`~probperf.data.Measurements`. A value is refused with a one-line reason
(:class:`NumberError`; the caller adds the option or the file, line and column) when
it is not a real number (text, a boolean, a complex result), not finite (NaN,
infinity, beyond the range of float64), not an integer where one is needed, or
outside the range the option allows.

The resource limits below bound what one command may ask for, so that a typo
(``--p 1..100000000``) fails at once with the limit named instead of running for
hours or exhausting memory. Each is declared once, here, with the reason for its value.
"""

from __future__ import annotations

import math
import re
import sys

import numpy as np

#: The largest finite float64; an integer beyond it cannot even be converted.
FLOAT_MAX = sys.float_info.max

#: The largest integer float64 holds exactly. Parameters reach the models as float64
#: (``Measurements.X``), so an integer parameter (``p``, a repetition count) beyond it
#: would silently become another number; such values are refused.
MAX_EXACT_INT = 2**53

#: Characters in one number literal. float64 spans 1e-308..1e308 with 17 significant
#: digits, so a longer literal is padding or out of range; the bound also keeps
#: Python's quadratic int parsing of huge digit strings from stalling a reader.
MAX_NUMBER_CHARS = 400

#: Characters in one CSV field: the csv module's own default, stated here so the error
#: can name it. No number or label needs a thousandth of it.
MAX_FIELD_CHARS = 131072

#: Values in one list option (``--n``, ``--p``, ``--set``, ``--workers``) after ranges
#: are expanded: the grid is their product, so 1000 sizes by 1000 worker counts is
#: already a million simulated runs. Checked before a range is expanded.
MAX_LIST_VALUES = 1000

#: Worker counts the simulator accepts. It keeps a deque and events per worker, and
#: idle workers keep probing for work, so time and memory grow with p; the papers'
#: machines have 36-64 cores, and 1024 leaves room for "what if" questions.
MAX_SIM_WORKERS = 1024

#: Largest simulated problem size, as a multiple of the work of the thesis protocol's
#: largest test size for that program (``probperf.sim.PROTOCOL``, whose whole A+B
#: datasets simulate in under a minute). Also the largest ``sim datasets --scale``.
#: Past 16x one run takes minutes and its DAG gigabytes (``sim run --n 2**40`` hung).
MAX_SIM_SCALE = 16.0

#: Segments (strands) in one simulated DAG, whatever the size and cut-offs that shape
#: it. ``MAX_SIM_SCALE`` bounds the size only; a cut-off can still multiply the task
#: count (``sim run --app fib --n 42 --set cutoff=50`` took 2.2 GB in 6 s before
#: this limit). The largest DAG the protocol allows at ``MAX_SIM_SCALE`` is sort at
#: n = 2**24 with its default cut-offs, 5.3 million segments built in 0.4 GB; 2**23
#: (8.4 million) admits every protocol DAG with room to spare and keeps one build
#: under about 1 GB. Checked level by level while the DAG grows, before a level is
#: expanded.
MAX_SIM_SEGMENTS = 2**23

#: Largest simulator seed. Why: the simulator keys each run's random stream by 32 bits
#: of the seed (:func:`probperf.sim.datasets._run_seed`), so two seeds 2**32 apart gave
#: the same table; a wider key would change every simulated table already stored.
MAX_SIM_SEED = 2**32 - 1

#: Largest simulated machine overhead in cycles (``sim run --steal-latency``,
#: ``--create-overhead``): 10^9 cycles is a third of a second at 3 GHz per steal or
#: task creation, a million times a real one (hundreds to thousands of cycles). Past
#: about 10^14 the event clock runs out of float precision (``--steal-latency 1e14``
#: ended in an internal error, 1e308 in a NaN).
MAX_SIM_OVERHEAD = 10**9

#: Simulated runs in one ``sim run`` (sizes x workers x configurations x repetitions) or
#: one ``sim datasets`` (every program's Dataset A and B x repetitions):
#: a table of 10^5 rows of the smallest DAGs already takes hours to simulate.
MAX_SIM_RUNS = 100_000

#: Worker counts ``probperf record`` runs a program with: the OMPT tool keeps one event
#: buffer per thread in a fixed table of this size (``MAX_THREADS`` in
#: probperf/record/ompt_tool.c); a program run with more aborted midway
#: (``--workers 100000``: "cannot track thread 4096").
MAX_RECORD_WORKERS = 4096

#: Longest ``probperf record --timeout``, in seconds (11.6 days). The operating
#: system's wait takes milliseconds in a 32-bit count, so past about 2.1e6 s Python
#: refused the value with an internal error (``--timeout 1e9``).
MAX_TIMEOUT = 10**6

#: Predictive draws (``predict --draws``). The 5 % tail quantile of 10^5 draws has a
#: standard error of 0.07 % of the spread, far below any model's own uncertainty,
#: while the DAG model holds several (draws x points) float64 arrays at once:
#: 10^8 draws needed 5.7 GB.
MAX_DRAWS = 100_000

#: Spectral-mixture components in a GP kernel spec (``sm<Q>``).
#: A GP costs Q (points x points) matrices per evaluation and the papers use Q <= 10;
#: ``fit --kernel sm100000`` allocated until it was killed.
MAX_SM_MIXTURES = 64

#: Degree of a polynomial GP kernel (``poly<D>``), whose covariance is ``(x.x' + c)^D``.
#: With standardised inputs a few units from the centre, ``x.x' + c`` reaches about 10,
#: so degree 308 overflows float64; and a degree above the handful of distinct sizes
#: measured interpolates the noise (a polynomial of degree 10 can already turn 9 times).
MAX_POLY_DEGREE = 10


class NumberError(ValueError):
    """A value that is not an acceptable number; the message says why, in one line.

    The message names the value but not where it came from: the caller knows the
    option or the file, line and column, and adds them.

    Examples
    --------
    >>> check_value(float("nan"))
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: value is NaN
    """


class NotANumber(NumberError):
    """Text that does not spell a number at all (as opposed to one out of range).

    Examples
    --------
    >>> try:
    ...     parse_literal("fast")
    ... except NotANumber as exc:
    ...     print(exc)
    value 'fast' is not a number
    """


def check_value(value, *, integer: bool = False):
    """``value`` as a Python ``int`` or ``float`` if it is a finite real number.

    Parameters
    ----------
    value : object
        A Python or NumPy scalar (from JSON, Parquet, a DataFrame or a user).
    integer : bool
        Also require a whole number within :data:`MAX_EXACT_INT`.

    Raises
    ------
    NumberError
        For booleans, complex numbers, strings and other objects, NaN, infinities,
        integers beyond the float64 range, and (``integer``) fractions or integers
        float64 cannot hold exactly.

    Examples
    --------
    >>> check_value(2.0, integer=True), check_value(10**20)
    (2, 100000000000000000000)
    >>> check_value(True)
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: value is a boolean (true or false), not a number
    >>> check_value({"s": 1})  # a JSON object, shown as the file spells it
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: value {"s": 1} is a JSON object, not a number
    """
    if isinstance(value, (bool, np.bool_)):
        # no Python spelling: the value may come from JSON's true or a parquet boolean column
        raise NumberError("value is a boolean (true or false), not a number")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int):
        if abs(value) > FLOAT_MAX:
            raise NumberError(f"value {_short(value)} is too large (beyond ±{FLOAT_MAX:.3g})")
    elif isinstance(value, float):
        if value != value:
            raise NumberError("value is NaN")
        if math.isinf(value):
            raise NumberError("value is infinite")
    elif isinstance(value, complex):
        raise NumberError(f"value {value!r} is complex, not a real number")
    elif isinstance(value, str):  # JSON's "0.1", a Parquet string column: say what it is
        raise NumberError(f"value {_short(repr(value))} is a string, not a number")
    elif isinstance(value, (dict, list)):  # a JSON object or array: in JSON's spelling, not Python's
        import json

        kind = "object" if isinstance(value, dict) else "array"
        raise NumberError(f"value {_short(json.dumps(value, default=str))} is a JSON {kind}, not a number")
    else:
        raise NumberError(f"value {_short(value)} is not a number")
    return _as_integer(value) if integer else value


def _as_integer(value):
    if isinstance(value, float) and not value.is_integer():
        raise NumberError(f"value {value!r} is not an integer")
    if abs(value) > MAX_EXACT_INT:
        raise NumberError(f"value {_short(value)} is beyond 2**53, the largest integer held exactly")
    return int(value)


def _short(value) -> str:
    """``repr`` of a value for a message, cut so a huge one stays one readable line."""
    text = value if isinstance(value, str) else str(value) if isinstance(value, int) else repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def parse_literal(text: str):
    """A plain number written in a file: ``12``, ``-3.5``, ``1e-6`` (no ``_``, no NaN).

    Integers stay ``int`` (cycle counts keep every digit); the rest are ``float``.

    Examples
    --------
    >>> parse_literal(" 42 "), parse_literal("2.5e3")
    (42, 2500.0)
    >>> parse_literal("1" * 400)
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: value 11111111111111111111...11111111 (400 characters) is too large (beyond ±1.8e+308)
    """
    t = text.strip()
    if len(t) > MAX_NUMBER_CHARS:
        raise NumberError(f"value {_short(t)} is longer than {MAX_NUMBER_CHARS} characters, not a number")
    # int() and float() accept 1_000, "nan" and any script's digits ("٣" is 3); a
    # measurement file should not: a number here is written in ASCII
    if "_" not in t and t.isascii():
        try:
            return check_value(int(t))
        except ValueError:
            pass
        try:
            value = float(t)
        except ValueError:
            pass
        else:
            if math.isinf(value) and t.lstrip("+-").lower() not in ("inf", "infinity"):
                raise NumberError(f"value {_short(t)} is too large (beyond ±{FLOAT_MAX:.3g})")
            if value == 0 and any(c in "123456789" for c in t.lower().partition("e")[0]):
                raise NumberError(_UNDERFLOW.format(f"value {_short(t)}"))  # not a 0 the user wrote
            return check_value(value)
    if _DECIMAL_COMMA.fullmatch(t):  # a spreadsheet's export in a locale that writes 2,5 for 2.5
        # a thousands reading only where one is possible: 1,500 (not 0,9: there is no 09)
        thousands = f", {t.replace(',', '')} if it separates thousands" if _THOUSANDS.fullmatch(t) else ""
        raise NotANumber(f"value {t!r} is not a number (write it without the comma: {t.replace(',', '.')} "
                         f"if it is a decimal comma{thousands})")
    raise NotANumber(f"value {_short(t)!r} is not a number" if t else "no value")


#: A number written with a decimal comma (``2,5``, ``-0,001``).
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")
#: ... that could also be a thousands separator (``1,500``: 1 to 3 digits, then 3).
_THOUSANDS = re.compile(r"[+-]?[1-9][0-9]{0,2},[0-9]{3}")


#: Why a nonzero number that float64 rounds to 0 (``1e-400``) is refused: read as 0 it
#: would be blamed as "not positive", far from the slip.
_UNDERFLOW = ("{} is out of the representable range: it underflows to 0 (float64 holds magnitudes down to "
              f"{math.ulp(0.0):.2g})")


def parse_expression(text: str, *, integer: bool = False, low=None, high=None,
                     low_open: bool = False, limit: str = ""):
    """A number typed on the command line: ``65536``, ``1e6``, ``2**16`` or ``2^16``.

    Parameters
    ----------
    text : str
        A literal, or ``BASE**EXP`` / ``BASE^EXP`` with literal base and exponent. A
        sign before the base applies to the power, as in Python and in mathematics:
        ``-2**10`` is ``-(2**10)``; the exponent keeps its own (``2**-3``).
    integer : bool
        Require a whole number.
    low, high : number, optional
        Allowed range (inclusive; ``low_open`` excludes ``low``).
    limit : str
        Name of the constant behind ``high``, quoted in the message.

    Returns
    -------
    int or float
        ``int`` when the value is whole and within :data:`MAX_EXACT_INT`.

    Examples
    --------
    >>> parse_expression("2**20"), parse_expression("2^-1"), parse_expression("1e3"), parse_expression("-2**10")
    (1048576, 0.5, 1000, -1024)
    >>> parse_expression("10**400")
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: 10**400 is too large (beyond ±1.8e+308)
    >>> parse_expression("2^^13")
    Traceback (most recent call last):
    ...
    probperf.limits.NotANumber: value '2^^13' is not a number (a literal, or BASE**EXP of two literals)
    """
    t = text.strip()  # quoted in messages as typed
    base, power, exponent = t.replace("^", "**").partition("**")
    if power:
        try:
            b = parse_literal(base)
            value = _power(abs(b), parse_literal(exponent), t)
            value = -value if b < 0 else value  # the sign is the power's: -2**10 = -1024
        except NotANumber:  # name the whole expression, not the part that failed
            raise NotANumber(f"value {_short(t)!r} is not a number (a literal, or BASE**EXP of two literals)") from None
    else:
        value = parse_literal(t)
    if integer or (isinstance(value, float) and value.is_integer() and abs(value) <= MAX_EXACT_INT):
        try:
            value = _as_integer(value)
        except NumberError as exc:
            raise NumberError(str(exc).replace(f"value {_short(value)}", t, 1)) from None
    elif isinstance(value, int) and abs(value) > MAX_EXACT_INT:
        value = float(value)  # a size, not a count: float64 like every parameter
    _check_range(value, t, low, high, low_open, limit)
    return value


def _power(base, exponent, text: str):
    """``base ** exponent`` (``base >= 0``) as a finite real number, exact for whole numbers."""
    if base == 0 and exponent < 0:
        raise NumberError(f"{text} is undefined (0 to a negative power)")
    # Check the size from logarithms first: 10**10**9 must not be computed to be refused.
    if base not in (0, 1) and exponent * math.log10(abs(base)) > math.log10(FLOAT_MAX):
        raise NumberError(f"{text} is too large (beyond ±{FLOAT_MAX:.3g})")
    try:
        if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
            return check_value(base**exponent)
        value = check_value(float(base) ** float(exponent))
    except (OverflowError, NumberError):
        raise NumberError(f"{text} is too large (beyond ±{FLOAT_MAX:.3g})") from None
    if value == 0 and base != 0:  # 10**-400: a tiny number, not the 0 it rounds to
        raise NumberError(_UNDERFLOW.format(text))
    return value


def _check_range(value, text, low, high, low_open, limit):
    if low is not None and (value <= low if low_open else value < low):
        raise NumberError(f"{text} must be {'greater than' if low_open else 'at least'} {low}")
    if high is not None and value > high:
        raise NumberError(f"{text} is above the limit {high}{f' ({limit})' if limit else ''}")


# A range end written as a power, ``2**20`` or ``2^20`` (parse_expression reads both
# alike): such ranges step by the exponent (not a limit, so not a ``#:`` comment:
# describe() lists those).
_POWER = re.compile(r"^\s*(\d+)\s*(?:\*\*|\^)\s*(\d+)\s*$")


def _list_item(part: str, **limits):
    """The values of one item of a list: ``"2**4"``, ``"1..8"`` (every integer), or
    ``"2**4..2**8"`` (ends that are powers of one base: the powers between, 2^4..2^8;
    a user writing powers means powers, never the 240 integers between; ``2^4`` too)."""
    if ".." not in part:
        return [parse_expression(part, **limits)]
    first, _, last = part.partition("..")
    limits["integer"] = True
    # the order of the ends first, so that 1..0 is an empty range whatever the limits
    start = parse_expression(first, integer=True)  # the first end's fault is said first
    if parse_expression(last, integer=True) < start:
        raise NumberError(f"{part} is an empty range (the end is below the start)")
    lo, hi = parse_expression(first, **limits), parse_expression(last, **limits)
    ends = _POWER.match(first), _POWER.match(last)
    if any(ends) and not (all(ends) and ends[0].group(1) == ends[1].group(1)):
        # 2**4..64 or 2**4..3**3: powers stepped by one base, or every integer between?
        # Either reading may be the slip; refused rather than guessed
        raise NumberError(f"{part}: write both ends as powers of one base (2**4..2**6, the powers between) "
                          "or both as numbers (16..64, every integer between)")
    if all(ends) and int(ends[0].group(1)) >= 2:
        base = int(ends[0].group(1))
        return [base**k for k in range(int(ends[0].group(2)), int(ends[1].group(2)) + 1)]
    return range(lo, hi + 1)


def parse_list(text: str, *, integer: bool = True, low=None, high=None, limit: str = "") -> list:
    """``"1,4,16"``, ``"1..8"`` (inclusive), powers ``"2**10..2**14"`` (2^10, 2^11, ...,
    2^14) or a mix such as ``"1..4,8"``, each value checked by :func:`parse_expression`;
    at most :data:`MAX_LIST_VALUES` values.

    Examples
    --------
    >>> parse_list("1..3,2**4")
    [1, 2, 3, 16]
    >>> parse_list("2**10..2**12"), parse_list("2^10..2^12"), parse_list("20..22")
    ([1024, 2048, 4096], [1024, 2048, 4096], [20, 21, 22])
    >>> parse_list("1..100000000")
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: 1..100000000 holds 100000000 values, above the limit 1000 (MAX_LIST_VALUES)
    """
    values: list = []
    parts = [t.strip() for t in text.split(",")]
    if len(parts) > 1 and not all(parts):  # "1,,2": a value left out is a typo, not nothing
        raise NumberError(f"{text!r} has an empty item (a doubled or trailing comma)")
    for part in filter(None, parts):
        try:
            items = _list_item(part, integer=integer, low=low, high=high, limit=limit)
        except NotANumber:
            raise NotANumber(f"cannot read {part!r} as a number or range") from None
        if len(values) + len(items) > MAX_LIST_VALUES:
            raise NumberError(f"{text} holds {len(values) + len(items)} values, above the limit "
                              f"{MAX_LIST_VALUES} (MAX_LIST_VALUES)")
        values.extend(items)
    if not values:
        raise NumberError("the list is empty")
    return values


def is_whole(x) -> np.ndarray:
    """Per value, whether it is a whole number up to the float rounding of a product
    or a quotient (relative 1e-9: ``16 / 4 * 4`` is whole, ``1.5`` is not). NaN is not.

    Examples
    --------
    >>> is_whole([4.0, 1.5, 5.000000000000001, float("nan")]).tolist()
    [True, False, True, False]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.isclose(x, np.round(x), rtol=1e-9, atol=0.0)


def draw_count(n_draws, default: int) -> int:
    """The number of joint draws a ``predict`` call makes: ``default`` when ``None``,
    else a whole number in 1..:data:`MAX_DRAWS` (0 is an error, not the default).

    Examples
    --------
    >>> draw_count(None, 1000), draw_count(500, 1000)
    (1000, 500)
    >>> draw_count(0, 1000)
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: n_draws must be a whole number in 1..100000, got 0
    >>> draw_count("100", 1000)
    Traceback (most recent call last):
    ...
    probperf.limits.NumberError: n_draws must be a whole number in 1..100000, got '100'
    """
    import numbers

    n = default if n_draws is None else n_draws
    # a number, not its text: "100" is a slip (the seed refuses one too), float() would take it
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not float(n).is_integer() \
            or not 1 <= int(n) <= MAX_DRAWS:
        raise NumberError(f"n_draws must be a whole number in 1..{MAX_DRAWS}, got {n_draws!r}")
    return int(n)


def describe() -> list[tuple[str, object, str]]:
    """``(name, value, reason)`` of every limit above, the reason read from its ``#:``
    comment, so documentation quotes the code instead of copying it.

    Examples
    --------
    >>> name, value, why = next(row for row in describe() if row[0] == "MAX_DRAWS")
    >>> value, why.split(".")[0]
    (100000, 'Predictive draws (``predict --draws``)')
    """
    import inspect

    rows, comment = [], []
    for line in inspect.getsource(sys.modules[__name__]).splitlines():
        name = line.split("=")[0].strip()
        if line.startswith("#:"):
            comment = [*comment, line[2:].strip()]
        elif comment and "=" in line and name.isupper() and name.isidentifier() and _is_number(globals()[name]):
            rows.append((name, globals()[name], " ".join(comment)))  # a shared comment carries on
        else:
            comment = []
    return rows


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
