"""MkDocs hooks for the probperf documentation (listed under ``hooks:`` in mkdocs.yml).

What they do, and why:

* ``on_config``: run the build from the repository root (tutorials read ``docs/data/...``
  and import ``docs/gen/docs_helpers.py``), fix seeds and thread counts so executed
  tutorials are reproducible and polite on a shared machine, force a non-interactive
  matplotlib backend, and append one "API reference" page per public probperf module
  to the navigation.
* ``on_files``: create those API pages in memory (``::: probperf.module`` for
  mkdocstrings), so a module that lands later is documented without editing anything.
* ``on_page_content``: make a failing tutorial code block fatal. markdown-exec renders
  an exception as a traceback inside the page and only logs a warning; ``--strict``
  turns that warning into a failed build, and this hook fails the build even without
  ``--strict`` by looking for the traceback of an executed block (its file name is
  always ``<code block: ...>``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "probperf"

# Parts of the package that get no API page: the CLI has its own reference page
# (generated from the typer app), and private modules are implementation details.
SKIP_PREFIXES = ("probperf.cli",)

#: What markdown-exec writes into a page when an executed block raised.
ERROR_MARKERS = ("&lt;code block: ", "<code block: ")


def public_modules() -> list[str]:
    """Dotted names of the public modules and packages under ``probperf/`` on disk."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        # A directory is a package only once its __init__.py exists (others may still
        # be writing it); griffe could not collect a module of a half-made package.
        if not all((d / "__init__.py").is_file() for d in _parents_within(path.parent)):
            continue
        name = ".".join(parts)
        if name.startswith(SKIP_PREFIXES) or "tests" in parts:
            continue
        names.append(name)
    return names


def _parents_within(directory: Path):
    while directory != ROOT:
        yield directory
        directory = directory.parent


def _page_path(module: str) -> str:
    return f"reference/{module}.md"


def on_config(config, **kwargs):
    os.chdir(ROOT)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ["MPLBACKEND"] = "Agg"
    os.environ.setdefault("PYTHONHASHSEED", "0")
    gen = str(ROOT / "docs" / "gen")
    if gen not in sys.path:
        sys.path.insert(0, gen)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    nav = config["nav"]
    nav[:] = [item for item in nav if not (isinstance(item, dict) and "API reference" in item)]
    nav.append({"API reference": [{m: _page_path(m)} for m in public_modules()]})
    return config


def on_files(files, config, **kwargs):
    for module in public_modules():
        src = _page_path(module)
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, content=f"# `{module}`\n\n::: {module}\n"))
    return files


def on_page_content(html, page, **kwargs):
    if any(marker in html for marker in ERROR_MARKERS):
        raise PluginError(
            f"an executed code block failed in {page.file.src_uri}; "
            "see the traceback in the log above"
        )
    return html
