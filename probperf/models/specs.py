"""Model specs: the one parser of the short strings that name a metric model, and the
one place where an ``effort`` level becomes model options.

A spec is what ``--kernel``, :class:`~probperf.dag.DagModel`'s ``models`` and the
experiments' kernel lists take:

=================  ==================================================================
``laws``           stacked mixture of closed-form laws (:class:`~probperf.models.LawMixture`)
``basis``          Bayesian basis regression (:class:`~probperf.models.BayesianBasisRegression`);
                   for the DAG's ``delay`` the paper's design
``basis-steal``    (``delay`` only) the paper's design without the per-task growth with ``p``
``<kernel>``       a GP around a power law (:class:`~probperf.models.GaussianProcessModel`);
                   ``gp:<kernel>`` says the same
``exp:<kernel>``   a GP around an exponential law in ``n`` (fib, n-queens)
``auto``           (DAG components) chosen by forward validation among candidates
=================  ==================================================================

Where a spec is taken, a metric model object may be given instead: it is cloned (its
constructor parameters, scikit-learn's ``clone``) and fitted on the component's
parameters, so one instance can serve several components.

A kernel is a sum/product of registered base kernels
(:data:`~probperf.models.kernels.BASE_KERNELS`); the full grammar is checked when the
GP is built (:func:`~probperf.models.kernels.parse_kernel`), its sizes here, before any
data are read, so a spec that would exhaust memory is refused at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..limits import MAX_POLY_DEGREE, MAX_SM_MIXTURES

LAWS, BASIS, STEAL, AUTO = "laws", "basis", "basis-steal", "auto"
GP_PREFIX, EXP_PREFIX = "gp:", "exp:"

#: Kernel names that carry a size, with the limit on it.
_SIZED_KERNEL = re.compile(r"\b(sm|poly)(\d+)\b", re.IGNORECASE)
_SIZE_LIMITS = {"sm": (MAX_SM_MIXTURES, "MAX_SM_MIXTURES"), "poly": (MAX_POLY_DEGREE, "MAX_POLY_DEGREE")}

#: What each effort level means, per model family. ``default`` is what a user gets:
#: closed forms (laws) and SVI for basis regressions (issue 14: NUTS only when asked
#: for), three GP restarts (the GP's own default). ``quick`` is for tests, docs and
#: first looks: a shorter SVI run and one GP restart. ``thorough`` runs NUTS (exact up
#: to Monte-Carlo error) and five GP restarts. Law mixtures are closed-form at every level.
#: The baselines' own knobs follow the same levels: bootstrap replicates of the
#: two-step Lasso, and the neural nets' hyper-parameter search and epochs (the thesis'
#: settings at ``thorough``; fewer for a first look).
#: These numbers buy time against Monte-Carlo and optimiser error; none was chosen by
#: looking at prediction errors. 800 SVI steps, 1 restart, 20 replicates and the
#: neural-net search sizes are the settings the tests and the CI experiment grid
#: already used; 5 restarts at ``thorough`` only lowers the chance that every restart
#: ends in a poor local optimum of the marginal likelihood (the best one is kept).
EFFORTS = {
    "quick": {BASIS: {"inference": "svi", "svi_steps": 800}, "gp": {"n_restarts": 1},
              "lasso": {"n_boot": 20}, "nn": {"n_search": 1, "max_epochs": 150}},
    "default": {BASIS: {"inference": "svi"}, "gp": {},
                "lasso": {"n_boot": 100}, "nn": {"n_search": 3, "max_epochs": 600}},
    "thorough": {BASIS: {"inference": "nuts"}, "gp": {"n_restarts": 5},
                 "lasso": {"n_boot": 200}, "nn": {"n_search": 4, "max_epochs": 1000}},
}


@dataclass(frozen=True)
class Spec:
    """A parsed spec: ``family`` is ``"laws"``, ``"basis"``, ``"gp"``, ``"auto"`` or
    ``"model"`` (a model object given instead of a string, kept in ``model``).

    Examples
    --------
    >>> parse("exp:matern52")
    Spec(family='gp', kernel='matern52', exponential=True, steal=False, model=None)
    """

    family: str
    kernel: str | None = None
    exponential: bool = False
    steal: bool = False
    model: object = None


def parse(spec) -> Spec:
    """Parse a model spec (see the module docstring); ``ValueError`` names what is wrong.

    Examples
    --------
    >>> parse("basis-steal").family, parse("basis-steal").steal
    ('basis', True)
    >>> parse("gp:sm4+linear").kernel
    'sm4+linear'
    >>> parse("sm65")
    Traceback (most recent call last):
    ...
    ValueError: model spec 'sm65': sm65 must have 1 to 64 components (MAX_SM_MIXTURES)
    """
    if hasattr(spec, "get_params") and hasattr(spec, "fit"):
        return Spec("model", model=spec)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a model spec must be '{LAWS}', '{BASIS}' or a kernel spec, got {spec!r}")
    text = spec.strip()
    if text in (LAWS, AUTO):
        return Spec(text)
    if text in (BASIS, STEAL):
        return Spec(BASIS, steal=text == STEAL)
    exponential = text.startswith(EXP_PREFIX)
    kernel = text[len(EXP_PREFIX):] if exponential else text.removeprefix(GP_PREFIX)
    _check_sizes(text, kernel)
    _check_kernel(text, kernel)
    return Spec("gp", kernel=kernel, exponential=exponential)


def _check_kernel(text: str, kernel: str) -> None:
    """Refuse a kernel spec that names no kernel (a typo of ``laws``), before a fit or as a
    model file is read, naming the specs that are not kernels too. The grammar alone is
    read (no kernel is built); its module brings torch, which a GP needs anyway.

    Examples
    --------
    >>> _check_kernel("lawz", "lawz")
    Traceback (most recent call last):
    ...
    ValueError: unknown kernel 'lawz' in spec 'lawz'; known kernels: sm<Q>, ...; or 'laws', 'basis', 'basis-steal'
    """
    from .kernels import _Parser

    try:
        _Parser(kernel).parse()
    except ValueError as exc:
        raise ValueError(f"{exc}; or {', '.join(repr(s) for s in (LAWS, BASIS, STEAL))}") from None


def _check_sizes(text: str, kernel: str) -> None:
    for family, size in _SIZED_KERNEL.findall(kernel):
        most, name = _SIZE_LIMITS[family.lower()]
        if not 1 <= int(size) <= most:
            what = "components" if family.lower() == "sm" else "degree"
            raise ValueError(f"model spec {text!r}: {family}{size} must have 1 to {most} {what} ({name})")


def effort_options(family: str, effort: str) -> dict:
    """Constructor options of a ``family`` model at an ``effort`` level.

    Examples
    --------
    >>> effort_options("basis", "quick")
    {'inference': 'svi', 'svi_steps': 800}
    >>> effort_options("gp", "hard")
    Traceback (most recent call last):
    ...
    ValueError: effort must be one of quick, default, thorough; got 'hard'
    """
    return dict(EFFORTS[check_effort(effort)].get(family, {}))


def check_effort(effort: str) -> str:
    """``effort`` if it is one of :data:`EFFORTS`, else ``ValueError`` listing them.

    Examples
    --------
    >>> check_effort("thorough")
    'thorough'
    """
    if effort not in EFFORTS:
        raise ValueError(f"effort must be one of {', '.join(EFFORTS)}; got {effort!r}")
    return effort


def takes_effort(spec) -> bool:
    """Whether the effort level changes a ``spec``'s model: a law mixture is the same
    closed form at every level; ``auto`` may choose a basis regression or a GP, and a
    model object is unknown, so both count as taking one.

    Examples
    --------
    >>> takes_effort("laws"), takes_effort("basis"), takes_effort("sm4"), takes_effort("auto")
    (False, True, True, True)
    """
    family = parse(spec).family
    return family in (AUTO, "model") or any(family in levels for levels in EFFORTS.values())


def build(spec, effort: str = "default", **options):
    """A new, unfitted metric model for ``spec`` at ``effort``; ``options`` (seed,
    guard, basis...) go to its constructor and win over the effort's.

    GPs get the power-law mean (``"linear"``), or with ``exp:`` the exponential law in
    ``n`` (``n`` kept on its own scale), so every kernel models a residual around a law.

    Examples
    --------
    >>> build("exp:rbf", effort="quick").linear_inputs, build("rbf", effort="quick").n_restarts
    (('n',), 1)
    >>> type(build("laws")).__name__
    'LawMixture'
    >>> mine = build("rbf", n_restarts=2)
    >>> clone = build(mine, effort="quick", seed=5)
    >>> clone is mine, clone.n_restarts, clone.seed
    (False, 2, 0)
    """
    parsed = parse(spec)
    if parsed.family == "model":
        return type(parsed.model)(**parsed.model.get_params())
    if parsed.family == AUTO:
        raise ValueError("'auto' is a choice among specs, not a model; resolve it first")
    kwargs = {**effort_options(parsed.family, effort), **options}
    if parsed.family == LAWS:
        from .mixture import LawMixture

        return LawMixture(**kwargs)
    if parsed.family == BASIS:
        from .bayes import BayesianBasisRegression

        return BayesianBasisRegression(**kwargs)
    from .gp import GaussianProcessModel

    kwargs.setdefault("mean", "linear")
    if parsed.exponential:
        kwargs.setdefault("linear_inputs", ("n",))
    return GaussianProcessModel(kernel=parsed.kernel, **kwargs)


__all__ = ["Spec", "parse", "build", "effort_options", "check_effort", "takes_effort", "EFFORTS", "LAWS", "BASIS",
           "STEAL", "AUTO"]
