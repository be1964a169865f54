package bandit

import (
	"math"
	"strings"
	"testing"
)

// A declaration reads its default when the parameter is absent, refuses a
// value outside its range or choices naming the parameter and the value,
// and describes itself in the words list prints.
func TestDeclarations(t *testing.T) {
	alpha := FloatParam{Name: "alpha", Default: 0.05, Range: In(0, 1), Doc: "d", Source: "s"}
	if v, err := alpha.Read("o", Params{}); err != nil || v != 0.05 {
		t.Fatalf("default: %v, %v", v, err)
	}
	lam := FloatParam{Name: "lambda", Computed: "problem's noise variance", Range: Above(0), Words: []string{"1+2/T"}, Doc: "d", Source: "s"}
	if v, err := lam.ReadOr("o", Params{}, 0.3); err != nil || v != 0.3 {
		t.Fatalf("computed default: %v, %v", v, err)
	}
	n := IntParam{Name: "n", Default: 3, Range: AtLeast(1), Doc: "d", Source: "s"}
	c := ChoiceParam{Name: "mode", Default: "a", Choices: []string{"a", "b"}, Doc: "d", Source: "s"}
	b := BoolParam{Name: "on", Default: true, Doc: "d", Source: "s"}
	for _, x := range []struct {
		read func() error
		want string
	}{
		{func() error { _, err := alpha.Read("o", Params{"alpha": "2"}); return err }, "o: parameter alpha = 2: must be in (0, 1)"},
		{func() error { _, err := alpha.Read("o", Params{"alpha": "x"}); return err }, `o: parameter alpha = "x": not a number`},
		{func() error { _, err := lam.ReadOr("o", Params{"lambda": "Inf"}, 1); return err }, "o: parameter lambda = +Inf: must be a finite number > 0 (or 1+2/T)"},
		{func() error { _, err := n.Read("o", Params{"n": "0"}); return err }, "o: parameter n = 0: must be at least 1"},
		{func() error { _, err := c.Read("o", Params{"mode": "z"}); return err }, `o: parameter mode = "z": accepted are a, b`},
		{func() error { _, err := b.Read("o", Params{"on": "maybe"}); return err }, `o: parameter on = "maybe": want true or false`},
		{func() error {
			_, err := (FloatParam{Name: "x", Range: Finite()}).Read("o", Params{"x": "NaN"})
			return err
		}, "o: parameter x = NaN: must be finite"},
		{func() error {
			_, err := (FloatParam{Name: "x", Range: AtLeast(0)}).Read("o", Params{"x": "-1"})
			return err
		}, "o: parameter x = -1: must be a finite number ≥ 0"},
	} {
		err := x.read()
		var pe *ParamError
		if err == nil || err.Error() != x.want {
			t.Errorf("error %v, want %q", err, x.want)
		} else if !asParamError(err, &pe) {
			t.Errorf("%v is not a ParamError", err)
		}
	}
	if d := lam.Describe(); !d.Computed || d.Default != "problem's noise variance" || d.Values() != "float in (0, ∞) or 1+2/T" {
		t.Errorf("computed lambda: %+v, %q", d, d.Values())
	}
	if d := c.Describe(); d.Computed || d.Values() != "choice of a, b" {
		t.Errorf("choice: %+v, %q", d, d.Values())
	}
	if got := (Range{Min: 0, Max: math.Inf(1), MinEnd: Closed, MaxEnd: Closed}).String(); got != "[0, ∞]" {
		t.Errorf("range %q", got)
	}
	if err := CheckDecls("o", []Param{alpha, n, c, b, lam}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]Param{
		{alpha, alpha},
		{FloatParam{Name: "p", Default: 2, Range: In(0, 1), Doc: "d", Source: "s"}},
		{ChoiceParam{Name: "m", Default: "z", Choices: []string{"a"}, Doc: "d", Source: "s"}},
		{FloatParam{Name: "p", Doc: "d"}},
	} {
		if err := CheckDecls("o", bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func asParamError(err error, pe **ParamError) bool {
	p, ok := err.(*ParamError)
	*pe = p
	return ok && strings.Contains(err.Error(), p.Name)
}
