// Package maximise finds the arg max of a score over a domain: exhaustive
// over a finite candidate set, with ties broken uniformly at random so that
// the prior's flat scores do not always pick the first arm, then, in a box,
// a local refinement from the best candidates: RefineGrad (batched
// projected gradient ascent) when the score has gradients, Refine
// (Nelder–Mead) otherwise.
package maximise

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ArgMax returns an index of the largest entry; among exact ties it picks
// one uniformly with rng (the first when rng is nil). NaN entries are never
// chosen unless all are NaN (then 0).
func ArgMax(rng *rand.Rand, xs []float64) int {
	best, ties := -1, 0
	for i, v := range xs {
		if v != v {
			continue
		}
		switch {
		case best < 0 || v > xs[best]:
			best, ties = i, 1
		case v == xs[best]:
			ties++
			if rng != nil && rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	if best < 0 {
		return 0
	}
	return best
}

// ArgMaxFinite is ArgMax that refuses scores that are NaN or infinite: a
// non-finite score means a posterior broke down, and playing on would hide it.
func ArgMaxFinite(rng *rand.Rand, xs []float64) (int, error) {
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("score of candidate %d is %v", i, v)
		}
	}
	return ArgMax(rng, xs), nil
}
