"""DagModel: the 2016 paper's two-step model, made probabilistic.

The intermediate metric models are wired as in docs/concepts.md::

    T1'(n)                    serial work (work of a one-worker run)
    T1(n,p)    = T1'(n) (b0 + a1 (p-1)/p + a2 (p-1))               work inflation
    create_task(n), wait_tasks(n)                                  task counts
    delay(n,p) = create_task(n) (c1 + c2 (p-1) + c3 (p-1)/p)
               + wait_tasks(n)  (c4 + c5 (p-1) + c6 (p-1)/p)
    no_work(n,p) = sum f (p-1)^j n^k log^l n                       idle time
    time(n,p)  = (T1 + delay + no_work) / p                        identity (1)

Each box is a :class:`~probperf.models.BayesianBasisRegression` (``"basis"``) or a
:class:`~probperf.models.GaussianProcessModel` (a kernel spec). Prediction is done
per joint draw ``s``: the draw ``s`` of ``create_task`` builds the design of draw ``s``
of ``delay``, the draw ``s`` of ``T1'`` feeds draw ``s`` of ``T1``, and ``time`` is
computed from draw ``s`` of every term, so the identity holds per draw and the
intervals carry the uncertainty of every step.

Quantities that feed another model (``T1'``, task counts, critical path) are drawn
*without* observation noise: the run-to-run noise of a one-worker run is not part of
the 36-worker run being predicted. ``work``, ``delay`` and ``no_work`` are drawn with
their own noise, so ``time`` draws are draws of a new run.

With a GP, the structure is kept through ratios: the GP for ``work`` models
``work / T1'`` and the GP for ``delay`` models ``delay / (create_task + wait_tasks)``
over ``(n, p, config)``, multiplied by the draws of the quantities they depend on.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from . import cautions, parallel, persist, progress, unmeasured
from .components import BY_NAME, WIRING, Features
from .data import COUNT_METRICS, DAG_METRICS, Measurements, one_setting, one_worker_baseline
from .designs import delay_design, no_work_design, work_design  # noqa: F401  (public here too)
from .limits import draw_count
from .models import specs
from .models.base import TableModel
from .models.laws import INFLATION, STEAL
from .models.mixture import widens
from .models.points import relations
from .predict import Predictive, _quantiles, _whole_columns, check_level, point_positions, whole_number
from .selection import (choose_by_forward_error, discrepancy_rates, discrepancy_scale, extrapolation_distance,
                        forward_error, forward_regions, widen)
from .selection import forward_cuts  # noqa: F401  (public here too)

#: DAG metrics DagModel needs in the training data.
REQUIRED = DAG_METRICS

#: Intermediate models, in the order they are drawn (declared in
#: :data:`probperf.components.WIRING`).
COMPONENTS = tuple(c.name for c in WIRING)
#: The components in the order their seeds are spawned (:func:`component_seeds`): fixed,
#: so that drawing them in another order (SPAN_INFLATED put the work before the span)
#: leaves every seed, and so every draw, as it was.
SEEDED = ("serial_work", "create_task", "wait_tasks", "critical_path", "work", "delay", "no_work")

#: Spec of the single-law choice among :func:`auto_candidates` by forward validation
#: inside the training data (see :meth:`DagModel._choose`); opt-in.
AUTO_SPEC = specs.AUTO
#: Default spec of every component: a stacked mixture of closed-form laws
#: (:class:`~probperf.models.LawMixture`; the spec ``probperf.models.LAWS_SPEC``).
DEFAULT_MODELS = {c: "laws" for c in COMPONENTS}

def auto_candidates(component: str, config_varies: bool) -> list[str]:
    """Specs the ``"auto"`` choice tries for ``component``, in order of preference
    (a tie keeps the earlier one); declared with the component
    (:data:`probperf.components.WIRING`, which says why this order).

    Size-only metrics: the paper's basis regression (only when no configuration
    parameter varies), a Matérn-5/2 GP around a power law and one around an exponential
    law in ``n``. The worker-dependent metrics: a Matérn-5/2 GP (of ``work / T1'``,
    ``delay`` per task, ``no_work``), then the paper's design regression (for delay
    first without, then with the per-task growth with ``p``, see :func:`delay_design`).

    Examples
    --------
    >>> auto_candidates("serial_work", config_varies=False)
    ['basis', 'matern52', 'exp:matern52']
    >>> auto_candidates("delay", config_varies=True)
    ['matern52', 'basis-steal', 'basis']
    """
    return BY_NAME[component].candidates(config_varies)


DEFAULT_DRAWS = 1000

#: Default floor on the model-discrepancy rates per doubling beyond the data (see
#: DagModel's ``discrepancy``).
DISCREPANCY = 0.04

#: The two parts of ``p * time`` that get their own discrepancy factor: the work, and the
#: overhead ``delay + no_work`` (see :func:`probperf.selection.discrepancy_rates`).
DISCREPANCY_PARTS = ("work", "overhead")

#: Whether the law-mixture parts learn their own discrepancy rate
#: (:func:`probperf.models.discrepancy.discrepancy_rate`). On: nested forward validation on
#: the training rows of the 21 published, real and simulated sets scores it higher since the rate is a posterior under
#: an empirical-Bayes prior (benchmarks/choose_laws.py, results/choose_laws.md:
#: "pmnf+disc+parts" -0.052 against -0.347 without, mean cov90 0.92 against 0.84,
#: with the spread growing as the square root of the doublings; -0.002 and cov90 0.89
#: growing linearly in training spans, then the default, "pmnf+disc+parts-span"; now the
#: square of the spans, PART_GROWTH). It had
#: scored lower while the rate was the nested splits' best value, growing linearly in
#: doublings. (The parts' independent factors move the median of their sum upwards a
#: little: the median of a sum of log-normals exceeds the sum of their medians.)
PART_DISCREPANCY = True

#: Default of ``DagModel(scale_discrepancy=None)``: multiply all parts' discrepancy
#: rates by one factor per draw, drawn from a posterior learnt from held-out *time*
#: inside the training data (:func:`probperf.selection.discrepancy_scale`). Why: the
#: parts' rates are learnt each on its own curve, and their independent widenings
#: compound through the identity (and move the median of the sum upwards); only time
#: held out can say how wide time should be. Chosen by nested forward validation on
#: training rows only (benchmarks/choose_laws.py, 14 simulated training sets):
#: ``pmnf+disc+parts-span+scale`` mean log score 0.239 against 0.226 without and 0.198
#: with a grid symmetric about 1 (``+scalesym``); better on 9 cases, worse on 5. The
#: margin is small because the nested training sets are small: the factor is learnt
#: only where 3 sizes and 3 worker counts remain below a cut. Learnt on three cuts
#: (:data:`probperf.selection.SCALE_CUTS`) it scores 0.307, the default
#: (results/choose_laws_scale3.md). (Candour: prompted by
#: the simulator's test-split intervals being 2-5x too wide; a first run that seemed
#: to give 0.655 had dropped the outer splits whose sub-fit failed, which
#: choose_laws.py now counts.)
SCALE_PARTS = True

#: Whether the parts' law mixtures also weigh laws with their own level at one worker
#: (:class:`probperf.models.mixture.LawMixture`'s ``one_worker_level``). Why: a
#: one-worker run has no one to steal from or contend with, so the per-task delay jumps
#: between one and two workers (6x on the simulator's farm) and then grows smoothly;
#: one power of p through p = 1 bends the law, and the forward splits then learn a
#: large discrepancy rate from the bend. Chosen by nested forward validation on the
#: 14 simulated training sets, by a rule fixed before the run (adopt if the mean log
#: score is higher with no more failed splits): 0.447 against 0.307 without, better on
#: sparselu (-0.63 -> 0.17 on A) and farm, within 0.04 elsewhere
#: (``python benchmarks/choose_laws.py --only sim --variants
#: pmnf+disc+parts-span+scale3,pmnf+disc+parts-span+scale3+one``, results/choose_laws_one.md).
#: (Candour: the idea came from diagnostics that included the simulator's test split:
#: which part made the test intervals wide, and a delay law fitted without the
#: one-worker runs scored at the test points. The law's form is first principles and
#: the choice was made on training rows only; on the test split the change then
#: lowered coverage, results/bench_accuracy.md, and it was kept.)
ONE_WORKER_LEVEL = True

#: Whether the parts' law mixtures give each law a GP on its residuals (LawMixture's
#: ``residual_gp``; on for time modelled directly, :data:`probperf.models.laws.RESIDUAL_GP`).
#: Off: nested forward validation on the 14 simulated training sets scores 0.458 with
#: it against 0.481 without (benchmarks/choose_laws.py --only sim, ``+partgp``,
#: results/choose_laws_partgp.md; worse on sort/A and sparselu/A, better on
#: strassen, fib/B and nqueens). A part's residuals are its own curve's, and the
#: discrepancy scale learnt from held-out time already widens the parts where their
#: sum misses; a GP that follows each part's last runs moves the sum's median.
PART_RESIDUAL_GP = False

#: How the parts' law mixtures weigh their laws (LawMixture's ``weighting``,
#: :data:`probperf.models.laws.WEIGHTINGS`): stacking and Bayesian model averaging,
#: each weighed by the part's own nested forward splits (see
#: :data:`probperf.models.laws.WEIGHTING` for why). Nested forward validation on the 14
#: simulated training sets (benchmarks/choose_laws.py --only sim, results/choose_laws_wavg.md):
#: 0.515 averaged, 0.481 stacking (the direct time mixture averaged in both runs; it
#: scores 0.481 either way); the evidence alone, in the parts and the direct mixture,
#: 0.460 (results/choose_laws_bma.md).
PART_WEIGHTING = "averaged"

#: How the parts' discrepancy grows beyond the data (LawMixture's ``growth``,
#: ``(per_span, power, prior mean)``; None: the law module's constants, those of time
#: modelled directly): since session 39 as the *square* of the training spans, prior
#: mean 0.251 (the registered experiment below); before, linearly in training spans,
#: whose history follows. The nested validation on the
#: 14 simulated training sets kept spans when the prior mean was 0.282 (0.525 against 0.478
#: in doublings with 0.100, the time-only empirical Bayes since the affine exponential
#: law; see probperf.models.discrepancy.DISTANCE_PER_SPAN). The mean is the span form's
#: empirical Bayes optimum over the time-only training sets: 0.282 under the summed
#: distance, 0.178 under the Euclidean one (probperf.selection.DISTANCE_NORM;
#: results/choose_rate_prior_l2.md), re-decided by a rule fixed before the runs
#: (higher on the simulated sets of seed 0, not lower on seed 1): 0.722 against 0.647
#: and 0.697 against 0.630 (benchmarks/choose_laws.py ``+partspanl2``;
#: results/choose_laws_partspanl2.md, choose_laws_partspanl2_seed1.md). The parts'
#: own empirical Bayes (``choose_rate_prior.py --parts``, over the 98 part mixtures of
#: the 14 simulated training sets) prefers doublings with 0.018
#: (results/choose_rate_prior_parts.md); it tied, 0.722 against 0.722 with 90 %
#: coverage 0.85 against 0.90 (``+partdbleb``, results/choose_laws_partdbleb.md), and the
#: rule fixed before the run asked for a higher score: not adopted. On session 24's
#: pool of 23 time-only training sets (with the ExaFMM and AMG training rows and the
#: Master theorem's shapes) the span form's optimum moved to 0.158
#: (results/choose_rate_prior_session24.md), adopted by the same rule: 0.740 against
#: 0.724 on seed 0 and 0.707 against 0.698 on seed 1 (``+partspanl2b``;
#: results/choose_laws_partspanl2b.md, choose_laws_partspanl2b_seed1.md). Session 39: as
#: the square of the spans, with the square's own empirical Bayes prior mean (below).
PART_GROWTH = (True, 2.0, 0.251)

# Session 39's registered experiment, adopted: PART_GROWTH with power 2, the parts'
# discrepancy growing as the square of the training spans beyond the data, ``rate * d ** 2``. Why
# (first principles): the growth forms weighed so far are a law whose exponent is off
# (linear in log x) and a drift that wanders (its square root); a law whose *curvature*
# in log x is off (a bend, an overhead that the training workers do not yet show) drifts
# quadratically, less than linear within one span, more beyond. Procedure, fixed before
# any run: (1) its prior mean is the empirical Bayes optimum of the square in spans over
# the same 23-set time-only pool that gave 0.158 for the linear form (``python
# benchmarks/choose_rate_prior.py`` with 2 added to its POWERS; training rows only);
# (2) adopted if nested forward validation on the 14 simulated training sets (``python
# benchmarks/choose_laws.py --only sim``, suffix ``+partspanq`` in place of
# ``+partspanl2b``) scores a higher mean log score than the default on seed 0 and not
# lower on seed 1, with no more failed outer splits. Candour: prompted by
# benchmarks/bench_far_workers.py, a report of test points (90 % intervals holding 0.38
# of the points at 8-128x the training workers); nothing from it enters the procedure.
# Registered 2026-11-28 04:49 UTC. Departure from the registration, said here: the
# script's pool had grown to 25 sets since 0.158 was derived on 23 (the published,
# real, further real and simulated training sets it reads today), and the run used it
# as it is; on it the linear form's own optimum is 0.200, which was not compared (the
# rule compared the square against the default, 0.158). Results: (1) 0.251, with a
# summed log marginal of -15.54 against -13.07 for the linear form at 0.200
# (results/choose_rate_prior_session39.md): the time-only pool prefers the linear
# form, which is why time modelled directly keeps its own growth; (2) 0.806 against
# 0.800 on seed 0 and 0.771 against 0.758 on seed 1, no outer split failed
# (results/choose_laws_partspanq.md, choose_laws_partspanq_seed1.md): adopted. The mean
# moves mostly by sparse LU's Dataset B (-0.04 against -0.54 on seed 0, -0.44 against
# -0.90 on seed 1); 7 of the 14 sets score lower on seed 0 (fib/B 0.98 against 1.12,
# fft/A 0.00 against 0.13) and 7 on seed 1.

#: Whether the parts' law mixtures leave out curvature in size or workers that no
#: forward split can check (LawMixture's ``checked_curvature``, where the reason is).
#: Why the parts and not time modelled directly: each part is built to be flat (work
#: per serial work, delay per task, idle time per ``(p - 1) T_inf``; see
#: probperf.components), so a bend fitted exactly through 3 values is an accident.
#: Nested forward validation on the 14 simulated training sets (``+chk``): 0.607 against
#: 0.526 (results/choose_laws_chkfix_ovh.md) and, on the training sets of seed 1, which
#: no earlier choice used, 0.604 against 0.445 (results/choose_laws_chkfix_seed1.md);
#: the rule, fixed before the runs, asked for both. What it buys is robustness: sparse
#: LU's Dataset A goes from -0.74 (seed 0) and -1.32 (seed 1) to about 1.0, and sort's
#: B from -0.23 and -0.48 to about 0.13, while 7 (seed 0) and 6 (seed 1) of the 14 sets
#: score lower, sort/A by 0.43 and 0.22; without sparse LU's A it scores lower on both
#: seeds (0.578 against 0.623, 0.571 against 0.581). (Candour: found by a sweep of our
#: simulator with 1-4 training workers; first adopted, at 0.575 and 0.577, with a bug
#: that kept the bends out of the very forward splits that check them, commit 6818b69;
#: re-decided after the fix.)
PART_CHECKED_CURVATURE = True

#: Whether the parts' law mixtures also weigh the affine laws with a lower-order term
#: (LawMixture's ``lower_order``, :data:`probperf.models.laws.LOWER_ORDER`). Off: the
#: parts are ratios built to be flat (see PART_CHECKED_CURVATURE), not costs with an
#: asymptotic expansion, and nested forward validation of the DAG model on the 14
#: simulated training sets scored the laws lower there, 0.736 against 0.740, and 0.705
#: against 0.707 on seed 1 (``python benchmarks/choose_laws.py --only sim``, suffix
#: ``+lower`` when it still reached the parts; results/choose_laws_lower.md,
#: choose_laws_lower_seed1.md).
PART_LOWER_ORDER = False

#: Whether the parts' law mixtures weigh their runs by a noise profile (LawMixture's
#: ``noise_profile``, :data:`probperf.models.laws.NOISE_PROFILE`). Off, by a rule fixed
#: before the runs (nested forward validation on the 14 simulated training sets: higher
#: on seed 0, not lower on seed 1; ``python benchmarks/choose_laws.py --only sim``, suffix
#: ``+parthet``): 0.736 against 0.740 on seed 0 (fft/A -0.032 against 0.115), 0.718
#: against 0.707 on seed 1 (results/choose_laws_parthet.md, choose_laws_parthet_seed1.md).
PART_NOISE_PROFILE = False

#: Whether the parts' law mixtures also weigh the affine power laws where parameters
#: besides n and p vary (LawMixture's ``affine_power``,
#: :data:`probperf.models.laws.AFFINE_POWER`). Off: the parts are ratios built to be
#: flat in the size, where a constant plus a power law has nothing to add; and by a rule
#: fixed before the run (higher on seed 0, not lower on seed 1; nested forward validation
#: on the 14 simulated training sets, ``python benchmarks/choose_laws.py --only sim``,
#: suffix ``+partaffpow``): 0.674 with them against 0.740 without on seed 0 (sparselu/B
#: -0.778 against -0.444, nqueens/B -0.090 against 0.193, strassen/B 0.772 against
#: 1.076; the sets without a third parameter unchanged), so seed 1 was not run
#: (results/choose_laws_partaffpow.md).
PART_AFFINE_POWER = False

#: Whether the delay part's law mixture (delay per task) also weighs the steal law
#: ``c0 + c1 (p - 1) S`` (:func:`probperf.models.laws._steal_laws`: a fixed cost per task,
#: which one worker pays alone, plus steals, ``O(p T_inf)`` of them, spread over tasks that
#: grow with the size). Prompted by the README's sort runs: their delay per task is flat on
#: one worker and falls with n on more, and the ``quadratic`` law that fits it turns up
#: beyond the sizes (the helper's review of session 37: the median at n=2^24, p=1 is 2.7x
#: the simulated time). Registered 2026-11-28 00:51 UTC, before any run: adopted if nested
#: forward validation on the 14 simulated training sets (``python
#: benchmarks/choose_laws.py --only sim``, suffix ``+steal``) scores higher on seed 0 and not
#: lower on seed 1. Result: 0.781 against 0.800 on seed 0 (sort/A 0.545 against 0.359, but
#: sort/B 0.049 against 0.292, fft/A -0.095 against 0.125, fft/B -0.290 against -0.157;
#: results/choose_laws_steal.md), so seed 1 was not run: rejected, off. On the README's
#: runs the law leaves its one-worker level 35 % below the measured one (a free power of
#: p - 1 cannot follow an excess that grows 13x from 2 to 8 workers at n=2^12 and 44x
#: at 2^16), so where it wins it wins by its shape in n alone.
PART_STEAL_LAW = False

#: Whether the work and delay parts' law mixtures (``work / T1'`` and delay per task)
#: also weigh the 2016 paper's own per-worker law, ``c0 + c1 (p - 1)/p + c2 (p - 1)``,
#: the same at every size (:class:`probperf.models.laws._InflationLaw`; eq. 10 and 12,
#: the form this module's docstring states and ``--kernel basis`` fits). Why: a work
#: inflation linear in the workers (bandwidth contention), fitted on 1-8 workers by the
#: laws there are (powers of p, a curvature in log p, saturating), comes out low at 36
#: workers (session 53's check, noise-free runs of work 2e-8 n log2 n (1 + 0.02 (p - 1)):
#: the DAG model's work 15 % low there, the ratio's heaviest law ``power+curv(p)`` at
#: 99 %; the law's doctest shows the same on the ratio alone), because none of them is
#: the form the paper derives. (Candour, helper-90: on that very check the law, once a
#: candidate, gets no weight: with noise this small the evidence's prior, scaled by the
#: noise, penalises an affine law's unscaled level, as for every affine law, and the
#: forward splits score ``power+curv(p)`` higher; with 2 % noise it gets some, and the
#: work comes out 7 % low. So it is adopted for what nested validation shows, not as the
#: cure of that case.) (Candour: our simulator's work
#: inflation is this form plus a socket term, probperf/sim/machine.py, so its sets may
#: favour the law by construction; the rule below is the one every part switch had.)
#: Registered 2026-11-29 17:37 UTC, before any run: adopted if nested forward validation
#: on the 14 simulated training sets (``python benchmarks/choose_laws.py --only sim``,
#: suffix ``+partinfl``) scores a higher mean log score (3 decimals) on seed 0 and not
#: lower on seed 1. Result: 0.811 against 0.799 on seed 0 (sparse LU's Dataset B 0.323
#: against 0.127; no set lower by more than 0.012, fft/B) and 0.856 against 0.846 on
#: seed 1 (sparse LU's B 0.297 against 0.178; results/choose_laws_partinfl.md,
#: choose_laws_partinfl_seed1.md): adopted, on. After the runs, the law was also refused
#: where both worker terms drop out (left a constant, no law of the workers; a duplicate
#: of the power law's level): a change made after the decision, so its scores on both
#: seeds are in choose_laws.py's session-53 record.
PART_INFLATION_LAW = True

#: Whether the parts' law mixtures also weigh the saturating law ``sat(p-1)``
#: (LawMixture's ``saturating``, :data:`probperf.models.laws.SATURATING`, where the why
#: is): in practice the idle part, the only one fitted on runs with ``p >= 2`` alone.
#: Registered 2026-11-27 about 07:02 UTC, just before the first run (07:05 first written here
#: was a slip: that run finished at 07:05): adopted if nested forward
#: validation on the 14 simulated training sets (``python benchmarks/choose_laws.py
#: --only sim``, suffix ``+partsat``) scores higher on seed 0 and not lower on seed 1.
#: (Prompted by session 28's far-worker check of sort on our simulator, trained on
#: 1-8 workers and predicted at 1024: the idle ratio's power law gave 53 against a
#: simulated 1.75 and the median time 8x high; candour: an earlier session saw the
#: simulator's test splits' ratio grow 5-25x beyond training on farm and sparse LU.)
#: Result: 0.751 against 0.740 on seed 0 (sort/A 0.364 against 0.249, no set lower by
#: more than 0.002) and 0.708 against 0.707 on seed 1 (results/choose_laws_partsat.md,
#: choose_laws_partsat_seed1.md): adopted.
#: Re-checked on the simulator fixed 2026-11-29 (a woken thief searched alone, which
#: inflated idle time and delay at many workers; benchmarks/choose_laws.py's session-52
#: record): the default without it scores 0.797 / 0.840 (seeds 0 / 1) against 0.799 / 0.846: stays.
PART_SATURATING = True

#: Whether the idle part's law mixture (the ratio ``no_work / ((p - 1) T_inf)``, where
#: a span is traced) leaves out the laws that grow like a power of the size: the fixed
#: shapes ``n^j log^k n`` with j > 0 and the affine laws of n (LawMixture's
#: ``bounded_in_size``). Why (first principles): work stealing's expected idle time is
#: at most a constant times ``p T_inf`` whatever the size (Blumofe & Leiserson 1999), and
#: as the size grows the parallelism does and the ratio falls; a law that grows like
#: ``n^3`` can only be a fitting accident, and stacking still gives such laws a share
#: as wide tails, whose draws 64x beyond the sizes put the ratio at 1e9 (session 30's
#: cut-off hunt on sort: a mean time of 3e4 s against a median of 0.067 s). The free
#: power law, curvature and the exponential law keep fitted coefficients (the data
#: decide their direction); the shapes ``log^k n`` (j = 0) stay too, although as fixed
#: shapes they also only grow, if slowly (an inconsistency a review found after the
#: run: the experiment tested leaving out j > 0 only, as registered). Registered
#: 2026-11-27 about 07:47 UTC in this comment, before the run was started (committed
#: with its result):
#: adopted if nested forward validation on the 14 simulated training sets (``python
#: benchmarks/choose_laws.py --only sim``, suffix ``+idlebnd``) scores higher on seed 0
#: and not lower on seed 1. Result: 0.732 against 0.751 on seed 0 (farm/A 1.649 against
#: 1.754, sparselu/B -0.525 against -0.444, fft/A 0.070 against 0.125; sort/B and
#: nqueens/B higher), so seed 1 was not run (results/choose_laws_idlebnd.md): rejected,
#: off. The growing shapes' share is what the forward splits reward on these sets; the
#: heavy tail they give far out is said by predict's caution on the mean.
IDLE_BOUNDED = False

#: Whether, beyond the largest training worker count, a draw's work (per serial work)
#: and delay (per task) are held at least at their values in the same draw at that
#: worker count, same size and configuration. Why (first principles): adding workers
#: adds steal attempts and contention for the same tasks, so the runtime's overhead per
#: task and the work's inflation do not fall; a law that bends down in p beyond the data
#: (a parabola in log p, the "quadratic" law, took strassen's per-task delay from 4e-4
#: at 8 workers to 1e-7 at 1024 in session 30's booking hunt) can only be a fitting
#: accident there. The idle part is left free: its ratio to (p - 1) T_inf need not grow.
#:
#: How: every part is drawn a second time at the points with p set to the largest
#: training count, from the same seeds (:meth:`DagModel._draw_parts`), so that a point
#: and its edge share their coefficients and their run-to-run noise and the hold
#: compares curves, not noises (checked before the run: log(work at p=9 / work at p=8)
#: has sd 0.004 over the draws where each carries 5 % noise, a correlation of 0.996).
#: A part's own widening beyond the data (a law mixture's learnt rate) is in its draws
#: and so under the hold: a draw whose curve it bends below the edge is held too; the
#: DAG model's calibrated widening (``discrepancy_``) comes after the hold. Only parts
#: whose draw at a point does not depend on the other points asked are held
#: (``draws_pointwise``): a GP's joint draw mixes its deviates over the points, so its
#: edge would not share the point's noise. Off where p is made of other parameters
#: (``p = nnodes * ppn``): an edge at another p would break the relation.
#:
#: History: registered 2026-11-27 08:09 UTC (session 30) with the edge as a twin column
#: of the same joint draw, by the rule higher on seed 0 and not lower on seed 1 of
#: nested forward validation on the 14 simulated training sets (``python
#: benchmarks/choose_laws.py --only sim``, suffix ``+mono``): 0.756 against 0.751 and
#: 0.709 against 0.708 (results/choose_laws_mono.md, choose_laws_mono_seed1.md); turned
#: off the same session because the twin carried noise of its own, so the maximum of the
#: two lifted a far point by about half a noise sd even where its law rose (work per
#: serial work 1.179 at p=9 against 1.126 without the hold, on a 10 %-noise table). The
#: shared-draw form above was registered 2026-11-27 09:24 UTC (session 31), before its
#: run, by the same rule against the default (0.751, 0.708): 0.760 against 0.751 on seed
#: 0 (strassen/A 1.205 against 1.141, fib/A 1.077 against 1.062; sparselu/B -0.474
#: against -0.444, sort/A 0.359 against 0.364) and 0.713 against 0.708 on seed 1
#: (results/choose_laws_mono2.md, choose_laws_mono2_seed1.md): adopted, on. Saved with
#: each model (``monotone_beyond_``); a version 10 file that asked for the twin form is
#: refused (re-fit), since this code no longer has it.
#: Re-checked on the simulator fixed 2026-11-29 (a woken thief searched alone, which
#: inflated idle time and delay at many workers; benchmarks/choose_laws.py's session-52
#: record): the default without it scores 0.785 / 0.838 (seeds 0 / 1) against 0.799 / 0.846: stays.
MONOTONE_BEYOND = True

#: Whether MONOTONE_BEYOND also holds where ``p`` is made of other parameters (``p =
#: nnodes * ppn``): the edge is the point with every factor of ``p`` above its training
#: range set to the range's top and ``p`` worked out from the relation
#: (:func:`probperf.models.points.worker_edges`, as the time model's
#: :data:`probperf.models.laws.LINEAR_SPEEDUP_TIED`), so that the edge keeps the
#: relation. Why: MONOTONE_BEYOND's first principles, whichever factor brings the
#: workers (more nodes add remote steals and contention for the same tasks). Without
#: it, helper-73's made-up traced code on nodes x ranks per node, trained on 1-4 nodes,
#: had its delay per task, a "quadratic" law, fall 400x from 4 to 32 nodes where the
#: truth levels off: time 3x fast. No training set of the validation pool has ``p``
#: made of other parameters with the DAG metrics (the simulator's runs have ``n``,
#: ``p`` and a cut-off), so nested validation cannot weigh it; on by first principles,
#: as the hold it extends. Read at predict time, not saved: a DAG model saved before
#: with such a relation now holds too.
MONOTONE_TIED = True

#: Whether the work part's law mixture (work per serial work) leaves out the laws that
#: grow like a power of the size, as IDLE_BOUNDED would for the idle part (LawMixture's
#: ``bounded_in_size``). Why (first principles): the part is the work's inflation over
#: the one-worker run of the same size, which contention and lost locality raise with
#: the workers; a law ``c + n^3 (1, 1/p)`` for it is an accident of the sizes fitted, and
#: its share of the draws widens the interval 16x beyond the sizes far more than the
#: runs justify. (Prompted by session 32's traced-data hunt: on made-up tables whose
#: inflation is 1 + 0.02 (p - 1) at every size, the work ratio put about 45 % of its
#: weight on the affine laws of n and the 90 % interval at 16x the largest size was 1.2x
#: to 86x wide by noise seed.) Registered 2026-11-27 12:34 UTC, before any run: adopted
#: if nested forward validation on the 14 simulated training sets (``python
#: benchmarks/choose_laws.py --only sim``, suffix ``+workbnd``) scores higher on seed 0
#: and not lower on seed 1. Result: 0.798 against 0.800 on seed 0 (sparselu/A 1.373
#: against 1.393, strassen/A 1.191 against 1.205; farm/A higher), so seed 1 was not run
#: (results/choose_laws_workbnd.md): rejected, off. Tested with the option on.
WORK_BOUNDED = False

# Tried and rejected (session 32), PART_WORKER_DESIGN: the parts' law mixtures also weighing
# the 2016 paper's worker law, the same at
# every size: ``c0 + c1 (p-1)/p + c2 (p-1)`` (LawMixture's ``worker_design``), the form
# of the work inflation and of the delay per task in eq. (10) and (12) of the paper
# (the designs of this module's docstring). Why (first principles): each part is a
# ratio built to be flat in the size (work per serial work, delay per task, idle time
# per (p - 1) T_inf), and contention that adds a fixed cost per extra worker grows it
# linearly in p - 1, which the powers of p the mixtures hold bend away from beyond the
# data. (Prompted by session 32's traced-data hunt: tables made from exactly these
# forms, fitted with the default, were 10-20 % low at 36-64 workers with intervals
# missing the truth, where the paper's design regressions, ``--kernel basis``, and time
# modelled directly were within 2 %; synthetic data, no dataset's rows.) Registered
# 2026-11-27 12:16 UTC, before any run: adopted if nested forward validation on the 14
# simulated training sets (``python benchmarks/choose_laws.py --only sim``, suffix
# ``+partwd``) scores higher on seed 0 and not lower on seed 1. (Before that run, a
# check on a made-up table showed the law refused on the corner split where noise hid
# both worker terms; it was made to drop them down to a constant, as no other law is one.)
# Result: 0.795 against 0.800 on seed 0 (sort/A 0.321 against 0.359, farm/A 1.738
# against 1.767; fft/A and fft/B higher), so seed 1 was not run
# (results/choose_laws_partwd.md): rejected, off. On the simulator's parts the powers
# of p predict the held-out workers better than a linear growth; the made-up tables of
# the hunt, linear by construction, stay predicted 10-20 % low at 36-64 workers by the
# default DAG model (time modelled directly, or ``--kernel basis``, fit them within 2 %).
# The code was removed (a law, a mixture parameter saved in every model file); ``+partwd``
# of benchmarks/choose_laws.py reproduces it at commit 05392a8.

# Tried and rejected (session 32), MONOTONE_WITHIN: the hold of MONOTONE_BEYOND inside the
# measured workers too: at every
# point with more workers than the smallest training count above one, a draw's work
# (per serial work) and delay (per task) are held at least at their values in the same
# draw at that count, same size and configuration (drawn from the same seeds, as the
# edge of MONOTONE_BEYOND is). Why (first principles, as for MONOTONE_BEYOND): a second
# worker and every one after it add steal attempts and contention for the same tasks,
# so the overhead per task and the work's inflation do not fall as workers are added,
# at any size; one worker is left out (no one to steal from, its own level,
# ONE_WORKER_LEVEL). Inside the measured workers the laws follow the runs, but at sizes
# far beyond them a law's cross term of size and workers can turn its slope in p
# around (the README flow's sort at n=2^24: the per-task delay's "quadratic" law, weight
# 0.81, fell 5x from 2 to 8 workers where every training size has it rising). On the
# simulator's 14 training sets the per-task delay never falls by more than 5 % from one
# worker count (p >= 2) to the next, except on strassen/A (29 % of the steps); the work
# per serial work falls by more than 2 % in 3-7 % of them (its noise). Registered
# 2026-11-27 11:20 UTC, before any run: adopted if nested forward validation on the 14
# simulated training sets (``python benchmarks/choose_laws.py --only sim``, suffix
# ``+monolow``) scores higher on seed 0 and not lower on seed 1. (Candour: prompted by
# session 32's docs hunt, which saw the p = 1..4 band of the README model at n=2^24;
# the README flow's simulated truths at p = 36 are known to me from the text.)
# Result: 0.7998 against 0.8003 on seed 0 (the per-case scores of the report, rounded to
# 3 decimals, averaged; fft/A 0.104 against 0.125, nqueens/A 0.842 against 0.836, the
# rest within 0.006), so seed 1 was not run (results/choose_laws_monolow.md): rejected,
# off. The default scored 0.800 there, against 0.764 before the nqueens simulator kept
# its search across cut-offs (session 32). The code was removed (a saved attribute and a
# second edge for an option that is off); ``+monolow`` of benchmarks/choose_laws.py
# reproduces it at commit ac5e2ee.

#: Whether the critical path is modelled as a per-size span times the same run's work
#: inflation, ``T_inf(n, p) = T_inf'(n) * T1(n, p) / T1'(n)``: the model of the span
#: is fitted to each run's measured span divided by that run's work per serial work,
#: and predicted per draw as its draw times the draw's work per serial work (so the
#: work is drawn before the span, :data:`probperf.components.WIRING`). Why (first
#: principles): the critical path of a p-worker run is a chain of the same tasks whose
#: total is the work, and the contention that inflates the work (memory, caches,
#: the runtime) inflates the tasks on the path alike; a tracer's critical path is
#: measured on the run's own task times. Without it, the span is modelled over the
#: size alone, fitted on every run's span (mean over the workers), while the idle part
#: is fitted per run against that run's own span: at 1024 workers the floor
#: ``time >= T_inf`` and the idle unit ``(p - 1) T_inf`` stay at the training workers'
#: span. On the simulator's training rows (seed 0, largest training size, p = 1..8)
#: the span's growth with p follows the work's within a few per cent (sort 1.106 vs
#: 1.113 at p=8, fft 1.111 vs 1.111); no test row was looked at for this. Prompted by
#: session 30's far-worker report (test points: strassen, sparse LU and farm 3-9x low at
#: 64-256 workers), which is why the decision is left to the training-row rule alone.
#: Registered 2026-11-27 09:20 UTC, before any run: adopted if nested forward
#: validation on the 14 simulated training sets (``python benchmarks/choose_laws.py
#: --only sim``, suffix ``+spaninfl``) scores higher on seed 0 and not lower on seed 1.
#: Result: 0.750 against 0.751 on seed 0 (sparselu/B -0.309 against -0.444, strassen/B
#: 1.131 against 1.076; sort/B 0.227 against 0.294, fft/B -0.213 against -0.153), so seed
#: 1 was not run (results/choose_laws_spaninfl.md): rejected, off. The default's score
#: came back the same with the work drawn before the span (seeds fixed by SEEDED).
#: Saved with each model (``span_inflated_``; a file from before it: no).
SPAN_INFLATED = False

#: Whether the critical path is drawn with its run-to-run noise, as the parts over the
#: workers are (the other per-size parts are drawn without: a serial work's noise
#: would count twice, once more in the work drawn from it). Why (first principles): a
#: tracer measures each run's span on that run's own task times, so spans of one
#: setting differ from run to run (a few per cent in the simulator's runs), and the
#: floor ``time >= T_inf`` and the idle unit ``(p - 1) T_inf`` hold per run with the
#: run's own span; the idle and delay parts were fitted against each run's measured
#: span, not against a latent one. Drawn latent, the span's 90 % interval at the
#: *training* runs held 17-39 % of them (helper-63's check on fib, sort and sparse LU
#: runs: median width 2 % where the runs spread 7 %), and a span-bound time (fib, n=28,
#: p=32) inherited the narrow band: 0 of 2 fresh runs inside it.
#: Registered 2026-11-29 04:52 UTC, before any run: adopted if nested forward
#: validation on the 14 simulated training sets (``python benchmarks/choose_laws.py
#: --only sim``, suffix ``+spannoise`` right before ``+ovh``) gives a mean log score not
#: lower than the default's on seed 0 and then not lower on seed 1 (a correction of a
#: fault seen on training runs, whose outer splits at p <= 8 are rarely span-bound: a
#: tie adopts it).
#: Result: 0.806 against 0.806 on seed 0 (strassen/A 1.260 against 1.252, strassen/B
#: 1.102 against 1.113; results/choose_laws_spannoise.md) and 0.778 against 0.771 on
#: seed 1 (results/choose_laws_spannoise_seed1.md): adopted, on. (Read at prediction
#: time, not saved: a model saved before draws its span with noise too; nothing fitted
#: changes meaning.)
SPAN_RUN_NOISE = True

# The critical path's law mixture seeing the workers too, ``T_inf(n, p, config)``,
# rather than the size alone (each run's measured span; drawn then without run-to-run noise
# either way). Why (first principles): a tracer measures the critical path on the run's
# own task times and scheduling, so it can grow with the workers (creation and steals
# on the path, contention); modelled over the size alone, every run's span is taken as
# one size's value and the floor ``time >= T_inf`` and the idle unit ``(p - 1) T_inf``
# stay at the training workers' span however far the workers go, with an interval that
# does not widen in p. Over the workers, the laws fit how the span moves with p (a power
# near 0 where it does not) and the part's discrepancy widens it with the distance in p
# as every other part. Prompted by the far-worker report (benchmarks/bench_far_workers.py:
# fib's interval at 32x the workers is +-5 %, held by the span floor), a report of test
# points, which is why the decision is left to the training-row rule alone.
# Registered 2026-11-28 02:16 UTC, before any run: adopted if nested forward validation
# on the 14 simulated training sets (``python benchmarks/choose_laws.py --only sim``,
# suffix ``+spanp``) scores a higher mean log score on seed 0 and not lower on seed 1,
# with no more failed outer splits. Result: 0.798 against the default's 0.800 on seed 0
# (sparselu/B -0.454 against -0.539 and strassen/B 1.163 against 1.089, but sort/A 0.329
# against 0.359, sort/B 0.230 against 0.292, fft/B -0.203 against -0.157;
# results/choose_laws_spanp.md, the default's from results/choose_laws_steal.md, same
# code for it), so seed 1 was not run: rejected, off. The outer splits reach at most
# from 4-6 workers to 8, where the span barely moves with p: they cannot see what the
# switch is for, and the rule does not bend for that. The code was removed (a saved
# attribute and a method for an option that is off); ``+spanp`` of
# benchmarks/choose_laws.py reproduces it at commit b809118.

# Stacking the DAG model's time with time modelled directly (a share of the draws
# taking their time from a LawMixture on ``time``, the parts rescaled to it) was tried
# twice and left out: nested forward validation on the 14 simulated training sets scored
# it lower, 0.461 against 0.481 (weighed by evidence; results/choose_laws_direct.md),
# and, weighed by stacking, 0.516 but higher on only 2 sets, lower on 6 and with a
# larger median error (results/choose_laws_directstack.md), failing the rules fixed
# before the runs. The code was removed; ``+direct`` and ``+directstack`` of
# benchmarks/choose_laws.py reproduce it at commit ce25910.


@persist.register
class ConstantMetric:
    """A metric measured positive at a single setting of its inputs (one problem size,
    the serial work of a strong-scaling study; for a part over the workers, one worker
    count too): predicted as the value measured, the geometric mean where the setting
    was run more than once. Only that setting can be asked (predict refuses a size or
    worker count with fewer than 3 measured values outside the measured ones), so the
    constant is what the runs say, not a law.

    Examples
    --------
    >>> ConstantMetric(2.0).predict(pd.DataFrame({"n": [64, 64]}), n_draws=2).draws.tolist()
    [[2.0, 2.0], [2.0, 2.0]]
    """

    def __init__(self, value: float = 1.0):
        self.value = float(value)

    def predict(self, X, n_draws=DEFAULT_DRAWS, seed=None, noise=True):
        """The value at every point ``X`` in every draw (``seed`` and ``noise`` change nothing).

        Examples
        --------
        >>> pred = ConstantMetric(2.0).predict(pd.DataFrame({"n": [64, 128]}), n_draws=3)
        >>> pred.draws.shape, pred.median.tolist()
        ((3, 2), [2.0, 2.0])
        """
        return Predictive(np.full((int(n_draws), len(X)), self.value), None)

    def predict_design(self, Phi, n_draws=DEFAULT_DRAWS, seed=None, noise=True):
        """Draws (n_draws x N) for a design of N rows, one for all draws or one per draw.

        Examples
        --------
        >>> ConstantMetric(2.0).predict_design(np.ones((3, 2)), n_draws=2).tolist()
        [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
        >>> ConstantMetric(2.0).predict_design(np.ones((4, 3, 2)), n_draws=4).shape  # a design per draw
        (4, 3)
        """
        return np.full((int(n_draws), np.shape(Phi)[-2]), self.value)

    def predict_median_design(self, Phi):
        """The median at each of the N rows of a design: the value.

        Examples
        --------
        >>> ConstantMetric(2.0).predict_median_design(np.ones((3, 2))).tolist()
        [2.0, 2.0, 2.0]
        """
        return np.full(np.shape(Phi)[-2], self.value)

    def draws_pointwise(self) -> bool:
        """True: a draw at a point does not depend on the other points asked with it
        (see :meth:`probperf.models.base.MetricModel.draws_pointwise`).

        Examples
        --------
        >>> ConstantMetric(2.0).draws_pointwise()
        True
        """
        return True  # the value wherever asked


@persist.register
class ZeroMetric(ConstantMetric):
    """A metric that was never positive in training (no tasks, no idle time), or
    positive in only ``positive`` of its ``runs``, too few for a law and the zeros the
    most (:func:`zero_or_refuse`): predicted as exactly 0, which is what the paper's
    equations give when their inputs are 0.

    Examples
    --------
    >>> ZeroMetric().predict(pd.DataFrame({"n": [1, 2]}), n_draws=3).draws.tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    """

    def __init__(self, positive: int = 0, runs: int = 0):
        super().__init__(0.0)
        # parameters, saved as such (a file from before them: 0 of 0, never positive)
        self.positive, self.runs = int(positive), int(runs)


#: Fewer positive observations than this and a component has no law: zero when the
#: zeros are the most of its runs (:func:`zero_or_refuse`), a constant when every
#: observation is positive at a single setting of its inputs (ConstantMetric), else
#: the DAG model is refused. Why 3: a law has at least a level and a slope, and a
#: third run is the least that can say whether they fit.
MIN_POSITIVE = 3


def zero_or_refuse(name: str, positive: int, runs: int) -> "ZeroMetric":
    """The part ``name``, positive in only ``positive`` (< :data:`MIN_POSITIVE`) of its
    ``runs``: a :class:`ZeroMetric` when it is 0 in every run or in most of them (a
    value at the timer's resolution, such as idle time in a run or two of many), else a
    ``ValueError`` naming it: modelled as 0 it would drop a measured part of the time
    (two runs whose work is all of it came back as time without work).

    Examples
    --------
    >>> zero_or_refuse("no_work", 1, 12).positive
    1
    >>> zero_or_refuse("work", 2, 2)
    Traceback (most recent call last):
    ...
    ValueError: DagModel: work is positive in 2 of 2 runs, too few for a law of it (at least 3); measure more runs or model time alone (--model direct)
    """
    if 2 * positive < runs or positive == 0:
        return ZeroMetric(positive, runs)
    raise ValueError(f"DagModel: {name} is positive in {positive} of {runs} runs, too few for a law of it "
                     f"(at least {MIN_POSITIVE}); measure more runs or model time alone (--model direct)")


class Prediction(Predictive):
    """Predicted run time with its decomposition, all as joint draws.

    ``draws`` are the time draws (so ``median``, ``interval`` etc. refer to time);
    :attr:`components` holds the draws of every DAG metric at the same points, and
    for every draw ``work + delay + no_work == p * time`` holds exactly.

    Examples
    --------
    >>> pts = pd.DataFrame({"n": [100], "p": [2]})
    >>> comps = {"work": np.full((3, 1), 8.0), "delay": np.ones((3, 1)),
    ...          "no_work": np.ones((3, 1)), "serial_work": np.full((3, 1), 8.0)}
    >>> pred = Prediction(comps, pts)
    >>> float(pred.median[0]), float(pred.speedup.median[0]), pred["work"].unit
    (5.0, 1.6, 's')
    >>> pred["idle"]
    Traceback (most recent call last):
    ...
    KeyError: "no component 'idle'; this prediction has work, delay, no_work, serial_work, time"
    """

    def __init__(self, components: Mapping[str, np.ndarray], points: pd.DataFrame, unit: str = "s"):
        comps = {k: np.asarray(v, dtype=np.float64) for k, v in components.items()}
        p = points["p"].to_numpy(dtype=np.float64)
        time = (comps["work"] + comps["delay"] + comps["no_work"]) / p
        super().__init__(time, points, "time")
        self.unit = unit
        # a task count has no unit; every other component is a time, in the model's unit
        self.components = {k: Predictive(v, self.points, k, None if k in COUNT_METRICS else unit)
                           for k, v in comps.items()}
        self.components["time"] = Predictive(time, self.points, "time", unit)

    def __getitem__(self, key):
        """``pred["delay"]`` is a component; ``pred[idx]`` the prediction at some points."""
        if isinstance(key, str):
            if key not in self.components:
                raise KeyError(f"no component {key!r}; this prediction has {', '.join(self.components)}")
            return self.components[key]
        idx = point_positions(self.n_points, key)
        comps = {k: v.draws[:, idx] for k, v in self.components.items() if k != "time"}
        return Prediction(comps, self.points.iloc[idx], self.unit)

    def on_span(self) -> np.ndarray:
        """Per point, the share of the draws whose time is the critical path: lifted to
        it by the span law (``time >= T_inf``); zeros without a traced span.

        Examples
        --------
        >>> pts = pd.DataFrame({"n": [100], "p": [4]})
        >>> parts = np.full((4, 1), 4.0)  # time 3 in every draw
        >>> Prediction({"work": parts, "delay": parts, "no_work": parts, "serial_work": parts,
        ...             "critical_path": np.array([[3.0], [3.0], [2.0], [1.0]])}, pts).on_span()
        array([0.5])
        """
        if "critical_path" not in self.components:
            return np.zeros(self.n_points)
        return np.mean(self.draws <= self.components["critical_path"].draws * (1 + 1e-9), axis=0)

    @property
    def p(self) -> np.ndarray:
        return self.points["p"].to_numpy(dtype=np.float64)

    @property
    def speedup(self) -> Predictive:
        """``T1'(n) / time``: speed-up over the serial work, per draw."""
        return Predictive(self.components["serial_work"].draws / self.draws, self.points, "speedup")

    @property
    def efficiency(self) -> Predictive:
        """``speedup / p``, per draw."""
        return Predictive(self.speedup.draws / self.p, self.points, "efficiency")

    @property
    def penalty(self) -> Predictive:
        """Lobachev et al.'s parallel penalty ``A(n,p) = time(n,p) - T(n)/p`` with ``T = T1'``."""
        serial = self.components["serial_work"].draws
        return Predictive(self.draws - serial / self.p, self.points, "penalty")

    @property
    def karp_flatt(self) -> Predictive:
        """Karp-Flatt experimentally determined serial fraction ``(1/S - 1/p)/(1 - 1/p)``.

        NaN at ``p = 1``, where it is undefined.
        """
        s = self.speedup.draws
        with np.errstate(divide="ignore", invalid="ignore"):
            e = (1.0 / s - 1.0 / self.p) / (1.0 - 1.0 / self.p)
        e[:, self.p == 1] = np.nan
        return Predictive(e, self.points, "karp_flatt")

    def decomposition(self, level: float = 0.9) -> pd.DataFrame:
        """Share of ``work``, ``delay`` and ``no_work`` in ``p * time`` per point.

        One row per point and term, with the median share and its ``level`` interval,
        and the term's own median and interval (in the time unit).

        Examples
        --------
        >>> pts = pd.DataFrame({"n": [100], "p": [2]})
        >>> comps = {"work": np.full((3, 1), 8.0), "delay": np.ones((3, 1)),
        ...          "no_work": np.ones((3, 1)), "serial_work": np.full((3, 1), 8.0)}
        >>> Prediction(comps, pts).decomposition()[["term", "share", "median"]]  # p * time = 10
              term  share  median
        0     work    0.8     8.0
        1    delay    0.1     1.0
        2  no_work    0.1     1.0
        """
        level = check_level(level)
        budget = self.draws * self.p
        points = _whole_columns(self.points)  # p = 4, not 4.0, as the summary shows it
        qs = [0.5, (1 - level) / 2, (1 + level) / 2]
        rows = []
        for i in range(self.n_points):
            base = points.iloc[i].to_dict()
            for term in ("work", "delay", "no_work"):
                d = self.components[term].draws[:, i]
                with np.errstate(invalid="ignore"):  # a draw overflowed far out: inf / inf
                    share = np.where(np.isinf(d) & np.isinf(budget[:, i]), 1.0, d / budget[:, i])
                (mid, lo, hi), (vmid, vlo, vhi) = (_quantiles(v[:, None], qs)[:, 0] for v in (share, d))
                rows.append({**base, "term": term, "share": float(mid), "share_lower": float(lo),
                             "share_upper": float(hi), "median": float(vmid), "lower": float(vlo),
                             "upper": float(vhi)})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"Prediction(time: {self.n_draws} draws x {self.n_points} points, components={sorted(self.components)})"


@persist.register
class DagModel(TableModel):
    """Predict run time from separately modeled DAG metrics, with joint uncertainty.

    Parameters
    ----------
    models : mapping of component -> spec or model, optional
        Per-component model spec (:mod:`probperf.models.specs`): ``"laws"`` (the
        default), ``"basis"``, ``"basis-steal"`` (delay), a GP kernel spec, ``"auto"``:
        the candidate of :func:`auto_candidates` that best predicts held-out training
        runs (see :meth:`_choose`), or a metric model object (cloned, then fitted on the
        component's parameters). Components: ``serial_work``, ``work``,
        ``create_task``, ``wait_tasks``, ``delay``, ``no_work``, ``critical_path``.
    kernel : str, optional
        Shorthand: use this spec for every component (``models`` entries win).

    Attributes
    ----------
    specs_ : dict
        The spec each component was fitted with (``"auto"`` resolved).
    relations_ : dict
        Parameters that the others make in every run (see
        :func:`probperf.models.points.relations`): a point must keep them.
    monotone_beyond_ : bool
        Whether predict holds each draw's work and delay beyond the largest training
        worker count at least at their values there (:data:`MONOTONE_BEYOND` at fit;
        absent in model files from before it, which predict without); parts modelled
        by a GP are not held.
    span_inflated_ : bool
        Whether the critical path's model is of the span per the run's work inflation,
        drawn times the draw's work per serial work (:data:`SPAN_INFLATED` at fit, with
        a traced span; absent in model files from before it: no).
    zero_at_one_ : list
        The metrics beside the idle time that are 0 at ``p = 1`` (:func:`zero_at_one`;
        absent in model files from before it: none).
    selection_ : dict
        For each ``"auto"`` component: candidate -> forward-validation score (median
        absolute log error on the held-out runs; ``None`` if the candidate failed).
    discrepancy_ : dict
        The model-discrepancy rates used for the intervals, for ``"work"`` and for
        ``"overhead"`` (delay + no_work): the larger of ``discrepancy_learnt_`` and
        the floor ``discrepancy``.
    discrepancy_learnt_ : dict
        The rates learnt by forward validation (:func:`probperf.selection.discrepancy_rates`; 0 if not calibrated).
    discrepancy_scales_ : numpy.ndarray
        Rows ``(factor, weight)``: the posterior over one factor on all the law-mixture
        parts' discrepancy rates (:func:`probperf.selection.discrepancy_scale`); each
        predictive draw takes one factor from it, shared by the parts. ``[[1, 1]]``
        when not learnt.
    scale_scores_ : dict
        Factor -> held-out log score behind those weights (absent when not learnt).
        Not saved.
    calibration_ : pandas.DataFrame
        The held-out runs of that validation (``n``, ``p``, ``distance``,
        ``overhead_share``, ``log_error``, ``log_variance``); absent when it did not
        run. Not saved.
    calibrate : bool or None
        Learn how fast the model's error grows beyond the training data and widen
        the intervals accordingly (one extra fit on a subset; see :func:`probperf.selection.discrepancy_rates`).
        None (default): only when some part carries no widening of its own (a GP or
        basis regression, ``kernel="sm4"`` or ``"basis"``; :meth:`calibrates`), choices
        made on training rows only (``benchmarks/choose_calibration.py``): inside the
        training runs of the 14 simulated datasets, a model fitted below a forward cut
        scored the held-out training runs beyond it better without the calibration
        when every part is a law mixture (mean log predictive density -0.97 vs -1.67;
        its rate, fitted one doubling out and extrapolated linearly, over-widens where
        the law mixtures' own spread already grows), and better with it when every part
        is a GP sm4 (-64.1 vs -99.0, results/choose_calibration_sm4.md) or a basis
        regression (-1.33 vs -1.63 on the 8 sets it can fit,
        results/choose_calibration_basis.md): without it those models' intervals do
        not widen beyond the data at all (candour: the change was prompted by a test
        figure, 8 % coverage of Dataset B's test3 for ``dag_sm4`` in
        experiments/results/compare_models.md; the choice itself used training rows
        only, by a rule written before the runs). A model that
        mixes the two (``models={"serial_work": "auto"}`` choosing a basis regression)
        calibrates too: not measured; one part that does not widen is reason enough.
    scale_discrepancy : bool, optional
        Learn the factor of ``discrepancy_scales_`` (one extra fit below each forward
        cut of :data:`probperf.selection.SCALE_CUTS`); default :data:`SCALE_PARTS` (on).
    discrepancy : float
        Floor on both rates: the log-scale standard deviation of a part's error per
        doubling of ``n`` or ``p`` beyond the data. 0 by default: no hand-set floor
        (issue 14: the earlier default 0.04, :data:`DISCREPANCY`, was set while test
        errors were in view, so it is kept only as an explicit opt-in).
    effort : {"quick", "default", "thorough"}
        Inference effort of the components (:data:`probperf.models.specs.EFFORTS`):
        closed forms and SVI by default, NUTS and more GP restarts when thorough.
    n_draws : int
        Joint draws per prediction.
    seed : int
        Seed for inference and draws.

    Examples
    --------
    >>> from probperf.sim import generate
    >>> runs = generate("fib", [18, 19, 20, 21], [1, 2, 4], config={"cutoff": 6}, seed=0)
    >>> model = DagModel(effort="quick").fit(runs)
    >>> pred = model.predict(n=23, p=8)            # cutoff was constant: may be omitted
    >>> lo, hi = pred.interval(0.9)
    >>> bool(lo[0] < pred.median[0] < hi[0])
    True
    >>> sorted(pred.decomposition()["term"])
    ['delay', 'no_work', 'work']
    """

    #: at a setting of few-valued configuration parameters that no run had, the interval
    #: spans the nearest measured settings too (:mod:`probperf.unmeasured`)
    spans_unmeasured = True
    _fitted = ("specs_", "selection_", "size_features_", "relations_", "has_span_", "discrepancy_learnt_",
               "discrepancy_", "discrepancy_scales_", "components_", "monotone_beyond_", "span_inflated_",
               "zero_at_one_")

    def __init__(self, models: Mapping[str, str] | None = None, kernel: str | None = None,
                 effort: str = "default", n_draws: int = DEFAULT_DRAWS, seed: int = 0,
                 calibrate: bool | None = None, discrepancy: float = 0.0, scale_discrepancy: bool | None = None):
        self.models = models
        self.kernel = kernel
        self.effort = effort
        self.n_draws = n_draws
        self.seed = seed
        self.calibrate = calibrate
        self.discrepancy = discrepancy
        self.scale_discrepancy = scale_discrepancy

    # -- fitting -------------------------------------------------------------------

    def _check_params(self) -> None:
        """The constructor's options, checked where scikit-learn checks them (at fit):
        a truthy string must not pass for ``calibrate=True``, nor a negative floor."""
        from .limits import draw_count

        if self.models is not None and not isinstance(self.models, Mapping):
            raise TypeError(f"models maps a component to its spec, e.g. {{'delay': 'basis'}}, got {self.models!r}")
        for name in ("calibrate", "scale_discrepancy"):
            if getattr(self, name) not in (None, True, False):
                raise ValueError(f"{name} must be True, False or None (automatic), got {getattr(self, name)!r}")
        if isinstance(self.discrepancy, bool) or not isinstance(self.discrepancy, (int, float, np.integer, np.floating)) \
                or not 0 <= float(self.discrepancy) < np.inf:
            raise ValueError(f"discrepancy must be a number >= 0 (a rate per training span), got {self.discrepancy!r}")
        draw_count(self.n_draws, DEFAULT_DRAWS)
        super()._check_params()

    def component_specs(self) -> dict[str, str]:
        """The spec each component will be fitted with (``models``, else ``kernel``, else
        :data:`DEFAULT_MODELS`); a component name or a design that cannot serve raises
        ``ValueError``, before any data are read.

        Examples
        --------
        >>> DagModel(models={"delay": "basis-steal"}).component_specs()["delay"]
        'basis-steal'
        """
        specs_ = dict(DEFAULT_MODELS)
        if self.kernel:
            specs_ = {c: self.kernel for c in COMPONENTS}
        for k, v in (self.models or {}).items():
            if k not in COMPONENTS:
                raise ValueError(f"unknown DAG component {k!r}; expected one of {COMPONENTS}")
            specs_[k] = v
        wrong = [k for k, v in specs_.items() if specs.parse(v).steal and k != "delay"]
        if wrong:
            raise ValueError(f"{specs.STEAL!r} is a delay design; it cannot model {', '.join(wrong)}")
        return specs_

    def _monotone(self) -> bool:
        """Whether predict holds work and delay at their edge values beyond the training
        workers (MONOTONE_BEYOND when fitted; a model file from before it: no); where p
        is made of other parameters, with MONOTONE_TIED."""
        from .models.points import worker_factors

        tied = worker_factors(getattr(self, "relations_", None))
        return bool(getattr(self, "monotone_beyond_", False) and (MONOTONE_TIED or not tied)
                    and "p" in self.train_ranges_)

    def _worker_edges(self, table: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
        """``(far, edges)``: which points of ``table`` lie beyond the training workers,
        and ``table`` with those points at their edge (``p`` at its largest training
        value; where ``p`` is made of other parameters, every factor beyond its range
        at the range's top and ``p`` from the relation,
        :func:`~probperf.models.points.worker_edges`)."""
        from .models.points import worker_edges, worker_factors

        p = table["p"].to_numpy(dtype=np.float64)
        if not self._monotone():
            return np.zeros(len(p), dtype=bool), table
        if not worker_factors(self.relations_):
            p_max = self.train_ranges_["p"][1]
            return p > p_max, table.assign(p=np.minimum(p, p_max))
        rows, at = worker_edges(table.reset_index(drop=True), self.train_ranges_, self.relations_)
        edges = table.reset_index(drop=True).copy()
        for c in at.columns:
            values = edges[c].to_numpy(dtype=np.float64, copy=True)
            values[rows] = at[c].to_numpy(dtype=np.float64)
            edges[c] = values
        far = np.zeros(len(p), dtype=bool)
        far[rows] = True
        return far, edges.set_axis(table.index)

    def _loaded(self) -> None:
        super()._loaded()
        scales = np.asarray(self.discrepancy_scales_, dtype=np.float64)
        # rows (factor, weight), as fitted: a transposed table would swap the fields unsaid
        if scales.ndim != 2 or scales.shape[1] != 2 or not len(scales) or not np.all(np.isfinite(scales)) \
                or np.any(scales < 0) or not scales[:, 1].sum() > 0:
            raise persist.ModelFileError(f"discrepancy_scales_ of shape {scales.shape} is not rows of (factor >= 0, "
                                         f"weight >= 0); {persist.REFIT}")
        self.discrepancy_scales_ = scales
        if not hasattr(self, "zero_at_one_"):  # a version 9-16 file: the delay's law at p = 1, as written
            self.zero_at_one_ = []
        self.zero_at_one_ = [str(c) for c in self.zero_at_one_]
        # A version 10 file with the hold asked for it in the twin form (session 30),
        # which this code no longer has; version 11 files carry span_inflated_.
        if getattr(self, "monotone_beyond_", False) and not hasattr(self, "span_inflated_"):
            raise persist.ModelFileError("this DAG model holds work and delay beyond the measured workers in an "
                                         f"earlier form; {persist.REFIT}")

    def _idle_per_span(self) -> bool:
        """Whether the idle part is the ratio to ``(p - 1) T_inf`` (a span was traced)."""
        from .components import IDLE_PER_SPAN

        return bool(IDLE_PER_SPAN and getattr(self, "has_span_", False))

    def _new_model(self, spec: str, component: str):
        options = {"seed": component_seeds(self.seed)[component]}
        family = specs.parse(spec).family
        if family == specs.LAWS:
            options["guard"] = False  # checked on the whole table in predict
            options["discrepancy"] = PART_DISCREPANCY
            options["one_worker_level"] = ONE_WORKER_LEVEL
            options["residual_gp"] = PART_RESIDUAL_GP
            options["weighting"] = PART_WEIGHTING
            options["growth"] = PART_GROWTH
            options["checked_curvature"] = PART_CHECKED_CURVATURE
            options["lower_order"] = PART_LOWER_ORDER
            options["noise_profile"] = PART_NOISE_PROFILE
            options["affine_power"] = PART_AFFINE_POWER
            options["saturating"] = PART_SATURATING
            # the idle ratio per (p - 1) T_inf is bounded in the size (IDLE_BOUNDED)
            options["bounded_in_size"] = ((IDLE_BOUNDED and component == "no_work" and self._idle_per_span())
                                          or (WORK_BOUNDED and component == "work"))
        elif family == specs.BASIS and BY_NAME[component].design is None:
            options["basis"] = _basis_for(component)
        return specs.build(spec, self.effort, **options)

    def fit(self, measurements: Measurements) -> "DagModel":
        """Fit every intermediate model on a table of traced runs.

        Needs ``work``, ``delay``, ``no_work``, ``create_task``, ``wait_tasks`` in
        every row, and the serial work: a ``serial_work`` column or rows with
        ``p == 1`` (whose ``work`` is the serial work). ``critical_path`` is used
        when present (span law).

        Examples
        --------
        >>> from probperf.sim import generate
        >>> runs = generate("fib", [14, 15, 16], [1, 2, 4], config={"cutoff": 4}, seed=0)
        >>> model = DagModel(effort="quick").fit(runs)
        >>> sorted(model.components_)
        ['create_task', 'critical_path', 'delay', 'no_work', 'serial_work', 'wait_tasks', 'work']
        >>> model.specs_["delay"]
        'laws'
        >>> DagModel().fit(Measurements({"n": [1, 2, 4], "p": [1, 2, 4], "time": [1.0, 0.6, 0.4]}))
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: column work: metric 'work' is needed but missing (a metric of traced runs: 'probperf record' writes it)
        """
        with self._fitting():  # a fit that fails leaves no fit behind
            self._fit_runs(measurements)
        return self

    def _fit_runs(self, measurements: Measurements) -> None:
        self._check_table(measurements)  # and the options (_check_params)
        m = measurements
        m.require("n", "p", *REQUIRED)
        frame = without_residues(m.frame.reset_index(drop=True))
        if one_setting(m):  # each part would be a constant (ConstantMetric), an interval of no width
            at = ",".join(f"{c}={frame[c].iloc[0]:g}" for c in m.params)
            raise ValueError(f"every run is at {at}: the DAG model needs "
                             "more than one setting (sizes or worker counts); model time alone (--model direct)")
        tasks = (frame["create_task"] + frame["wait_tasks"]).to_numpy()
        delayed = (frame["delay"] > 0).to_numpy()
        if delayed.any() and not (tasks[delayed] > 0).any():
            # the delay is modelled per task: with no run that has both, it would be a
            # structural zero although it was measured (a run without tasks, such as a
            # size below the cut-off, is only left out of the delay's fit)
            raise m.row_error("delay > 0 in a run that created and waited for no task (create_task and wait_tasks "
                              "are 0 in every run with a delay): are the task counts from the same runs?",
                              int(np.argmax(delayed)), "delay")
        self._remember(m, ["n", "p", *m.config], "time")
        # on the whole table: its parts, fitted on subsets of the runs, do not check points
        self.relations_ = relations(frame[self.features_].to_numpy(dtype=np.float64), self.features_)
        self.size_features_ = ["n", *m.config]
        self.has_span_ = m.has("critical_path")
        self.monotone_beyond_ = bool(MONOTONE_BEYOND)  # what predict does beyond the workers, kept
        self.span_inflated_ = bool(SPAN_INFLATED and self.has_span_)  # what the span's model means, kept
        self.zero_at_one_ = zero_at_one(frame)
        measured = {c.name: frame[c.name].to_numpy(dtype=np.float64) for c in WIRING if c.name in frame}
        measured["serial_work"] = one_worker_baseline(frame, self.size_features_, ["serial_work"], "work",
                                                      needed_by="DagModel", runs=m)
        config_varies = any(frame[c].nunique() > 1 for c in m.config)
        wanted = self.component_specs()
        self.specs_, self.selection_, self.components_ = {}, {}, {}
        jobs = []
        with progress.task("fit DAG components", total=1) as step:
            for comp in WIRING:
                if comp.name not in measured:
                    continue  # no critical path measured: no span law
                spec = wanted[comp.name]
                if specs.parse(spec).family == specs.AUTO:
                    spec = self._choose(comp, comp.candidates(config_varies), frame, measured)
                self.specs_[comp.name] = spec
                inputs, y, _, _ = self._training_data(comp, spec, frame, measured)
                jobs.append((self, comp.name, spec, inputs, y))
            # each part is fitted on the measured runs alone, not on another part's fit:
            # independent work, on every core (the same fits as one after another); the
            # parts over the workers (work, delay, idle time: the costly ones) go first
            jobs.sort(key=lambda job: not BY_NAME[job[1]].over_p)
            step(", ".join(job[1] for job in jobs))  # together: no part finishes alone to be shown
            fitted = parallel.starmap(_fit_component_job, jobs, rows=len(frame))
        self.components_ = {job[1]: model for job, model in zip(jobs, fitted)}
        self._fit_scale(m)
        learnt = (0.0, 0.0)
        if self.calibrates():
            learnt, table = discrepancy_rates(self, m, self.features_, component_seeds(self.seed)["calibration"])
            if table is not None:
                self.calibration_ = table
        self.discrepancy_learnt_ = dict(zip(DISCREPANCY_PARTS, learnt))
        self.discrepancy_ = {k: max(v, float(self.discrepancy)) for k, v in self.discrepancy_learnt_.items()}

    def widens_beyond(self) -> bool:
        """Whether the interval grows beyond the training data by a learnt error growth:
        a part's own (a law mixture's rate) or the calibrated or floored rates.

        Examples
        --------
        >>> from probperf.sim import generate
        >>> runs = generate("fib", [14, 15, 16], [1, 2, 4], config={"cutoff": 4}, seed=0)
        >>> DagModel(effort="quick").fit(runs).widens_beyond()  # its law mixtures learn their growth
        True
        """
        self._check_fitted()
        return max(self.discrepancy_.values()) > 0 or any(widens(c) for c in self.components_.values())

    def calibrates(self) -> bool:
        """Whether the fit learns the discrepancy rates: ``calibrate`` as given; with
        None, when some fitted part neither widens beyond the data by itself (a law
        mixture with a learnt rate) nor is a constant (zero included).

        Examples
        --------
        >>> DagModel(calibrate=True).calibrates()  # as given: no fit needed
        True
        >>> from probperf.sim import generate
        >>> runs = generate("fib", [14, 15, 16], [1, 2, 4], config={"cutoff": 4}, seed=0)
        >>> DagModel(effort="quick").fit(runs).calibrates()  # every part a law mixture that widens
        False
        """
        if self.calibrate is not None:
            return bool(self.calibrate)
        # a constant (zero included) is exact at the one setting it can be asked at
        return any(not (widens(c) or isinstance(c, ConstantMetric)) for c in self.components_.values())

    def _fit_scale(self, m: Measurements) -> None:
        """The discrepancy scale, from forward validations of the whole model
        (:func:`probperf.selection.forward_subfits`)."""
        self.discrepancy_scales_ = np.array([[1.0, 1.0]])
        scale = SCALE_PARTS if self.scale_discrepancy is None else self.scale_discrepancy
        if not (scale and any(widens(c) for c in self.components_.values())):
            return
        self.discrepancy_scales_, self.scale_scores_ = discrepancy_scale(
            self, m, self.features_, component_seeds(self.seed)["calibration"])

    def _inputs(self, comp, spec, points, parents, features):
        """``comp.inputs(...)``, with the critical path's scale times the run's work per
        serial work where the span is modelled inflated as the work (SPAN_INFLATED when
        fitted; a model file from before it: no)."""
        inputs, scale = comp.inputs(spec, points, parents, features)
        if comp.name == "critical_path" and getattr(self, "span_inflated_", False):
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = scale * (parents["work"] / parents["serial_work"])
        return inputs, scale

    def _training_data(self, comp, spec, frame, measured):
        """What component ``comp``'s model is fitted to, on the runs of ``frame``.

        Returns ``(inputs, y, scale, rows)``: the model maps ``inputs`` (:class:`~probperf.components.Features`
        or a :class:`~probperf.components.Design`) to ``y``, the metric is ``scale * y``,
        and ``rows`` are the runs used. ``measured``: every metric per run.
        """
        features = self.features_ if comp.over_p else self.size_features_
        y = measured[comp.name]
        if comp.one_per_size:
            rows = pd.DataFrame({**{c: frame[c] for c in features}, "y": y}).drop_duplicates().index.to_numpy()
            if 1 < len(rows) < MIN_POSITIVE:  # two sizes: too few for a law, so every run, as the task counts are
                rows = np.arange(len(frame))
        elif comp.multi_worker:
            rows = np.flatnonzero(frame["p"].to_numpy() > 1)  # every term carries (p-1)
        else:
            rows = np.arange(len(frame))
        parents = {k: v[rows] for k, v in measured.items()}
        inputs, scale = self._inputs(comp, spec, frame.iloc[rows], parents, features)
        scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            return inputs, y[rows] / scale, scale, rows

    def _fit_component(self, comp, spec, inputs, y):
        """Component ``comp``'s model (of ``spec``) fitted to ``y`` at ``inputs``."""
        # the delay's and the work's candidate laws
        steal = STEAL.set(bool(PART_STEAL_LAW and comp.name == "delay"))
        inflation = INFLATION.set(bool(PART_INFLATION_LAW and comp.name in ("work", "delay")))
        try:
            return self._fit_part(comp, spec, inputs, y)
        finally:
            INFLATION.reset(inflation)
            STEAL.reset(steal)

    def _fit_part(self, comp, spec, inputs, y):
        y = np.asarray(y, dtype=np.float64)
        keep = np.isfinite(y) & (y > 0) & inputs.usable()
        if keep.sum() < MIN_POSITIVE:
            # positive in every run but too few runs for a law: runs at one setting (one
            # size: the serial work of a strong-scaling study), not a structural zero
            single = isinstance(inputs, Features) and len(inputs.table.drop_duplicates()) == 1
            if keep.all() and single:
                return ConstantMetric(np.exp(np.mean(np.log(y[keep]))))
            return zero_or_refuse(comp.name, int(keep.sum()), len(y))
        return inputs.take(keep).fit(self._new_model(spec, comp.name), y[keep], comp.name)

    def _choose(self, comp, candidates, frame, measured) -> str:
        """The ``"auto"`` spec of component ``comp``: the candidate that best predicts
        held-out training runs from their measured inputs
        (:func:`probperf.selection.choose_by_forward_error`); scores kept in
        :attr:`selection_`."""
        region = forward_regions(frame, comp.over_p)
        if len(candidates) == 1 or region is None:
            return candidates[0]
        scores = {}
        for spec in candidates:
            inputs, y, scale, rows = self._training_data(comp, spec, frame, measured)
            reg = region[rows]
            try:
                model = self._fit_component(comp, spec, inputs.take(reg == 0), y[reg == 0])
                pred = scale[reg > 0] * inputs.take(reg > 0).median(model)
                scores[spec] = forward_error(pred, (scale * y)[reg > 0], reg[reg > 0])
            except (ValueError, RuntimeError, np.linalg.LinAlgError):
                scores[spec] = None
        self.selection_[comp.name] = scores
        return choose_by_forward_error(candidates, scores)

    # -- prediction ----------------------------------------------------------------

    def predict(self, X=None, *, n_draws: int | None = None, seed: int | None = None, **params) -> Prediction:
        """Joint predictive draws of time and every DAG metric.

        Parameters
        ----------
        X : DataFrame, mapping or Measurements, optional
            Points with columns ``n``, ``p`` and the configuration parameters.
        n_draws, seed : int, optional
            Number of joint draws and their seed (defaults from the constructor).
        **params
            Alternatively the point(s) as keywords: ``predict(n=2**22, p=36)``;
            parameters that were constant in the training data may be omitted.

        Examples
        --------
        >>> from probperf.sim import generate
        >>> runs = generate("fib", [14, 15, 16], [1, 2, 4], config={"cutoff": 4}, seed=0)
        >>> model = DagModel(effort="quick").fit(runs)
        >>> pred = model.predict(n=17, p=[2, 4])  # cutoff was constant: may be omitted
        >>> pred.n_draws, pred.n_points
        (1000, 2)
        >>> parts = pred["work"].draws + pred["delay"].draws + pred["no_work"].draws
        >>> bool(np.allclose(parts, pred.p * pred.draws))  # identity (1) in every draw
        True
        >>> measured = generate("fib", [17], [2, 4], config={"cutoff": 4}, seed=1).y("time")
        >>> lo, hi = pred.interval(0.9)
        >>> bool(np.all((lo < measured) & (measured < hi)))
        True
        """
        pts = self._points_in_reach(X, params)  # an unfitted model says so; its parts do not judge alone
        table, rows = unmeasured.with_neighbours(self, pts)  # a setting no run had spans its nearest
        S = draw_count(n_draws, self.n_draws)
        seeds = component_seeds(whole_number(self.seed if seed is None else seed, "seed"))
        grid, weights = self.discrepancy_scales_.T
        factors = np.random.default_rng(seeds["scale"]).choice(grid, size=S, p=weights / weights.sum())
        comps = self._joint_parts(table, S, seeds, factors)
        low, edges = self._size_edges(table)
        if low.any():  # no slower than at the smallest training size (SMALLER_NO_SLOWER)
            comps = _held_below(comps, self._joint_parts(edges, S, seeds, factors), low,
                                table["p"].to_numpy(dtype=np.float64))
        # a draw that overflowed (inf - inf, 0 * inf) is NaN where another part of the
        # same draw is inf: an unbounded draw, so inf, which the quantiles can order (a
        # NaN made every summary NaN) and the cautions on the mean and far-out points
        # speak of. A NaN without an overflow beside it stays NaN: a fault, not a bound.
        blown = np.any([np.isinf(v) for v in comps.values()], axis=0)
        if blown.any():
            comps = {k: np.where(np.isnan(v) & blown, np.inf, v) for k, v in comps.items()}
        comps = {k: unmeasured.pick(v, rows, seeds["setting"]) for k, v in comps.items()}  # one choice per draw
        return cautions.warn(self, pts, Prediction(comps, pts, getattr(self, "unit_", "s")))

    def _joint_parts(self, table: pd.DataFrame, S: int, seeds: dict, factors) -> dict[str, np.ndarray]:
        """``S`` joint draws of every component at ``table``: the parts' draws (held
        beyond the workers, MONOTONE_BEYOND), widened beyond the data, lifted to the
        critical path; from ``seeds`` and the parts' discrepancy ``factors``, so that two
        calls at as many points share every draw's coefficients and deviates."""
        from .models.mixture import discrepancy_factors

        p = table["p"].to_numpy(dtype=np.float64)
        with discrepancy_factors(factors):  # one factor per draw, shared by the parts
            comps = self._draw_parts(table, S, seeds)
            held = [k for k in ("work", "delay")  # a model that does not say is not held
                    if k in self.components_ and getattr(self.components_[k], "draws_pointwise", lambda: False)()]
            far, edges = self._worker_edges(table) if held else (np.zeros(len(p), dtype=bool), table)
            if far.any():  # overheads do not fall beyond the measured workers (MONOTONE_BEYOND)
                edge = self._draw_parts(edges, S, seeds, held)
                drawn = comps.get("work")
                for name in held:
                    comps[name] = np.where(far, np.maximum(comps[name], edge[name]), comps[name])
                if getattr(self, "span_inflated_", False) and "work" in held:  # the span follows the held work
                    with np.errstate(divide="ignore", invalid="ignore"):
                        comps["critical_path"] = np.where(far, comps["critical_path"] * (comps["work"] / drawn),
                                                          comps["critical_path"])
        span = comps.pop("critical_path", None)
        if any(self.discrepancy_.values()):
            d = extrapolation_distance(table, self.train_ranges_)
            parts = widen(comps["work"], comps["delay"], comps["no_work"], d, self.discrepancy_, seeds["discrepancy"])
            comps.update(zip(("work", "delay", "no_work"), parts))
        work, delay, no_work = comps["work"], comps["delay"], comps["no_work"]
        with np.errstate(invalid="ignore", over="ignore"):  # overflow far out: made inf below, and warned of
            if self.has_span_:
                # Span law: time >= critical path. A draw below it is lifted, and the lift
                # is idle time, so it goes to no_work and the identity (1) still holds.
                idle = np.maximum(0.0, p * span - (work + delay + no_work))
                comps["no_work"] = no_work + idle
                comps["critical_path"] = span
        return comps

    def _size_edges(self, table: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
        """``(low, edges)``: which points of ``table`` lie below the smallest training
        size ``n`` (:func:`~probperf.models.points.size_floor`), and ``table`` with
        those points at it."""
        from .models.points import size_floor

        n = table["n"].to_numpy(dtype=np.float64)
        floor = size_floor(self.train_ranges_, self.relations_)
        if floor is None:
            return np.zeros(len(n), dtype=bool), table
        return n < floor, table.assign(n=np.maximum(n, floor))

    def _draw_parts(self, pts: pd.DataFrame, S: int, seeds: dict, only=None) -> dict[str, np.ndarray]:
        """``S`` joint draws of every component at ``pts`` (``only``: of these and the
        parents they need), each from its seed: two calls at as many points share, in
        each part whose draws are pointwise (``draws_pointwise``), the coefficients and
        the run-to-run noise, so that they differ only where its laws do (what
        MONOTONE_BEYOND compares)."""
        p = pts["p"].to_numpy(dtype=np.float64)
        needed = set(COMPONENTS if only is None else only)
        for comp in reversed(WIRING):  # parents are drawn first: walk back to close the set
            if comp.name in needed:
                needed.update(comp.parents)
        comps = {}
        for comp in WIRING:
            if comp.name not in self.components_ or comp.name not in needed:
                continue
            features = self.features_ if comp.over_p else self.size_features_
            inputs, scale = self._inputs(comp, self.specs_[comp.name], pts, comps, features)
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow far out is said once, per point
                noise = comp.over_p or (comp.name == "critical_path" and SPAN_RUN_NOISE)
                draws = scale * inputs.draws(self.components_[comp.name], S, seeds[comp.name], noise)
            if comp.name == "critical_path" and "serial_work" in comps:
                # a path through the DAG is part of its work, T_inf <= T_1, per draw: a
                # span law carried far (a steep law of three sizes) once drew spans 100x
                # the work, which lifted one worker's time and the idle time it scales
                draws = np.minimum(draws, comps["serial_work"])
            at_one = comp.multi_worker or comp.name in self.zero_at_one_
            comps[comp.name] = np.where(p > 1, draws, 0.0) if at_one else draws
        return comps

    def __repr__(self) -> str:
        return f"DagModel(models={self.models!r}, kernel={self.kernel!r}, effort={self.effort!r})"


def _held_below(comps: dict, edge: dict, low: np.ndarray, p: np.ndarray) -> dict:
    """The draws ``comps`` with each point flagged ``low`` (below the smallest training
    size) no slower than its ``edge`` draw (the same draw at that size): where its time
    is larger, its time's parts and critical path scaled down to the edge's time (the
    identity and ``time >= T_inf`` kept; an overflowed draw takes the edge's parts), and
    the serial work and task counts no larger than the edge's (a smaller problem has no
    more work and no more tasks).

    Examples
    --------
    >>> one = lambda *v: np.array([v], dtype=float)  # one draw, points as columns
    >>> comps = {"work": one(8.0, 4.0), "delay": one(2.0, 1.0), "no_work": one(2.0, 1.0),
    ...          "serial_work": one(8.0, 4.0), "critical_path": one(1.0, 1.0)}
    >>> edge = {k: v / 2 for k, v in comps.items()}  # the same draw at the smallest size: half
    >>> held = _held_below(comps, edge, np.array([True, False]), np.array([2.0, 2.0]))
    >>> held["work"].tolist(), held["no_work"].tolist(), held["serial_work"].tolist()
    ([[4.0, 4.0]], [[1.0, 1.0]], [[4.0, 4.0]])
    """
    parts = ("work", "delay", "no_work")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        time, limit = (sum(c[k] for k in parts) / p for c in (comps, edge))
        over = low[None, :] & (time > limit)
        scale = np.where(over & np.isfinite(time), limit / time, 1.0)
        out = dict(comps)
        for k in (*parts, "critical_path"):
            if k in comps:
                out[k] = np.where(over & ~np.isfinite(time), edge[k], comps[k] * scale)
        for k in comps:  # serial work, task counts
            if k not in (*parts, "critical_path"):
                out[k] = np.where(low[None, :], np.minimum(comps[k], edge[k]), comps[k])
        if "critical_path" in out and "serial_work" in out:  # a path is part of the work, T_inf <= T_1'
            out["critical_path"] = np.where(low[None, :], np.minimum(out["critical_path"], out["serial_work"]),
                                            out["critical_path"])
    return out


#: A delay or idle time below this share of its run's ``p * time`` is a floating-point
#: residue, 0: a tracer (or a script) that finds one as ``p * time - work - ...`` is
#: left with rounding of about one ulp of the budget per operation, 2.2e-16 each, and
#: 64 ulps bounds a handful of them. Such residues (1e-20 s beside 1e-2 s) in 17 of
#: 105 runs put 15 decades into the idle part's log-scale fit: its 90 % interval at a
#: measured point reached 3e5 s (helper-73). The simulator's smallest idle share is
#: 5.5e-5, far above.
RESIDUE = 64 * np.finfo(np.float64).eps


def without_residues(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each delay and idle time below :data:`RESIDUE` of its run's
    ``work + delay + no_work`` set to 0 (a new frame; as given where nothing is).

    Examples
    --------
    >>> runs = pd.DataFrame({"p": [2, 2], "work": [1.0, 1.0], "delay": [0.1, 0.1], "no_work": [1e-18, 0.01]})
    >>> without_residues(runs)["no_work"].tolist()
    [0.0, 0.01]
    """
    parts = [c for c in ("work", "delay", "no_work") if c in frame]
    budget = frame[parts].sum(axis=1).to_numpy(dtype=np.float64)
    out = frame
    for c in ("delay", "no_work"):
        if c in frame:
            tiny = (frame[c].to_numpy(dtype=np.float64) > 0) & (frame[c].to_numpy(dtype=np.float64) < RESIDUE * budget)
            if tiny.any():
                out = out.assign(**{c: np.where(tiny, 0.0, frame[c].to_numpy(dtype=np.float64))})
    return out


def zero_at_one(frame: pd.DataFrame) -> list[str]:
    """The delay if every one-worker run measured none while some run on more workers
    did: that tracer counts no delay without a second worker (a steal's or a
    contended lock's), so one worker's prediction has none either, where a law fitted
    to the positive runs (zeros are no logs) would give it one (2.6 % of the time in
    helper-71's table). A tracer that counts task creation as delay measures it at
    one worker too, and is left alone.

    Examples
    --------
    >>> runs = pd.DataFrame({"p": [1, 2, 1, 2], "delay": [0.0, 0.1, 0.0, 0.2]})
    >>> zero_at_one(runs), zero_at_one(runs.assign(delay=[0.01, 0.1, 0.0, 0.2]))
    (['delay'], [])
    """
    one = frame["p"].to_numpy() == 1
    return ["delay"] if "delay" in frame and one.any() and (frame.loc[one, "delay"] == 0).all() and (
        frame.loc[~one, "delay"] > 0).any() else []


def _fit_component_job(model: DagModel, name: str, spec: str, inputs, y):
    """``model._fit_component`` of the component called ``name`` (a picklable job: a
    component itself holds functions)."""
    return model._fit_component(BY_NAME[name], spec, inputs, y)


def component_seeds(seed: int) -> dict[str, int]:
    """Independent seeds for each component (its model and its draws), the discrepancy
    factor, the calibration's sub-fit and the draws' discrepancy scales, spawned from
    one ``seed`` (a name's seed does not depend on the names after it).

    Examples
    --------
    >>> s = component_seeds(0)
    >>> len(set(s.values())) == len(s) == len(COMPONENTS) + 4, s == component_seeds(0)
    (True, True)
    """
    names = [*SEEDED, "discrepancy", "calibration", "scale", "setting"]
    children = np.random.SeedSequence(int(seed)).spawn(len(names))
    return {k: int(c.generate_state(1)[0]) for k, c in zip(names, children)}


def _basis_for(component: str):
    """The 2016 paper's term family for each size/worker component (generalised as in
    the thesis); the design-based components (work, delay) build their own designs."""
    from . import basis

    return {
        "serial_work": basis.serial_work,
        "create_task": basis.task_counts,
        "wait_tasks": basis.task_counts,
        "critical_path": basis.serial_work,
        "no_work": basis.no_work,
    }[component]()
