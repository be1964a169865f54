package domain

import (
	"fmt"
	"math"
)

// Var marks coordinates of a box that take discrete values, as a typed
// space's encoding gives them (package space: one coordinate per int or
// stepped float, the one-hot block of a categorical): a number at
// coordinate At (Width 1) whose unit value u stands for the value
// Low + u(High − Low), or with Log exp(ln Low + u(ln High − ln Low)),
// moved to the nearest of Low, Low + Step, … ≤ High; or a categorical's
// block At..At+Width−1 (Choices set), whose valid points are its vertices.
// Coordinates no Var names are continuous.
type Var struct {
	At, Width int
	Low, High float64
	Log       bool
	Step      float64 // 1 for an int
	Choices   bool    // a one-hot block of Width choices
}

// Mixed reports whether the box has discrete coordinates (Vars).
func (b *Box) Mixed() bool { return len(b.Vars) > 0 }

// Params is the number of parameters the box encodes: its coordinates, a
// categorical's one-hot block counted once.
func (b *Box) Params() int {
	n := b.Dim()
	for _, v := range b.Vars {
		if v.Choices {
			n -= v.Width - 1
		}
	}
	return n
}

// CheckVars validates the box's Vars: inside the box's unit coordinates,
// not overlapping, ints with 1 ≤ Low ≤ High under Log.
func (b *Box) CheckVars() error {
	used := make([]bool, b.Dim())
	for k, v := range b.Vars {
		if v.Width < 1 || v.At < 0 || v.At+v.Width > b.Dim() || (!v.Choices && v.Width != 1) {
			return fmt.Errorf("domain: var %d covers coordinates %d..%d of a %d-D box", k, v.At, v.At+v.Width-1, b.Dim())
		}
		if !v.Choices && (!(v.Low <= v.High) || (v.Log && !(v.Low > 0)) || !(v.Step > 0)) {
			return fmt.Errorf("domain: var %d: range [%v, %v] (log %v), step %v", k, v.Low, v.High, v.Log, v.Step)
		}
		for i := v.At; i < v.At+v.Width; i++ {
			if used[i] || b.Lo[i] != 0 || b.Hi[i] != 1 {
				return fmt.Errorf("domain: var %d: coordinate %d is shared or not in [0, 1]", k, i)
			}
			used[i] = true
		}
	}
	return nil
}

// steps is the number of steps from Low to the largest value ≤ High.
func (v Var) steps() float64 { return math.Floor((v.High-v.Low)/v.Step + 1e-9) }

// level is the value k steps above Low.
func (v Var) level(k float64) float64 { return math.Min(v.High, v.Low+k*v.Step) }

// stepOf is the index of value x's nearest step.
func (v Var) stepOf(x float64) float64 {
	return math.Min(v.steps(), math.Max(0, math.Round((x-v.Low)/v.Step)))
}

// intValue is the value that unit value u of v stands for.
func (v Var) intValue(u float64) float64 {
	u = math.Min(1, math.Max(0, u))
	if math.IsNaN(u) {
		u = 0
	}
	var x float64
	if v.Log {
		x = math.Exp(math.Log(v.Low) + u*(math.Log(v.High)-math.Log(v.Low)))
	} else {
		x = v.Low + u*(v.High-v.Low)
	}
	return v.level(v.stepOf(math.Min(v.High, math.Max(v.Low, x))))
}

// unitOf is the unit value of the int x of v.
func (v Var) unitOf(x float64) float64 {
	if v.High == v.Low {
		return 0
	}
	var u float64
	if v.Log {
		u = (math.Log(x) - math.Log(v.Low)) / (math.Log(v.High) - math.Log(v.Low))
	} else {
		u = (x - v.Low) / (v.High - v.Low)
	}
	return math.Min(1, math.Max(0, u))
}

// Project moves x in place to the nearest valid point: each int to the
// encoding of the value it rounds to, each one-hot block to the vertex of
// its largest coordinate (ties to the first choice).
func (b *Box) Project(x []float64) {
	for _, v := range b.Vars {
		if !v.Choices {
			x[v.At] = v.unitOf(v.intValue(x[v.At]))
			continue
		}
		best := v.At
		for i := v.At + 1; i < v.At+v.Width; i++ {
			if x[i] > x[best] {
				best = i
			}
		}
		for i := v.At; i < v.At+v.Width; i++ {
			x[i] = 0
		}
		x[best] = 1
	}
}

// Neighbours are the valid points one discrete step from the valid point
// x: each int one value down and up, each categorical set to each other
// choice; continuous coordinates as in x.
func (b *Box) Neighbours(x []float64) [][]float64 {
	var out [][]float64
	for _, v := range b.Vars {
		if !v.Choices {
			k := v.stepOf(v.intValue(x[v.At]))
			for _, m := range []float64{k - 1, k + 1} {
				if m >= 0 && m <= v.steps() {
					y := append([]float64(nil), x...)
					y[v.At] = v.unitOf(v.level(m))
					out = append(out, y)
				}
			}
			continue
		}
		for c := v.At; c < v.At+v.Width; c++ {
			if x[c] == 1 {
				continue
			}
			y := append([]float64(nil), x...)
			for i := v.At; i < v.At+v.Width; i++ {
				y[i] = 0
			}
			y[c] = 1
			out = append(out, y)
		}
	}
	return out
}

// Pinned is the box whose discrete coordinates are fixed at x's values:
// the continuous coordinates' own box, for a gradient step that keeps x's
// discrete values (nil when every coordinate is discrete).
func (b *Box) Pinned(x []float64) *Box {
	lo, hi := append([]float64(nil), b.Lo...), append([]float64(nil), b.Hi...)
	free := b.Dim()
	for _, v := range b.Vars {
		for i := v.At; i < v.At+v.Width; i++ {
			lo[i], hi[i] = x[i], x[i]
			free--
		}
	}
	if free == 0 {
		return nil
	}
	return &Box{Lo: lo, Hi: hi}
}
