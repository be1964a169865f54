package problem

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// suiteValues is problem/testdata/suite_values.json, written by
// docs/suite_reference.py (an independent Python statement of the problems).
type suiteValues struct {
	HaltonN  int `json:"halton_n"`
	Problems []struct {
		Name        string       `json:"name"`
		Goal        string       `json:"goal"`
		Lo          []float64    `json:"lo"`
		Hi          []float64    `json:"hi"`
		Thresholds  []float64    `json:"thresholds"`
		Points      [][]float64  `json:"points"`
		Objective   []float64    `json:"objective"`
		Constraints [][]float64  `json:"constraints"`
		ObjRange    [2]float64   `json:"objective_range"`
		ConRanges   [][2]float64 `json:"constraint_ranges"`
		Optimum     float64      `json:"optimum"`
		OptimumX    []float64    `json:"optimum_x"`
	} `json:"problems"`
}

func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The Go definitions agree with the Python ones at 20 points of every box
// (1e-9 relative), the Halton ranges agree, and the optimum found by the
// pattern search agrees with Python's SLSQP optimum to 1e-6 of the
// objective's range.
func TestSuiteMatchesPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/suite_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var sv suiteValues
	if err := json.Unmarshal(raw, &sv); err != nil {
		t.Fatal(err)
	}
	if sv.HaltonN != SuiteHaltonN {
		t.Fatalf("halton_n %d, want %d", sv.HaltonN, SuiteHaltonN)
	}
	if len(sv.Problems) != len(Suite()) {
		t.Fatalf("%d problems in the JSON, %d in Suite()", len(sv.Problems), len(Suite()))
	}
	for _, q := range sv.Problems {
		p, err := SuiteByName(q.Name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Goal != q.Goal || len(p.Constraints) != len(q.Thresholds) {
			t.Fatalf("%s: goal %s, %d constraints; python %s, %d", q.Name, p.Goal, len(p.Constraints), q.Goal, len(q.Thresholds))
		}
		for j, c := range p.Constraints {
			if c.Threshold != q.Thresholds[j] {
				t.Errorf("%s: threshold %d = %v, python %v", q.Name, j, c.Threshold, q.Thresholds[j])
			}
		}
		cons := make([]float64, len(p.Constraints))
		for i, x := range q.Points {
			if f := p.Eval(x, cons); !close9(f, q.Objective[i]) {
				t.Errorf("%s: objective at %v = %.15g, python %.15g", q.Name, x, f, q.Objective[i])
			}
			for j := range cons {
				if !close9(cons[j], q.Constraints[i][j]) {
					t.Errorf("%s: constraint %d at %v = %.15g, python %.15g", q.Name, j, x, cons[j], q.Constraints[i][j])
				}
			}
		}
		fa, err := p.Facts()
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			if !close9(fa.ObjRange[k], q.ObjRange[k]) {
				t.Errorf("%s: objective range %v, python %v", q.Name, fa.ObjRange, q.ObjRange)
			}
			for j := range fa.ConRanges {
				if !close9(fa.ConRanges[j][k], q.ConRanges[j][k]) {
					t.Errorf("%s: constraint %d range %v, python %v", q.Name, j, fa.ConRanges[j], q.ConRanges[j])
				}
			}
		}
		span := fa.ObjRange[1] - fa.ObjRange[0]
		if math.Abs(fa.Opt-q.Optimum) > 1e-6*span {
			t.Errorf("%s: optimum %.10g at %v, python %.10g at %v", q.Name, fa.Opt, fa.XOpt, q.Optimum, q.OptimumX)
		}
		if !p.Feasible(fa.XOpt) {
			t.Errorf("%s: optimum point %v infeasible", q.Name, fa.XOpt)
		}
	}
}

// The numeric optima agree with the published ones (to the digits
// published).
func TestSuiteLiteratureOptima(t *testing.T) {
	tol := map[string]float64{"gardner": 1e-9, "gramacy": 0.05 * 1000 * 1e-3, "branin": 1e-6, "ackley3": 1e-6,
		"pressure-vessel": 0.1, "hartmann6": 1e-5}
	for _, p := range Suite() {
		fa, err := p.Facts()
		if err != nil {
			t.Fatal(err)
		}
		tl, ok := tol[p.Name]
		if !ok {
			t.Fatalf("%s: no tolerance", p.Name)
		}
		if math.Abs(fa.Opt-p.LitOpt) > tl {
			t.Errorf("%s: optimum %.10g at %v; literature %v (%s)", p.Name, fa.Opt, fa.XOpt, p.LitOpt, p.LitSource)
		}
		if d := len(p.Lo); d < 2 || d > 6 || len(p.Constraints) < 1 || len(p.Constraints) > 3 {
			t.Errorf("%s: %d dimensions, %d constraints", p.Name, d, len(p.Constraints))
		}
		if p.Source == "" || p.Units == "" {
			t.Errorf("%s: no source or units", p.Name)
		}
	}
}

// The registered suite-<name> problems follow the Problem convention:
// reward Sign·metric maximised, g_j = metric − threshold, optimum the reward
// at x*; scale/offset move the metrics; bad values are named.
func TestSuiteRegistered(t *testing.T) {
	for _, sp := range Suite() {
		p, err := New("suite-"+sp.Name, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		fa, _ := sp.Facts()
		r := &bandit.Round{T: 1}
		c := make([]float64, len(sp.Constraints))
		f, err := p.Truth(r, bandit.PointAction(fa.XOpt), c)
		if err != nil {
			t.Fatal(err)
		}
		if !close9(f, p.Optimum(r)) || !close9(f, sp.Sign()*fa.Opt) {
			t.Errorf("%s: reward at x* %v, optimum %v, facts %v", sp.Name, f, p.Optimum(r), fa.Opt)
		}
		for j := range c {
			if c[j] > 0 {
				t.Errorf("%s: g_%d(x*) = %v > 0", sp.Name, j, c[j])
			}
		}
		q, err := New("suite-"+sp.Name, bandit.Params{"scale": "1000", "offset": "50"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		x := bandit.PointAction(sp.Lo)
		c2 := make([]float64, len(c))
		f1, _ := p.Truth(r, x, c)
		f2, _ := q.Truth(r, x, c2)
		if !close9(f2, 1000*f1+sp.Sign()*50) {
			t.Errorf("%s: scaled reward %v, base %v", sp.Name, f2, f1)
		}
		for j := range c {
			if !close9(c2[j], 1000*c[j]) {
				t.Errorf("%s: scaled g_%d %v, base %v", sp.Name, j, c2[j], c[j])
			}
		}
		if in := p.Info(); in.M != len(sp.Constraints) || in.Domain == nil || !(in.R > 0) {
			t.Errorf("%s: info %+v", sp.Name, in)
		}
	}
	if _, err := New("suite-branin", bandit.Params{"noise": "-1"}, 1); err == nil || !strings.Contains(err.Error(), "noise = -1") {
		t.Fatalf("noise = -1: %v", err)
	}
	if _, err := SuiteByName("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown: %v", err)
	}
}

// pressure-vessel's optimum is the vertex where both thickness rules, the
// volume and L ≤ 240 are active: R solves πR²·240 + 4/3·πR³ = 1296000.
func TestSuitePressureVesselVertex(t *testing.T) {
	p, _ := SuiteByName("pressure-vessel")
	lo, hi := 10.0, 50.0
	for range 200 {
		r := (lo + hi) / 2
		if math.Pi*r*r*240+4.0/3.0*math.Pi*r*r*r < 1296000 {
			lo = r
		} else {
			hi = r
		}
	}
	r := (lo + hi) / 2
	x := []float64{0.0193 * r, 0.00954 * r, r, 240}
	want := p.Objective.F(x)
	fa, err := p.Facts()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fa.Opt-want) > 1e-6*want || math.Abs(want-5804.3762) > 1e-3 {
		t.Fatalf("optimum %.10g at %v; vertex %.10g at %v", fa.Opt, fa.XOpt, want, x)
	}
}
