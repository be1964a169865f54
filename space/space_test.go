package space_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/space"
)

func mixed() []space.Param {
	return []space.Param{
		space.LogFloat("lr", 1e-4, 1),
		space.Int("layers", 1, 8),
		space.Categorical("opt", "adam", "sgd"),
	}
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestSpaceHaltonCandidates: the first Halton points (bases 2, 3, 5) mapped
// by hand — lr at the scale's value (its code is the Halton coordinate),
// layers in 8 equal bins, opt in 2 — are the candidates.
func TestSpaceHaltonCandidates(t *testing.T) {
	got := space.Candidates(mixed(), 4)
	want := [][]float64{
		{0.5, 2.0 / 7, 1, 0},   // u = (1/2, 1/3, 1/5): layers bin 2 → 3
		{0.25, 5.0 / 7, 1, 0},  // (1/4, 2/3, 2/5): bin 5 → 6
		{0.75, 0, 0, 1},        // (3/4, 1/9, 3/5): bin 0 → 1, sgd
		{0.125, 3.0 / 7, 0, 1}, // (1/8, 4/9, 4/5): bin 3 → 4
	}
	if len(got) != len(want) {
		t.Fatalf("%d candidates, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("candidate %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestSpaceEnumeratesDiscrete: with no continuous float and few
// combinations, every combination once, the last parameter fastest; a
// stepped float is discrete.
func TestSpaceEnumeratesDiscrete(t *testing.T) {
	ps := []space.Param{space.Int("layers", 1, 8), space.Categorical("opt", "adam", "sgd")}
	c := space.Candidates(ps, 256)
	if len(c) != 16 || !near(c[0], []float64{0, 1, 0}) || !near(c[1], []float64{0, 0, 1}) || !near(c[15], []float64{1, 0, 1}) {
		t.Fatalf("8 × 2: %d candidates %v", len(c), c)
	}
	ps = []space.Param{space.SteppedFloat("drop", 0, 0.5, 0.1), space.Categorical("on", true, false)}
	c = space.Candidates(ps, 256)
	if len(c) != 12 {
		t.Fatalf("6 steps × 2: %d candidates", len(c))
	}
	seen := map[string]bool{}
	for _, x := range c {
		v, err := space.Decode(ps, x)
		if err != nil {
			t.Fatal(err)
		}
		d := v["drop"].(float64)
		if k := d / 0.1; math.Abs(k-math.Round(k)) > 1e-9 || d < 0 || d > 0.5 {
			t.Fatalf("drop = %v: not on the grid of 0.1 in [0, 0.5]", d)
		}
		seen[fmt.Sprint(v)] = true
	}
	if len(seen) != 12 {
		t.Fatalf("%d distinct combinations among 12 candidates", len(seen))
	}
	// More combinations than n: a Halton set, deduplicated, at most n.
	if c := space.Candidates([]space.Param{space.Int("a", 0, 99), space.Int("b", 0, 99)}, 50); len(c) == 0 || len(c) > 50 {
		t.Fatalf("100 × 100 with n = 50: %d candidates", len(c))
	}
}

// TestSpaceRoundTrip: every candidate decodes to values that encode back to
// it exactly; a log float's code is its log-scaled position; a point off
// the encoding decodes by rounding, arg max and the nearest step.
func TestSpaceRoundTrip(t *testing.T) {
	ps := append(mixed(), space.LogInt("batch", 1, 1024), space.SteppedFloat("m", 0.5, 0.95, 0.15), space.Float("w", -1, 1),
		space.Categorical("n", 16, 32.0, int64(64)))
	if err := space.Check(ps); err != nil {
		t.Fatal(err)
	}
	for _, x := range space.Candidates(ps, 200) {
		v, err := space.Decode(ps, x)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(ps))
		for i, p := range ps {
			vals[i] = v[p.Name]
		}
		y, err := space.Encode(ps, vals)
		if err != nil || !near(x, y) {
			t.Fatalf("%v decodes to %v, which encodes to %v (%v)", x, v, y, err)
		}
		lr := v["lr"].(float64)
		if u := (math.Log(lr) - math.Log(1e-4)) / math.Log(1e4); math.Abs(u-x[0]) > 1e-12 {
			t.Fatalf("lr %v coded %v, want %v", lr, x[0], u)
		}
	}
	v, err := space.Decode(ps, []float64{0.5, 0.49, 0.2, 0.7, 0.5, 0.6, 0.25, 0.3, 0.9, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"lr": 0.01, "layers": int64(4), "opt": "sgd", "batch": int64(32), "m": 0.8, "w": -0.5, "n": 32.0}
	for k, w := range want {
		if g := v[k]; fmt.Sprintf("%.10g", g) != fmt.Sprintf("%.10g", w) || fmt.Sprintf("%T", g) != fmt.Sprintf("%T", w) {
			t.Errorf("%s = %v (%T), want %v (%T)", k, g, g, w, w)
		}
	}
	if _, err := space.Decode(ps, []float64{0.5}); err == nil || !strings.Contains(err.Error(), "1 coordinates") {
		t.Errorf("a short point: %v", err)
	}
}

// TestSpaceCheck: each bad field is refused, named by its path.
func TestSpaceCheck(t *testing.T) {
	for _, c := range []struct {
		path string
		edit func([]space.Param) []space.Param
	}{
		{"parameters", func(ps []space.Param) []space.Param { return nil }},
		{"parameters[1].name", func(ps []space.Param) []space.Param { ps[1].Name = "lr"; return ps }},
		{"parameters[0].name", func(ps []space.Param) []space.Param { ps[0].Name = " "; return ps }},
		{"parameters[0].type", func(ps []space.Param) []space.Param { ps[0].Type = "double"; return ps }},
		{"parameters[0].low", func(ps []space.Param) []space.Param { ps[0].Low = 0; return ps }},
		{"parameters[0].high", func(ps []space.Param) []space.Param { ps[0].High = 1e-5; return ps }},
		{"parameters[0].high", func(ps []space.Param) []space.Param { ps[0].High = math.Inf(1); return ps }},
		{"parameters[0].step", func(ps []space.Param) []space.Param { ps[0].Step = 0.1; return ps }},
		{"parameters[1].low", func(ps []space.Param) []space.Param { ps[1].Low = 1.5; return ps }},
		{"parameters[1].low", func(ps []space.Param) []space.Param { ps[1].Low, ps[1].Log = 0, true; return ps }},
		{"parameters[1].step", func(ps []space.Param) []space.Param { ps[1].Step = 2; return ps }},
		{"parameters[1].choices", func(ps []space.Param) []space.Param { ps[1].Choices = []any{"a"}; return ps }},
		{"parameters[2].choices", func(ps []space.Param) []space.Param { ps[2].Choices = nil; return ps }},
		{"parameters[2].choices[1]", func(ps []space.Param) []space.Param { ps[2].Choices = []any{"adam", "adam"}; return ps }},
		{"parameters[2].choices[1]", func(ps []space.Param) []space.Param { ps[2].Choices = []any{16, 16.0}; return ps }},
		{"parameters[2].choices[0]", func(ps []space.Param) []space.Param { ps[2].Choices = []any{[]int{1}}; return ps }},
		{"parameters[2].choices[0]", func(ps []space.Param) []space.Param { ps[2].Choices = []any{math.NaN()}; return ps }},
		{"parameters[2].low", func(ps []space.Param) []space.Param { ps[2].Low = 1; return ps }},
		{"parameters[3].step", func(ps []space.Param) []space.Param { return append(ps, space.SteppedFloat("s", 0, 1, 2)) }},
		{"parameters[3].step", func(ps []space.Param) []space.Param { return append(ps, space.SteppedFloat("s", 0, 1, -1)) }},
		{"parameters", func(ps []space.Param) []space.Param {
			for i := 0; i < 62; i++ {
				ps = append(ps, space.Float(fmt.Sprint("f", i), 0, 1))
			}
			return ps
		}},
	} {
		err := space.Check(c.edit(mixed()))
		var fe *space.FieldError
		if !errors.As(err, &fe) || fe.Path() != c.path {
			t.Errorf("%s: error %v", c.path, err)
		}
	}
	if err := space.Check(mixed()); err != nil {
		t.Fatal(err)
	}
}

// TestSpaceEncodeErrors: a value of the wrong type, out of range, off the
// integers or the grid, or not a choice is refused, naming the parameter.
func TestSpaceEncodeErrors(t *testing.T) {
	ps := append(mixed(), space.SteppedFloat("m", 0, 1, 0.25))
	for _, c := range []struct {
		vals []any
		want string
	}{
		{[]any{0.1, 2, "adam"}, "3 values for 4"},
		{[]any{"x", 2, "adam", 0.5}, "lr = x: must be a number"},
		{[]any{2.0, 2, "adam", 0.5}, "lr = 2 is out of range"},
		{[]any{0.1, 2.5, "adam", 0.5}, "layers = 2.5: must be an integer"},
		{[]any{0.1, 2, "rmsprop", 0.5}, "opt = rmsprop is not one of"},
		{[]any{0.1, 2, "adam", 0.3}, "m = 0.3 is not low + k·step"},
	} {
		if _, err := space.Encode(ps, c.vals); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.vals, err, c.want)
		}
	}
	x, err := space.Encode(ps, []any{0.01, int64(8), "sgd", 0.75})
	if err != nil || !near(x, []float64{0.5, 1, 0, 1, 0.75}) {
		t.Fatalf("encode: %v, %v", x, err)
	}
	if !space.Continuous([]space.Param{space.Float("a", 0, 1), space.LogFloat("b", 1, 2)}) || space.Continuous(ps) {
		t.Error("Continuous: floats without a step only")
	}
}
