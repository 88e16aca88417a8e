"""Compile the OMPT tool and the benchmark programs.

The tool is built on first use with the system C compiler into a user cache directory
(``$PROBPERF_CACHE_DIR``, else ``$XDG_CACHE_HOME/probperf``, else
``~/.cache/probperf``), in a sub-directory named after a hash of its source and the
compiler, so an edited source or another compiler gives a fresh build and concurrent
first uses cannot see a half-written library.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

#: Benchmark sources shipped in ``probperf/record/bench``.
PROGRAMS: tuple[str, ...] = ("fib", "nqueens", "mergesort", "sparselu", "strassen", "health")
#: Suffix of the variant built with untied tasks (``-DTIEDNESS=untied``).
UNTIED = "_untied"
#: Benchmark programs: each source with tied tasks, then each with untied tasks.
BENCHMARKS: tuple[str, ...] = PROGRAMS + tuple(name + UNTIED for name in PROGRAMS)
#: Header every benchmark source includes (task tiedness, command-line checks); it is
#: copied next to the source for each compilation.
BENCH_HEADER = "bench_main.h"

TOOL_SOURCE = "ompt_tool.c"
TOOL_NAME = "libprobperf_ompt.so"

INSTALL_HINT = "install them with: apt-get update && apt-get install -y clang libomp-dev"
#: Lines of a failed compilation's output quoted in its error (the last ones: the
#: first error is usually among them, and a long log would bury the message).
COMPILER_LINES = 6


class BuildError(RuntimeError):
    """The C compiler is missing or a compilation failed.

    Examples
    --------
    A "compiler" that fails (``false``) gives the command and the program's name:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     build_benchmarks(tmp, ["fib"], cc="false")
    Traceback (most recent call last):
    ...
    probperf.record.build.BuildError: compiling benchmark fib failed (false -fopenmp -O2 ...
    """


def cache_dir() -> Path:
    """Directory for built artefacts (created on demand).

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"PROBPERF_CACHE_DIR": "/tmp/pp-cache"}):
    ...     str(cache_dir())
    '/tmp/pp-cache'
    >>> with mock.patch.dict(os.environ, {"XDG_CACHE_HOME": "/tmp/xdg"}):
    ...     _ = os.environ.pop("PROBPERF_CACHE_DIR", None)
    ...     str(cache_dir())
    '/tmp/xdg/probperf'
    """
    if os.environ.get("PROBPERF_CACHE_DIR"):
        return Path(os.environ["PROBPERF_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "probperf"


def find_compiler(prefer_clang: bool = True) -> str:
    """Path of the C compiler: ``$CC``, else ``clang``, else ``cc``. A ``$CC`` that names
    no program is refused, not passed over for another compiler (a typo in it went
    unseen).

    Clang is preferred because it finds LLVM's ``omp-tools.h`` and ``libomp`` on its
    own; GCC's OpenMP runtime (libgomp) has no OMPT support.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CC": "", "PATH": ""}):
    ...     find_compiler()
    Traceback (most recent call last):
    ...
    probperf.record.build.BuildError: no C compiler found (tried clang, cc); ...
    >>> with mock.patch.dict(os.environ, {"CC": "/no/such/clang"}):
    ...     find_compiler()
    Traceback (most recent call last):
    ...
    probperf.record.build.BuildError: $CC is '/no/such/clang', which is no program found on PATH or at that path; unset CC or set CC=clang
    """
    cc = os.environ.get("CC")
    if cc and shutil.which(cc) is None:
        raise BuildError(f"$CC is {cc!r}, which is no program found on PATH or at that path; unset CC or set CC=clang")
    names = [cc] if cc else []
    names += ["clang", "cc"] if prefer_clang else ["cc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path:
            _check_llvm(path, "$CC" if names[0] == name and os.environ.get("CC") else name)
            return path
    raise BuildError(f"no C compiler found (tried {', '.join(names)}); {INSTALL_HINT}")


@functools.lru_cache(maxsize=8)
def _check_llvm(path: str, label: str) -> None:
    """Refuse a compiler that is not clang (by its ``--version``): GCC links its own
    OpenMP runtime, libgomp, which has no OMPT support, so what it builds cannot be
    traced and the tool itself does not compile (no ``omp-tools.h``); said here, not as
    a missing package later."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False, timeout=30)
        version = (done.stdout or done.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return  # said when it compiles
    if "clang" not in version.lower() and "llvm" not in version.lower():
        first = version.splitlines()[0] if version else "no version"
        way = "unset CC or set CC=clang" if label == "$CC" else INSTALL_HINT
        raise BuildError(f"{label} ({path}: {first}) is not clang: its OpenMP runtime has no OMPT support, so "
                         f"record could not trace what it builds; {way}")


def _source_text(*parts: str) -> str:
    return resources.files("probperf.record").joinpath(*parts).read_text(encoding="utf-8")


def _compile(cmd: list[str], what: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"cannot run the C compiler for {what}: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()
        hint = ""
        if "omp-tools.h" in detail or "omp.h" in detail or "-lomp" in detail:
            hint = f"; LLVM's OpenMP headers or runtime are missing: {INSTALL_HINT}"
        # one line (the CLI prints it after "error:"): the last lines of the output, joined
        tail = " | ".join(line.strip() for line in detail.splitlines()[-COMPILER_LINES:] if line.strip())
        raise BuildError(f"compiling {what} failed ({' '.join(cmd)}): {tail}{hint}")


def tool_path(rebuild: bool = False) -> Path:
    """The OMPT tool library, compiled on first use (cached by source hash).

    Examples
    --------
    >>> tool_path().name
    'libprobperf_ompt.so'
    """
    source = _source_text(TOOL_SOURCE)
    cc = find_compiler()
    key = hashlib.sha256((cc + "\0" + source).encode()).hexdigest()[:16]
    target = cache_dir() / f"ompt-{key}" / TOOL_NAME
    if target.exists() and not rebuild:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        src = Path(tmp) / TOOL_SOURCE
        src.write_text(source, encoding="utf-8")
        out = Path(tmp) / TOOL_NAME
        _compile([cc, "-O2", "-fPIC", "-shared", "-o", str(out), str(src)], "the OMPT tool")
        os.replace(out, target)
    return target


#: Temporary directories of :func:`example_program`, alive until the interpreter exits
#: (each removes itself then).
_EXAMPLE_DIRS: list = []


@functools.lru_cache(maxsize=None)
def example_program(name: str = "fib") -> str:
    """Path of benchmark ``name``, built once per process into a temporary directory
    that is removed when the interpreter exits: for examples and quick trials.

    Examples
    --------
    >>> Path(example_program("fib")).name
    'fib'
    >>> example_program("fib") is example_program("fib")  # built once
    True
    """
    tmp = tempfile.TemporaryDirectory(prefix="probperf-example-")
    _EXAMPLE_DIRS.append(tmp)
    return str(build_benchmarks(tmp.name, [name])[0])


def check_names(names) -> None:
    """A ``ValueError`` naming the programs of ``names`` that are no benchmark.

    Examples
    --------
    >>> check_names(["fib", "quicksort"])
    Traceback (most recent call last):
    ...
    ValueError: unknown benchmark(s) quicksort; choose from fib, nqueens, mergesort, ...
    """
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise ValueError(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")


def build_benchmarks(out_dir, names=BENCHMARKS, cc: str | None = None) -> list[Path]:
    """Compile benchmark programs with ``-fopenmp -O2`` into ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Directory for the executables (created if needed); each is named after its
        program, e.g. ``out_dir/fib``.
    names : sequence of str
        Programs to build, a subset of :data:`BENCHMARKS`: ``NAME`` has tied tasks,
        ``NAME_untied`` the same code with untied tasks.
    cc : str, optional
        Compiler; default :func:`find_compiler` (clang, which links LLVM's libomp).

    Returns
    -------
    list of Path
        The executables, in the order of ``names``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [exe.name for exe in build_benchmarks(tmp, ["fib"])]
    ['fib']
    >>> build_benchmarks("unused", ["fib", "quicksort"])
    Traceback (most recent call last):
    ...
    ValueError: unknown benchmark(s) quicksort; choose from fib, nqueens, mergesort, ...
    """
    check_names(names)
    cc = cc or find_compiler()
    out_dir = Path(out_dir)
    # the outermost directory this call creates: removed again if a compilation fails
    created = next((d for d in reversed([out_dir, *out_dir.parents]) if not d.exists()), None)
    out_dir.mkdir(parents=True, exist_ok=True)
    partials = {}  # every program compiled first, then all put in place: a failure leaves none
    try:
        for name in names:
            source = name.removesuffix(UNTIED)
            flags = ["-DTIEDNESS=untied"] if source != name else []
            with tempfile.TemporaryDirectory() as tmp:
                for part in (f"{source}.c", BENCH_HEADER):
                    (Path(tmp) / part).write_text(_source_text("bench", part), encoding="utf-8")
                src = Path(tmp) / f"{source}.c"
                partials[name] = out_dir / f".{name}.tmp"
                _compile([cc, "-fopenmp", "-O2", *flags, "-o", str(partials[name]), str(src), "-lm"],
                         f"benchmark {name}")
    except BaseException:
        for partial in partials.values():
            partial.unlink(missing_ok=True)
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise
    for name, partial in partials.items():
        os.replace(partial, out_dir / name)
    return [out_dir / name for name in names]
