package agent

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/problem"
)

func gardnerInfo(t testing.TB) (problem.Problem, bandit.Info) {
	t.Helper()
	p, err := problem.New("gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p, p.Info()
}

// The first RPOL-UCB decision by hand: prior μ = 0, σ = 1 everywhere, so
// f̂ = β^f and ǧ = −β^g < 0 at every candidate; the score is flat and Q stays
// Q_1 = 1 until a cost arrives; then Q_2 = max(1 + c⁺, √1).
func TestRPOLUCBDefaultsAndPenalty(t *testing.T) {
	_, in := gardnerInfo(t)
	a, err := New("rpol-ucb", Config{Info: in, Horizon: 100, Seed: 1, Params: paperParams()})
	if err != nil {
		t.Fatal(err)
	}
	r := a.(*RPOL)
	if r.lam != 1+2.0/100 || r.rule.Q[0] != 1 || r.p != 0.05 {
		t.Fatalf("λ, Q_1, p = %v, %v, %v", r.lam, r.rule.Q[0], r.p)
	}
	d, err := r.Decide(&bandit.Round{T: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := in.B + in.R*math.Sqrt(2*(0+1+math.Log(2/0.05))) // 000 §4, γ_0 = 0
	if math.Abs(r.wf-want) > 1e-12 {
		t.Fatalf("β_1^f = %v, want %v", r.wf, want)
	}
	if err := r.Observe(bandit.Feedback{ID: d.ID, Reward: 0.1, HasReward: true, Costs: []float64{0.7}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decide(&bandit.Round{T: 2}); err != nil {
		t.Fatal(err)
	}
	if q := r.Penalty()[0]; math.Abs(q-1.7) > 1e-15 {
		t.Fatalf("Q_2 = %v, want 1.7", q)
	}
	if len(d.Action.X) != 2 || d.Action.Arm != -1 {
		t.Fatalf("action %v: want a point of the 2-D box", d.Action)
	}
}

func TestRPOLBadInput(t *testing.T) {
	_, in := gardnerInfo(t)
	for _, c := range []struct {
		id, key, val, want string
	}{
		{"rpol-sw-ucb", "W", "0", "W = 0"},
		{"rpol-sw-ucb", "W", "-3", "W = -3"},
		{"rpol-sw-ucb", "PT", "0", "PT"},
		{"rpol-censored-ucb", "m", "-1", "m = -1"},
		{"rpol-ucb", "p", "1", "p = 1"},
		{"rpol-ucb", "lambda", "0", "lambda"},
		{"ckb-restart-ucb", "H", "0", "H = 0"},
		{"config", "alpha", "2", "alpha"},
		{"rpol-ucb", "inducing", "-1", "inducing = -1"},
		{"rpol-censored-ucb", "inducing", "8", "inducing"},
		{"rpol-censored-ucb", "width", "wide", "width"},
		{"config", "lambda", "1+2/t", "lambda"},
	} {
		_, err := New(c.id, Config{Info: in, Horizon: 100, Params: bandit.Params{c.key: c.val}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s=%s: err = %v, want it to name %q", c.id, c.key, c.val, err, c.want)
		}
	}
}

// width=matched gives the censored agent RPOL-UCB's §4 width (smaller than
// §5's, which adds (R + B_r) and v_t).
func TestRPOLCensoredWidths(t *testing.T) {
	_, in := gardnerInfo(t)
	w := map[string]float64{}
	for _, v := range []string{"paper", "matched"} {
		a, err := New("rpol-censored-ucb", Config{Info: in, Horizon: 100, Params: bandit.Params{"width": v, "standardise": "off"}})
		if err != nil {
			t.Fatal(err)
		}
		r := a.(*RPOL)
		r.widths()
		w[v] = r.wf
	}
	u, _ := New("rpol-ucb", Config{Info: in, Horizon: 100, Params: paperParams()})
	ru := u.(*RPOL)
	ru.widths()
	if w["matched"] != ru.wf || !(w["paper"] > w["matched"]) {
		t.Fatalf("widths: paper %v, matched %v, rpol-ucb %v", w["paper"], w["matched"], ru.wf)
	}
}

// Every RPOL variant and baseline runs on gardner (box), stays in the box
// and is deterministic by seed.
func TestBoxAgentsDeterministic(t *testing.T) {
	p, in := gardnerInfo(t)
	box := in.Domain.(*domain.Box)
	for _, id := range []string{"rpol-ucb", "rpol-censored-ucb", "rpol-sw-ucb", "config", "ckb-ucb", "ckb-restart-ucb",
		"rpol-ucb:inducing=32", "ckb-ucb:inducing=16"} {
		name, ps := id, bandit.Params{}
		if i := strings.Index(id, ":inducing="); i >= 0 {
			name, ps = id[:i], bandit.Params{"inducing": id[i+len(":inducing="):]}
		}
		run := func() []float64 {
			a, err := New(name, Config{Info: in, Horizon: 30, Seed: 7, Params: ps})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			var xs []float64
			costs := make([]float64, 1)
			for s := 1; s <= 30; s++ {
				r := &bandit.Round{T: s}
				d, err := a.Decide(r)
				if err != nil {
					t.Fatalf("%s round %d: %v", id, s, err)
				}
				if err := box.Contains(d.Action.X); err != nil {
					t.Fatalf("%s round %d: %v", id, s, err)
				}
				y, _ := p.Observe(rng, r, d.Action, costs)
				if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}); err != nil {
					t.Fatal(err)
				}
				xs = append(xs, d.Action.X...)
			}
			return xs
		}
		a, b := run(), run()
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: not deterministic at %d: %v vs %v", id, i, a[i], b[i])
			}
		}
	}
}

// BenchmarkRPOLUCBRoundGardner times one RPOL-UCB round (decide, with the
// acquisition maximised over 1024 candidates plus local refinement, and
// observe) on gardner after t = 1000 observations.
func BenchmarkRPOLUCBRoundGardner(b *testing.B) { benchRPOLGardner(b, 1000) }

// BenchmarkRPOLUCBRoundGardner3000 is BenchmarkRPOLUCBRoundGardner at
// t = 3000, past the last-level cache (the factor alone is 36 MB).
func BenchmarkRPOLUCBRoundGardner3000(b *testing.B) { benchRPOLGardner(b, 3000) }

func benchRPOLGardner(b *testing.B, t0 int) {
	p, in := gardnerInfo(b)
	a, err := New("rpol-ucb", Config{Info: in, Horizon: 2 * t0, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	r := a.(*RPOL)
	rng := rand.New(rand.NewPCG(3, 4))
	costs := make([]float64, 1)
	// Fill the posteriors with 1000 observations at random points (the
	// models' Observe; the ledger is bypassed for speed).
	for s := 0; s < t0; s++ {
		x := []float64{6 * rng.Float64(), 6 * rng.Float64()}
		y, _ := p.Observe(rng, &bandit.Round{T: 1}, bandit.PointAction(x), costs)
		if err := r.f.Observe(bandit.PointAction(x), y); err != nil {
			b.Fatal(err)
		}
		if err := r.g[0].Observe(bandit.PointAction(x), costs[0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd := &bandit.Round{T: t0 + i}
		d, err := r.Decide(rd)
		if err != nil {
			b.Fatal(err)
		}
		y, _ := p.Observe(rng, rd, d.Action, costs)
		if err := r.Observe(bandit.Feedback{ID: d.ID, Reward: y, HasReward: true, Costs: costs}); err != nil {
			b.Fatal(err)
		}
	}
}
