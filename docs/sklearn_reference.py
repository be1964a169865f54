"""Per-round cost of a scikit-learn GP loop on gardner (docs/scaling.md comparison).

The reference the issue names: a GaussianProcessRegressor refit every round
(fixed SE kernel, lengthscale 1, no hyperparameter optimisation, alpha = λ)
for f and for g, posterior mean and standard deviation on the same 32×32
candidate grid as cbandit's box model, an RPOL-style score
(UCB of f minus a penalty times the positive part of the LCB of g), and noisy
observations of gardner (000 §7). It prints the mean wall time per round
over T rounds; compare with `seconds_per_round` of

    cbandit run --problem gardner --algos rpol-ucb --trials 1 --horizon 300 --workers 1

Run with Debian's python3-sklearn: /usr/bin/python3 docs/sklearn_reference.py [T]
"""
import sys
import time

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

T = int(sys.argv[1]) if len(sys.argv) > 1 else 300
lam = 1 + 2 / T
rng = np.random.default_rng(1)
g1 = np.linspace(0, 6, 32)
cands = np.array([[a, b] for a in g1 for b in g1])
f = lambda x: -np.sin(x[:, 0]) - x[:, 1]
g = lambda x: np.sin(x[:, 0]) * np.sin(x[:, 1]) + 0.95
X, yf, yg = [], [], []
beta, Q = 2.0, 1.0
start = time.perf_counter()
for t in range(1, T + 1):
    if X:
        xa = np.array(X)
        gf = GaussianProcessRegressor(RBF(1.0), alpha=lam, optimizer=None).fit(xa, yf)
        gg = GaussianProcessRegressor(RBF(1.0), alpha=lam, optimizer=None).fit(xa, yg)
        mf, sf = gf.predict(cands, return_std=True)
        mg, sg = gg.predict(cands, return_std=True)
    else:
        mf, sf = np.zeros(len(cands)), np.ones(len(cands))
        mg, sg = np.zeros(len(cands)), np.ones(len(cands))
    score = mf + beta * sf - Q * np.maximum(mg - beta * sg, 0)
    x = cands[int(np.argmax(score))][None, :]
    X.append(x[0])
    yf.append(float(f(x)[0] + 0.2236 * rng.standard_normal()))
    yg.append(float(g(x)[0] + 0.2236 * rng.standard_normal()))
    Q = max(Q + yg[-1], 0)
elapsed = time.perf_counter() - start
print(f"sklearn refit loop: T = {T}, {1e6 * elapsed / T:.1f} µs per round")
