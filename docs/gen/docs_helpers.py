"""Small helpers used by the executed code blocks of the documentation.

They exist only to put results into a web page: in your own session you would call
``plt.show()`` or ``fig.savefig(...)`` instead of :func:`as_html`.
"""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = Path("experiments/results")
BENCHMARKS = Path("benchmarks/results")


def as_html(fig, alt: str = "figure", dpi: int = 96) -> str:
    """The figure as an inline PNG ``<img>`` (closes the figure to free memory)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<figure class="probperf-figure"><img alt="{html.escape(alt)}" '
        f'src="data:image/png;base64,{data}" style="max-width:100%"></figure>'
    )


def _inline_images(markdown: str, base: Path) -> str:
    """Replace local image links by data URIs and local links by plain text.

    Experiment reports link to files next to them; those files are not part of the
    site, so images are embedded and other relative links lose their target.
    """

    def image(match):
        alt, target = match.group(1), match.group(2).strip()
        if re.match(r"^[a-z]+://", target):
            return match.group(0)
        path = (base / target).resolve()
        if not path.is_file():
            return f"*(missing figure: {target})*"
        kind = {"png": "png", "svg": "svg+xml", "jpg": "jpeg", "jpeg": "jpeg"}.get(
            path.suffix.lower().lstrip("."), "png"
        )
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f"![{alt}](data:image/{kind};base64,{data})"

    def link(match):
        text, target = match.group(1), match.group(2).strip()
        if re.match(r"^([a-z]+://|#|mailto:)", target):
            return match.group(0)
        return f"{text} (`{target}`)"

    markdown = re.sub(r"!\[([^\]]*)\]\(([^)]+)\)", image, markdown)
    return re.sub(r"(?<!!)\[([^\]]+)\]\(([^)]+)\)", link, markdown)


def include_result(name: str, results: Path = RESULTS) -> str:
    """Markdown of ``experiments/results/<name>`` or a note that it is not generated yet."""
    path = results / name
    if not path.is_file():
        return (
            f'!!! note "Not generated yet"\n    `{path}` does not exist yet. '
            "Run the experiment scripts (see `experiments/`) and rebuild the docs.\n"
        )
    text = path.read_text(encoding="utf-8")
    # Demote headings: the page has its own title, each report becomes a section.
    text = re.sub(r"^(#{1,5}) ", r"#\1 ", text, flags=re.MULTILINE)
    return _inline_images(text, path.parent) + _report_figures(path, text)


def _report_figures(report: Path, text: str) -> str:
    """The figures a report names (``figures/<stem>_*.png`` beside it), embedded.

    The experiment scripts list their figures as file names; embedding them here puts
    the figures on the page. Figures the report already shows as images are skipped.
    """
    figures = sorted((report.parent / "figures").glob(f"{report.stem}_*.png"))
    shown = [f for f in figures if f"](figures/{f.name})" not in text]
    if not shown:
        return ""
    out = ["", "### Figures", ""]
    for fig in shown:
        data = base64.b64encode(fig.read_bytes()).decode("ascii")
        caption = fig.stem.removeprefix(report.stem + "_").replace("_", " ")
        out += [f"**{caption}** (`figures/{fig.name}`)", "",
                f"![{caption}](data:image/png;base64,{data})", ""]
    return "\n".join(out) + "\n"


def all_results(results: Path = RESULTS) -> list[str]:
    """Names of the Markdown reports under ``experiments/results``, sorted."""
    if not results.is_dir():
        return []
    return sorted(p.name for p in results.glob("*.md"))



def _walk_commands(command, ctx):
    """(context, command) for a click command and, depth first, all its sub-commands."""
    yield ctx, command
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            yield from _walk_commands(sub, sub.context_class(sub, info_name=name, parent=ctx))


def cli_reference() -> str:
    """Markdown with one section per ``probperf`` command holding its ``--help`` text.

    The help comes from the real typer application (through click), so it cannot drift
    from the code. Rich boxes are switched off to get plain, copyable text.
    """
    import typer.core
    import typer.main

    from probperf.cli import app

    root = typer.main.get_command(app)
    sections = []
    use_rich = typer.core.HAS_RICH
    typer.core.HAS_RICH = False
    try:
        ctx = root.context_class(root, info_name="probperf", terminal_width=88, max_content_width=88)
        for _, command in _walk_commands(root, ctx):
            # a group lists its commands by their first sentence; click cuts it at 45
            # characters ("metrics,...") unless it is given whole
            command.short_help = command.short_help or (command.help or "").strip().split("\n\n")[0]
        for sub_ctx, command in _walk_commands(root, ctx):
            title = sub_ctx.command_path
            depth = title.count(" ")
            level = "#" * min(2 + max(depth - 1, 0), 4)
            text = command.get_help(sub_ctx).rstrip()
            sections.append(f"{level} `{title}`\n\n```text\n{text}\n```\n")
    finally:
        typer.core.HAS_RICH = use_rich
    return "\n".join(sections)


def edit_diff(path: str, old: str, new: str) -> str:
    """A unified diff (as a fenced block) of replacing ``old`` by ``new`` in the
    repository file ``path``, with the count of changed lines: how big a change really
    is, computed from the current source so the page cannot drift from it."""
    import difflib

    text = Path(path).read_text()
    if text.count(old) != 1:
        raise ValueError(f"{path}: the text to replace is not there exactly once: {old!r}")
    edited = text.replace(old, new)
    diff = list(difflib.unified_diff(text.splitlines(), edited.splitlines(), f"a/{path}", f"b/{path}", n=1, lineterm=""))
    removed = sum(1 for line in diff[2:] if line.startswith("-"))
    added = sum(1 for line in diff[2:] if line.startswith("+"))
    return "```diff\n" + "\n".join(diff) + f"\n```\n\nOne file: {removed} line(s) removed, {added} added."
