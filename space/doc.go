// Package space encodes named, typed parameters — float (log-scaled or
// not, optionally on a grid of steps), int (log-scaled or not) and
// categorical — as points of the unit cube [0, 1]^D the learner works in,
// and decodes the learner's points back. The ask/tell service (study
// parameters), package optimize (Options.Parameters) and the clients share
// this one encoding, as BoTorch and Ax do (inputs normalised to the unit
// cube: botorch.models.transforms.input.Normalize; Ax's UnitX, Log,
// IntToFloat and OneHot transforms) and OSS Vizier does (its converters
// scale every parameter to [0, 1], log-scaled ones after a log):
//
//   - float: one coordinate, (v − low)/(high − low), or with Log
//     (ln v − ln low)/(ln high − ln low) (Ax's Log transform, Vizier's
//     LOG scale type, Optuna's log=True); with Step the values are
//     low + k·step, decoded by rounding to the nearest step (Optuna's
//     step, Vizier's DISCRETE parameters);
//   - int: one coordinate encoded like a float (Log allowed, low ≥ 1 as
//     Optuna requires), decoded by rounding to the nearest integer (Ax's
//     IntToFloat transform rounds on the way back);
//   - categorical with k choices: k one-hot coordinates (Ax's OneHot
//     transform, BoTorch's one-hot inputs), decoded by arg max (ties to
//     the first choice), as Ax's OneHot untransform does.
//
// Candidates is the finite set of exact encodings (every int an integer,
// every categorical a one-hot vector) a learner chooses among when the
// space is not a box: every combination when there are few and no
// continuous float (BoTorch's optimize_acqf_mixed enumerates discrete
// values the same way), otherwise a Halton set mapped to parameter values
// and deduplicated. Continuous reports when the encoding is a box the
// learner may search as such (every parameter a float without a step).
package space
