// Package gp implements Gaussian-process regression for kernelized bandits.
//
// With a GP(0, k) prior and Gaussian noise N(0, λ), conditioning on the
// observations (x_1, y_1), …, (x_t, y_t) gives the posterior GP(μ_t, k_t) of
// Zhou & Ji, "Provably Efficient Bayesian Optimization with Unknown
// Constraints" (CBO), §2:
//
//	μ_t(x)     = k_t(x)ᵀ (K_t + λI)⁻¹ y
//	k_t(x, x') = k(x, x') − k_t(x)ᵀ (K_t + λI)⁻¹ k_t(x')
//	σ_t²(x)    = k_t(x, x)
//
// where k_t(x) = [k(x_1, x), …, k(x_t, x)]ᵀ and K_t = [k(x_u, x_v)]. The
// realized information gain is
//
//	γ_t = ½ Σ_{s≤t} log(1 + σ²_{s−1}(x_s)/λ) = ½ log det(I + λ⁻¹K_t),
//
// whose maximum over t-point sets is the maximum information gain of §2.
//
// The package provides:
//
//   - kernels (SE, Matern, Linear, Precomputed) and Gram; GradKernel, the
//     closed-form gradients of SE, Matérn and linear kernels;
//   - ArmPosterior, the posterior over a finite set of arms, updated by
//     rank-one steps whose cost depends on the number of distinct arms
//     observed rather than on t; built from a kernel it computes prior
//     columns on demand (O(N·|S|) memory), and outputs observed at the same
//     arms share one covariance state (Share);
//   - Exact, the posterior over arbitrary points through an incrementally
//     extended Cholesky factor of K_t + λI, shareable by outputs observed at
//     the same points (Share), with batched predictions and gradients
//     (PredictBatch) and the joint posterior at points off the candidates
//     (PredictJoint); Candidates keeps that posterior current at a fixed set
//     of points in O(t·M) per observation (ShareCandidates), and draws
//     Thompson samples at them by pathwise conditioning (Candidates.Sample,
//     Matheron's rule, Wilson et al. 2020; docs/thompson.md);
//   - pending points (GP-BUCB, Desautels et al. 2014): Pend appends a
//     point at its posterior mean, which shrinks the variance and leaves
//     every mean unchanged, and Unpend removes it (Exact, Candidates,
//     Sparse);
//   - Sparse, an opt-in APPROXIMATE posterior with M inducing points (the
//     DTC/VFE predictive), O(M²) per observation, and SelectInducing;
//   - Sampler, joint Thompson-sampling draws N(μ, scale²·Σ) over a finite set;
//   - BatchPosterior, the plain O(t³) formulas, used as a reference;
//   - hyperparameters from data: the ARD kernel (SE, Matérn 5/2),
//     LogMarginal (log marginal likelihood and its analytic gradient,
//     Rasmussen & Williams 2006 §5.4.1, checked against scikit-learn in
//     testdata/) and FitHyper (bounded type-II maximum likelihood, or
//     maximum a posteriori with a prior such as GammaPrior; projected BFGS
//     from deterministic starts).
//
// Constructors and update methods validate their input and return errors that
// name the offending field and value; nothing in the package panics on bad
// input. None of the types is safe for concurrent use.
package gp
