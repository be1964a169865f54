package domain

import (
	"slices"
	"testing"
)

// An int in [1, 128] on a log scale, a float, a categorical of 3: the
// projection rounds the int's value and picks the largest choice; the
// neighbours step the int by one and switch the choice.
func TestMixedProjectNeighbours(t *testing.T) {
	b, err := NewBox([]float64{0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Vars = []Var{{At: 0, Width: 1, Low: 1, High: 128, Log: true, Step: 1}, {At: 2, Width: 3, Choices: true}}
	if err := b.CheckVars(); err != nil {
		t.Fatal(err)
	}
	x := []float64{0.5, 0.3, 0.2, 0.7, 0.7} // u = 0.5 on ln[1, 128]: √128 = 11.31 → 11
	b.Project(x)
	u11 := b.Vars[0].unitOf(11)
	if want := []float64{u11, 0.3, 0, 1, 0}; !slices.Equal(x, want) {
		t.Fatalf("Project: %v, want %v (ties to the first choice)", x, want)
	}
	ns := b.Neighbours(x)
	want := [][]float64{{b.Vars[0].unitOf(10), 0.3, 0, 1, 0}, {b.Vars[0].unitOf(12), 0.3, 0, 1, 0}, {u11, 0.3, 1, 0, 0}, {u11, 0.3, 0, 0, 1}}
	if !slices.EqualFunc(ns, want, slices.Equal[[]float64]) {
		t.Fatalf("Neighbours: %v, want %v", ns, want)
	}
	y := slices.Clone(x)
	b.Project(y)
	if !slices.Equal(x, y) {
		t.Fatalf("Project is not idempotent: %v → %v", x, y)
	}
	p := b.Pinned(x)
	if p.Lo[1] != 0 || p.Hi[1] != 1 || p.Lo[0] != x[0] || p.Hi[0] != x[0] || p.Lo[3] != 1 || p.Hi[3] != 1 {
		t.Fatalf("Pinned: %v–%v", p.Lo, p.Hi)
	}
	// the int's ends have one neighbour
	x[0] = 0
	if n := len(b.Neighbours(x)); n != 3 {
		t.Fatalf("at the low end: %d neighbours, want 3", n)
	}
	b.Vars = append(b.Vars, Var{At: 4, Width: 1, Low: 0, High: 5, Log: true, Step: 1})
	if b.CheckVars() == nil {
		t.Fatal("overlapping vars and a log int from 0 accepted")
	}
}
