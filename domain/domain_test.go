package domain

import (
	"math"
	"testing"
)

// Halton by hand: indices 1..4 in bases 2 and 3.
func TestHalton(t *testing.T) {
	want := [][]float64{{0.5, 1.0 / 3}, {0.25, 2.0 / 3}, {0.75, 1.0 / 9}, {0.125, 4.0 / 9}}
	got := Halton(4, 2)
	for i := range want {
		for j := range want[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-15 {
				t.Fatalf("point %d = %v, want %v", i, got[i], want[i])
			}
		}
	}
}
