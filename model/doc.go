// Package model holds the learner's posterior belief about one unknown
// function over the current candidate set of actions. The finite-arm model
// wraps gp.ArmPosterior (O(N·|S|) rank-one updates per observation, exact);
// the box model keeps gp.Exact at a candidate grid and evaluates batches off
// it (BatchPredictor). ForAll and ForGroup let models of equal kernel share
// one factorisation; with Options.Inducing > 0 they build the approximate
// SparseBox instead. With Options.Standardise or Options.Fit each model is an
// Adaptive: observations centred and scaled by running estimates (a
// constraint's 0 level kept) and ARD hyperparameters learned from the data,
// both refreshed at doubling counts (docs/defaults.md).
// Estimators read Mean, Var (and Cov for joint Thompson draws); agents add
// observations and read the realized information gain for β_t schedules.
package model
