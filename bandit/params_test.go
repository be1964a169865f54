package bandit

import (
	"math"
	"strings"
	"testing"
)

func TestParams(t *testing.T) {
	p, err := ParseParams([]string{"h=0.5,n=30", "g=rkhs"})
	if err != nil || p["h"] != "0.5" || p["n"] != "30" || p["g"] != "rkhs" {
		t.Fatalf("ParseParams = %v, %v", p, err)
	}
	if _, err := ParseParams([]string{"h"}); err == nil || !strings.Contains(err.Error(), `"h": want key=value`) {
		t.Fatalf("missing '=': %v", err)
	}
	docs := []Param{FloatParam{Name: "h"}, IntParam{Name: "n"}, StringParam{Name: "g"}}
	if err := p.Check("x", docs); err != nil {
		t.Fatal(err)
	}
	if err := (Params{"zz": "1"}).Check("x", docs); err == nil || !strings.Contains(err.Error(), `unknown parameter "zz": accepted are h, n, g`) {
		t.Fatalf("Check: %v", err)
	}
	if v, err := p.Float("x", "h", 1); err != nil || v != 0.5 {
		t.Fatalf("Float = %v, %v", v, err)
	}
	if v, err := p.Float("x", "absent", 7); err != nil || v != 7 {
		t.Fatalf("Float default = %v, %v", v, err)
	}
	if _, err := (Params{"h": "x"}).Float("o", "h", 0); err == nil || !strings.Contains(err.Error(), `o: parameter h = "x": not a number`) {
		t.Fatalf("Float bad: %v", err)
	}
	if v, err := (IntParam{Name: "n", Default: 1, Range: AtLeast(2)}).Read("x", p); err != nil || v != 30 {
		t.Fatalf("IntParam = %v, %v", v, err)
	}
	if _, err := (IntParam{Name: "n", Default: 1, Range: AtLeast(31)}).Read("o", p); err == nil || !strings.Contains(err.Error(), "o: parameter n = 30: must be at least 31") {
		t.Fatalf("IntParam below min: %v", err)
	}
	if _, err := p.String("o", "g", "neg-f", "neg-f", "other"); err == nil || !strings.Contains(err.Error(), `g = "rkhs": accepted are neg-f, other`) {
		t.Fatalf("String choices: %v", err)
	}
}

func TestFeedbackValidate(t *testing.T) {
	ok := Feedback{ID: 1, Reward: 1, HasReward: true, Costs: []float64{0.1, -2}}
	if err := ok.Validate(2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fb   Feedback
		want string
	}{
		{Feedback{ID: 1, Reward: math.NaN(), HasReward: true}, "reward = NaN"},
		{Feedback{ID: 1, Costs: []float64{1}}, "costs has 1 values, the problem has 2"},
		{Feedback{ID: 1, Costs: []float64{1, math.Inf(-1)}}, "costs[1] = -Inf"},
		{Feedback{ID: 1}, "neither a reward nor costs"},
	} {
		if err := c.fb.Validate(2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: want %q, got %v", c.fb, c.want, err)
		}
	}
}
