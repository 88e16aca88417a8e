"""``python -m probperf``: the command line, as the installed ``probperf`` script."""

from .cli import app

app(prog_name="probperf")
