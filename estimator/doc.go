// Package estimator turns a posterior (model.Model) into this round's guess
// of an unknown function over the candidates: GP-UCB μ + βσ (Zhou & Ji (CBO) Def. 1 (i);
// a negative β gives the lower bound used for constraints), and the β_t
// schedule of Zhou & Ji (CBO) Thm. 1. New exploration strategies (Thompson samples,
// RandGP-UCB) are one file each implementing Estimator.
package estimator
