"""The documentation: executed tutorials, docstring examples, and their coverage.

How a failing tutorial is caught. markdown-exec executes every ``exec="true"`` block
while MkDocs builds the site; when a block raises, it writes the traceback into the
page and logs a warning. Two things make that fatal: ``mkdocs build --strict`` fails on
the warning, and the ``on_page_content`` hook in ``docs/gen/hooks.py`` raises when a
page holds the traceback of an executed block (its file name is ``<code block: ...>``),
so the build also fails without ``--strict``. ``test_failing_block_fails_the_build``
checks the second mechanism on a one-page site; ``test_docs_build`` builds the real site.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import probperf

ROOT = Path(__file__).resolve().parents[1]
GEN = ROOT / "docs" / "gen"

#: Pages that must show at least one figure produced by their executed code.
PAGES_WITH_FIGURES = (
    "getting-started",
    "tutorials/end-to-end",
    "tutorials/kernels",
    "tutorials/diagnostics",
)


def _mkdocs(*args, cwd=ROOT, timeout=1200):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONHASHSEED="0")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# -- the executed documentation ---------------------------------------------------------


def test_failing_block_fails_the_build(tmp_path):
    """A tutorial block that raises must fail the build (hook), even without --strict."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        textwrap.dedent(
            """\
            # Broken

            ```python exec="true"
            raise ValueError("deliberately broken tutorial")
            ```
            """
        )
    )
    (tmp_path / "mkdocs.yml").write_text(
        textwrap.dedent(
            f"""\
            site_name: broken
            docs_dir: {docs}
            site_dir: {tmp_path / "site"}
            hooks:
              - {GEN / "hooks.py"}
            markdown_extensions:
              - pymdownx.superfences:
                  custom_fences:
                    - name: python
                      class: python
                      validator: !!python/name:markdown_exec.validator
                      format: !!python/name:markdown_exec.formatter
            plugins:
              - markdown-exec
            nav:
              - index.md
            """
        )
    )
    result = _mkdocs("build", "-f", str(tmp_path / "mkdocs.yml"), timeout=300)
    assert result.returncode != 0, result.stderr[-2000:]
    assert "an executed code block failed in index.md" in result.stderr
    assert "deliberately broken tutorial" in result.stderr
    assert not (tmp_path / "site" / "index.html").exists()


@pytest.mark.slow
def test_docs_build(tmp_path):
    """``mkdocs build --strict`` succeeds and the tutorial pages carry their figures."""
    site = tmp_path / "site"
    result = _mkdocs("build", "--strict", "-d", str(site))
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    pages = {p.relative_to(site).parent.as_posix(): p.read_text() for p in site.rglob("index.html")}
    for name, html in pages.items():
        assert "&lt;code block: " not in html, f"{name}: an executed block left a traceback"
    for name in PAGES_WITH_FIGURES:
        figures = pages[name].count('src="data:image/png;base64,')
        assert figures >= 1, f"{name}: no figure produced by its code"
    # The CLI reference is generated from the typer app: every command is there.
    assert "probperf sim" in pages["cli"]
    # One API page per public module, rendered by mkdocstrings from the docstrings.
    assert 'id="probperf.data.Measurements"' in pages["reference/probperf.data"]


def test_results_page_includes_reports_and_their_figures(tmp_path):
    """Reports are included with demoted headings and their figures embedded; a missing
    report is announced, not an error (the build must pass before experiments ran)."""
    sys.path.insert(0, str(GEN))
    try:
        from docs_helpers import all_results, include_result
    finally:
        sys.path.remove(str(GEN))
    assert all_results(tmp_path / "nothing") == []
    assert "Not generated yet" in include_result("kernels.md", tmp_path)
    (tmp_path / "figures").mkdir()
    png = b"\x89PNG\r\n\x1a\n-not-really-a-png"
    (tmp_path / "figures" / "kernels_calibration.png").write_bytes(png)
    (tmp_path / "figures" / "models_calibration.png").write_bytes(png)
    (tmp_path / "kernels.md").write_text(
        "# Kernels\n\n| a |\n|---|\n| 1 |\n\nsee [the code](../x.py)\n"
    )
    text = include_result("kernels.md", tmp_path)
    assert text.startswith("## Kernels\n")
    assert "see the code (`../x.py`)" in text  # a link that would not resolve in the site
    assert text.count("data:image/png;base64,") == 1  # its own figure, not models_*
    assert "`figures/kernels_calibration.png`" in text
    assert all_results(tmp_path) == ["kernels.md"]


# -- docstring examples ------------------------------------------------------------------


def _needs_compiler(name: str) -> bool:
    """The OpenMP recorder's C helpers need clang; without it their examples cannot run."""
    return name.startswith("probperf.record") and shutil.which("clang") is None


def public_modules():
    """All probperf modules (imported), skipping private ones and the CLI entry point."""
    names = [probperf.__name__]
    for info in pkgutil.walk_packages(probperf.__path__, prefix="probperf."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    return [importlib.import_module(n) for n in sorted(names) if not _needs_compiler(n)]


def test_docstring_examples_run():
    """``doctest`` over every probperf module (what ``pytest --doctest-modules`` does)."""
    failures = []
    finder = doctest.DocTestFinder(exclude_empty=True)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for module in public_modules():
        runner = doctest.DocTestRunner(optionflags=flags, verbose=False)
        for test in finder.find(module, module.__name__):
            result = runner.run(test, out=lambda text: failures.append(text))
            del result
    assert not failures, "docstring examples failed:\n" + "\n".join(failures)[:8000]


def _public_callables(module):
    """(qualified name, object) of the classes and functions a module defines publicly."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        obj = vars(module).get(name)  # not getattr: it would resolve lazy imports
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) != module.__name__:
            continue  # imported from elsewhere; checked where it is defined
        yield f"{module.__name__}.{name}", obj


#: Public methods exempt from needing an example, with why.
_METHODS_WITHOUT_EXAMPLES = {
    # gpytorch calls a kernel's ``forward`` through ``__call__``; users never do, and
    # its contract is gpytorch's (the kernel's class docstring shows it evaluated).
    "probperf.models.kernels.SpectralMixture.forward",
}


def _public_methods(name, cls):
    """(qualified name, function) of the public methods ``cls``'s own body defines:
    inherited ones are checked where they are defined, properties are not callables."""
    for attr, obj in vars(cls).items():
        if isinstance(obj, (classmethod, staticmethod)):
            obj = obj.__func__
        qualname = f"{name}.{attr}"
        if inspect.isfunction(obj) and not attr.startswith("_") and qualname not in _METHODS_WITHOUT_EXAMPLES:
            yield qualname, obj


_EXAMPLES = re.compile(r"^\s*Examples\s*\n\s*-{3,}", re.MULTILINE)


def example_problem(obj) -> str | None:
    """Why ``obj``'s docstring lacks a running example, or None if it has one."""
    doc = inspect.cleandoc(obj.__doc__ or "")
    if not _EXAMPLES.search(doc):
        return "no Examples section"
    examples = doctest.DocTestParser().get_examples(doc)
    if not examples:
        return "Examples section without a doctest (>>>)"
    if all(ex.options.get(doctest.SKIP) for ex in examples):
        return "every example is marked +SKIP, so none runs"
    return None


def test_example_problem_detects_each_case():
    def good():
        """Do it.

        Examples
        --------
        >>> 1 + 1
        2
        """

    def skipped():
        """Do it.

        Examples
        --------
        >>> 1 + 1  # doctest: +SKIP
        """

    def prose():
        """Do it.

        Examples
        --------
        Call it.
        """

    assert example_problem(good) is None
    assert example_problem(skipped) == "every example is marked +SKIP, so none runs"
    assert example_problem(prose) == "Examples section without a doctest (>>>)"
    assert example_problem(len) == "no Examples section"


def _cli_commands() -> set:
    """The functions behind ``probperf`` commands: their docstring is the ``--help``
    text, documented with examples on the CLI reference page, not as doctests."""
    from probperf.cli import app

    callbacks, apps = set(), [app]
    while apps:
        typer_app = apps.pop()
        callbacks |= {c.callback for c in typer_app.registered_commands}
        apps += [group.typer_instance for group in typer_app.registered_groups]
    return callbacks


def test_public_callables_have_examples():
    """Every public class, function and method of a public class has a numpydoc
    Examples section that runs."""
    commands = _cli_commands()
    callables = [c for module in public_modules() for c in _public_callables(module)]
    callables += [m for name, obj in callables if inspect.isclass(obj) for m in _public_methods(name, obj)]
    problems = sorted(f"{name}: {why}" for name, obj in callables if obj not in commands and (why := example_problem(obj)))
    assert not problems, f"{len(problems)} public callables lack a running example:\n" + "\n".join(
        problems
    )
