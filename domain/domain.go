package domain

import (
	"fmt"
	"math"
)

// Domain is a set of actions.
type Domain interface {
	// Dim is the dimension of a point (0 for finite sets without coordinates).
	Dim() int
	// String describes the domain for reports.
	String() string
}

// Finite is a finite set of N arms. Points may be nil (pure multi-armed
// bandit); otherwise Points[i] holds the coordinates of arm i.
type Finite struct {
	N      int
	Points [][]float64
}

// NewFinite returns the finite domain over the given points.
func NewFinite(points [][]float64) (*Finite, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("domain: finite set has no points")
	}
	d := len(points[0])
	for i, p := range points {
		if len(p) != d {
			return nil, fmt.Errorf("domain: point %d has dimension %d, point 0 has %d", i, len(p), d)
		}
		for j, v := range p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("domain: point %d coordinate %d = %v: must be finite", i, j, v)
			}
		}
	}
	return &Finite{N: len(points), Points: points}, nil
}

// Arms returns a finite domain of n arms without coordinates.
func Arms(n int) (*Finite, error) {
	if n < 1 {
		return nil, fmt.Errorf("domain: number of arms = %d: must be at least 1", n)
	}
	return &Finite{N: n}, nil
}

// Grid returns n evenly spaced points on [lo, hi] (n ≥ 2), as 1-D points.
func Grid(lo, hi float64, n int) [][]float64 {
	return GridPoints([]float64{lo}, []float64{hi}, []int{n})
}

// Dim implements Domain.
func (f *Finite) Dim() int {
	if len(f.Points) == 0 {
		return 0
	}
	return len(f.Points[0])
}

func (f *Finite) String() string { return fmt.Sprintf("%d arms", f.N) }

// Box is the axis-aligned box [Lo, Hi].
type Box struct {
	Lo, Hi []float64
	// Vars marks the coordinates that take discrete values (a typed
	// space's ints and categoricals); nil: the box is continuous.
	Vars []Var
}

// NewBox validates and returns the box [lo, hi].
func NewBox(lo, hi []float64) (*Box, error) {
	if len(lo) == 0 {
		return nil, fmt.Errorf("domain: box has dimension 0")
	}
	if len(lo) != len(hi) {
		return nil, fmt.Errorf("domain: box lo has %d coordinates, hi has %d", len(lo), len(hi))
	}
	for i := range lo {
		if math.IsNaN(lo[i]) || math.IsInf(lo[i], 0) {
			return nil, fmt.Errorf("domain: box lo[%d] = %v: must be finite", i, lo[i])
		}
		if math.IsNaN(hi[i]) || math.IsInf(hi[i], 0) {
			return nil, fmt.Errorf("domain: box hi[%d] = %v: must be finite", i, hi[i])
		}
		if lo[i] > hi[i] {
			return nil, fmt.Errorf("domain: box lo[%d] = %v > hi[%d] = %v: empty box", i, lo[i], i, hi[i])
		}
	}
	return &Box{Lo: append([]float64(nil), lo...), Hi: append([]float64(nil), hi...)}, nil
}

// Dim implements Domain.
func (b *Box) Dim() int { return len(b.Lo) }

func (b *Box) String() string { return fmt.Sprintf("box %v–%v", b.Lo, b.Hi) }

// Contains reports whether x lies in the box; the error names the coordinate.
func (b *Box) Contains(x []float64) error {
	if len(x) != len(b.Lo) {
		return fmt.Errorf("point has %d coordinates, the box has %d", len(x), len(b.Lo))
	}
	for i, v := range x {
		if math.IsNaN(v) || v < b.Lo[i] || v > b.Hi[i] {
			return fmt.Errorf("x[%d] = %v is outside [%v, %v]", i, v, b.Lo[i], b.Hi[i])
		}
	}
	return nil
}

// Halton returns the first n points (indices 1, 2, …, n) of the Halton
// sequence in the unit cube [0,1)^d, coordinate i in the i-th prime base
// (2, 3, 5, …). The candidate sets of boxes in 3+ dimensions (model's
// practical defaults, the service's box candidates) and the suite's
// reference samples all use it; their stored studies and numbers depend on
// this exact sequence.
func Halton(n, d int) [][]float64 {
	primes := make([]int, 0, d)
	for c := 2; len(primes) < d; c++ {
		prime := true
		for _, p := range primes {
			if c%p == 0 {
				prime = false
				break
			}
		}
		if prime {
			primes = append(primes, c)
		}
	}
	out := make([][]float64, n)
	for k := range out {
		x := make([]float64, d)
		for i, b := range primes {
			f, r, j := 1.0, 0.0, k+1
			for j > 0 {
				f /= float64(b)
				r += f * float64(j%b)
				j /= b
			}
			x[i] = r
		}
		out[k] = x
	}
	return out
}
