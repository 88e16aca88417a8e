"""The prior mean of the law mixture's discrepancy rate, by empirical Bayes on training rows.

For every training set (the ``train`` rows of the four published cases, of the three
real ones, and of the simulator's 14 datasets, time modelled directly), the likelihood
of the discrepancy rate on :data:`probperf.models.laws.RATE_GRID` comes from nested
forward validation inside those rows (:func:`probperf.models.laws.discrepancy_loglik`).
The prior mean ``m`` of an exponential prior is the one that maximises the product over
the sets of each set's likelihood integrated over the prior (the marginal likelihood of
``m``), jointly with how the spread grows with the distance
(:data:`probperf.models.laws.DISTANCE_POWER`, one of :data:`POWERS`) and in which unit
the distance is counted (doublings or training spans,
:data:`probperf.models.laws.DISTANCE_PER_SPAN`). No test row of
any dataset is read. Also printed: each set's best rate and the
rate the chosen prior gives it (:func:`probperf.models.laws.discrepancy_rate`), both under
the first of the weightings the mixture blends (:data:`probperf.models.laws.WEIGHTING`);
with several, a set's marginal likelihood is their average, as the mixture weighs them.

    python benchmarks/choose_rate_prior.py [--only published,real,sim]
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

from probperf.models import laws  # noqa: E402

#: prior means tried (log units per doubling): a grid as fine as the answer needs
MEANS = np.geomspace(0.01, 1.0, 41)
#: growth of the spread with the distance, laws.DISTANCE_POWER (see there)
POWERS = (0.5, 1.0)
#: distance unit, laws.DISTANCE_PER_SPAN: doublings (False) or training spans (True)
UNITS = (False, True)


def rate_loglik(train):
    """The rate's log likelihood on the grid for one training set's time, under each law
    weighting the mixture blends (laws.WEIGHTING): a dict weighting -> curve."""
    features = list(train.params)  # what LawMixture.fit(train, target="time") uses
    X = train.points(features)[features].to_numpy(np.float64)
    y = train.y("time")
    w = laws.noise_weights(y, laws.resolution(y))
    weightings = laws.WEIGHTINGS[laws.WEIGHTING]
    parts = laws.nested_predictives(laws.candidate_laws(X, features), X, features, np.log(y), w, weightings)
    return {k: laws.nested_rate_loglik(parts, laws.DISTANCE_POWER, k) for k in weightings}


def log_marginal(curves, mean):
    """log of the integral of exp(loglik) (on laws.RATE_GRID) against the exponential
    prior of this mean, averaged over the weightings' curves (equal prior odds, as
    laws.discrepancy_growths weighs them)."""
    from scipy.special import logsumexp

    return float(logsumexp([laws.posterior_rate(ll, mean)[1] for ll in curves.values()]) - np.log(len(curves)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="published,real,sim")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    sets = list(cases(args.only.split(",")))
    curves, totals = {}, {}
    for growth in [(per_span, power) for per_span in UNITS for power in POWERS]:
        laws.DISTANCE_PER_SPAN, laws.DISTANCE_POWER = growth
        label = f"{'span' if growth[0] else 'doubling'}^{growth[1]}"
        for case, train in sets:
            curves[growth, case] = rate_loglik(train)
            ll, rates = next(iter(curves[growth, case].values())), laws.RATE_GRID
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
        post = ll - laws.RATE_GRID / best + np.log(np.gradient(laws.RATE_GRID))
        post = np.exp(post - post.max())
        print(f"{case:28s} rate under the chosen prior {np.sqrt(np.sum(post * laws.RATE_GRID**2) / post.sum()):.3f}")

if __name__ == "__main__":
    with report("choose_rate_prior"):
        main()
