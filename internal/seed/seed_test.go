package seed

import "testing"

func TestDeriveDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for trial := 0; trial < 100; trial++ {
		for a := 0; a < 5; a++ {
			s := Derive(1, "agent", trial, a)
			if seen[s] {
				t.Fatalf("collision at trial %d agent %d", trial, a)
			}
			seen[s] = true
		}
	}
	if Derive(1, "agent", 3) != Derive(1, "agent", 3) {
		t.Fatal("Derive is not deterministic")
	}
	if Derive(1, "agent", 3) == Derive(1, "env", 3) {
		t.Fatal("labels do not separate streams")
	}
}

func TestStreamMatchesRand(t *testing.T) {
	st := NewStream()
	for _, s := range []uint64{0, 1, 42, Derive(7, "noise", 3, 9)} {
		a, b := Rand(s), st.At(s)
		for k := 0; k < 20; k++ {
			if x, y := a.NormFloat64(), b.NormFloat64(); x != y {
				t.Fatalf("seed %d draw %d: Rand %v, Stream %v", s, k, x, y)
			}
		}
	}
}
