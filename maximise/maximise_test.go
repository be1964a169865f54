package maximise

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestArgMax(t *testing.T) {
	if i := ArgMax(nil, []float64{1, 3, 2, 3}); i != 1 {
		t.Fatalf("ArgMax without rng = %d, want the first maximum 1", i)
	}
	// Ties are broken uniformly: both maxima are chosen about half the time.
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{}
	for k := 0; k < 4000; k++ {
		counts[ArgMax(rng, []float64{1, 3, 2, 3})]++
	}
	if counts[0]+counts[2] != 0 || math.Abs(float64(counts[1])-2000) > 200 {
		t.Fatalf("tie counts %v", counts)
	}
	if _, err := ArgMaxFinite(nil, []float64{1, math.NaN()}); err == nil {
		t.Fatal("NaN score accepted")
	}
	if i, err := ArgMaxFinite(nil, []float64{-1, 5, 2}); err != nil || i != 1 {
		t.Fatalf("ArgMaxFinite = %d, %v", i, err)
	}
}

// TestArgMaxOf checks the masked arg max: indices outside in never win, −1
// when none is in, and ties are broken by reservoir sampling in index order
// exactly as the safe-BO agents' own loop did (the same draws from rng, so
// their decisions do not change).
func TestArgMaxOf(t *testing.T) {
	score := []float64{5, 3, 3, 1, 3}
	at := func(i int) float64 { return score[i] }
	notFirst := func(i int) bool { return i != 0 }
	if i := ArgMaxOf(nil, len(score), notFirst, at); i != 1 {
		t.Fatalf("ArgMaxOf without rng = %d, want the first maximum in the set, 1", i)
	}
	if i := ArgMaxOf(nil, len(score), func(int) bool { return false }, at); i != -1 {
		t.Fatalf("ArgMaxOf over an empty set = %d, want -1", i)
	}
	if i := ArgMaxOf(nil, len(score), nil, at); i != 0 {
		t.Fatalf("ArgMaxOf with in nil = %d, want 0", i)
	}
	// The loop safebo.go wrote by hand before it called ArgMaxOf.
	reference := func(rng *rand.Rand, n int, in func(int) bool, score func(int) float64) int {
		best, ties := -1, 0
		bv := math.Inf(-1)
		for i := 0; i < n; i++ {
			if !in(i) {
				continue
			}
			v := score(i)
			switch {
			case best < 0 || v > bv:
				best, bv, ties = i, v, 1
			case v == bv:
				ties++
				if rng.IntN(ties) == 0 {
					best = i
				}
			}
		}
		return best
	}
	gen := rand.New(rand.NewPCG(3, 4))
	r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	counts := map[int]int{}
	for k := 0; k < 3000; k++ {
		xs := make([]float64, 1+gen.IntN(12))
		for i := range xs {
			xs[i] = float64(gen.IntN(3)) // many ties
		}
		mask := gen.Uint64()
		in := func(i int) bool { return mask>>i&1 == 1 }
		sc := func(i int) float64 { return xs[i] }
		got, want := ArgMaxOf(r1, len(xs), in, sc), reference(r2, len(xs), in, sc)
		if got != want {
			t.Fatalf("draw %d: ArgMaxOf = %d, the safe agents' loop %d (scores %v)", k, got, want, xs)
		}
		if k < 1000 {
			counts[ArgMaxOf(gen, len(score), notFirst, at)]++
		}
	}
	for _, i := range []int{1, 2, 4} {
		if math.Abs(float64(counts[i])-1000.0/3) > 80 {
			t.Fatalf("tie counts %v, want about 333 each for 1, 2, 4", counts)
		}
	}
}
