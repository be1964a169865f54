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
	best := ArgMaxOf(rng, len(xs), func(i int) bool { return xs[i] == xs[i] }, func(i int) float64 { return xs[i] })
	return max(best, 0)
}

// ArgMaxOf returns the index i < n with in(i) (every i when in is nil)
// whose score(i) is largest; among exact ties it picks one uniformly with
// rng (reservoir sampling in index order; the first when rng is nil), and
// −1 when no index is in. score is not compared for NaN: a caller whose
// scores may be NaN leaves them out through in, as ArgMax does.
func ArgMaxOf(rng *rand.Rand, n int, in func(i int) bool, score func(i int) float64) int {
	best, ties := -1, 0
	bv := math.Inf(-1)
	for i := 0; i < n; i++ {
		if in != nil && !in(i) {
			continue
		}
		v := score(i)
		switch {
		case best < 0 || v > bv:
			best, bv, ties = i, v, 1
		case v == bv:
			ties++
			if rng != nil && rng.IntN(ties) == 0 {
				best = i
			}
		}
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
