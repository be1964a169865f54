package problem

import (
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
)

// The numeric optimum matches the published one (Gramacy et al. 2016 §4.1:
// x* ≈ (0.1954, 0.4044), x₁ + x₂ ≈ 0.5998), and scale/offset move the
// metrics as documented.
func TestGramacyToy(t *testing.T) {
	p, err := New("gramacy-toy", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	pw := p.(*Piecewise)
	pc := pw.PieceAt(1)
	if math.Abs(pc.Opt+0.5998) > 1e-3 || math.Abs(pc.XOpt[0]-0.1954) > 5e-3 || math.Abs(pc.XOpt[1]-0.4044) > 5e-3 {
		t.Fatalf("optimum %v at %v, want −0.5998 at (0.1954, 0.4044)", pc.Opt, pc.XOpt)
	}
	if in := p.Info(); !(in.Slater > 0) || in.M != 2 {
		t.Fatalf("Info: %+v", in)
	}
	q, err := New("gramacy-toy", bandit.Params{"scale": "1000", "offset": "50"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := bandit.PointAction([]float64{0.3, 0.7})
	c1, c2 := make([]float64, 2), make([]float64, 2)
	r := &bandit.Round{T: 1}
	f1, _ := p.Truth(r, x, c1)
	f2, _ := q.Truth(r, x, c2)
	if math.Abs(f2-(1000*f1+50)) > 1e-9 || math.Abs(c2[0]-1000*c1[0]) > 1e-9 || math.Abs(c2[1]-1000*c1[1]) > 1e-9 {
		t.Fatalf("scaled: f %v, g %v; base f %v, g %v", f2, c2, f1, c1)
	}
	if math.Abs(q.Optimum(r)-(1000*pc.Opt+50)) > 1e-9 {
		t.Fatalf("scaled optimum %v", q.Optimum(r))
	}
	if _, err := New("gramacy-toy", bandit.Params{"scale": "0"}, 1); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Fatalf("scale = 0: %v", err)
	}
}
