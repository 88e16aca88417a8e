"""Choosing the terms of a basis regression: candidate sets, PSIS-LOO, pruning.

* :func:`resolve_basis` and :func:`candidate_sets` turn the estimator's ``basis`` and
  ``candidates`` parameters into the basis sets to fit; :func:`nested_candidates`
  builds the ``"auto"`` candidates.
* :func:`loo_table` compares fitted candidates by PSIS-LOO and :func:`one_se_choice`
  picks the smallest set within one standard error of the best (fewer terms
  extrapolate more safely).
* :func:`relevant_terms` decides which terms of one fit are worth keeping.

A *fit* here is the dict :class:`~probperf.models.bayes.BayesianBasisRegression`
builds per design: posterior draws ``coef`` (S x K), ``sigma``, ``gamma`` (S,), the
design ``Phi`` (N x K), the covariate ``u`` (N,), term ``names`` and ``chains``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..basis import BasisSet, preset, serial_work, strong_scaling
from .basis_model import lognormal_loglik
from .inference import _import_arviz


def resolve_basis(basis, p) -> BasisSet:
    """The basis a ``basis`` parameter means for training worker counts ``p``.

    ``"auto"``: :func:`~probperf.basis.strong_scaling` if ``p`` varies, else
    :func:`~probperf.basis.serial_work`; a str names a preset; a BasisSet is itself.

    Examples
    --------
    >>> resolve_basis("auto", [1, 1]) == serial_work()
    True
    >>> resolve_basis("auto", [1, 4]) == strong_scaling()
    True
    """
    if isinstance(basis, BasisSet):
        return basis
    if basis == "auto":
        return strong_scaling() if len(np.unique(p)) > 1 else serial_work()
    if isinstance(basis, str):
        return preset(basis)
    raise ValueError(f"basis must be 'auto', a preset name or a BasisSet, got {basis!r}")


def candidate_sets(candidates, basis: BasisSet) -> list[BasisSet]:
    """The basis sets to compare: ``basis`` alone (``None``), its nested subsets
    (``"auto"``, see :func:`nested_candidates`) or the given list.

    Examples
    --------
    >>> [len(b) for b in candidate_sets(None, serial_work())]
    [12]
    >>> len(candidate_sets("auto", serial_work()))
    6
    """
    if candidates is None:
        return [basis]
    if isinstance(candidates, str):
        if candidates != "auto":
            raise ValueError(f"candidates must be None, 'auto' or a list of BasisSet, got {candidates!r}")
        return nested_candidates(basis)
    sets = [c if isinstance(c, BasisSet) else BasisSet(c) for c in candidates]
    if not sets:
        raise ValueError("candidates is an empty list")
    return sets


def nested_candidates(basis: BasisSet) -> list[BasisSet]:
    """Nested subsets of ``basis`` by largest n-exponent ``j`` and log power ``k``.

    For each ``J`` among the basis' exponents >= 1 (or all, if none is), the terms with
    ``j <= J`` and ``k <= 1``, then with ``k <= max k``; duplicates dropped. For
    :func:`~probperf.basis.serial_work` this gives 6 sets of 4 to 12 terms.

    Examples
    --------
    >>> [len(b) for b in nested_candidates(serial_work())]
    [4, 6, 6, 9, 8, 12]
    """
    js = sorted({t.j for t in basis})
    js = [j for j in js if j >= 1] or js
    kmax = max(t.k for t in basis)
    out: list[BasisSet] = []
    for J in js:
        for K in sorted({min(1, kmax), kmax}):
            terms = [t for t in basis if t.j <= J and t.k <= K]
            if terms and BasisSet(terms) not in out:
                out.append(BasisSet(terms))
    return out


def relevant_terms(res: dict, prune: float) -> np.ndarray:
    """Mask of terms whose share of the fitted median reaches the pruning threshold
    at some training point (at least the largest term is kept) in fit ``res``.

    The threshold is ``prune``, or two standard errors of the log-scale noise,
    ``2 sigma / sqrt(N)``, when that is larger: on noisy metrics (``no_work``) a term
    whose share stays below that is fit to noise, and it is the terms growing
    fastest in ``n`` that then dominate an extrapolation. ``prune <= 0`` keeps all.

    Examples
    --------
    >>> res = {"Phi": [[1.0, 1.0], [1.0, 2.0]], "coef": np.array([[1.0, 0.001]]),
    ...        "sigma": np.array([0.01])}
    >>> relevant_terms(res, 0.01).tolist(), relevant_terms(res, 0.0).tolist()
    ([True, False], [True, True])
    """
    Phi = np.asarray(res["Phi"], dtype=np.float64)
    contrib = Phi * res["coef"].mean(axis=0)
    total = contrib.sum(axis=1, keepdims=True)
    peak = (contrib / np.where(total > 0, total, 1.0)).max(axis=0)
    resolution = 2.0 * float(np.median(res["sigma"])) / np.sqrt(Phi.shape[0])
    keep = peak >= max(float(prune), resolution) if prune > 0 else np.ones(len(peak), bool)
    keep[np.argmax(peak)] = True
    return keep


def loo_table(fits, y) -> tuple[pd.DataFrame, int]:
    """PSIS-LOO comparison of fitted candidates and the index of the chosen one.

    Parameters
    ----------
    fits : list of (BasisSet or None, dict)
        Candidate (None for a given design) and its fit.
    y : array (N,)
        The training targets.

    Returns
    -------
    table : pandas.DataFrame
        ``az.compare`` (``az.loo`` for one fit) with a ``terms`` column, one row per
        candidate.
    chosen : int
        Index in ``fits`` of the :func:`one_se_choice`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> fit = {"coef": np.exp(rng.normal(0, 0.01, (100, 1))), "sigma": np.full(100, 0.1),
    ...        "gamma": np.zeros(100), "Phi": np.ones((8, 1)), "u": np.zeros(8),
    ...        "names": ["1"], "chains": 1}
    >>> table, chosen = loo_table([(None, fit)], np.exp(rng.normal(0, 0.1, 8)))
    >>> list(table.index), int(table["terms"].iloc[0]), chosen
    (['design'], 1, 0)
    """
    az = _import_arviz()
    idatas = {_label(cand, res["names"], i): _loo_data(az, res, y) for i, (cand, res) in enumerate(fits)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = _single_loo(az, idatas) if len(idatas) == 1 else az.compare(idatas, ic="loo")
    labels = list(idatas)
    table = table.assign(terms=[len(fits[labels.index(lab)][1]["names"]) for lab in table.index])
    return table, labels.index(one_se_choice(table))


def _loo_data(az, res, y):
    """An ArviZ InferenceData with the pointwise log-likelihood of one fit."""
    median = res["coef"] @ res["Phi"].T
    scale = res["sigma"][:, None] * np.exp(res["gamma"][:, None] * res["u"][None, :])
    ll = lognormal_loglik(y, median, scale)
    chains = res["chains"]
    return az.from_dict(
        posterior={"sigma": res["sigma"].reshape(chains, -1)},
        log_likelihood={"y": ll.reshape(chains, -1, ll.shape[1])},
    )


def _single_loo(az, idatas) -> pd.DataFrame:
    """``az.compare``'s table for one model (which ``az.compare`` refuses)."""
    (label, idata), = idatas.items()
    loo = az.loo(idata)
    return pd.DataFrame(
        {"rank": [0], "elpd_loo": [loo.elpd_loo], "p_loo": [loo.p_loo],
         "elpd_diff": [0.0], "se": [loo.se], "dse": [0.0],
         "warning": [bool(loo.warning)]}, index=[label])


def _label(cand, names, i) -> str:
    if cand is None:
        return "design"
    js = max(t.j for t in cand)
    ks = max(t.k for t in cand)
    return f"{len(names)} terms (j<={js:g}, k<={ks})#{i}"


def one_se_choice(table: pd.DataFrame) -> str:
    """Fewest terms whose elpd is within one standard error (dse) of the best.

    Examples
    --------
    >>> table = pd.DataFrame({"elpd_loo": [10.0, 9.5, 5.0], "dse": [0.0, 1.0, 1.0],
    ...                       "terms": [12, 6, 4]}, index=["big", "mid", "small"])
    >>> one_se_choice(table)
    'mid'
    """
    best = table["elpd_loo"].max()
    ok = table[table["elpd_loo"] >= best - table["dse"].fillna(0.0)]
    return ok.sort_values(["terms", "elpd_loo"], ascending=[True, False]).index[0]
