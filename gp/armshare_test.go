package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArmShareMatchesPrivate drives f and two constraints through one shared
// arm state — in step, one lagging and read while lagging (partial
// feedback), one diverging, one reset — and compares each with a private
// posterior (same operations: equal to 1e-12, in practice exactly).
func TestArmShareMatchesPrivate(t *testing.T) {
	n := 60
	pts := armPoints(n, 0, 1)
	k := SE{Lengthscale: 0.15, Variance: 1}
	root, _ := NewArmPosteriorKernel(k, pts, 0.05)
	sh := []*ArmPosterior{root}
	var ref []*ArmPosterior
	for j := 0; j < 3; j++ {
		if j > 0 {
			q, err := root.Share()
			if err != nil {
				t.Fatal(err)
			}
			sh = append(sh, q)
		}
		r, _ := NewArmPosteriorKernel(k, pts, 0.05)
		ref = append(ref, r)
	}
	if _, err := root.Share(); err != nil {
		t.Fatal(err) // still at the prior: allowed
	}
	rng := rand.New(rand.NewPCG(2, 8))
	obs := func(j, arm int) {
		y := math.Sin(5*pts[arm][0]) + 0.1*rng.NormFloat64()
		if err := sh[j].Observe(arm, y); err != nil {
			t.Fatal(err)
		}
		if err := ref[j].Observe(arm, y); err != nil {
			t.Fatal(err)
		}
	}
	check := func(stage string) {
		t.Helper()
		for j := range sh {
			checkVec(t, stage+" mean", sh[j].Mean(), ref[j].Mean(), 1e-12)
			checkVec(t, stage+" var", sh[j].Var(), ref[j].Var(), 1e-12)
			if !closeTo(sh[j].InfoGain(), ref[j].InfoGain(), 1e-12) || sh[j].Count() != ref[j].Count() {
				t.Fatalf("%s output %d: gain %v count %d, private %v %d", stage, j, sh[j].InfoGain(), sh[j].Count(), ref[j].InfoGain(), ref[j].Count())
			}
		}
	}
	arm := func() int {
		if rng.Float64() < 0.5 {
			return rng.IntN(6) // repeats: refreshes and repeat updates
		}
		return rng.IntN(n)
	}
	for s := 0; s < 120; s++ {
		a := arm()
		for j := range sh {
			obs(j, a)
		}
	}
	if !sh[2].Shared() {
		t.Fatal("outputs in step should share")
	}
	check("in step")
	c1, c2 := make([]float64, n*n), make([]float64, n*n)
	sh[1].Cov(c1)
	ref[1].Cov(c2)
	checkVec(t, "cov", c1, c2, 1e-12)
	// Output 2 misses two observations and is read while it lags.
	for s := 0; s < 2; s++ {
		a := arm()
		obs(0, a)
		obs(1, a)
	}
	check("lagging")
	if sh[2].Shared() {
		t.Fatal("a lagging output read must take a private state")
	}
	for s := 0; s < 30; s++ {
		a := arm()
		obs(0, a)
		obs(1, a)
		obs(2, a)
	}
	check("after lag")
	// Output 1 diverges.
	obs(0, 3)
	obs(1, 4)
	check("diverged")
	sh[0].Reset()
	ref[0].Reset()
	obs(0, 5)
	check("reset")
	if _, err := sh[0].Share(); err == nil {
		t.Fatal("Share after observations accepted")
	}
}
