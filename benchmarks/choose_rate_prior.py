"""The prior mean of the law mixture's discrepancy rate, by empirical Bayes on training rows.

For every training set (the ``train`` rows of the four published cases, of the three
real ones, and of the simulator's 14 datasets, time modelled directly), the likelihood
of the discrepancy rate on :data:`probperf.models.discrepancy.RATE_GRID` comes from nested
forward validation inside those rows (:func:`probperf.models.discrepancy.discrepancy_loglik`).
The prior mean ``m`` of an exponential prior is the one that maximises the product over
the sets of each set's likelihood integrated over the prior (the marginal likelihood of
``m``), jointly with how the spread grows with the distance
(:data:`probperf.models.discrepancy.DISTANCE_POWER`, one of :data:`POWERS`) and in which unit
the distance is counted (doublings or training spans,
:data:`probperf.models.discrepancy.DISTANCE_PER_SPAN`). No test row of
any dataset is read. Also printed: each set's best rate and the
rate the chosen prior gives it (:func:`probperf.models.discrepancy.discrepancy_rate`), both under
the first of the weightings the mixture blends (:data:`probperf.models.laws.WEIGHTING`);
with several, a set's marginal likelihood is their average, as the mixture weighs them.

``--parts``: the same empirical Bayes over the DAG model's parts instead (its law
mixtures of work, delay and idle time, :data:`probperf.dag.PART_GROWTH`): every part
mixture of the DAG model fitted on each simulated training set (seed 0) is one set.

    python benchmarks/choose_rate_prior.py [--only published,real,extra,sim] [--parts]

(``extra``: benchmarks/data/real, in the default pool from session 24 on, as in
choose_laws.py.)
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402
from choose_laws import cases  # noqa: E402

from probperf.models import discrepancy, laws  # noqa: E402

#: prior means tried (log units per doubling): a grid as fine as the answer needs
MEANS = np.geomspace(0.01, 1.0, 41)
#: growth of the spread with the distance, discrepancy.DISTANCE_POWER (see there); 2, a
#: law whose curvature is off, from session 39 (probperf/dag.py, after PART_GROWTH)
POWERS = (0.5, 1.0, 2.0)
#: distance unit, discrepancy.DISTANCE_PER_SPAN: doublings (False) or training spans (True)
UNITS = (False, True)


def rate_loglik(train):
    """The rate's log likelihood on the grid for one training set's time, under each law
    weighting the mixture blends (laws.WEIGHTING): a dict weighting -> curve."""
    features = list(train.params)  # what LawMixture.fit(train, target="time") uses
    X = train.points(features)[features].to_numpy(np.float64)
    y = train.y("time")
    w = laws.noise_weights(y, laws.resolution(y))
    weightings = laws.WEIGHTINGS[laws.WEIGHTING]
    parts = discrepancy.nested_predictives(laws.candidate_laws(X, features), X, features, np.log(y), w, weightings)
    return {k: discrepancy.nested_rate_loglik(parts, discrepancy.DISTANCE_POWER, k) for k in weightings}


def part_curves(train, growths) -> list[dict]:
    """The rate's log likelihood curves (as :func:`rate_loglik`'s) of every part mixture
    of the DAG model fitted on ``train``, one dict per part, keyed by growth then
    weighting. The nested splits are computed inside each part's own fit (its checked
    curvature and other settings in effect), once per distance unit."""
    from probperf import dag

    found, original = [], discrepancy.nested_predictives

    def capture(cands, X, names, logy, w=None, weightings=("stacking",)):
        if discrepancy._GROWTH.get() is None:  # not a part (the parts have a growth of their own)
            return original(cands, X, names, logy, w, weightings)
        per_unit = {}
        for unit in UNITS:
            token = discrepancy._GROWTH.set((unit, 1.0, 0.1))  # the unit sets the distance; power and mean come later
            try:
                per_unit[unit] = original(cands, X, names, logy, w, weightings)
            finally:
                discrepancy._GROWTH.reset(token)
        found.append({(unit, power): {k: discrepancy.nested_rate_loglik(per_unit[unit], power, k) for k in weightings}
                      for unit, power in growths})
        return per_unit[discrepancy._GROWTH.get()[0]]

    discrepancy.nested_predictives, scale = capture, dag.SCALE_PARTS
    dag.SCALE_PARTS = False  # the factor's refits on cuts would add the parts again
    try:
        dag.DagModel().fit(train)
    finally:
        discrepancy.nested_predictives, dag.SCALE_PARTS = original, scale
    return found


def log_marginal(curves, mean):
    """log of the integral of exp(loglik) (on discrepancy.RATE_GRID) against the exponential
    prior of this mean, averaged over the weightings' curves (equal prior odds, as
    discrepancy.discrepancy_growths weighs them)."""
    from scipy.special import logsumexp

    return float(logsumexp([discrepancy.posterior_rate(ll, mean)[1] for ll in curves.values()]) - np.log(len(curves)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="published,real,extra,sim")
    ap.add_argument("--parts", action="store_true", help="the DAG model's parts on the simulated training sets")
    args = ap.parse_args(argv)
    if args.parts and args.only != ap.get_default("only"):
        ap.error("--parts takes the simulated training sets; it cannot be combined with --only")
    warnings.simplefilter("ignore")
    growths = [(per_span, power) for per_span in UNITS for power in POWERS]
    sets = list(cases(["sim"] if args.parts else args.only.split(",")))
    curves, totals = {}, {}
    if args.parts:  # one set per part mixture
        parts = {}
        for case, train in sets:
            for i, part in enumerate(part_curves(train, growths)):
                parts[f"{case} part {i}"] = part
        sets = [(case, None) for case in parts]
        curves = {(growth, case): part[growth] for case, part in parts.items() for growth in growths}
    for growth in growths:
        discrepancy.DISTANCE_PER_SPAN, discrepancy.DISTANCE_POWER = growth
        label = f"{'span' if growth[0] else 'doubling'}^{growth[1]}"
        for case, train in sets:
            if not args.parts:
                curves[growth, case] = rate_loglik(train)
            ll, rates = next(iter(curves[growth, case].values())), discrepancy.RATE_GRID
            print(f"{label}: {case:28s} best rate {rates[np.argmax(ll)]:.3f}  splits' log lik at 0: "
                  f"{ll[0]:8.3f}, at best: {ll.max():8.3f}", flush=True)
        totals[growth] = np.array([sum(log_marginal(curves[growth, c], m) for c, _ in sets)
                                   for m in MEANS])
        for m, t in zip(MEANS, totals[growth]):
            print(f"{label}, prior mean {m:.3f}: summed log marginal {t:9.3f}")
    growth = max(totals, key=lambda g: totals[g].max())
    best = MEANS[np.argmax(totals[growth])]
    print(f"chosen: distance in {'spans' if growth[0] else 'doublings'}, power {growth[1]}, prior mean {best:.3f} "
          f"(summed log marginal {totals[growth].max():.3f} over {len(sets)} training sets; the others: "
          + ", ".join(f"{'span' if g[0] else 'doubling'}^{g[1]} {totals[g].max():.3f}" for g in totals if g != growth)
          + ")")
    for case, _ in sets:
        ll = next(iter(curves[growth, case].values()))
        post = ll - discrepancy.RATE_GRID / best + np.log(np.gradient(discrepancy.RATE_GRID))
        post = np.exp(post - post.max())
        print(f"{case:28s} rate under the chosen prior {np.sqrt(np.sum(post * discrepancy.RATE_GRID**2) / post.sum()):.3f}")

if __name__ == "__main__":
    with report("choose_rate_prior_parts" if "--parts" in sys.argv else "choose_rate_prior"):
        main()
