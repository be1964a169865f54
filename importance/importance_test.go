package importance

import (
	"errors"
	"math"
	"testing"

	"github.com/cbandit/cbandit/domain"
)

// toy is f(a, b, c, colour) on the encoding of three floats and a
// categorical of three choices: a and the colour matter, b a little, c not
// at all.
func toy(x []float64) float64 {
	shift := []float64{0, 1.5, -1}[argmax(x[3:6])]
	return math.Sin(6*x[0]) + 0.3*x[1] + shift
}

func argmax(v []float64) int {
	k := 0
	for i := range v {
		if v[i] > v[k] {
			k = i
		}
	}
	return k
}

var toyParams = []Param{{Name: "a", Coords: 1}, {Name: "b", Coords: 1}, {Name: "c", Coords: 1}, {Name: "colour", Coords: 3, OneHot: true}}

// toyData encodes n Halton configurations: three floats and a one-hot
// choice.
func toyData(n int) ([][]float64, []float64) {
	var xs [][]float64
	var ys []float64
	for _, u := range domain.Halton(n, 4) {
		x := []float64{u[0], u[1], u[2], 0, 0, 0}
		x[3+min(int(u[3]*3), 2)] = 1
		xs = append(xs, x)
		ys = append(ys, toy(x))
	}
	return xs, ys
}

// TestIrrelevantRanksLast: the parameter f does not depend on ranks last
// with a negligible importance; the one that matters most ranks first; the
// importances sum to 1; the answer is the same, bit for bit, when computed
// again.
func TestIrrelevantRanksLast(t *testing.T) {
	xs, ys := toyData(60)
	r, err := Compute(xs, ys, toyParams)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	if len(r.Entries) != 4 || r.Observations != 60 {
		t.Fatalf("entries %d, observations %d; want 4, 60", len(r.Entries), r.Observations)
	}
	var sum float64
	for _, e := range r.Entries {
		sum += e.Importance
		if e.Importance < 0 || e.FirstOrder < 0 || e.FirstOrder > 1 {
			t.Errorf("%s: importance %v, first order %v out of [0, 1]", e.Name, e.Importance, e.FirstOrder)
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("importances sum to %v, want 1", sum)
	}
	if last := r.Entries[3]; last.Name != "c" || last.Importance > 0.02 {
		t.Errorf("last: %+v, want c with importance ≤ 0.02", last)
	}
	if first := r.Entries[0].Name; first != "a" && first != "colour" {
		t.Errorf("first: %s, want a or colour", first)
	}
	if r.Entries[2].Name != "b" {
		t.Errorf("third: %s, want b (a small linear effect)", r.Entries[2].Name)
	}
	// f is additive: the main effects explain nearly all the variance.
	if r.Explained < 0.9 || r.Explained > 1.05 {
		t.Errorf("explained %v, want about 1 for an additive f", r.Explained)
	}
	again, err := Compute(xs, ys, toyParams)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Entries {
		if r.Entries[i] != again.Entries[i] {
			t.Errorf("second computation differs: %+v, then %+v", r.Entries[i], again.Entries[i])
		}
	}
}

// TestUnitsDoNotMatter: an affine change of the objective's units leaves
// the importances unchanged (the values are standardised).
func TestUnitsDoNotMatter(t *testing.T) {
	xs, ys := toyData(40)
	r1, err := Compute(xs, ys, toyParams)
	if err != nil {
		t.Fatal(err)
	}
	zs := make([]float64, len(ys))
	for i, y := range ys {
		zs[i] = -1000*y + 50
	}
	r2, err := Compute(xs, zs, toyParams)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1.Entries {
		a, b := r1.Entries[i], r2.Entries[i]
		if a.Name != b.Name || math.Abs(a.Importance-b.Importance) > 1e-4 {
			t.Errorf("entry %d: %+v in natural units, %+v in ×(−1000) + 50", i, a, b)
		}
	}
}

// TestRefusals: too few observations and a flat objective are refused with
// errors that say so; malformed input names what is wrong.
func TestRefusals(t *testing.T) {
	xs, ys := toyData(40)
	var few *TooFewError
	if _, err := Compute(xs[:13], ys[:13], toyParams); !errors.As(err, &few) || few.Need != 16 || few.Have != 13 {
		t.Errorf("13 observations of a 6-coordinate encoding: %v, want a TooFewError (13 of 16)", err)
	}
	flat := make([]float64, len(ys))
	for i := range flat {
		flat[i] = 3
	}
	if _, err := Compute(xs, flat, toyParams); !errors.Is(err, ErrFlat) {
		t.Errorf("constant objective: %v, want ErrFlat", err)
	}
	if _, err := Compute(xs, ys, toyParams[:3]); err == nil {
		t.Error("parameters covering 3 of 6 coordinates: accepted")
	}
}
