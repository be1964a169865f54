package model

import (
	"math"
	"testing"
)

// TestStandardisation: the rule by hand — population sd, |mean| for values
// that do not spread, 1 for zeros or no values — and its units: ×1000 + 50
// gives m' = 1000m + 50 and s' = 1000s.
func TestStandardisation(t *testing.T) {
	cases := []struct {
		ys   []float64
		m, s float64
	}{
		{[]float64{1, 3}, 2, 1},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(1.25)},
		{[]float64{-5, -5}, -5, 5},
		{[]float64{0, 0, 0}, 0, 1},
		{nil, 0, 1},
	}
	for _, c := range cases {
		m, s := Standardisation(c.ys)
		if math.Abs(m-c.m) > 1e-15 || math.Abs(s-c.s) > 1e-15 {
			t.Errorf("Standardisation(%v) = (%v, %v), want (%v, %v)", c.ys, m, s, c.m, c.s)
		}
	}
	ys := []float64{0.3, -1.2, 2.5, 0.7}
	m, s := Standardisation(ys)
	zs := make([]float64, len(ys))
	for i, y := range ys {
		zs[i] = 1000*y + 50
	}
	m2, s2 := Standardisation(zs)
	if math.Abs(m2-(1000*m+50)) > 1e-9 || math.Abs(s2-1000*s) > 1e-9 {
		t.Errorf("×1000 + 50: (%v, %v), want (%v, %v)", m2, s2, 1000*m+50, 1000*s)
	}
}
