"""Which law set and which stacking for the law mixtures? Decided on *training rows only*.

Nested forward validation: for every case, only its ``train`` rows are used. Inside
them, each forward split of :func:`probperf.selection.forward_splits` (an outer split)
gives an inner training set and held-out runs beyond it; the time model (the law
mixture for the time-only cases, the DAG model with law-mixture components for the
simulator) is fitted on the inner set, with its own inner forward splits, and scored on
the held-out runs: mean log predictive density of log time (a normal fitted to the log
draws), median absolute percentage error and 90 % coverage. The variant with the
higher mean log score over the cases wins. No test row of any dataset is read.

Variants: the fixed size shapes ``n^j log^k n`` on a half-integer grid of ``j`` or the
performance-model normal form's exponent set (Calotoiu et al., SC 2013, as shipped by
Extra-P); with or without the discrepancy rate learnt by nested forward validation
(:func:`probperf.models.discrepancy.discrepancy_rate`) in the time-only mixture, and in the
DAG model's parts (``+parts``; without it the simulator's DAG models are the same with
and without ``+disc``); and how the discrepancy grows with the distance (:data:`GROWTHS`).
Chosen (results/choose_laws.md): ``pmnf+disc+parts-span``, the normal form's exponents,
the discrepancy in the DAG parts too, growing linearly in training spans; no
absolute-noise affine laws (``+abs``).

A variant name ending in ``+scale`` lets the DAG model learn one factor on all its
parts' rates from held-out time (:func:`probperf.selection.discrepancy_scale`,
``probperf.dag.SCALE_PARTS``; ``+scalesym``: on a grid symmetric about 1). Over the 14
simulated training sets ``pmnf+disc+parts-span+scale`` scores 0.239 against 0.226
without and 0.198 for ``+scalesym`` (``python benchmarks/choose_laws.py --only sim
--variants pmnf+disc+parts-span,pmnf+disc+parts-span+scale,pmnf+disc+parts-span+scalesym``,
results/choose_laws_scale.md):
chosen, by a small margin. ``+scale3`` learns the factor on three forward cuts
(``probperf.selection.SCALE_CUTS``): 0.307 (results/choose_laws_scale3.md), chosen.
A further suffix ``+one`` adds the laws with their own level at one worker
(``probperf.dag.ONE_WORKER_LEVEL``, LawMixture's ``one_worker_level``): 0.447 against
0.307 on the 14 simulated sets (results/choose_laws_one.md), chosen for the DAG parts;
for time modelled directly it ties (``--time-only``, results/choose_laws_time_only_one.md:
-0.143 vs -0.141), so it stays off there. A suffix ``+idle`` after it models the idle time per
``(p - 1) T_inf`` (``probperf.components.IDLE_PER_SPAN``): 0.474 against 0.447
(results/choose_laws_idle.md), chosen. ``+pm1ll`` after that adds the law
``power(p-1)+loglog(n)`` (``probperf.models.laws.PM1_LOGLOG``): 0.481 against 0.474
(results/choose_laws_pm1.md), and -0.140 against -0.141 with ``--time-only``
(results/choose_laws_time_only_pm1.md): a near-tie, kept by the rule fixed before the
runs (higher on the simulated sets, not lower on the 21). ``+scale3w``, the factor's
grid reaching 4 instead of 2, scores 0.371 against 0.481 (results/choose_laws_scale3w.md):
the grid stays.
``+gp`` gives every law of a time-only mixture a GP on its residuals
(``probperf.models.laws.RESIDUAL_GP``): -0.120 against -0.140 with ``--time-only``
(results/choose_laws_time_only_gp.md), on; ``+partgp`` does it in the DAG parts
(``probperf.dag.PART_RESIDUAL_GP``): 0.458 against 0.481 on the simulated sets
(results/choose_laws_partgp.md), off.
``+roll`` (always last) gives the mixtures' own forward splits a rolling origin of four
cuts instead of two (``ROLLING_CUTS``; the outer splits keep ``OUTER_CUTS``): -0.168
against -0.120 with ``--time-only`` (results/choose_laws_time_only_roll.md), rejected by
the rule fixed before the run (higher on the 21 sets). (Candour: tried because the
published cases' test errors trail Extra-P's, whose cross-validation fits on all but one
run; the rule was training-only.)
How the laws are weighed (suffixes after the others, before ``+roll``; stacking without
them): ``+bma`` weighs the laws of time modelled directly by their evidence (Bayesian
model averaging), ``+wavg`` blends stacking and evidence by each mixture's nested splits
(``probperf.models.laws.WEIGHTING``); ``+partbma`` and ``+partwavg`` do the same in the
DAG parts (``probperf.dag.PART_WEIGHTING``). With ``--time-only``: ``+wavg`` 0.002,
``+bma`` 0.027, stacking -0.120 (results/choose_laws_time_only_wavg.md, _bma.md); the
rule fixed before the ``+wavg`` run took the highest mean log score whose sum over the 3
real sets is not below stacking's (-1.765): ``+bma`` -2.766 fails it, ``+wavg`` -1.756
passes. On the simulated sets: ``+partwavg+wavg`` 0.515, ``+wavg`` 0.481 (equal to
stacking), results/choose_laws_wavg.md; every mixture by its evidence 0.460
(results/choose_laws_bma.md). Chosen: blended, in both.
The growth suffixes ``-spanw`` and ``-sqrtspanw`` carry the prior means that
choose_rate_prior.py's empirical Bayes gives under the blended weighting (0.282 linear,
0.224 square root, results/choose_rate_prior_wavg.md): 0.009 / 0.006 with
``--time-only`` and 0.525 / 0.410 on the simulated sets, against 0.002 and 0.515 with
0.316 (results/choose_laws_time_only_eb.md, choose_laws_eb.md): 0.282 adopted.
``+paired`` drew each law with its own weighting's discrepancy: 0.011 against 0.009
with ``--time-only``, 0.472 against 0.525 on the simulated sets
(results/choose_laws_time_only_paired.md, choose_laws_paired.md); ``+evgp`` counted each
law's residual GP in its evidence: -0.055 against 0.009 with ``--time-only``
(results/choose_laws_time_only_evgp.md). Both off, their code removed afterwards; run
them at commits bb655e0 and 587515b.
``+distinct`` (after ``+gp``) fits every per-size DAG part on its distinct values
(``probperf.components.DISTINCT_PER_SIZE``): 0.524 against 0.525 on the simulated sets
(results/choose_laws_distinct.md), off by the rule fixed before the run (higher); its
code was removed afterwards, run it at commit ba42f30.
Session 25 asked again under its defaults (``+distinct`` after ``+chkall``), with the
rule fixed before the runs that the furthest splits in n be higher on seeds 0 and 1:
0.365 / 0.428 against 0.388 / 0.471 there (all splits 0.741 / 0.705 against 0.740 /
0.707), rejected (results/choose_laws_distinct2*.md; the code is not kept).
``pmnfdc`` adds the Master theorem's exponents of Karatsuba and Strassen (log2 3 and
log2 7) to the fixed shapes: 0.012 against 0.009 with ``--time-only`` (the 3 real sets
equal) but 0.488 against 0.525 on the simulated sets (sparselu/A -0.741 -> -1.222),
results/choose_laws_time_only_dc.md and choose_laws_dc.md: rejected by the rule fixed
before the runs (higher time only, real sets not lower, simulated sets not lower).
(Candour: prompted by the published Karatsuba case's test error.) Session 24 asked
again under that session's defaults, with rules fixed before the runs, and adopted it:
0.268 against 0.266 with ``--time-only`` over 23 sets, the 5 real ones not lower
(results/choose_laws_time_only_dcl2.md), and 0.724 against 0.722 on the simulated DAG
sets, 0.698 against 0.697 on seed 1 (results/choose_laws_dcdag.md, _dcdag_seed1.md).
``+affexp`` (after ``+gp``, before the weightings) adds the affine exponential law
``c + a b^n`` (``probperf.models.laws.AFFINE_EXP``): 0.094 against 0.009 with
``--time-only`` (fib/A -0.979 -> 0.825, the real sets equal) and 0.525 against 0.525
on the simulated sets (results/choose_laws_time_only_affexp.md, choose_laws_affexp.md):
adopted by the rule fixed before the runs.
``+vague100`` and ``+vague1000`` (after the weightings' suffixes are stripped) set the
coefficients' prior sd (``probperf.models.laws.PRIOR_SD``) to 100 and 1000 instead of 10:
0.083 and 0.065 against 0.094 with ``--time-only`` (results/choose_laws_time_only_vague.md),
10 kept by the rule fixed before the run (higher time only); the simulated run was
stopped once that was decided.
The empirical Bayes re-run with the affine exponential law (results/choose_rate_prior_affexp.md)
gives doublings, power 1, 0.100 (``-dblw``): 0.188 against 0.094 with ``--time-only``
but 0.478 against 0.525 on the simulated sets (results/choose_laws_time_only_dbl.md,
choose_laws_dbl.md), so not everywhere; ``+partspanw`` (after the weightings' suffixes
are stripped) keeps the DAG parts in spans with 0.282 (``probperf.dag.PART_GROWTH``)
while time mixtures take ``-dblw``: 0.525 against 0.525 (results/choose_laws_split.md),
adopted. ``+base16`` (after ``+partspanw``) lets the affine exponential law's base reach
16 instead of 4 (see EXP_BASES16 below), adopted. ``+affprod`` (commit a1c7c17) added an
affine product law, rejected (see probperf.models.laws, after EXP_BASES). ``+chk`` (after
``+affexp``) leaves out the DAG parts' curvature in size or workers where only 3 values
leave no forward split to check it (``probperf.dag.PART_CHECKED_CURVATURE``, with the
figures), ``+timechk`` (after it) does the same in time modelled directly: 0.607 against
0.526 on the simulated sets, 0.604 against 0.445 with ``--seed 1`` (results/choose_laws_chkfix_ovh.md,
choose_laws_chkfix_seed1.md), and 0.183 against 0.297 with ``--time-only``
(results/choose_laws_time_only_chkfix.md): the parts only. (The files ``*_chknp.md`` and
``choose_laws_chk_seed1.md`` were run with a bug since fixed, and ``+chk`` then switched
both.) ``+ovhlog``, ``+ovhlin`` and ``+ovh`` (stripped after ``+base16``, so written
before it) give the affine laws an overhead growing as log2 p, as p - 1, or both as
separate laws (``probperf.models.laws.OVERHEADS``): ``+ovh`` adopted (results/choose_laws_time_only_ovh_guarded.md,
choose_laws_ovh.md; before the guard on worker counts: _time_only_ovh.md, _chkfix_ovh.md).
``+indep`` and ``+l2`` (written just before ``+roll``, stripped right after it) count the distance beyond
the data over the parameters no others make, summed or as a Euclidean norm
(``probperf.selection.DISTANCE_INDEPENDENT``, ``DISTANCE_NORM``): ``+l2`` adopted
(results/choose_laws_time_only_l2.md, choose_laws_l2.md), and with it ``-dblwl2``, the
rate prior's empirical Bayes under that distance (results/choose_laws_time_only_l2prior.md,
choose_laws_l2prior.md). The defaults are
``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+ovh+base16+wavg+l2`` (``--time-only``) and
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+ovh+base16+partspanl2b+partwavg+wavg+l2``
(``+partspanl2``: the DAG parts in spans with that empirical Bayes' span optimum, 0.178;
results/choose_laws_partspanl2.md, choose_laws_partspanl2_seed1.md; ``+partspanl2b``,
session 24: the optimum on the 23-set pool, 0.158, results/choose_laws_partspanl2b*.md)
(``+chkall``, stripped first of the on/off switches: the checked curvature also leaves out
a free extra shape in n, ``probperf.models.laws.CHECKED_SHAPES``; results/choose_laws_chkall.md,
choose_laws_chkall_seed1.md).
``--outer-split n>0.5`` scores only the outer splits that extrapolate furthest in n
(half the range): there too the blend leads, 0.091 against 0.067 stacking in the DAG
parts (6 simulated sets have the split) and -0.189 against -0.239 with ``--time-only``
(12 sets; results/choose_laws_far.md, choose_laws_time_only_far.md). (Candour: run
after the README flow, 16-256x beyond its sizes, showed the blended DAG parts
extrapolating the task counts and the critical path worse; the rule, fixed before the
run, was to revert the blend where it scored lower there.) Information only, after
session 23's changes (Euclidean distance, re-derived priors): the DAG default 0.353
against 0.154 for session 22's, the time-only default -0.043 against -0.049
(results/choose_laws_far_session23.md, choose_laws_time_only_far_session23.md). After
session 24's (Master theorem's shapes; 23 time-only sets): the DAG default 0.345 (6 sets),
the time-only default -0.069 against -9.788 for the log-log baseline (13 sets; its median
error 15.3 % against 17.5 %, its 90 % coverage 0.52 against 0.93;
results/choose_laws_far_session24.md, choose_laws_time_only_far_session24.md).
Outer splits whose fit or prediction fails are counted per variant: a variant must
not win by failing its hard splits. The variant ``loglog`` is bench_accuracy's log-log
least-squares baseline on the same outer splits (time only): the issue asks for a lower
median error than it on every real case, and this shows on training rows how the
default fares against it; ``extrap`` does the same for Extra-P (``probperf.models.extrap``;
one point prediction, so only its median error means anything), the competitor of the
published cases.

The discrepancy rate has an exponential prior (:data:`probperf.models.discrepancy.RATE_PRIOR_MEAN`,
set by ``choose_rate_prior.py``); a variant name ending in ``-mle`` takes the best rate of
the nested splits without it. ``--time-only`` models time directly on every case, the
simulator's too, which is where the rate matters (results/choose_laws_time_only.md,
over 21 cases: prior -0.141 vs -0.816 without, growing linearly in spans; -0.198 vs
-0.724 growing as the square root of the doublings).

    python benchmarks/choose_laws.py [--only published,real,extra,sim] [--variants halves,pmnf+disc] [--time-only] [--seed 1]

``+amd`` (stripped after ``+lower`` of the on/off switches) adds the Amdahl power law
(laws.AMDAHL; off, results/choose_laws_time_only_amd.md).

``+lower`` (stripped first of the on/off switches) gives every affine law a sibling with
the next term of its expansion (laws.LOWER_ORDER): 0.280 against 0.268 with
``--time-only`` over 23 sets, -0.041 against -0.069 on the furthest splits in n, but
0.736 / 0.705 against 0.740 / 0.707 on the simulated DAG sets (seeds 0 / 1) while it
reached the DAG parts (results/choose_laws_time_only_lower*.md, choose_laws_lower*.md).
Adopted for time modelled directly only: the parts keep single terms
(dag.PART_LOWER_ORDER), and ``+lower`` now switches the time mixtures alone (on the DAG
sets it scores as the default, results/choose_laws_lower_split.md). The defaults are
now ``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+lower+ovh+base16+wavg+l2`` (``--time-only``) and
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+ovh+base16+partspanl2b+partwavg+wavg+l2``.

``+het`` (stripped first of the on/off switches, before ``+lower``) weighs the runs of
time modelled directly by a noise profile, a run-to-run spread log-linear in the
parameters, fitted to a quadratic reference's residuals, kept by BIC and held at the
training box's edge beyond it (laws.NOISE_PROFILE, probperf/models/noise.py): 0.278
against 0.280 over the 23 time-only sets (bcast -0.220 against -0.386, slate_qr -0.382
against -0.416, allreduce -0.899 against -0.884, strassen/B -0.781 against -0.267),
rejected by the rule fixed before the run (higher mean, the 3 shared real sets not
lower; results/choose_laws_time_only_het.md). ``+hetnv`` (session 27, the suffix since)
keeps the profile only where the nested forward splits, each with the profile of its own
training rows, have a higher marginal likelihood with it: 0.287 against 0.280 (bcast
-0.225, slate_qr -0.436, allreduce -0.887; the 3 shared real sets' mean -0.516 against
-0.562), adopted by the same rule, fixed before its run
(results/choose_laws_time_only_hetnv.md). The time-only default is now
``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+lower+hetnv+ovh+base16+wavg+l2``. ``+parthet`` does
the same in the DAG model's law-mixture parts: 0.736 against 0.740 on the simulated sets of
seed 0, 0.718 against 0.707 on seed 1, rejected by the rule fixed before the runs (higher
on seed 0, not lower on seed 1; results/choose_laws_parthet.md, choose_laws_parthet_seed1.md).

``+affpow`` (session 27) offers the affine power law ``c + power`` with its overhead
siblings where parameters besides n and p vary (laws.AFFINE_POWER): 0.298 against 0.287
over the 23 time-only sets, the 3 shared real sets -0.498 against -0.516; adopted by the
rule fixed before the run (results/choose_laws_time_only_affpow.md). The time-only
default is now ``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+lower+hetnv+affpow+ovh+base16+wavg+l2``.
``+affpowp`` adds to each a sibling with ``p`` a power of the size law (laws.AFFINE_POWER_P):
0.291 against 0.298, the 3 shared real sets -0.506 against -0.498, rejected by the same
rule, fixed before its run (results/choose_laws_time_only_affpowp.md). After a review's
fixes (the profile's Newton steps, codes in its reference, the affine power law's units),
the session's default against the one before it, as a confirmation: 0.297 against 0.280,
the 3 shared real sets -0.498 against -0.562 (results/choose_laws_time_only_session27.md).

``extra``: the further real cases of ``benchmarks/data/real`` (ExaFMM, AMG), in the
default from session 24 on; the reports before it scored 21 time-only sets without them.
GEMM (threads) joined them in session 34: reports from then on score 24 time-only sets.

``+partsat`` (session 30, stripped first of the on/off switches) adds the saturating law
``sat(p-1)`` to the DAG model's parts (dag.PART_SATURATING; in practice the idle part):
0.751 against 0.740 on the simulated sets of seed 0 (sort/A 0.364 against 0.249, no set
lower by more than 0.002) and 0.708 against 0.707 on seed 1, adopted by the rule fixed
before the runs (higher on seed 0, not lower on seed 1; results/choose_laws_partsat.md,
choose_laws_partsat_seed1.md). The DAG default is now
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+ovh+base16+partspanl2b+partwavg+wavg+l2``. ``+idlebnd``
(stripped before ``+partsat``) leaves the laws that grow like a power of the size out of the
idle part (dag.IDLE_BOUNDED): 0.732 against 0.751 on seed 0, rejected by the rule fixed
before the run (results/choose_laws_idlebnd.md). ``+mono`` (stripped first) holds each
draw's work and delay beyond the largest training worker count at least at their values
at that count (dag.MONOTONE_BEYOND): 0.756 against 0.751 on seed 0 and 0.709 against
0.708 on seed 1, adopted by the same rule, fixed before the runs
(results/choose_laws_mono.md, choose_laws_mono_seed1.md), then turned off again after a
review found that the maximum over two independently noisy draws lifts far points by
about half a noise sd (dag.MONOTONE_BEYOND's comment): the DAG default stays
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+ovh+base16+partspanl2b+partwavg+wavg+l2``.

``+spaninfl`` (session 31, stripped first of the on/off switches) models the critical
path as a per-size span times the run's work inflation (dag.SPAN_INFLATED): 0.750 against
0.751 on seed 0, rejected by the rule fixed before the run (results/choose_laws_spaninfl.md).
``+mono`` again (session 31), in a new form: the edge is a second draw at the largest
training worker count from the same seeds, sharing the coefficients and the run-to-run
noise, not a twin column with its own noise: 0.760 against 0.751 on seed 0 and 0.713
against 0.708 on seed 1, adopted by the rule fixed before the runs
(results/choose_laws_mono2.md, choose_laws_mono2_seed1.md). The DAG default is now
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+mono+ovh+base16+partspanl2b+partwavg+wavg+l2``.

``+explin`` (session 31, stripped first of the on/off switches) gives ``exp(n)`` a sibling
linear in each configuration parameter (laws.EXP_LINEAR_CONFIG): 0.764 against 0.760 on
seed 0, 0.717 against 0.713 on seed 1, and time modelled directly on the simulated sets
0.582 against 0.575, adopted by the rule fixed before the runs
(results/choose_laws_explin.md, choose_laws_explin_seed1.md,
choose_laws_time_only_explin.md). The defaults are now
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+mono+explin+ovh+base16+partspanl2b+partwavg+wavg+l2``
(DAG) and ``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+lower+hetnv+affpow+explin+ovh+base16+wavg+l2``
(time only).

``+partspanq`` (session 39, in place of ``+partspanl2b``) lets the DAG parts' spread
grow as the square of the training spans with the square's empirical Bayes prior mean,
0.251 (results/choose_rate_prior_session39.md): 0.806 against 0.800 on seed 0, 0.771
against 0.758 on seed 1, adopted by the rule registered before the runs
(results/choose_laws_partspanq.md, choose_laws_partspanq_seed1.md;
probperf/dag.py after PART_GROWTH). The DAG default is now
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+mono+explin+ovh+base16+partspanq+partwavg+wavg+l2``.

``+monolow`` (session 32, stripped first of the on/off switches, written after
``+explin``) holds work and delay inside the measured workers too, from the smallest
count above one (dag.MONOTONE_WITHIN): 0.7998 against 0.8003 on seed 0, after the nqueens
simulator's fix (the default's 0.800 is not comparable with the 0.764 above), rejected by
the rule fixed before the run (results/choose_laws_monolow.md); its code is at commit
ac5e2ee.

``--single-size`` scores each case's runs at one setting of every parameter but p (a
strong-scaling study at one size) as cases of their own: 128 slices of the simulated
training sets. There ``+affp`` (session 32, stripped first of the on/off switches,
written after ``+explin``) adds the affine laws of p alone
(laws.AFFINE_WORKERS): time modelled directly 0.524 against 0.217 on seed 0 and 0.560
against 0.281 on seed 1, adopted; the DAG model 0.386 with them in its parts against
0.391 without, so its parts go without (results/choose_laws_time_only_affp.md,
choose_laws_time_only_affp_seed1.md, choose_laws_affp_dag.md; the DAG run predates the
laws' tie to ``affine_power``, which the DAG parts turn off: at later commits ``+affp``
no longer reaches them). The time-only default is
now ``pmnfdc+disc-dblwl2+pm1ll+gp+affexp+lower+hetnv+affpow+explin+affp+ovh+base16+wavg+l2``
(the other pools cannot tell: every case of theirs varies more than p); since session 42,
with ``+log1p`` after ``+affp`` (laws.LOG1P_COUNTS: a power of 1 + c for a parameter
counted from 0, chosen on amg, results/choose_laws_time_only_log1p.md) and, since
session 44, ``+shift`` after it (laws.SHIFTED_COUNTS: that power's shift s + c
fitted, not 1; registered 2026-11-28 17:56 UTC before any run, amg -0.214 against
-0.250, kripke equal, results/choose_laws_time_only_shift.md). A variant without
``+log1p`` (the DAG defaults written above) turns both off; the simulated sets have no
parameter counted from 0, so it changes none of their numbers.
``+hetsd`` (session 43, registered 2026-11-28 15:22 UTC before any run; stripped first,
written after ``+log1p``) let a kept noise profile set only the spread of the laws'
predictives, their fits keeping the runs' own precision: the 3 shared real sets' mean
-0.524 against -0.498 (allreduce -0.844 against -0.833, bcast -0.282 against -0.196,
slate_qr -0.445 against -0.466), which fails +hetnv's rule whatever the rest gives, so
the run was stopped there (results/choose_laws_time_only_hetsd.md); its code is at
commit 42acadf. Since session 49 the time-only default also ends ``+shift+linsp`` before
``+ovh`` (laws.LINEAR_SPEEDUP_BEYOND: no draw faster than a linear speed-up beyond the
training workers; registered 2026-11-29 08:07 UTC before any run, 0.208 against 0.189,
the real sets equal; results/choose_laws_time_only_linsp.md), then ``+linspt`` after it
(laws.LINEAR_SPEEDUP_TIED, the same where p is made of other parameters; registered
08:38 UTC, 0.210 against 0.208, the real sets' mean -0.396 against -0.403;
results/choose_laws_time_only_linspt.md), and since session 50 ``+heldw`` after that
(laws.HELD_WIDENING: a held draw keeps the upward part of the widening; registered
10:19 UTC, 0.2103 against 0.2096, the real sets' mean -0.3957 against -0.3963;
results/choose_laws_time_only_heldw.md). ``+edgesp`` (laws.EDGE_SPEEDUP_BEYOND,
session 50: no faster than the draw's own speed-up over the last doubling) scored 0.200
against 0.210 and was rejected (results/choose_laws_time_only_edgesp.md; code at commit
12fde63). ``+tiedsp`` (laws.TIED_SPEEDUP_NOISE, session 51: a speed-up edge takes its
point's noise deviate) scored 0.2085 against 0.2103, the real sets' mean -0.3980 against
-0.3957, and was rejected (results/choose_laws_time_only_tiedsp.md). ``--dag`` fits
the DAG model wherever the runs carry its metrics: on the single-size slices of seed 1
it scores 0.451 against 0.560 for time modelled directly, so ``auto`` models one size's
time directly (registry.SINGLE_SIZE_DIRECT; results/choose_laws_single_size_dag_seed1.md).
``+partwd`` (session 32, stripped first of the on/off switches, written after ``+affp``
or ``+explin``) gives the DAG parts the paper's worker law ``c0 + c1 (p-1)/p + c2 (p-1)``
(dag.PART_WORKER_DESIGN): 0.795 against 0.800 on seed 0, rejected
(results/choose_laws_partwd.md); its code is at commit 05392a8. ``+workbnd`` (stripped
first, written after ``+affp`` or ``+explin``) leaves the laws that grow like a power of n out of the work part
(dag.WORK_BOUNDED): 0.798 against 0.800 on seed 0, rejected (results/choose_laws_workbnd.md).

``+conv`` (session 36, registered 2026-11-27 20:44 UTC before any run; stripped first of
the on/off switches, written after ``+affp`` or ``+explin``) solves the stacking problem
to convergence (selection.STACKING_CONVERGED: EM accelerated by SQUAREM, Varadhan and
Roland 2008, until the weights move by less than 1e-8) instead of stopping the EM at 500
iterations, where on bcast's largest problem the weights were still up to 0.07 off the
optimum. Rule fixed before the runs: adopted if its mean log score is not below the
default's (to 3 decimals) on each of the three runs, ``--time-only`` on every folder and
the DAG default on ``--only sim`` with seeds 0 and 1, and above it on at least one, with
the sum over the real sets of ``--time-only`` not below the default's; otherwise rejected
(the early stop stays, as a pull toward uniform weights that no one chose).
Rejected: on the real sets of ``--time-only`` its log scores are -0.836 / -0.197 / -0.468
against the default's -0.833 / -0.196 / -0.466 (sum -1.501 against -1.495; also -0.351
against -0.349 on karatsuba_nonuniform_p8, equal on the other published sets), which
fails the rule's last condition whatever the other runs give, so the run was stopped
there and the DAG runs not started (results/choose_laws_time_only_conv.md). The
converged weights are the optimum of the held-out score they are chosen on, and they
score lower one level out: the early stop's pull toward uniform weights is worth
keeping. Its code (SQUAREM, with a test of the optimality conditions) is at commit
16f872d; the stacking's EM, from uniform weights and 500 steps, stays as it was.

``+drift`` (session 47, registered 2026-11-29 02:50 UTC before any run, commit ca05f97
where its code is) gave every law mixture's discrepancy a signed drift beside its
spread, learnt by the same nested splits (probperf/models/discrepancy.py, after
RATE_GRID): 0.172 against 0.189 with ``--time-only`` and 0.751 against 0.806 on the
simulated DAG sets of seed 0, rejected on both paths by the rule fixed before the runs
(results/choose_laws_time_only_drift.md, choose_laws_drift.md).

Session 52: the simulator's work stealing was fixed (2026-11-29, probperf/sim/schedule.py:
the first idle thief to probe a pushed continuation takes it; before, a woken thief
searched alone, about p - 1 probes), which changes every simulated training set, most
the idle time and delay of programs with little parallelism. Registered 2026-11-29
14:44 UTC, before any run on the fixed simulator: the DAG default and the time-only
default are re-scored on ``--only sim`` with seeds 0 and 1 (new reference scores, no
decision), and the three DAG switches whose evidence came mostly from idle time and
delay growing with p are re-checked, each by the default without it: ``+idle``
(components.IDLE_PER_SPAN), ``+partsat`` (dag.PART_SATURATING) and ``+mono``
(dag.MONOTONE_BEYOND). Rule: a switch is turned off only if the default without it
scores a higher mean log score (3 decimals) on both seeds; otherwise it stays, as
decided before. Results: results/choose_laws_simfix.md, choose_laws_simfix_seed1.md,
choose_laws_time_only_simfix.md, choose_laws_time_only_simfix_seed1.md. The DAG default
scores 0.799 on seed 0 (0.806 on the old simulator's sets) and 0.846 on seed 1; without
``+idle`` 0.693 / 0.755, without ``+partsat`` 0.797 / 0.840, without ``+mono``
0.785 / 0.838: all three stay. Time modelled directly, the default: 0.654 / 0.609 on
the simulated sets (its real and published sets are unchanged).

``+partinfl`` (session 53, registered 2026-11-29 17:37 UTC before any run; written after
``+explin``) adds the 2016 paper's per-worker law ``c0 + c1 (p - 1)/p + c2 (p - 1)`` to
the DAG work and delay parts (dag.PART_INFLATION_LAW, where the why is): 0.811 against
0.799 on seed 0 and 0.856 against 0.846 on seed 1, adopted by the rule fixed before the
runs (results/choose_laws_partinfl.md, choose_laws_partinfl_seed1.md). After the
decision the law was also refused where it would be a constant; the default with that
change scores the same, 0.811 and 0.856 (results/choose_laws_partinfl_final.md,
choose_laws_partinfl_final_seed1.md). The DAG default is now
``pmnfdc+disc+parts-dblwl2+scale3+one+idle+pm1ll+gp+affexp+chk+chkall+lower+partsat+mono+explin+partinfl+ovh+base16+partspanq+partwavg+wavg+l2``.
"""

from __future__ import annotations

import argparse
import collections
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402
from bench_accuracy import loglog_baseline, table_cases  # noqa: E402

import probperf as pp  # noqa: E402
from probperf import components, dag, registry, selection  # noqa: E402
from probperf.models import LawMixture, laws  # noqa: E402
from probperf.models import discrepancy as disc  # noqa: E402  (a variant's `discrepancy` is a switch)
from probperf.models.extrap import ExtraP  # noqa: E402
from probperf.predict import Predictive  # noqa: E402
from probperf.selection import forward_splits  # noqa: E402

PMNF = laws.PMNF_SHAPES  # the performance-model normal form's exponents (Calotoiu et al. 2013, Extra-P's set)
#: the normal form's exponents and the Master theorem's of the two classic fast recursions,
#: Karatsuba (3 halves: log2 3) and Strassen (7 halves: log2 7), without log factors
PMNFDC = PMNF + laws.MASTER_SHAPES  # and the Master theorem's (laws.MASTER_SHAPES): the default since session 24
#: the 2016 paper's grid: j in 0..3 by halves, k in 0..2
HALVES = tuple((j / 2, k) for j in range(0, 7) for k in range(0, 3) if (j, k) != (0, 0))
VARIANTS = {  # name: (size shapes, time-only discrepancy, DAG parts' discrepancy, absolute noise)
    "halves": (HALVES, False, False, False),
    "halves+disc": (HALVES, True, False, False),
    "halves+disc+abs": (HALVES, True, False, True),
    "pmnf": (PMNF, False, False, False),
    "pmnf+disc": (PMNF, True, False, False),
    "halves+disc+parts": (HALVES, True, True, False),
    "pmnf+disc+parts": (PMNF, True, True, False),
    "pmnf+disc+parts+abs": (PMNF, True, True, True),
    "pmnfdc+disc": (PMNFDC, True, False, False),
    "pmnfdc+disc+parts": (PMNFDC, True, True, False),
    "pmnfdc+disc+abs": (PMNFDC, True, False, True),
}
#: how the discrepancy grows beyond the data (disc.DISTANCE_PER_SPAN, DISTANCE_POWER and
#: the rate's prior mean disc.RATE_PRIOR_MEAN that empirical Bayes gives that growth,
#: results/choose_rate_prior.md): as the square root of the doublings (no suffix),
#: linearly in training spans (suffix "-span") or as their square root ("-sqrtspan"), or
#: averaged over those two by each mixture's evidence ("-spanavg", disc.AVERAGE_GROWTHS).
#: A further suffix "-mle" drops the prior: the best rate of the nested splits.
GROWTHS = {"": (False, 0.5, 0.178), "-span": (True, 1.0, 0.316), "-sqrtspan": (True, 0.5, 0.251),
           "-spanavg": (True, 1.0, 0.316),
           # the empirical Bayes of choose_rate_prior.py under the blended weighting
           # (results/choose_rate_prior_wavg.md): each form's best prior mean
           "-spanw": (True, 1.0, 0.282), "-sqrtspanw": (True, 0.5, 0.224),
           # the same with the affine exponential law (results/choose_rate_prior_affexp.md):
           # linear in doublings, 0.100
           "-dblw": (False, 1.0, 0.100),
           # the same under the Euclidean distance (results/choose_rate_prior_l2.md): 0.079
           "-dblwl2": (False, 1.0, 0.079),
           # its span form's optimum there, for the DAG parts ("+partspanl2")
           "-spanl2": (True, 1.0, 0.178),
           # the same on session 24's 23-set pool (results/choose_rate_prior_session24.md),
           # for the DAG parts ("+partspanl2b")
           "-spanl2b": (True, 1.0, 0.158),
           # the square of the spans (session 39's registered experiment, probperf/dag.py):
           # its optimum on the 25-set pool (results/choose_rate_prior_session39.md), for the
           # DAG parts ("+partspanq")
           "-spanl2q": (True, 2.0, 0.251),
           # the DAG parts' own empirical Bayes (choose_rate_prior.py --parts,
           # results/choose_rate_prior_parts.md), for the parts ("+partdbleb")
           "-dblparts": (False, 1.0, 0.018),
           # both forms in doublings averaged by each time mixture's nested splits
           # (disc.AVERAGE_GROWTHS over disc.GROWTHS[False]), each with its empirical
           # Bayes prior mean: those of the code's GROWTHS, now the Euclidean distance's
           # (results/choose_rate_prior_l2.md; results/choose_laws_time_only_dblavg.md
           # was run with results/choose_rate_prior_base16.md's); the DAG parts keep
           # their own growth with "+partspanw" (without it they average too)
           "-dblavg": (False, 1.0, 0.100)}
#: the DAG parts' own growth (suffix, stripped after the weightings'): GROWTHS' key
PART_GROWTHS = {"+partspanw": "-spanw", "+partspanl2": "-spanl2", "+partspanl2b": "-spanl2b",
                "+partdbleb": "-dblparts", "+partspanq": "-spanl2q"}
#: the DAG model's factor on its parts' rates (suffix): its grid, 0 and 1/8..2 by sqrt(2)
#: ("+scale", the default grid) or 1/4..4 by sqrt(2), symmetric about 1 ("+scalesym")
SCALES = {"+scale": (0.0, 0.125, 0.177, 0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0),
          "+scalesym": (0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0, 2.828, 4.0)}
SCALES["+scale3"] = SCALES["+scale"]  # the default grid, learnt on three forward cuts (n and p, n, p)
SCALES["+scale3w"] = SCALES["+scale"] + (2.828, 4.0)  # the same, reaching 4
#: on/off suffixes, stripped from the end of a variant name in this order: curvature in
#: size or workers only where a forward split checks it (LawMixture's
#: checked_curvature), in time modelled directly (TIME_CHECKED) and in the DAG parts
#: (dag.PART_CHECKED_CURVATURE), the affine exponential law, the laws' residual GPs in the DAG parts and in time modelled directly, the law
#: power(p-1)+loglog(n), the idle time per (p-1) T_inf, the one-worker laws
SWITCHES = (("+heldw", laws, "HELD_WIDENING"), ("+linspt", laws, "LINEAR_SPEEDUP_TIED"), ("+linsp", laws, "LINEAR_SPEEDUP_BEYOND"), ("+spannoise", dag, "SPAN_RUN_NOISE"), ("+shift", laws, "SHIFTED_COUNTS"), ("+log1p", laws, "LOG1P_COUNTS"), ("+steal", dag, "PART_STEAL_LAW"), ("+partinfl", dag, "PART_INFLATION_LAW"), ("+workbnd", dag, "WORK_BOUNDED"), ("+affp", laws, "AFFINE_WORKERS"), ("+explin", laws, "EXP_LINEAR_CONFIG"), ("+spaninfl", dag, "SPAN_INFLATED"), ("+mono", dag, "MONOTONE_BEYOND"), ("+idlebnd", dag, "IDLE_BOUNDED"), ("+partsat", dag, "PART_SATURATING"), ("+partaffpow", dag, "PART_AFFINE_POWER"), ("+affpar", laws, "AFFINE_PARALLEL_SIZE"), ("+affpowp", laws, "AFFINE_POWER_P"), ("+affpow", laws, "AFFINE_POWER"), ("+parthet", dag, "PART_NOISE_PROFILE"), ("+hetnv", laws, "NOISE_PROFILE"), ("+lower", laws, "LOWER_ORDER"), ("+amd", laws, "AMDAHL"), ("+chkall", laws, "CHECKED_SHAPES"),
            ("+timechk", sys.modules[__name__], "TIME_CHECKED"), ("+chk", dag, "PART_CHECKED_CURVATURE"),
            ("+affexp", laws, "AFFINE_EXP"), ("+partgp", dag, "PART_RESIDUAL_GP"), ("+gp", laws, "RESIDUAL_GP"),
            ("+pm1ll", laws, "PM1_LOGLOG"), ("+idle", components, "IDLE_PER_SPAN"),
            ("+one", dag, "ONE_WORKER_LEVEL"))
#: the cuts of the mixtures' own (inner) forward splits: selection.CUTS (no suffix) or,
#: with the suffix "+roll" (stripped first), a rolling origin of four cuts, eighths of the
#: range from 1/2 to 7/8, so that more of the splits fit on nearly all the runs. The
#: outer splits that judge every variant keep OUTER_CUTS, whatever the variant.
ROLLING_CUTS = (0.875, 0.75, 0.625, 0.5)
OUTER_CUTS = selection.CUTS
#: how the law mixtures weigh their laws (laws.WEIGHTING for time modelled directly,
#: dag.PART_WEIGHTING for the DAG parts), suffixes stripped after "+roll" and the
#: distance's suffix (DISTANCE_SUFFIXES), in this order;
#: stacking without them
WEIGHINGS = (("+bma", laws, "WEIGHTING", "evidence"), ("+wavg", laws, "WEIGHTING", "averaged"),
             ("+partbma", dag, "PART_WEIGHTING", "evidence"), ("+partwavg", dag, "PART_WEIGHTING", "averaged"))
#: the coefficients' prior sd (laws.PRIOR_SD, in noise sds per term sd), suffix
#: "+vague<sd>" stripped after the weightings (before the on/off switches); 10 without
PRIOR_SD = 10.0
PRIORS = {"+vague100": 100.0, "+vague1000": 1000.0}
#: the affine exponential law's bases (laws.EXP_BASES): up to 4 (60 points), or with the
#: suffix "+base16" (stripped after "+partspanw") up to 16 (120 points), the default since
#: it scored 0.246 vs 0.188 time only and 0.526 vs 0.525 on the simulated sets
#: (results/choose_laws_time_only_base16.md, choose_laws_base16.md)
EXP_BASES4, EXP_BASES16 = np.geomspace(1.05, 4.0, 60), np.geomspace(1.05, 16.0, 120)
#: the affine laws' overheads growing with the workers (laws.OVERHEADS), suffix stripped
#: after "+base16": log2 p, p - 1, or both as separate laws; none without
OVERHEAD_SUFFIXES = {"+ovhlog": ("log",), "+ovhlin": ("lin",), "+ovh": ("log", "lin")}
TIME_ONLY = False  # --time-only
#: suffix (stripped after "+roll"): the discrepancy's distance over the independent
#: parameters only, summed ("+indep") or Euclidean ("+l2"); without: summed over all
DISTANCE_SUFFIXES = {"": (False, "sum"), "+indep": (True, "sum"), "+l2": (True, "euclid")}
TIME_CHECKED = False  # suffix "+timechk": checked_curvature in time modelled directly
OUTER_ONLY = None  # --outer-split: score only the outer splits with this label (e.g. "n>0.5")
SINGLE_SIZE = False  # --single-size: every case's runs at one setting of all but p, as cases of their own
DAG_ONLY = False  # --dag: the DAG model wherever the runs carry its metrics, whatever registry.choose says
FAILED = collections.Counter()  # variant -> outer splits whose fit or prediction raised


def score(model, held):
    pred = model.predict(held[model.features_], n_draws=2000, seed=0)
    y = held["time"].to_numpy()
    ld = selection.log_scores(pred.draws, y)
    lo, hi = pred.interval(0.9)
    return float(np.mean(ld)), float(np.median(np.abs(pred.median / y - 1)) * 100), float(np.mean((lo <= y) & (y <= hi)))


#: the variants that are baselines to compare with, never candidates to choose
BASELINES = ("loglog", "extrap")


class LogLog:
    """The variant ``loglog``: bench_accuracy's log-log least-squares baseline, its draws
    normal on the log scale with its residual sd. Not a candidate default: it puts the
    baseline the issue names on the same outer splits, so that losing to it shows on
    training rows before any test row."""

    def fit(self, inner):
        self.frame_, self.features_ = inner.frame, list(inner.params)
        return self

    def predict(self, points, n_draws, seed):
        median, _, sd = loglog_baseline(self.frame_, points, self.features_)
        z = np.random.default_rng(seed).standard_normal((n_draws, len(points)))
        return Predictive(median * np.exp(sd * z))


def fit(inner, variant):
    """What ``fit --model auto`` builds, under one variant: the law mixture of time for a
    time-only table (as DirectModel does), the DAG model for traced runs."""
    if variant in BASELINES:
        return LogLog().fit(inner) if variant == "loglog" else ExtraP().fit(inner)
    selection.CUTS = ROLLING_CUTS if variant.endswith("+roll") else OUTER_CUTS
    variant = variant.removesuffix("+roll")
    norm = max((k for k in DISTANCE_SUFFIXES if variant.endswith(k)), key=len)
    selection.DISTANCE_INDEPENDENT, selection.DISTANCE_NORM = DISTANCE_SUFFIXES[norm]
    variant = variant.removesuffix(norm)
    laws.WEIGHTING = dag.PART_WEIGHTING = "stacking"  # unless a suffix says otherwise
    for suffix, module, flag, value in WEIGHINGS:  # the law weighting: time only, then the DAG parts
        if variant.endswith(suffix):
            setattr(module, flag, value)
            variant = variant.removesuffix(suffix)
    part = next((k for k in PART_GROWTHS if variant.endswith(k)), "")
    dag.PART_GROWTH = GROWTHS[PART_GROWTHS[part]] if part else None
    variant = variant.removesuffix(part)
    laws.EXP_BASES = EXP_BASES16 if variant.endswith("+base16") else EXP_BASES4
    variant = variant.removesuffix("+base16")
    overhead = next((k for k in OVERHEAD_SUFFIXES if variant.endswith(k)), "")
    laws.OVERHEADS, variant = OVERHEAD_SUFFIXES.get(overhead, ()), variant.removesuffix(overhead)
    prior = next((v for k, v in PRIORS.items() if variant.endswith(k)), PRIOR_SD)
    laws.PRIOR_SD, variant = prior, variant.removesuffix(f"+vague{prior:g}")
    for suffix, module, flag in SWITCHES:  # set on every call: no variant inherits another's
        setattr(module, flag, variant.endswith(suffix))
        variant = variant.removesuffix(suffix)
    one_worker = dag.ONE_WORKER_LEVEL
    scale = max((k for k in SCALES if variant.endswith(k)), key=len, default="")
    dag.SCALE_PARTS, selection.SCALE_GRID = bool(scale), SCALES.get(scale, SCALES["+scale"])
    selection.SCALE_CUTS = ("np", "n", "p") if scale.startswith("+scale3") else ("np",)
    variant = variant.removesuffix(scale)
    base, mle = variant.removesuffix("-mle"), variant.endswith("-mle")
    growth = max((g for g in GROWTHS if base.endswith(g)), key=len)
    base = base.removesuffix(growth)
    laws.FIXED_SHAPES, discrepancy, dag.PART_DISCREPANCY, laws.ABSOLUTE_NOISE = VARIANTS[base]
    disc.DISTANCE_PER_SPAN, disc.DISTANCE_POWER, prior_mean = GROWTHS[growth]
    disc.AVERAGE_GROWTHS = growth in ("-spanavg", "-dblavg")  # over disc.GROWTHS of the growth's unit
    disc.RATE_PRIOR_MEAN = 0.0 if mle else prior_mean
    if TIME_ONLY or not DAG_ONLY and registry.choose(inner, "time") == "direct":
        return LawMixture(discrepancy=discrepancy, one_worker_level=one_worker,
                          checked_curvature=TIME_CHECKED).fit(inner, target="time")
    return pp.fit(inner, target="time", model="dag" if DAG_ONLY else "auto")


def outer_scores(train, variant):
    """(log score, MdAPE, cov90) on each outer forward split of one case (NaN where the
    variant's fit or prediction failed), or None without an outer split."""
    frame = train.frame
    varying = [c for c in train.params if frame[c].nunique() > 1]
    X = frame[varying].to_numpy(float)
    out = []
    for split in forward_splits(X, varying, cuts=OUTER_CUTS):
        if OUTER_ONLY and split.label != OUTER_ONLY:
            continue
        inner = train.__class__(frame[split.train].reset_index(drop=True), config=train.config, source=train.source)
        try:
            model = fit(inner, variant)
            out.append(score(model, frame[split.test]))
        except ValueError as exc:  # counted: a variant must not win by failing its hard splits
            out.append((np.nan, np.nan, np.nan))
            FAILED[variant] += 1
            print(f"    {variant} split {split.label}: {exc}")
    return np.array(out, dtype=float) if out else None


def cases(parts, seed=0):
    """The training rows of every case; ``seed``: the simulated datasets' (every choice
    up to session 22 used seed 0; seed 1 gives training sets none of them saw). With
    SINGLE_SIZE, each case's slices instead (:func:`single_size_slices`)."""
    from probperf.sim.datasets import PROTOCOL, dataset

    def each():
        for folder in ("published", "real", "extra"):
            if folder in parts:
                for name, train, _ in table_cases(folder):
                    yield name, train
        if "sim" in parts:
            for app in PROTOCOL:
                for which in ("A", "B"):
                    yield f"sim {app}/{which}", dataset(app, which, seed=seed).select(split="train")

    for name, train in each():
        yield from single_size_slices(name, train) if SINGLE_SIZE else [(name, train)]


def single_size_slices(name, train):
    """The runs of ``train`` at each setting of every parameter but ``p``, with more than
    MIN_DISTINCT worker counts (so that a forward split in p exists): a strong-scaling
    study at one size, as a case of its own (``--single-size``)."""
    frame = train.frame
    others = [c for c in train.params if c != "p"]
    for key, rows in frame.groupby(others):
        if rows["p"].nunique() > selection.MIN_DISTINCT:
            key = key if isinstance(key, tuple) else (key,)
            label = ",".join(f"{c}={v:g}" for c, v in zip(others, key))
            yield f"{name} @{label}", train.__class__(rows.reset_index(drop=True), config=train.config,
                                                       source=train.source)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="published,real,extra,sim")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--time-only", action="store_true", help="model time directly on every case (simulator too)")
    ap.add_argument("--outer-split", help="score only the outer splits with this label, e.g. n>0.5 (the longest "
                    "extrapolation in n); cases without it are left out")
    ap.add_argument("--seed", type=int, default=0, help="seed of the simulated datasets (1: a confirmation on "
                    "training sets no earlier choice used)")
    ap.add_argument("--single-size", action="store_true", help="score each case's runs at one setting of every "
                    "parameter but p (strong scaling at one size) as cases of their own")
    ap.add_argument("--dag", action="store_true", help="the DAG model wherever the runs carry its metrics "
                    "(registry.SINGLE_SIZE_DIRECT would model one size's time directly)")
    args = ap.parse_args(argv)
    global TIME_ONLY, OUTER_ONLY, SINGLE_SIZE, DAG_ONLY
    TIME_ONLY, OUTER_ONLY, SINGLE_SIZE, DAG_ONLY = args.time_only, args.outer_split, args.single_size, args.dag
    names = args.variants.split(",")
    totals = {v: [] for v in names}
    warnings.simplefilter("ignore")
    for case, train in cases(args.only.split(","), args.seed):
        per_split = {v: outer_scores(train, v) for v in names}
        if any(s is None for s in per_split.values()):  # no outer split (with --outer-split's label)
            print(f"{case:28s} (no split)", flush=True)
            continue
        # every variant is scored on the splits all of them completed: one that fails a
        # hard split (counted in FAILED) neither loses nor wins by it
        done = np.all([~np.isnan(s[:, 0]) for s in per_split.values()], axis=0)
        if not done.any():  # some variant failed every split: the case says nothing
            print(f"{case:28s} (no split completed by every variant)", flush=True)
            continue
        line = f"{case:28s}"
        for v, s in per_split.items():
            s = s[done].mean(axis=0)
            totals[v].append(s)
            line += f" | {v} {s[0]:7.3f} {s[1]:6.1f}% {s[2]:.2f}"
        print(line, flush=True)
    for v, rows in totals.items():
        rows = np.array(rows)
        print(f"{v:10s}: mean log score {np.nanmean(rows[:, 0]):.3f}, geometric mean MdAPE "
              f"{np.exp(np.nanmean(np.log(rows[:, 1]))):.1f} %, mean cov90 {np.nanmean(rows[:, 2]):.2f} over {len(rows)} cases"
              f" ({FAILED[v]} outer splits failed)")
    candidates = [v for v in totals if v not in BASELINES]
    if candidates:
        best = max(candidates, key=lambda v: np.nanmean(np.array(totals[v])[:, 0]))
        print(f"chosen: {best}")


if __name__ == "__main__":
    # one report per mode: the time-only run must not overwrite the DAG one
    with report("choose_laws_time_only" if "--time-only" in sys.argv else "choose_laws"):
        main()
