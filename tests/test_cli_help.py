"""``--help`` of every command, as a new user reads it in an 80-column terminal."""

import re

import pytest
import typer.main
from typer.testing import CliRunner

from probperf.cli import app

runner = CliRunner()
WIDTH = 80


def command_paths():
    """Every command and group of ``probperf`` as argument lists, depth first."""
    out, todo = [], [([], typer.main.get_command(app))]
    while todo:
        path, command = todo.pop(0)
        out.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            if not getattr(sub, "hidden", False):
                todo.append(([*path, name], sub))
    return out


PATHS = command_paths()


def help_text(path):
    res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH), "TERMINAL_WIDTH": str(WIDTH)})
    assert res.exit_code == 0, res.output
    return res.stdout


def prose(text):
    """The description lines between the usage line and the first panel."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:")) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    return [line.rstrip() for line in lines[start:end]]


def test_every_command_is_walked():
    names = {" ".join(p) for p in PATHS}
    assert {"", "validate", "convert", "fit", "predict", "plot", "demo", "doctor", "sim run"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "probperf")
def test_help_shows_no_bool_type_and_fits_80_columns(path):
    text = help_text(path)
    assert "Show this message and exit." in text
    assert "<bool>" not in text
    assert max(len(line) for line in text.splitlines()) <= WIDTH


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "probperf")
def test_help_prose_is_wrapped_only_where_the_line_is_full(path):
    # A line of a paragraph ends early only if the next word would not have fit: a
    # line break kept from the docstring shows as a short line followed by a word
    # that fits on it (the "Bad input exits / with status 2" of before).
    lines = prose(help_text(path))
    for line, following in zip(lines, lines[1:]):
        if not line.strip() or not following.strip():
            continue  # a paragraph's last line
        next_word = following.split()[0]
        assert len(line) + 1 + len(next_word) > WIDTH - 1, (line, following)


def test_a_flag_shows_no_type():
    text = help_text(["fit"])
    row = next(line for line in text.splitlines() if "--quiet" in line)
    assert re.search(r"--quiet\s+-q\s+No progress bars", row), row
