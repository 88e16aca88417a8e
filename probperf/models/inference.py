"""Inference engines for Pyro models: NUTS, SVI and MCMC diagnostics.

Pyro's style: a model is a plain function of the data (here
:func:`~probperf.models.basis_model.basis_model`), and the inference is chosen
separately. These functions take the model, its arguments and a starting point, and
return posterior samples as NumPy arrays; they know nothing about basis terms or
scaling (that is :mod:`probperf.models.bayes`).

torch and Pyro are imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import warnings

import numpy as np

#: Warn when the largest r_hat exceeds this.
RHAT_MAX = 1.05
#: Adam step size of SVI (decayed 100x over the run).
SVI_LR = 0.05
#: Compile the SVI loss with TorchScript (JitTrace_ELBO).
JIT_SVI = True


class ConvergenceWarning(UserWarning):
    """MCMC diagnostics (r_hat, ESS, divergences) say the posterior may be unreliable.

    A :class:`UserWarning`, so the usual :mod:`warnings` filters apply; tests and
    scripts can turn it into an error or collect it.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("r_hat 1.200 > 1.05", ConvergenceWarning)
    >>> caught[0].category.__name__, str(caught[0].message)
    ('ConvergenceWarning', 'r_hat 1.200 > 1.05')
    """


class one_thread:
    """Run torch single-threaded inside.

    The tensors of these models are tiny (points x terms), and on a loaded machine
    intra-op threads made a 13x13 ``tril`` take 20 ms instead of 5 us.

    Examples
    --------
    >>> import torch
    >>> with one_thread():
    ...     torch.get_num_threads()
    1
    """

    def __enter__(self):
        import torch

        self._saved = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        import torch

        torch.set_num_threads(self._saved)


def _import_arviz():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import arviz as az
    return az


def run_nuts(model, args, kwargs, init, *, seed, warmup, num_samples, num_chains=1,
             target_accept=0.8, max_tree_depth=8):
    """Run NUTS chains one after another; return the samples per chain and divergences.

    Parameters
    ----------
    model : callable
        The Pyro model; called as ``model(*args, **kwargs)``.
    args, kwargs : tuple, dict
        Its arguments.
    init : dict
        Starting values by site name. Chains after the first start at a jittered copy
        (each value times ``exp(0.1 z)``) so that r_hat can see disagreement.
    seed : int
        Chain ``c`` is seeded with ``seed + c``.
    warmup, num_samples, num_chains : int
        Warm-up steps and kept draws per chain, and the number of chains.
    target_accept : float
        NUTS target acceptance probability.
    max_tree_depth : int
        Largest NUTS tree depth.

    Returns
    -------
    chains : list of dict
        Per chain, site name -> NumPy array of draws (leading axis: draws).
    divergences : int
        Divergent transitions over all chains.

    Examples
    --------
    >>> import torch, pyro, pyro.distributions as dist
    >>> def model():
    ...     pyro.sample("mu", dist.Normal(torch.tensor(0.0), 1.0))
    >>> chains, divergences = run_nuts(model, (), {}, {"mu": torch.tensor(0.0)},
    ...                                seed=0, warmup=20, num_samples=30)
    >>> len(chains), chains[0]["mu"].shape
    (1, (30,))
    """
    import pyro
    import torch

    chains, divergences = [], 0
    for c in range(int(num_chains)):
        pyro.set_rng_seed(int(seed) + c)
        # jitter the start per chain so r_hat can see disagreement
        start = {k: v * torch.exp(0.1 * torch.randn_like(v)) for k, v in init.items()} if c else init
        samples, diverged = _nuts_chain(model, args, kwargs, start, warmup, num_samples,
                                        target_accept, max_tree_depth)
        chains.append(samples)
        divergences += diverged
    return chains, divergences


def _nuts_chain(model, args, kwargs, start, warmup, num_samples, target_accept, max_tree_depth):
    """One NUTS chain from ``start``: its draws by site and its divergent transitions."""
    from pyro.infer import MCMC, NUTS
    from pyro.infer.autoguide import init_to_value

    kernel = NUTS(
        model,
        jit_compile=True,
        ignore_jit_warnings=True,
        init_strategy=init_to_value(values=start),
        max_tree_depth=max_tree_depth,
        target_accept_prob=target_accept,
    )
    mcmc = MCMC(kernel, num_samples=int(num_samples), warmup_steps=int(warmup), disable_progbar=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcmc.run(*args, **kwargs)
    samples = {k: v.detach().numpy() for k, v in mcmc.get_samples().items()}
    return samples, int(sum(len(d) for d in mcmc.diagnostics().get("divergences", {}).values()))


def mcmc_diagnostics(chains, divergences) -> dict:
    """Largest r_hat, smallest bulk ESS and the divergences of NUTS chains (ArviZ).

    Parameters
    ----------
    chains : list of dict
        Per chain, site name -> draws; every chain has a ``"sigma"`` site (its length
        is the number of draws).
    divergences : int
        Divergent transitions, reported as given.

    Returns
    -------
    dict
        ``inference`` ("nuts"), ``chains``, ``num_samples`` (over all chains),
        ``r_hat_max``, ``ess_bulk_min``, ``divergences``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> chains = [{"sigma": rng.normal(1.0, 0.1, 200)}]
    >>> d = mcmc_diagnostics(chains, divergences=0)
    >>> d["chains"], d["num_samples"], d["r_hat_max"] < 1.05
    (1, 200, True)
    """
    az = _import_arviz()
    posterior = {k: np.stack([ch[k] for ch in chains]) for k in chains[0]}
    if len(chains) == 1:
        # ArviZ needs two chains for r_hat; split-R-hat compares the two halves anyway
        half = len(chains[0]["sigma"]) // 2
        posterior = {k: np.stack([v[0, :half], v[0, half : 2 * half]]) for k, v in posterior.items()}
    idata = az.from_dict(posterior=posterior)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rhat = az.rhat(idata)
        ess = az.ess(idata, method="bulk")
    return {
        "inference": "nuts",
        "chains": len(chains),
        "num_samples": sum(len(ch["sigma"]) for ch in chains),
        "r_hat_max": float(max(np.nanmax(rhat[v].values) for v in rhat.data_vars)),
        "ess_bulk_min": float(min(np.nanmin(ess[v].values) for v in ess.data_vars)),
        "divergences": divergences,
    }


def mcmc_problems(diag: dict) -> list[str]:
    """What is wrong with the diagnostics of :func:`mcmc_diagnostics` (empty: nothing).

    Examples
    --------
    >>> mcmc_problems({"r_hat_max": 1.2, "ess_bulk_min": 300.0, "num_samples": 1000,
    ...                "divergences": 2})
    ['r_hat 1.200 > 1.05', '2 divergent transitions']
    """
    problems = []
    if diag["r_hat_max"] > RHAT_MAX:
        problems.append(f"r_hat {diag['r_hat_max']:.3f} > {RHAT_MAX}")
    # 100 effective draws is the usual floor; short test runs are judged on 1/4 of S
    ess_floor = min(100.0, 0.25 * diag["num_samples"])
    if diag["ess_bulk_min"] < ess_floor:
        problems.append(f"bulk ESS {diag['ess_bulk_min']:.0f} < {ess_floor:.0f}")
    if diag["divergences"]:
        problems.append(f"{diag['divergences']} divergent transitions")
    return problems


def run_svi(model, args, kwargs, init, *, seed, steps, num_samples, init_scale=0.01):
    """Fit a full-rank multivariate-normal guide by SVI; return draws from it.

    Parameters
    ----------
    model, args, kwargs : callable, tuple, dict
        The Pyro model and its arguments, as for :func:`run_nuts`.
    init : dict
        Starting location of the guide by site name.
    seed : int
        Pyro's seed (the parameter store is cleared first).
    steps : int
        Optimisation steps (ClippedAdam, :data:`SVI_LR` decayed 100x over the run).
    num_samples : int
        Draws taken from the fitted guide.
    init_scale : float
        Initial scale of the guide.

    Returns
    -------
    samples : dict
        Site name -> NumPy array of draws (leading axis: draws).
    diag : dict
        ``inference`` ("svi"), ``chains`` (1), ``num_samples``, ``steps`` and
        ``final_loss`` (mean ELBO loss of the last 50 steps).

    Examples
    --------
    >>> import torch, pyro, pyro.distributions as dist
    >>> def model(y):
    ...     mu = pyro.sample("mu", dist.Normal(torch.tensor(0.0), 10.0))
    ...     with pyro.plate("data", len(y)):
    ...         pyro.sample("y", dist.Normal(mu, 1.0), obs=y)
    >>> samples, diag = run_svi(model, (torch.full((20,), 3.0),), {}, {"mu": torch.tensor(0.0)},
    ...                         seed=0, steps=300, num_samples=50)
    >>> samples["mu"].shape, diag["inference"], bool(abs(samples["mu"].mean() - 3) < 0.5)
    ((50,), 'svi', True)
    """
    import pyro
    import torch
    from pyro.infer.autoguide import AutoMultivariateNormal, init_to_value

    pyro.set_rng_seed(int(seed))
    pyro.clear_param_store()
    guide = AutoMultivariateNormal(model, init_loc_fn=init_to_value(values=init), init_scale=init_scale)
    steps = int(steps)
    losses = _optimise_guide(model, guide, args, kwargs, steps)
    S = int(num_samples)
    with torch.no_grad():
        draws = [guide(*args, **kwargs) for _ in range(S)]
    samples = {k: np.stack([d[k].numpy() for d in draws]) for k in draws[0]}
    diag = {"inference": "svi", "chains": 1, "num_samples": S, "steps": steps,
            "final_loss": float(np.mean(losses[-50:]))}
    return samples, diag


def _optimise_guide(model, guide, args, kwargs, steps: int) -> list[float]:
    """``steps`` SVI steps on the ELBO; the loss of each."""
    import torch
    from pyro.infer import JitTrace_ELBO, SVI, Trace_ELBO
    from pyro.optim import ClippedAdam

    # decay the learning rate 100x over the run so the end is not noisy
    optim = ClippedAdam({"lr": SVI_LR, "lrd": 0.01 ** (1.0 / max(steps, 1))})
    elbo = JitTrace_ELBO(ignore_jit_warnings=True) if JIT_SVI else Trace_ELBO()
    svi = SVI(model, guide, optim, elbo)
    losses = []
    # Each JitTrace_ELBO trace is registered in torch's process-wide TorchScript
    # compilation unit and never freed; with the optimising executor's plans that
    # is ~16 MB a run, 28 SVI runs a DagModel fit: +450 MB a fit. Without executor
    # optimisation only the bare graph stays (~2.5 MB a run: +72 MB a fit), and
    # these short runs are no slower for it (benchmarks/bench_memory.py).
    with warnings.catch_warnings(), torch.jit.optimized_execution(False):
        warnings.simplefilter("ignore")
        for _ in range(steps):
            losses.append(svi.step(*args, **kwargs))
    return losses
