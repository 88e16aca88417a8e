"""Accuracy/speed of the baselines on simulated `sort` (thesis-style extrapolation splits)."""
import time
import numpy as np, pandas as pd, torch
torch.set_num_threads(1)
import probperf as pp
from probperf.sim.apps import sort
from probperf.sim.schedule import simulate
from probperf.trace import dag_metrics
from probperf.models.baselines import TwoStepLasso, DirectNN, MultiTaskNN, CilkviewBounds

rows = []
for n in 2 ** np.arange(12, 19):
    dag = sort(int(n))
    for p in (1, 2, 3, 4, 6, 8, 16, 24, 32):
        for rep in range(2):
            mt = dag_metrics(simulate(dag, p, seed=rep))
            big_n, big_p = n > 2**16, p > 8
            split = {(False, False): "train", (True, False): "test1", (False, True): "test2", (True, True): "test3"}[(big_n, big_p)]
            rows.append({"n": n, "p": p, **{k: v for k, v in mt.items() if k != "end_task"}, "split": split})
m = pp.Measurements(pd.DataFrame(rows), unit="cycles")
train = m.select("train")
print(f"{len(train)} training runs, {len(m) - len(train)} test runs")
models = {
    "TwoStepLasso": TwoStepLasso(n_boot=100),
    "DirectNN": DirectNN(n_search=4),
    "DirectNN log2": DirectNN(n_search=4, log_scale=True),
    "MultiTaskNN": MultiTaskNN(n_search=4),
    "MultiTaskNN log2": MultiTaskNN(n_search=4, log_scale=True),
    "CilkviewBounds": CilkviewBounds(),
}
for name, model in models.items():
    t = time.perf_counter(); model.fit(train); fit_s = time.perf_counter() - t
    out = []
    for split in ("test1", "test2", "test3"):
        test = m.select(split)
        t = time.perf_counter(); pred = model.predict(test, n_draws=1000); pred_s = time.perf_counter() - t
        true = test.y("time")
        ape = 100 * np.abs(pred.median / true - 1)
        lo, hi = pred.interval(0.9)
        cover = np.mean((lo <= true) & (true <= hi))
        width = np.median((hi - lo) / pred.median)
        out.append(f"{split}: MdAPE {np.median(ape):5.1f}% cov90 {cover:4.2f} width {width:5.2f}")
    print(f"{name:15s} fit {fit_s:5.1f}s | " + " | ".join(out))
