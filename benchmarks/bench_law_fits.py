"""How many law fits a fit does: the work of bench_speed's cases, counted.

Wall-clock times on a shared 2-core machine move by a third between runs of the same
code (session 38: the same 6-parameter fit took 5.4 to 12 s of CPU), so a change to
the fit's cost cannot be read from them. The number of laws fitted is exact: every fit
of a candidate law on some rows (the nested forward splits, the stacking splits, the
evidence, the final laws), counted at the law classes' ``fit``, the same on every
machine and every run. Fits run one after another here (``parallel.serial``), so that
every one is counted in this process. At commit c756034, before the fits were kept
per law and rows (:func:`probperf.models.rowsets.kept`), the three cases took 4513,
12313 and 20661 law fits (this script, run there in session 38).

Run from the repository root::

    python benchmarks/bench_law_fits.py
"""

from __future__ import annotations

import collections
import inspect
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402
from bench_speed import _many_sizes, _matrix_product  # noqa: E402

import probperf as pp  # noqa: E402
from probperf import parallel  # noqa: E402
from probperf.models import laws  # noqa: E402
from probperf.sim import generate  # noqa: E402

#: fits counted so far, by law class
FITS = collections.Counter()


def count_fits() -> None:
    """Wrap the ``fit`` of every law class that defines its own, counting each call once
    (a subclass's fit that calls its parent's counts as one)."""
    depth = [0]
    for cls in (c for c in vars(laws).values() if inspect.isclass(c) and issubclass(c, laws._Law)):
        if "fit" not in vars(cls):
            continue
        original = vars(cls)["fit"]

        def fit(self, *args, _original=original, _name=cls.__name__, **kwargs):
            if depth[0] == 0:
                FITS[_name] += 1
            depth[0] += 1
            try:
                return _original(self, *args, **kwargs)
            finally:
                depth[0] -= 1

        cls.fit = fit


def counted(label: str, table) -> None:
    FITS.clear()
    with parallel.serial():
        pp.fit(table, model="auto")
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(FITS.items()))
    print(f"{label:52s} {sum(FITS.values()):7d} law fits  ({kinds})", flush=True)


def main():
    count_fits()
    counted("time-only, matrix product n, m, k, p (100 rows)", _matrix_product(100))
    counted("time-only, 6 size parameters and p (100 rows)", _many_sizes(100, 6))
    counted("DAG model, sort, 5 sizes x 4 workers x 2 reps (40 runs)",
            generate("sort", [2**k for k in range(10, 15)], [1, 2, 4, 8], reps=2, seed=0))


if __name__ == "__main__":
    with report("bench_law_fits"):
        main()
