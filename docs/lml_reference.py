#!/usr/bin/python3
"""Reference values for gp.LogMarginal and gp.FitHyper.

Writes gp/testdata/lml_sklearn.json: data sets made here from a fixed numpy
seed, scikit-learn's log marginal likelihood and its gradient at fixed
hyperparameters (GaussianProcessRegressor.log_marginal_likelihood(theta,
eval_gradient=True)), and scikit-learn's optimum with fixed restarts
(n_restarts_optimizer=5, random_state=0). The kernel is
ConstantKernel * (Matern(nu=2.5) or RBF) with ARD lengthscales + WhiteKernel,
bounds (1e-5, 1e5) on every hyperparameter, alpha = 0, normalize_y = False:
theta = (log variance, log lengthscales, log noise variance), the order of
gp.Hyper.Theta. Run from the repository root:

    /usr/bin/python3 docs/lml_reference.py   # Debian python3-sklearn

CI does not run it; the JSON is committed.
"""
import json

import numpy as np
import sklearn
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel


def kernel(nu, d):
    b = (1e-5, 1e5)
    base = Matern(length_scale=[1.0] * d, length_scale_bounds=b, nu=2.5) if nu == 2.5 else RBF(length_scale=[1.0] * d, length_scale_bounds=b)
    return ConstantKernel(1.0, b) * base + WhiteKernel(0.1, b)


def main():
    rng = np.random.default_rng(14)
    cases = []
    for name, nu, n, d in [("matern52-2d", 2.5, 20, 2), ("se-3d", 0.0, 30, 3), ("matern52-1d", 2.5, 12, 1)]:
        X = rng.uniform(0.0, 6.0, size=(n, d))
        y = np.sin(X[:, 0]) + 0.3 * X[:, -1] + 0.1 * rng.standard_normal(n)
        gpr = GaussianProcessRegressor(kernel(nu, d), alpha=0.0, normalize_y=False,
                                       n_restarts_optimizer=5, random_state=0)
        thetas = [np.log(np.r_[1.0, [1.0] * d, 0.1]),
                  np.log(np.r_[2.5, np.linspace(0.5, 3.0, d), 0.01]),
                  np.log(np.r_[0.3, np.linspace(4.0, 0.2, d), 0.5])]
        gpr.fit(X, y)  # log_marginal_likelihood(theta) evaluates on the training data
        evals = []
        for th in thetas:
            v, g = gpr.log_marginal_likelihood(th, eval_gradient=True, clone_kernel=True)
            evals.append({"theta": th.tolist(), "lml": float(v), "grad": g.tolist()})
        cases.append({"name": name, "nu": nu, "x": X.tolist(), "y": y.tolist(), "evals": evals,
                      "opt_theta": gpr.kernel_.theta.tolist(),
                      "opt_lml": float(gpr.log_marginal_likelihood_value_)})
    out = {"sklearn": sklearn.__version__, "numpy": np.__version__, "cases": cases}
    with open("gp/testdata/lml_sklearn.json", "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
