"""A metric as a mixture of candidate laws, weighed by how well each predicted forward.

Far from the data the coefficients are not the main uncertainty, the *law* is: a power
law and ``n log n``, delay growing with ``p`` or with ``p - 1``, a curved or a straight
log-log speed-up can fit the same runs and part by orders of magnitude at 64x. So a
:class:`LawMixture` fits every candidate law of
:func:`~probperf.models.laws.candidate_laws` and weighs them by how well each predicted
*forward* inside the training data (stacking of the leave-future-out predictive
densities, :mod:`probperf.selection`, blended with the laws' evidence), then widens its
draws beyond the data by the error its own nested forward validation found
(:mod:`probperf.models.discrepancy`). A joint draw picks one law, then its noise scale
and coefficients, then (optionally) run-to-run noise: the same law and coefficients at
every point of the draw.

The switches a benchmark flips (which laws are candidates, how they are weighed) are
module constants of :mod:`probperf.models.laws`, read from there at every fit.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

import numpy as np

from .. import persist
from . import discrepancy as disc, laws, noise as noise_profile, residual, rowsets
from ..selection import distance_directions, doublings_beyond, kind_ranges, training_ranges
from .base import MetricModel
from .laws import MIN_WEIGHT, REFUSALS, VALUE_RANGE, candidate_laws, fitted_law, law_weights, noise_weights, readable, resolution
from .points import check_extrapolation, check_points, relations
from .terms import power_terms

_FACTORS = contextvars.ContextVar("discrepancy_factors", default=None)


def widens(model) -> bool:
    """Whether ``model`` is a law mixture that widens its draws beyond the data.

    Examples
    --------
    >>> n = 2.0 ** np.arange(6, 12)
    >>> widens(LawMixture().fit(n[:, None], n**2, features=["n"])), widens(object())
    (True, False)
    """
    rates = getattr(model, "discrepancy_", None)
    return isinstance(rates, np.ndarray) and rates.ndim == 2 and bool(np.any(rates[:, 1] > 0))


def too_few_runs(runs: int, target: str) -> str:
    """How a law mixture refuses ``runs`` too few for any candidate law of ``target``;
    ``doctor`` says it before a fit.

    Examples
    --------
    >>> too_few_runs(1, "time"), too_few_runs(2, "time")
    ('1 run is too few to fit any law of time', '2 runs are too few to fit any law of time')
    """
    return f"{'1 run is' if runs == 1 else f'{runs} runs are'} too few to fit any law of {target}"


@contextmanager
def discrepancy_factors(factors):
    """Within this context, draw ``s`` of every law mixture's prediction has its
    discrepancy term multiplied by ``factors[s]`` (one factor per draw, so that a DAG
    model's parts share it; see :func:`probperf.selection.discrepancy_scale`). A
    prediction of another number of draws is an error.

    Examples
    --------
    >>> n = 2.0 ** np.arange(6, 12)
    >>> mix = LawMixture().fit(n[:, None], n * np.log2(n) + 1e-3 * n**2, features=["n"])
    >>> with discrepancy_factors(np.zeros(200)):
    ...     narrow = mix.predict(np.array([[2.0**16]]), n_draws=200, seed=0)
    >>> wide = mix.predict(np.array([[2.0**16]]), n_draws=200, seed=0)
    >>> bool(np.ptp(np.log(narrow.draws)) < np.ptp(np.log(wide.draws)))
    True
    """
    token = _FACTORS.set(np.asarray(factors, dtype=np.float64))
    try:
        yield
    finally:
        _FACTORS.reset(token)


_KEPT_DRAWS = contextvars.ContextVar("kept_law_draws", default=None)


@contextmanager
def law_draws_kept():
    """Within this context, a law mixture's draws of its laws (before the discrepancy
    term) are computed once per mixture, points, number of draws, seed and noise, and
    reused: the same numbers, bit for bit, and the random generator left where it was.

    Why: :func:`probperf.selection.discrepancy_scale` predicts the same sub-models at
    the same points from the same seeds once per factor of its grid, and only the
    discrepancy term depends on the factor (:func:`discrepancy_factors`); the laws'
    draws were half of a small DAG model's fit.

    Examples
    --------
    >>> n = 2.0 ** np.arange(6, 12)
    >>> mix = LawMixture().fit(n[:, None], n * np.log2(n), features=["n"])
    >>> at = np.array([[2.0**14]])
    >>> with law_draws_kept():
    ...     kept = [mix.predict(at, n_draws=100, seed=3).draws for _ in range(2)]
    ...     with discrepancy_factors(np.zeros(100)):
    ...         narrow = mix.predict(at, n_draws=100, seed=3).draws
    >>> bool(np.array_equal(kept[0], kept[1])), bool(np.array_equal(kept[0], mix.predict(at, n_draws=100, seed=3).draws))
    (True, True)
    >>> bool(np.ptp(np.log(narrow)) < np.ptp(np.log(kept[0])))
    True
    """
    token = _KEPT_DRAWS.set({})
    try:
        yield
    finally:
        _KEPT_DRAWS.reset(token)


def _factors(n_draws: int) -> np.ndarray:
    factors = _FACTORS.get()
    if factors is None:
        return np.ones((n_draws, 1))
    if factors.shape != (n_draws,):
        raise ValueError(f"discrepancy_factors holds {factors.size} factors for {n_draws} draws")
    return factors[:, None]


@persist.register
class LawMixture(MetricModel):
    """A positive metric as a stacked mixture of closed-form candidate laws.

    Parameters
    ----------
    guard : bool
        Refuse to predict outside the training range of a parameter with fewer than 3
        distinct training values (:func:`~probperf.models.points.check_extrapolation`), and at points the laws
        cannot take (:func:`~probperf.models.points.check_points`: a relation of the training runs broken, a
        parameter they take the log of not positive). The DAG model turns it
        off for its components and checks its whole training table instead (its
        idle-time component sees only the runs with ``p > 1``).
    discrepancy : bool
        Learn how fast the mixture's error grows beyond the data by nested forward
        validation (:func:`~probperf.models.discrepancy.discrepancy_growths`) and widen the draws by it.
    one_worker_level : bool
        Also weigh laws that give one worker its own level (``power+one(p)``,
        ``power(p-1)+one(p)``), so that the runs with ``p > 1`` alone decide how the
        metric grows with the workers. Why: a one-worker run has no other worker to
        steal from or contend with; a per-task delay, say, jumps between one and two
        workers and then grows smoothly, and one power of ``p`` through ``p = 1``
        bends the whole law. Admitted when ``p`` starts at 1 and has at least 3
        distinct values. Off by default: for time modelled directly, nested forward
        validation on the 21 training sets ties (benchmarks/choose_laws.py
        --time-only, results/choose_laws_time_only_one.md: -0.143 with, -0.141
        without); the DAG model turns it on for its parts (:data:`probperf.dag.ONE_WORKER_LEVEL`).
    residual_gp : bool or None
        Give every law a GP on its log residuals (:mod:`probperf.models.residual`),
        unless the mixture is fitted on more than ``residual.MAX_ROWS`` settings; None:
        :data:`~probperf.models.laws.RESIDUAL_GP` (on). The DAG model decides for its parts
        (:data:`probperf.dag.PART_RESIDUAL_GP`, off).
    weighting : {"stacking", "evidence", "averaged"} or None
        How the laws are weighed (:data:`~probperf.models.laws.WEIGHTINGS`); None: :data:`~probperf.models.laws.WEIGHTING`.
        ``"averaged"`` needs ``discrepancy`` (the nested validation that weighs the two);
        without it the mixture stacks.
    growth : (bool, float, float) or None
        How the discrepancy grows beyond the data: ``(per_span, power, prior mean)``
        (:func:`~probperf.models.discrepancy.growth_setting`); None: :data:`~probperf.models.discrepancy.DISTANCE_PER_SPAN`,
        :data:`~probperf.models.discrepancy.DISTANCE_POWER` and :data:`~probperf.models.discrepancy.RATE_PRIOR_MEAN`. The DAG model decides for
        its parts (:data:`probperf.dag.PART_GROWTH`).
    lower_order : bool or None
        Also weigh the affine laws with the next term of their expansion
        (:data:`~probperf.models.laws.LOWER_ORDER`); None: that constant. The DAG model decides for its
        parts (:data:`probperf.dag.PART_LOWER_ORDER`, off).
    affine_power : bool or None
        Also weigh the affine power laws where parameters besides n and p vary
        (:data:`~probperf.models.laws.AFFINE_POWER`), and the affine laws of p alone where only p varies
        (their case without a size, :data:`~probperf.models.laws.AFFINE_WORKERS`); None: that constant. The
        DAG model decides for its parts (:data:`probperf.dag.PART_AFFINE_POWER`, off).
    saturating : bool or None
        Also weigh the saturating law ``sat(p-1)`` where every run has ``p >= 2``
        (:data:`~probperf.models.laws.SATURATING`); None: that constant. The DAG model decides for its
        parts (:data:`probperf.dag.PART_SATURATING`).
    bounded_in_size : bool
        The metric is bounded whatever the size: leave out the laws that grow like a
        power of n, the fixed shapes ``n^j log^k n`` with j > 0 and the affine laws of n
        (the free power law and the others keep fitted coefficients; the fixed
        ``log^k n`` shapes stay). The DAG model
        decides for its idle part (:data:`probperf.dag.IDLE_BOUNDED`).
    noise_profile : bool or None
        Weigh the runs by a noise profile (:mod:`probperf.models.noise`) when the runs
        earn one; None: :data:`~probperf.models.laws.NOISE_PROFILE`. The DAG model decides for its parts
        (:data:`probperf.dag.PART_NOISE_PROFILE`, off).
    checked_curvature : bool
        Leave out curvature in size or workers (``power+curv(c)`` and ``power+c*p``,
        and ``quadratic`` over the other directions only; :data:`~probperf.models.laws.BEYOND`) where that
        direction has only MIN_DISTINCT distinct values. Why: with that few values the
        curvature is fitted exactly and no forward split in that direction exists
        (:func:`probperf.selection.forward_splits` needs one value more), so nothing
        checks it, yet far out it dominates: the idle part of runs on 1-4 workers sees
        p = 2, 3, 4, and its parabola in log p took the idle ratio from 0.7 at 4
        workers to 1e-5 at 64. With more values the bend stays, and the splits that
        train on fewer are its check (:func:`~probperf.models.laws.law_weights` does not leave it out there).
        The same goes for a free extra shape in n, ``power+loglog(n)`` and ``c+b^n``
        (:data:`~probperf.models.laws.CHECKED_SHAPES`). Off by default, because for time modelled
        directly unchecked curvature forward-validates better (0.297 against 0.183
        over the 21 time-only training sets with it on,
        results/choose_laws_time_only_chkfix.md); the DAG model turns it on for its
        parts (:data:`probperf.dag.PART_CHECKED_CURVATURE`).
    seed : int
        Seed of the draws.

    Attributes
    ----------
    weights_ : dict
        Law name -> weight (those kept): stacking and evidence weights blended by
        ``weightings_``.
    scores_ : dict
        Law name -> mean held-out log density over the forward splits (``None`` when it
        could not be fitted on every one of them, and for every law when stacking is not in the blend:
        ``weighting="evidence"``, or a stacking share below MIN_WEIGHT); the
        evidence behind the stacking weights.
    weightings_ : dict
        Law weighting -> its share in ``weights_`` (:data:`~probperf.models.laws.WEIGHTINGS`; one entry
        unless the weightings are blended). Missing in model files saved before it.
    discrepancy_ : numpy.ndarray
        Rows ``(power, rate, weight)`` (:func:`~probperf.models.discrepancy.discrepancy_growths`), one per law
        weighting and growth form: a draw adds a log-scale spread of
        ``rate * d ** power`` at a distance of d beyond the data (in training spans or
        doublings: ``distance_per_span_``), under
        one row picked with its weight (no rows when not learnt). The row is picked
        independently of the draw's law: an approximation of the nested validation's
        model, where each weighting's mixture has its own rate; the whole, as it draws,
        is what benchmarks/choose_laws.py validated (drawing them paired scored lower:
        :data:`~probperf.models.laws.WEIGHTINGS`' comment).
    ranges_ : dict
        Training range and number of distinct values of each parameter.
    kind_ranges_ : dict
        The same for the serial (p = 1) and the parallel runs (p > 1), when the runs
        hold both (:func:`probperf.selection.kind_ranges`; {} otherwise and in model
        files saved before it): a point's distance beyond the data is also its distance
        beyond its own kind's runs.
    relations_ : dict
        Each varying parameter that the others make in every training run (``ppn`` next
        to ``p`` and ``nnodes``, a copy of ``n``): the laws leave it out, so a point must
        keep the relation (:func:`~probperf.models.points.check_points`); name -> ``{"kind", "terms", "coef"}``,
        its log (``kind`` "log") or value ("lin") as an affine function (intercept
        first in ``coef``) of the kept parameters' law ``terms``.
    directions_ : list of str
        The parameters the distance beyond the data counts: those no others make
        (:func:`probperf.selection.distance_directions`).
    noise_ : NoiseProfile or None
        The runs' noise profile (:func:`probperf.models.noise.fit`), None without one:
        every law's run-to-run spread at a point is its own scale over the root of the
        profile's weight there.
    distance_per_span_ : bool
        Whether the distance beyond the data is counted in training spans (else in
        doublings), as the fit's growth had it.

    Examples
    --------
    Work ``n log2 n / p`` with 3 % noise, sizes 2^8..2^12 on 1-8 workers, predicted at
    16x the largest size on 32 workers:

    >>> rng = np.random.default_rng(0)
    >>> n = np.repeat(2.0 ** np.arange(8, 13), 4)
    >>> p = np.tile([1.0, 2.0, 4.0, 8.0], 5)
    >>> y = n * np.log2(n) / p * np.exp(0.03 * rng.standard_normal(len(n)))
    >>> model = LawMixture().fit(np.c_[n, p], y, features=["n", "p"])
    >>> pred = model.predict({"n": [2.0**16], "p": [32.0]})
    >>> truth = 2.0**16 * 16 / 32
    >>> lo, hi = pred.interval(0.9)
    >>> bool(lo[0] < truth < hi[0]), round(float(pred.median[0]) / truth, 1)
    (True, 1.0)
    """

    def __init__(self, guard: bool = True, discrepancy: bool = True, one_worker_level: bool = False,
                 residual_gp: bool | None = None, weighting: str | None = None, growth=None,
                 checked_curvature: bool = False, lower_order: bool | None = None,
                 noise_profile: bool | None = None, affine_power: bool | None = None,
                 saturating: bool | None = None, bounded_in_size: bool = False, seed: int = 0,
                 n_draws: int = 1000):
        self.guard = guard
        self.bounded_in_size = bounded_in_size
        self.saturating = saturating
        self.affine_power = affine_power
        self.noise_profile = noise_profile
        self.checked_curvature = checked_curvature
        self.lower_order = lower_order
        self.growth = growth
        self.discrepancy = discrepancy
        self.one_worker_level = one_worker_level
        self.residual_gp = residual_gp
        self.weighting = weighting
        self.seed = seed
        self.n_draws = n_draws

    def _fit(self, X, y):
        # decided once for the whole mixture, on all its runs: the laws weighed on the
        # forward splits are the laws that predict (with residual.MAX_ROWS applied to
        # each split's rows alone, a large table's weights would come from GP laws
        # and its predictions from laws without)
        wanted = laws.RESIDUAL_GP if self.residual_gp is None else bool(self.residual_gp)
        columns = ()
        if wanted and residual.settings(X) <= residual.MAX_ROWS:  # the varying parameters no other two make
            distinct = {c: len(np.unique(X[:, i])) for i, c in enumerate(self.features_)}
            columns = tuple(self.features_.index(t[1]) for t in power_terms(X, self.features_, distinct))
        # checked before any context is set: a refusal leaves none behind
        growth, checked_curvature = self._growth(), bool(self.checked_curvature)
        lower_order = laws.LOWER_ORDER if self.lower_order is None else bool(self.lower_order)
        context = laws.law_context(
            columns, checked_curvature, lower_order,
            laws.AFFINE_POWER if self.affine_power is None else bool(self.affine_power),
            laws.SATURATING if self.saturating is None else bool(self.saturating), self.bounded_in_size)
        try:
            with context, disc.growth_context(growth), rowsets.sharing():
                self.distance_per_span_ = bool(disc.growth_setting()[0])
                self._fit_laws(X, y)
        finally:
            residual.forget()

    def _check_values(self, X, y) -> None:
        """Refuse values a law on the log scale cannot fit, naming the first."""
        if np.any(y <= 0):
            i = int(np.argmax(y <= 0))
            at = ", ".join(f"{c}={v:g}" for c, v in zip(self.features_, X[i]))
            raise ValueError(f"{self.target_ or 'the metric'} is {y[i]:g} in {int(np.sum(y <= 0))} of {len(y)} runs "
                             f"(first: {at}), but a law on the log scale needs positive values: fit it with "
                             "a GP kernel (--kernel matern52), or without those runs")
        if np.any(y < VALUE_RANGE[0]) or np.any(y > VALUE_RANGE[1]):
            raise ValueError(f"{self.target_ or 'the metric'} has values beyond {VALUE_RANGE[0]:g}..{VALUE_RANGE[1]:g} "
                             f"(min {np.min(y):g}, max {np.max(y):g}); give it in another unit")

    def _growth(self):
        """The mixture's own ``growth``, checked: a distance power and a rate prior mean
        the nested splits can use (a mean of 0: no prior, the best rate)."""
        if self.growth is None:
            return None
        try:
            per_span, power, mean = self.growth
            ok = isinstance(per_span, (bool, np.bool_)) and float(power) > 0 and float(mean) >= 0
            ok = ok and bool(np.isfinite([power, mean]).all())
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"growth must be (per_span True/False, power > 0, prior mean >= 0), not {self.growth!r}")
        return bool(per_span), float(power), float(mean)

    def _weightings(self) -> tuple:
        """The law weightings this mixture blends (:data:`~probperf.models.laws.WEIGHTINGS`)."""
        weighting = laws.WEIGHTING if self.weighting is None else self.weighting
        if weighting not in laws.WEIGHTINGS:
            raise ValueError(f"weighting must be one of {', '.join(laws.WEIGHTINGS)}, not {weighting!r}")
        return laws.WEIGHTINGS[weighting]

    def _discrepancy(self, cands, X, logy, precision, weightings):
        """The discrepancy rows and weightings' probabilities (:func:`~probperf.models.discrepancy.discrepancy_growths`)
        and the noise profile ``noise_``: kept only where the runs earn one
        (:func:`probperf.models.noise.fit`) and the nested forward splits, each with the
        profile of its own training rows, have a higher marginal likelihood with it
        than without (equal prior odds). Why the nested splits judge: they are the runs
        held out from everything the mixture chose, the same evidence that sets its
        widening; a profile from the residuals alone (BIC) also fits where it then
        predicts worse (session 26, results/choose_laws_time_only_het.md)."""
        names = self.features_
        profiled = laws.NOISE_PROFILE if self.noise_profile is None else bool(self.noise_profile)
        self.noise_ = noise_profile.fit(X, names, logy, self.directions_) if profiled else None
        rows, probs, without = disc.growth_rows(disc.nested_predictives(cands, X, names, logy, precision, weightings), weightings)
        if self.noise_ is not None:
            parts = disc.nested_predictives(cands, X, names, logy, precision, weightings, profiled=True)
            rows_with, probs_with, with_profile = disc.growth_rows(parts, weightings)
            if with_profile > without:
                return rows_with, probs_with
            self.noise_ = None
        return rows, probs

    def _fit_laws(self, X, y):
        self._check_values(X, y)
        names, logy = self.features_, np.log(y)
        self.ranges_, self.kind_ranges_ = training_ranges(X, names), kind_ranges(X, names)
        self.relations_ = relations(X, names)
        self.directions_ = distance_directions(X, names)
        cands = candidate_laws(X, names, one_worker=self.one_worker_level)
        if not cands:
            raise ValueError(too_few_runs(len(y), self.target_ or "the metric"))
        precision = noise_weights(y, resolution(y))
        weightings = self._weightings()
        if self.discrepancy:
            self.discrepancy_, probs = self._discrepancy(cands, X, logy, precision, weightings)
        else:  # no nested splits to judge a noise profile by: none
            self.noise_, self.discrepancy_, probs = None, np.zeros((0, 3)), {weightings[0]: 1.0}
        if self.noise_ is not None:
            precision = precision * self.noise_.weights(X)
        self.weightings_ = {k: float(prob) for k, prob in probs.items()}
        by, self.scores_ = {}, dict.fromkeys(cands)
        for k, prob in probs.items():
            if prob >= MIN_WEIGHT:
                by[k], scores = law_weights(cands, X, names, logy, precision, weighting=k)
                self.scores_ = scores if k == "stacking" else self.scores_
        weights = {name: sum(probs[k] * by_k[name] for k, by_k in by.items()) for name in cands}
        self.laws_ = {}
        for name, weight in weights.items():
            if weight >= MIN_WEIGHT:
                try:
                    self.laws_[name] = fitted_law(cands[name], X, names, logy, precision)
                except REFUSALS:
                    continue  # an affine law whose coefficients turn negative on all runs
        if not self.laws_:
            name = next(iter(cands))
            self.laws_, weights = {name: fitted_law(cands[name], X, names, logy, precision)}, {name: 1.0}
        total = sum(weights[k] for k in self.laws_)
        self.weights_ = {k: weights[k] / total for k in self.laws_}

    def _noise_weights(self, X):
        """The noise profile's precision weights at the rows of ``X`` (None without one)."""
        return None if self.noise_ is None else self.noise_.weights(X)

    def draws_pointwise(self) -> bool:
        """Whether no law carries a residual GP, whose joint draw mixes its deviates over
        the points asked (see :meth:`~probperf.models.base.MetricModel.draws_pointwise`).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> n, p = np.repeat([64.0, 128.0, 256.0, 512.0, 1024.0], 2), np.tile([1.0, 2.0], 5)
        >>> y = n / p * np.exp(0.02 * rng.standard_normal(10))
        >>> [LawMixture(residual_gp=g).fit(np.c_[n, p], y).draws_pointwise() for g in (False, True)]
        [True, False]
        """
        self._check_fitted()
        return all(getattr(law, "residual", None) is None for law in self.laws_.values())

    def _predict_draws(self, X, n_draws, seed, noise=True):
        if self.guard:  # off in a DAG model's parts, which are fitted on subsets of its runs
            check_points(X, self.features_, self.ranges_, self.relations_)
            check_extrapolation(X, self.features_, self.ranges_)
        rows, edges = self._size_edges(X)
        if rows is None:
            out = self._held_draws(X, n_draws, seed, noise)
        else:  # no slower than at the smallest training size (laws.SMALLER_NO_SLOWER)
            # each edge takes its point's run-to-run deviate: the cap compares the two
            # curves, not two noises (the smaller of two noises is biased low: helper-81)
            ties = np.concatenate([np.arange(len(X)), rows])
            joint = self._held_draws(np.vstack([X, edges]), n_draws, seed, noise, ties)
            out = joint[:, :len(X)].copy()
            out[:, rows] = np.minimum(out[:, rows], joint[:, len(X):])
        # beyond float range a draw is inf, not a silent cap: predict then refuses it
        with np.errstate(over="ignore"):
            return np.exp(np.maximum(out, -700.0))

    def _size_edges(self, X) -> tuple:
        """``(rows, edges)``: the rows of ``X`` below the smallest training size ``n``
        (:func:`~probperf.models.points.size_floor`) and those rows with ``n`` set to
        it; ``(None, None)`` where the hold does not act there (also a metric other than
        time, a DAG model's part, no row below).

        Examples
        --------
        >>> n, p = np.repeat(2.0 ** np.arange(8, 13), 2), np.tile([1.0, 2.0], 5)
        >>> mix = LawMixture().fit(np.c_[n, p], 1e-6 * n / p, features=["n", "p"], target="time")
        >>> rows, edges = mix._size_edges(np.array([[16.0, 2.0], [512.0, 2.0]]))
        >>> rows.tolist(), edges.tolist()
        ([0], [[256.0, 2.0]])
        """
        from .points import size_floor

        floor = size_floor(self.ranges_, self.relations_) if self.guard and self.target_ == "time" else None
        if floor is None:
            return None, None
        i = self.features_.index("n")
        rows = np.flatnonzero(X[:, i] < floor)
        if not len(rows):
            return None, None
        edges = X[rows].copy()
        edges[:, i] = floor
        return rows, edges

    def _held_draws(self, X, n_draws, seed, noise, ties=None) -> np.ndarray:
        """Joint draws of log time at ``X``: the laws', widened beyond the data, held at
        a linear speed-up beyond the workers (:meth:`_speedup_edges`); ``ties``: for
        each row of ``X``, the row whose run-to-run deviate it takes (None: its own)."""
        rows, edges, ratio = self._speedup_edges(X)
        joint = X if rows is None else np.vstack([X, edges])  # a point and its edge in one joint draw
        if ties is not None and rows is not None:  # a speed-up edge keeps its own noise (laws: TIED_SPEEDUP_NOISE)
            ties = np.concatenate([ties, np.arange(len(X), len(joint))])
        rng = np.random.default_rng(seed)
        out = self._law_draws(joint, n_draws, rng, seed, noise, ties)
        spread = np.zeros((1, len(joint)))
        if widens(self):
            # one deviate per draw, shared by its points: the laws' error beyond the
            # data is smooth, not noise (a draw stays one curve); one growth form per draw
            z = rng.standard_normal((n_draws, 1)) * _factors(n_draws)
            power, rate, weight = self.discrepancy_.T
            form = rng.choice(len(rate), size=n_draws, p=weight / weight.sum())
            d = doublings_beyond(joint, self.features_, self.ranges_, per_span=self.distance_per_span_,
                                 directions=self.directions_, kinds=self.kind_ranges_)
            spread = rate[form, None] * d[None, :] ** power[form, None] * z
            out = out + spread
        if rows is not None:  # no faster than a linear speed-up from the edge (laws.LINEAR_SPEEDUP_BEYOND)
            held = out[:, len(X):] + np.log(ratio)[None, :]
            if laws.HELD_WIDENING:  # a held draw keeps the point's widening above the edge's
                held = held + np.maximum(0.0, spread[:, rows] - spread[:, len(X):])
            out = out[:, :len(X)].copy()
            out[:, rows] = np.maximum(out[:, rows], held)
        return out

    def _speedup_edges(self, X) -> tuple:
        """``(rows, edges, P / p)``: the rows of ``X`` beyond the largest training worker
        count ``P``, those rows with ``p`` set to ``P``, and the linear speed-up's factor
        from there; ``(None, None, None)`` where :data:`~probperf.models.laws.LINEAR_SPEEDUP_BEYOND`
        does not act (off, a metric other than time, a DAG model's part, ``p`` not a
        parameter, made of others without :data:`~probperf.models.laws.LINEAR_SPEEDUP_TIED`,
        no row beyond); where ``p`` is made of others, :meth:`_tied_edges`'.

        Examples
        --------
        >>> n, p = np.repeat(2.0 ** np.arange(8, 13), 4), np.tile([1.0, 2.0, 4.0, 8.0], 5)
        >>> mix = LawMixture().fit(np.c_[n, p], 1e-6 * n / p, features=["n", "p"], target="time")
        >>> saved, laws.LINEAR_SPEEDUP_BEYOND = laws.LINEAR_SPEEDUP_BEYOND, True
        >>> rows, edges, ratio = mix._speedup_edges(np.array([[4096.0, 4.0], [4096.0, 32.0]]))
        >>> laws.LINEAR_SPEEDUP_BEYOND = saved
        >>> rows.tolist(), edges.tolist(), ratio.tolist()
        ([1], [[4096.0, 8.0]], [0.25])
        """
        from .points import worker_factors

        none = (None, None, None)
        if not (laws.LINEAR_SPEEDUP_BEYOND and self.guard and self.target_ == "time" and "p" in self.features_):
            return none
        tied = worker_factors(self.relations_)
        if tied and not laws.LINEAR_SPEEDUP_TIED:
            return none
        i = self.features_.index("p")
        if tied:
            return self._tied_edges(X, i)
        top = self.ranges_["p"][1]
        rows = np.flatnonzero(X[:, i] > top)
        if not len(rows):
            return none
        edges = X[rows].copy()
        edges[:, i] = top
        return rows, edges, top / X[rows, i]

    def _tied_edges(self, X, i: int) -> tuple:
        """:meth:`_speedup_edges` where ``p`` is made of other parameters: the rows with
        a factor above its training range, each with every such factor clipped to the
        range's top and ``p`` worked out from the relations there
        (:func:`~probperf.models.points.worker_edges`).

        Examples
        --------
        >>> nodes, ppn = np.repeat([1.0, 2.0, 4.0], 6), np.tile([4.0, 8.0, 16.0], 6)
        >>> n = np.tile(np.repeat([1e5, 1e6], 3), 3)
        >>> X = np.c_[n, nodes, ppn, nodes * ppn]
        >>> mix = LawMixture().fit(X, n / X[:, 3], features=["n", "nnodes", "ppn", "p"], target="time")
        >>> rows, edges, ratio = mix._tied_edges(np.array([[1e6, 2.0, 8.0, 16.0], [1e6, 32.0, 8.0, 256.0]]), 3)
        >>> rows.tolist(), edges.tolist(), ratio.tolist()
        ([1], [[1000000.0, 4.0, 8.0, 32.0]], [0.125])
        """
        import pandas as pd

        from .points import worker_edges

        rows, edges = worker_edges(pd.DataFrame(X, columns=self.features_), self.ranges_, self.relations_)
        if not len(rows):
            return None, None, None
        edges = edges[self.features_].to_numpy(dtype=np.float64)
        return rows, edges, edges[:, i] / X[rows, i]

    def _law_draws(self, X, n_draws, rng, seed, noise, ties=None) -> np.ndarray:
        """Each draw's law, then its draw at ``X`` (log scale), from ``rng`` (a fresh
        generator of ``seed``); ``ties`` as in :meth:`_held_draws`; inside
        :func:`law_draws_kept`, once per arguments."""
        kept = _KEPT_DRAWS.get() if seed is not None else None
        tied = None if ties is None else tuple(int(t) for t in ties)
        key = (id(self), rowsets.digest(X), n_draws, seed, noise, tied) if kept is not None else None
        hit = kept.get(key) if kept is not None else None
        if hit is not None:  # the entry holds the mixture, so its id is not another's
            rng.bit_generator.state = hit[2]  # where the draws left it: the rest is the same
            return hit[1]
        names = sorted(self.weights_)  # a saved model's dicts may come back in another order
        which = rng.choice(len(names), size=n_draws, p=np.array([self.weights_[k] for k in names]))
        out = np.empty((n_draws, len(X)))
        w = self._noise_weights(X)
        with laws.tied_noise(ties):
            for k, name in enumerate(names):
                rows = np.flatnonzero(which == k)
                if len(rows):
                    out[rows] = self.laws_[name].draws(X, self.features_, len(rows), rng, noise, w)
        if kept is not None:
            out.flags.writeable = False
            kept[key] = (self, out, rng.bit_generator.state)
        return out

    def explain(self, X, level: float = 0.9, n_draws: int | None = None, seed: int = 0):
        """Why the prediction is what it is: at each point of ``X``, every kept law's own
        prediction (median and central ``level`` interval of its draws, run-to-run
        noise included, without the discrepancy beyond the data) with its
        weight, then the mixture's (weight 1, discrepancy included). Where the laws'
        medians part, the mixture is wide because they disagree; where they agree and
        the mixture is still wide, the width is the learnt discrepancy.

        Examples
        --------
        >>> n = 2.0 ** np.arange(6, 12)
        >>> mix = LawMixture().fit(n[:, None], 1e-6 * n**2, features=["n"])
        >>> table = mix.explain({"n": [2.0**14]})
        >>> bool(table["weight"].iloc[:-1].sum().round(6) == 1), table["law"].iloc[-1]
        (True, 'mixture')
        >>> float(table.loc[table["law"] == "n^2", "median"].iloc[0] / (1e-6 * 2.0**28)).__round__(3)
        1.0
        """
        import pandas as pd

        from ..limits import draw_count
        from .base import as_points

        self._check_fitted()
        points = as_points(X, self.features_)
        Xa = points.to_numpy(dtype=np.float64)
        S = draw_count(n_draws, self.n_draws)
        rng = np.random.default_rng(seed)
        tail = (1 - level) / 2
        rows = []
        w = self._noise_weights(Xa)
        for name in sorted(self.weights_, key=self.weights_.get, reverse=True):
            draws = np.exp(self.laws_[name].draws(Xa, self.features_, S, rng, True, w))
            rows.append((readable(self.laws_[name].label(name)), self.weights_[name], draws))
        rows.append(("mixture", 1.0, self._predict_draws(Xa, S, seed)))
        out = []
        for i, point in enumerate(points.to_dict("records")):
            for name, weight, draws in rows:
                lo, med, hi = np.quantile(draws[:, i], [tail, 0.5, 1 - tail])
                out.append({**point, "law": name, "weight": weight, "median": med, "lower": lo, "upper": hi})
        table = pd.DataFrame(out)
        table.attrs["weightings"] = dict(getattr(self, "weightings_", {}))
        if self.noise_ is not None:  # the run-to-run spread at each point, relative to the runs' typical one
            table.attrs["noise"] = {"over": [self.features_[c] for c in self.noise_.columns],
                                    "spread": (1.0 / np.sqrt(w)).tolist()}
        return table

    _fitted = ("ranges_", "kind_ranges_", "relations_", "directions_", "scores_", "weights_", "laws_", "discrepancy_", "weightings_",
               "distance_per_span_", "noise_")

    def _loaded(self) -> None:
        rows = np.asarray(self.discrepancy_, dtype=np.float64)
        # rows (power, rate, weight), as fitted: another shape was reshaped into rows of
        # wrong fields and predicted (a transposed table changed the draws beyond the data)
        if rows.ndim != 2 or rows.shape[1] != 3 or not np.all(np.isfinite(rows)) or np.any(rows[:, 0] <= 0) \
                or np.any(rows[:, 1:] < 0) or (len(rows) and not rows[:, 2].sum() > 0):
            raise persist.ModelFileError(f"discrepancy_ of shape {rows.shape} is not rows of (power > 0, rate >= 0, "
                                         "weight >= 0); re-fit the model")
        self.discrepancy_ = rows
        self.weights_ = {k: float(v) for k, v in self.weights_.items()}
        if set(self.laws_) != set(self.weights_):
            raise persist.ModelFileError("law weights and laws disagree; re-fit the model")
        self.noise_ = getattr(self, "noise_", None)  # a file written before noise profiles: none, as then
        self.kind_ranges_ = getattr(self, "kind_ranges_", {})  # a file written before them: the whole box, as then
        if self.noise_ is not None and not isinstance(self.noise_, noise_profile.NoiseProfile):
            raise persist.ModelFileError("noise profile is not a NoiseProfile; re-fit the model")


__all__ = ["LawMixture", "widens", "too_few_runs", "discrepancy_factors", "law_draws_kept"]
