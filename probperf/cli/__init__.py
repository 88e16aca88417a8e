"""``probperf`` command line: ``validate``, ``convert``, ``doctor``, ``sim``, ``fit``, ``predict``,
``plot``, ``demo``, ``record``, ``bench``."""

import importlib

from ._app import app

# Each topic module registers its commands on ``app``; a module not written yet is
# simply absent from the command list.
for _name in ("data_cmds", "sim_cmds", "model_cmds", "record_cmds"):
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # only tolerate the topic module itself missing
        if exc.name != f"{__name__}.{_name}":
            raise

__all__ = ["app"]
