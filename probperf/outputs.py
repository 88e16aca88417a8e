"""Output files: checked before any work starts, then written atomically.

Every command that writes a file (``convert``, ``fit -o``, ``plot -o``, ``sim run -o``,
``record -o``) calls :func:`check_output` first, so a fit that takes minutes is not
run only to fail on a path it cannot write (those that fill a directory, ``sim
datasets -o`` and ``bench build -o``, call :func:`check_output_dir`), and writes
through :func:`atomic_write`:

* the data go to a temporary file beside the target, which is then renamed onto it
  (``os.replace``), so a reader never sees half a file and a failure or an interrupt
  (Ctrl-C, ``kill``) leaves the old file, or none, and no temporary file behind;
* the new file gets the permissions an ordinary ``open`` would give it (``0666``
  minus the umask), or keeps those of the file it replaces;
* a symbolic link is written through: its target gets the new content and the link
  stays a link.

A file that several processes add to (``record -o``, an experiment grid's results)
is read and rewritten under :func:`folder_lock`, so that two writers at once do not
write over each other's rows.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable


class OutputError(ValueError):
    """An output path that cannot be written; the message names it and says why.

    Examples
    --------
    >>> import tempfile
    >>> check_output(tempfile.gettempdir())
    Traceback (most recent call last):
    ...
    probperf.outputs.OutputError: output ...: is a directory; give a file name
    """


def _real(path) -> Path:
    """The file a write to ``path`` lands in: the target of a symbolic link."""
    return Path(os.path.realpath(os.fspath(path)))


def is_stdout(path) -> bool:
    """Whether ``path`` is the file standard output writes to (same device and inode).

    Examples
    --------
    >>> is_stdout("/no/such/file")
    False
    """
    import sys

    try:
        a, b = os.stat(os.fspath(path)), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no such file; stdout closed or not a file (captured)
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _special(path) -> bool:
    """Whether ``path`` is an existing file that is neither regular nor a directory (a
    device, a pipe, ``/dev/stdout``): written through, never replaced. ``os.stat``
    follows the links that ``realpath`` cannot (``/proc/self/fd/1`` -> ``pipe:[...]``).

    Examples
    --------
    >>> import os
    >>> _special(os.devnull), _special(os.path.dirname(os.devnull))
    (True, False)
    """
    try:
        mode = os.stat(os.fspath(path)).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_output(path, what: str = "output") -> Path:
    """Raise :class:`OutputError` unless a file can be written at ``path``.

    Checks that ``path`` is not a directory, that its directory exists (a typo in it
    is not a new directory to make; every ``-o FILE`` refuses it) and that a file can
    be created in it (a real probe, which also catches read-only file systems and
    permissions that ``os.access`` reports wrongly for root). Returns ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_output(os.path.join(d, "m.model")).name
    'm.model'
    >>> open(os.path.join(d, "file"), "w").close()
    >>> check_output(os.path.join(d, "file", "m.model"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probperf.outputs.OutputError: output .../file/m.model: .../file is a file, not a directory
    """
    return _checked(_check_output, path, f"{what} {os.fspath(path)}")


def check_not_input(path, inputs, what: str, written: str) -> None:
    """Raise :class:`OutputError` if ``path`` is one of the files ``inputs`` (after
    symbolic links): writing ``written`` there would replace what the command reads
    (helper-84: ``plot m.model -o m.model`` turned the model into a PNG).

    Examples
    --------
    >>> check_not_input("a.png", ["m.model"], "-o", "the figure")
    >>> check_not_input("./m.model", ["m.model"], "-o", "the figure")
    Traceback (most recent call last):
    ...
    probperf.outputs.OutputError: -o ./m.model: it is one of the input files; write the figure elsewhere
    """
    real = _real(path)
    if any(_real(f) == real for f in inputs):
        raise OutputError(f"{what} {os.fspath(path)}: it is one of the input files; write {written} elsewhere")


def _checked(check, path, name: str, *args) -> Path:
    """``check(path, name, *args)``, its operating-system errors (a name too long for
    the file system, a loop of links) said as an :class:`OutputError` naming ``name``."""
    try:
        return check(path, name, *args)
    except OSError as exc:
        raise OutputError(f"{name}: {exc.strerror or exc}") from None


def _check_output(path, name: str) -> Path:
    target = _real(path)
    if target.is_dir():
        raise OutputError(f"{name}: is a directory; give a file name")
    if _special(path):  # a device or a pipe: written through, not beside
        if not os.access(os.fspath(path), os.W_OK):
            raise OutputError(f"{name}: not writable")
        return Path(path)
    parent = target.parent
    if not parent.is_dir():
        blocker = next((p for p in (parent, *parent.parents) if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise OutputError(f"{name}: {blocker} is a file, not a directory")
        raise OutputError(f"{name}: directory {parent} does not exist")
    _probe(parent, f"{name}: cannot write in {parent}")
    return Path(path)


def _probe(directory: Path, refusal: str) -> None:
    """Create and delete a file in ``directory``, the one check that catches read-only
    file systems and permissions ``os.access`` misreports; ``OutputError(refusal)``
    with the system's reason where it fails."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise OutputError(f"{refusal} ({exc.strerror or exc})") from None


def check_output_dir(path, files=(), what: str = "output") -> Path:
    """Raise :class:`OutputError` unless the directory ``path`` can receive ``files``.

    For commands that write several files into a directory they make (with its
    parents) when missing: checked before any work starts, so that a long run does
    not end on a path it cannot write, or write some files and fail on the next. An
    existing ``path`` must be a directory in which every one of ``files`` can be
    written (:func:`check_output`); a missing one must lie under a writable directory
    (a real probe). Nothing is created. Returns ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_output_dir(os.path.join(d, "new", "tables"), ["a.csv"]).name
    'tables'
    >>> os.mkdir(os.path.join(d, "b.csv"))
    >>> check_output_dir(d, ["a.csv", "b.csv"], "-o")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probperf.outputs.OutputError: -o .../b.csv: is a directory; give a file name
    """
    return _checked(_check_output_dir, path, f"{what} {os.fspath(path)}", files, what)


def _check_output_dir(path, name: str, files, what: str) -> Path:
    target = _real(path)
    existing = next(p for p in (target, *target.parents) if p.exists())  # the root exists
    if not existing.is_dir():
        where = "exists" if existing == target else f"lies under {existing}, which exists"
        raise OutputError(f"{name}: {where} and is not a directory")
    if existing == target:
        for file in files:
            check_output(Path(path) / file, what)
        return Path(path)
    _probe(existing, f"{name}: cannot create it in {existing}")
    return Path(path)


def _new_mode(target: Path) -> int:
    """Permissions for the file: those it replaces, else 0666 minus the umask."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(target.stat().st_mode)
    umask = os.umask(0)  # the only way to read it; set back at once
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path, write_to: Callable[[str], None]) -> Path:
    """Run ``write_to(tmp)`` on a temporary file beside ``path``, then rename it onto
    ``path``; on any failure or interrupt the temporary file is removed.

    Returns ``path``. A symbolic link is written through to its target, and so is an
    existing file that is not a regular one (``/dev/null``, a named pipe): renaming
    onto it would replace the device with a plain file. Its bytes are still written
    completely to the temporary file first.

    Examples
    --------
    >>> import os, stat, tempfile
    >>> d = tempfile.mkdtemp()
    >>> out = atomic_write(os.path.join(d, "a.txt"), lambda tmp: open(tmp, "w").write("hi"))
    >>> open(out).read(), os.listdir(d)
    ('hi', ['a.txt'])
    >>> _ = atomic_write(os.devnull, lambda tmp: open(tmp, "w").write("gone"))
    >>> stat.S_ISCHR(os.stat(os.devnull).st_mode)
    True
    """
    target = _real(path)
    special = _special(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                               dir=tempfile.gettempdir() if special else target.parent)
    os.close(fd)
    try:
        write_to(tmp)
        if special:
            try:
                with open(tmp, "rb") as src, open(os.fspath(path), "wb") as dst:
                    shutil.copyfileobj(src, dst)
            except OSError as exc:  # name the -o target, not the temporary file
                raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
            os.unlink(tmp)
            return Path(path)
        os.chmod(tmp, _new_mode(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(path)


@contextlib.contextmanager
def folder_lock(folder):
    """An exclusive advisory lock on ``folder`` while the block runs, for writers that
    read a file there, add to it and replace it: each takes its turn. The folder, not
    the file, is locked: the file is replaced by a rename at each write, and a lock on
    the replaced one would not be seen by the next reader. Locks of one process do not
    nest (a second one on the same folder waits for the first). Without ``fcntl``
    (Windows), where the folder cannot be opened, or where its file system refuses the
    lock (NFS on a descriptor opened for reading, Lustre without ``-o flock``), no lock:
    the writers then run as they did before locks, which one writer alone never needs.

    Examples
    --------
    >>> folder = tempfile.mkdtemp()
    >>> with folder_lock(folder):
    ...     Path(folder, "rows.csv").write_text("n,p,time\\n")
    9
    """
    fd = _locked_descriptor(folder)
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _locked_descriptor(folder) -> int | None:
    """A descriptor of ``folder`` holding an exclusive lock, or None where no lock can
    be had (see :func:`folder_lock`)."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:  # refused by the file system (EBADF on NFS, ENOSYS on Lustre)
        os.close(fd)
        return None
    return fd
