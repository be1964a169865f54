package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
)

// pendCase checks a model's Pend against a model that observed the pending
// points (any values: the variance does not depend on them): variance equal
// to 1e-9, mean bit for bit unchanged while pending; after Unpend, mean and
// variance bit for bit as before, and a later observation gives the same
// numbers as in a model that never pended.
func pendCase(t *testing.T, name string, mk func() Model, obs, pend []bandit.Action) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ys := make([]float64, len(obs))
	for i := range ys {
		ys[i] = rng.NormFloat64()
	}
	m, ref, plain := mk(), mk(), mk()
	for i, a := range obs {
		for _, x := range []Model{m, ref, plain} {
			if err := x.Observe(a, ys[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	mu0 := append([]float64(nil), m.Mean()...)
	v0 := append([]float64(nil), m.Var()...)
	for _, a := range pend {
		if err := ref.Observe(a, rng.NormFloat64()); err != nil {
			t.Fatal(err)
		}
	}
	if err := Pend(m, pend); err != nil {
		t.Fatalf("%s: Pend: %v", name, err)
	}
	for i, v := range m.Var() {
		if math.Abs(v-ref.Var()[i]) > 1e-9 {
			t.Fatalf("%s: pending variance at %d = %v, observed %v", name, i, v, ref.Var()[i])
		}
		if m.Mean()[i] != mu0[i] {
			t.Fatalf("%s: mean moved at %d: %v → %v", name, i, mu0[i], m.Mean()[i])
		}
	}
	shrunk := false
	for i, v := range m.Var() {
		shrunk = shrunk || v < v0[i]-1e-6
	}
	if !shrunk {
		t.Fatalf("%s: no variance shrank", name)
	}
	Unpend(m)
	for i := range v0 {
		if m.Var()[i] != v0[i] || m.Mean()[i] != mu0[i] {
			t.Fatalf("%s: after Unpend candidate %d: (%v, %v), before (%v, %v)", name, i, m.Mean()[i], m.Var()[i], mu0[i], v0[i])
		}
	}
	next := pend[0]
	if err := m.Observe(next, 0.3); err != nil {
		t.Fatal(err)
	}
	if err := plain.Observe(next, 0.3); err != nil {
		t.Fatal(err)
	}
	for i := range v0 {
		if m.Var()[i] != plain.Var()[i] || m.Mean()[i] != plain.Mean()[i] {
			t.Fatalf("%s: after Unpend and Observe, candidate %d differs from a model that never pended", name, i)
		}
	}
}

func TestPendExact(t *testing.T) {
	dom, _ := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	k, _ := gp.NewSE(0.3, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	pt := func() bandit.Action { return bandit.PointAction([]float64{rng.Float64(), rng.Float64()}) }
	var obs, pend []bandit.Action
	for range 12 {
		obs = append(obs, pt())
	}
	for range 3 {
		pend = append(pend, pt())
	}
	pendCase(t, "box", func() Model { m, _ := NewBox(dom, k, 0.01, nil); return m }, obs, pend)
	pendCase(t, "sparse", func() Model { m, _ := NewSparseBox(dom, k, 0.01, nil, 20, nil); return m }, obs, pend)
	pendCase(t, "window", func() Model { b, _ := NewBox(dom, k, 0.01, nil); w, _ := NewWindow(b, 50); return w }, obs, pend)
	pendCase(t, "adaptive", func() Model {
		m, err := NewAdaptive(dom, k, 0.01, AdaptiveOptions{Standardise: true, Fit: true})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}, obs, pend)
	// Outputs sharing one factor (f and g observed at the same points).
	in := bandit.Info{Domain: dom, M: 1, Kernel: k}
	f, g, err := ForAll(in, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range obs {
		if err := f.Observe(a, 1); err != nil {
			t.Fatal(err)
		}
		if err := g[0].Observe(a, 2); err != nil {
			t.Fatal(err)
		}
	}
	v0 := append([]float64(nil), g[0].Var()...)
	if err := Pend(f, pend); err != nil {
		t.Fatal(err)
	}
	if err := Pend(g[0], pend); err != nil {
		t.Fatal(err)
	}
	for i := range v0 {
		if math.Abs(f.Var()[i]-g[0].Var()[i]) > 1e-12 {
			t.Fatalf("shared: f and g pending variances differ at %d", i)
		}
	}
	Unpend(f)
	Unpend(g[0])
	for i := range v0 {
		if g[0].Var()[i] != v0[i] {
			t.Fatalf("shared: g's variance not restored at %d", i)
		}
	}
}

func TestPendArms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pts := make([][]float64, 30)
	for i := range pts {
		pts[i] = []float64{rng.Float64(), rng.Float64()}
	}
	dom, _ := domain.NewFinite(pts)
	k, _ := gp.NewSE(0.3, 1)
	var obs []bandit.Action
	for range 15 {
		obs = append(obs, bandit.Action{Arm: rng.IntN(30), X: nil})
	}
	pend := []bandit.Action{{Arm: 3}, {Arm: 7}, {Arm: 3}}
	pendCase(t, "arms", func() Model { m, _ := NewArms(dom, k, 0.05); return m }, obs, pend)
}
