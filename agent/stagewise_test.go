package agent

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/linear"
	"github.com/cbandit/cbandit/problem"
)

// simResult summarises one simulated run of a stage-wise agent.
type simResult struct {
	violations int       // rounds whose true expected g > 0
	regret     []float64 // per-round regret
	decisions  []bandit.Decision
}

// expected scores a decision with the noise-free functions (policy-aware).
func expected(t *testing.T, p problem.Problem, r *bandit.Round, d bandit.Decision, g []float64) float64 {
	t.Helper()
	if d.Policy == nil {
		f, err := p.Truth(r, d.Action, g)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tmp := make([]float64, len(g))
	for i := range g {
		g[i] = 0
	}
	var f float64
	for a, w := range d.Policy {
		if w == 0 {
			continue
		}
		act := bandit.ArmAction(a)
		if r.Arms != nil {
			act.X = r.Arms[a]
		} else if fin, ok := p.Info().Domain.(*domain.Finite); ok && fin.Points != nil {
			act.X = fin.Points[a]
		}
		v, err := p.Truth(r, act, tmp)
		if err != nil {
			t.Fatal(err)
		}
		f += w * v
		for i := range g {
			g[i] += w * tmp[i]
		}
	}
	return f
}

func simulate(t *testing.T, algo string, ap bandit.Params, prob string, pp bandit.Params, horizon int, s uint64, check func(t int, d bandit.Decision, ag bandit.Agent)) simResult {
	t.Helper()
	p, err := problem.New(prob, pp, s)
	if err != nil {
		t.Fatal(err)
	}
	info := p.Info()
	ag, err := New(algo, Config{Info: info, Horizon: horizon, Params: ap, Seed: s})
	if err != nil {
		t.Fatal(err)
	}
	env := seed.Rand(seed.Derive(s, "env"))
	var res simResult
	g := make([]float64, info.M)
	obs := make([]float64, info.M)
	for tt := 1; tt <= horizon; tt++ {
		r := p.Round(env, tt)
		d, err := ag.Decide(r)
		if err != nil {
			t.Fatalf("round %d: %v", tt, err)
		}
		if check != nil {
			check(tt, d, ag)
		}
		f := expected(t, p, r, d, g)
		for _, v := range g {
			if v > 1e-9 {
				res.violations++
				break
			}
		}
		res.regret = append(res.regret, p.Optimum(r)-f)
		res.decisions = append(res.decisions, d)
		rew, err := p.Observe(env, r, d.Action, obs)
		if err != nil {
			t.Fatal(err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: obs}); err != nil {
			t.Fatalf("round %d: observe: %v", tt, err)
		}
	}
	return res
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// learns checks that the mean regret of the last quarter is at most ratio
// times that of the first quarter (regret grows sublinearly).
func learns(t *testing.T, name string, reg []float64, ratio float64) {
	t.Helper()
	n := len(reg) / 4
	first, last := mean(reg[:n]), mean(reg[len(reg)-n:])
	if !(last <= ratio*first) {
		t.Fatalf("%s: mean regret first quarter %.4f, last quarter %.4f (want ≤ %v × first)", name, first, last, ratio)
	}
}

func TestLCLUCBSafeAndLearns(t *testing.T) {
	for _, tau := range []string{"0.2", "0.8"} {
		res := simulate(t, "lc-lucb", nil, "star-convex-shifts", bandit.Params{"d": "5", "tau": tau}, 3000, 7, nil)
		if res.violations != 0 {
			t.Fatalf("τ = %s: %d rounds violate the stage-wise constraint", tau, res.violations)
		}
		learns(t, "lc-lucb τ="+tau, res.regret, 0.9)
	}
}

func TestLCLUCBContextualMultiConstraint(t *testing.T) {
	pp := bandit.Params{"d": "3", "rays": "20", "m": "2", "tau": "0.4", "resample": "true"}
	res := simulate(t, "lc-lucb", nil, "unit-ball", pp, 1500, 3, nil)
	if res.violations != 0 {
		t.Fatalf("%d rounds violate one of the two constraints", res.violations)
	}
	learns(t, "lc-lucb contextual m=2", res.regret, 0.9)
}

func TestLCLUCBWarmStart(t *testing.T) {
	pp := bandit.Params{"d": "5", "tau": "0.5", "known": "false"}
	if _, err := New("lc-lucb", Config{Info: mustInfo(t, "star-convex-shifts", pp), Horizon: 100}); err == nil ||
		!strings.Contains(err.Error(), "warm-start") {
		t.Fatalf("unknown r₀, c₀ without warm start: err = %v", err)
	}
	var lc *LCLUCB
	res := simulate(t, "lc-lucb", bandit.Params{"warm-start": "true"}, "star-convex-shifts", pp, 3000, 5,
		func(_ int, _ bandit.Decision, ag bandit.Agent) { lc = ag.(*LCLUCB) })
	if res.violations != 0 {
		t.Fatalf("%d rounds violate the constraint", res.violations)
	}
	if lc.warm == nil || !lc.warm.done() || lc.warm.T0() < 1 {
		t.Fatalf("warm start did not finish: %+v", lc.warm)
	}
	// α_r = 1 + 6Δ̂_r/Δ̂_c with Δ̂ within [Δ/2, 3Δ/2] of Δ_r = 1 − r₀ = 1, Δ_c = τ − c₀ = 0.5.
	if lc.alphaR < 1+6*0.5/0.75 || lc.alphaR > 1+6*1.5/0.25 {
		t.Fatalf("α_r after warm start = %v", lc.alphaR)
	}
	for k := 0; k < lc.warm.T0(); k++ {
		for _, v := range res.decisions[k].Action.X {
			if v != 0 {
				t.Fatalf("warm-start round %d played %v, not x₀ = 0", k+1, res.decisions[k].Action.X)
			}
		}
	}
	learns(t, "lc-lucb warm", res.regret, 0.9)
}

func mustInfo(t *testing.T, prob string, pp bandit.Params) bandit.Info {
	t.Helper()
	p, err := problem.New(prob, pp, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p.Info()
}

func TestStagewiseBadInput(t *testing.T) {
	star := starInfo(t, 3, 4, 0.5)
	// Not star-convex.
	flat := star
	st := *star.Stage
	st.StarConvex = false
	flat.Stage = &st
	if _, err := New("lc-lucb", Config{Info: flat, Horizon: 10}); err == nil || !strings.Contains(err.Error(), "not star-convex") {
		t.Fatalf("non-star-convex set: err = %v", err)
	}
	// τ ≤ c₀.
	bad := star
	st2 := *star.Stage
	st2.Tau = []float64{0}
	bad.Stage = &st2
	for _, name := range []string{"lc-lucb", "oplb", "safe-lts"} {
		if _, err := New(name, Config{Info: bad, Horizon: 10}); err == nil || !strings.Contains(err.Error(), "no safe margin") {
			t.Fatalf("%s with τ = c₀: err = %v", name, err)
		}
	}
	// Not stage-wise.
	plain := star
	plain.Stage = nil
	if _, err := New("opb", Config{Info: plain, Horizon: 10}); err == nil || !strings.Contains(err.Error(), "not stage-wise") {
		t.Fatalf("no Stage: err = %v", err)
	}
	// K < 2.
	one := mabInfo(t, 1, 0.5)
	if _, err := New("opb", Config{Info: one, Horizon: 10}); err == nil || !strings.Contains(err.Error(), "K = 1") {
		t.Fatalf("K = 1: err = %v", err)
	}
	if _, err := problem.New("random-mab", bandit.Params{"k": "1"}, 1); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Fatalf("random-mab k = 1: err = %v", err)
	}
	if _, err := problem.New("bernoulli-4arm", bandit.Params{"tau": "0"}, 1); err == nil || !strings.Contains(err.Error(), "no safe margin") {
		t.Fatalf("bernoulli-4arm tau = 0: err = %v", err)
	}
	// x₀ missing from a finite action set.
	fin := starInfo(t, 3, 4, 0.5)
	st3 := *fin.Stage
	st3.StarConvex = false
	st3.X0 = []float64{0.5, 0.5, 0.5}
	fin.Stage = &st3
	ag, err := New("oplb", Config{Info: fin, Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ag.Decide(&bandit.Round{T: 1}); err == nil || !strings.Contains(err.Error(), "missing from the action set") {
		t.Fatalf("x₀ missing: err = %v", err)
	}
	// Unknown feedback ID.
	ag2, _ := New("lc-lucb", Config{Info: star, Horizon: 10})
	if err := ag2.Observe(bandit.Feedback{ID: 3, HasReward: true}); err == nil {
		t.Fatal("unknown feedback ID accepted")
	}
}

func TestOPBSupportSafetyAndLearning(t *testing.T) {
	for _, tau := range []string{"0.8", "0.5", "0.2"} {
		check := func(_ int, d bandit.Decision, _ bandit.Agent) {
			n := 0
			for _, p := range d.Policy {
				if p > 0 {
					n++
				}
			}
			if n > 2 {
				t.Fatalf("τ = %s: policy %v has support %d > 2 (004 Lemma 30)", tau, d.Policy, n)
			}
		}
		res := simulate(t, "opb", nil, "bernoulli-4arm", bandit.Params{"tau": tau}, 30000, 11, check)
		if res.violations != 0 {
			t.Fatalf("τ = %s: %d rounds with E_π[c] > τ", tau, res.violations)
		}
		learns(t, "opb τ="+tau, res.regret, 0.9)
	}
}

func TestOPBMultiConstraint(t *testing.T) {
	check := func(_ int, d bandit.Decision, _ bandit.Agent) {
		n := 0
		for _, p := range d.Policy {
			if p > 0 {
				n++
			}
		}
		if n > 3 {
			t.Fatalf("policy %v has support %d > m+1 = 3 (004 App. D.4)", d.Policy, n)
		}
	}
	res := simulate(t, "opb", nil, "random-mab", bandit.Params{"k": "6", "m": "2", "tau": "0.5"}, 3000, 2, check)
	if res.violations != 0 {
		t.Fatalf("%d rounds violate", res.violations)
	}
	learns(t, "opb m=2", res.regret, 0.9)
}

func TestOPBWarmStart(t *testing.T) {
	res := simulate(t, "opb", bandit.Params{"warm-start": "true"}, "bernoulli-4arm", bandit.Params{"tau": "0.5", "known": "false"}, 4000, 4, nil)
	if res.violations != 0 {
		t.Fatalf("%d rounds violate", res.violations)
	}
	learns(t, "opb warm", res.regret, 0.9)
}

// TestOPLBRelaxationIsSafe checks the claim of agent/oplb.go for both
// algorithms: every policy played satisfies the exact pessimistic constraint
// (32) of 004 Prop. 25, Ṽ^c_t(π) ≤ τ, evaluated on the mean action x_π. For
// `oplb` it also checks that the policy's optimistic reward (31) is at least
// that of the LP policy of `oplb-lp` at the same estimates (the LP policy is
// feasible for (34)), and that every search was certified.
func TestOPLBRelaxationIsSafe(t *testing.T) {
	for _, name := range []string{"oplb", "oplb-lp"} {
		var checked, better int
		var last *OPLB
		check := func(_ int, d bandit.Decision, ag bandit.Agent) {
			o := ag.(*OPLB)
			last = o
			xpi := make([]float64, o.d)
			for a, w := range d.Policy {
				for i := range xpi {
					xpi[i] += w * o.onehot[a][i]
				}
			}
			if v := o.Model().PessimisticCost(0, xpi); v > o.tau[0]+1e-9 {
				t.Fatalf("%s: policy %v: Ṽ^c(π) = %v > τ = %v", name, d.Policy, v, o.tau[0])
			}
			checked++
			if !o.exact || o.warm != nil && !o.warm.done() {
				return
			}
			// The model has not seen this round's feedback yet: compare with the LP.
			k := len(o.onehot)
			ur, uc, lp := make([]float64, k), make([]float64, k), make([]float64, k)
			for a, x := range o.onehot {
				ur[a] = o.Model().OptimisticReward(x)
				uc[a] = o.Model().PessimisticCost(0, x)
			}
			if _, err := linear.SolveLP1(ur, uc, o.tau[0], lp); err != nil {
				t.Fatal(err)
			}
			var xlp []float64 = make([]float64, k)
			copy(xlp, lp)
			fe, fl := o.Model().OptimisticReward(xpi), o.Model().OptimisticReward(xlp)
			if fe < fl-1e-9*math.Max(1, math.Abs(fl)) {
				t.Fatalf("oplb: round policy %v has (31) = %v below the LP policy's %v", d.Policy, fe, fl)
			}
			if fe > fl+1e-6 {
				better++
			}
		}
		res := simulate(t, name, nil, "bernoulli-4arm", bandit.Params{"tau": "0.5"}, 3000, 6, check)
		if res.violations != 0 || checked != 3000 {
			t.Fatalf("%s: %d violations, %d rounds checked", name, res.violations, checked)
		}
		learns(t, name, res.regret, 0.9)
		if name == "oplb" && better == 0 {
			t.Fatalf("oplb: the exact policy never beat the LP policy on (31) in 3000 rounds")
		}
		if last.Uncertified() != 0 {
			t.Fatalf("%s: %d rounds stopped at the node budget", name, last.Uncertified())
		}
	}
}

func TestOPLBLinear(t *testing.T) {
	// A finite (not star-convex) linear action set: the unit-ball rays' end points and x₀ = 0.
	p, err := problem.New("unit-ball", bandit.Params{"d": "3", "rays": "10", "tau": "0.3"}, 9)
	if err != nil {
		t.Fatal(err)
	}
	in := p.Info()
	fin := in.Domain.(*domain.Finite)
	pts := append([][]float64{make([]float64, 3)}, fin.Points...)
	dom, _ := domain.NewFinite(pts)
	in.Domain = dom
	st := *in.Stage
	st.StarConvex = false
	in.Stage = &st
	// Dense features in d = 3 make the exact search of (34) costly; a small
	// node budget keeps the test fast (the policy stays feasible either way).
	ag, err := New("oplb", Config{Info: in, Horizon: 500, Seed: 1, Params: bandit.Params{"nodes": "300"}})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 200; k++ {
		d, err := ag.Decide(&bandit.Round{T: k})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Policy) != len(pts) {
			t.Fatalf("policy over %d actions, want %d", len(d.Policy), len(pts))
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: 0.1, HasReward: true, Costs: []float64{-0.1}}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSafeLTSSafe(t *testing.T) {
	res := simulate(t, "safe-lts", nil, "star-convex-shifts", bandit.Params{"d": "5", "tau": "0.5"}, 2000, 8, nil)
	if res.violations != 0 {
		t.Fatalf("%d rounds violate", res.violations)
	}
	learns(t, "safe-lts", res.regret, 0.9)
}

func TestOPNLB(t *testing.T) {
	if _, err := New("opnlb", Config{Info: mustInfo(t, "bernoulli-4arm", nil), Horizon: 10}); err == nil ||
		!strings.Contains(err.Error(), "function classes") {
		t.Fatalf("no classes: err = %v", err)
	}
	res := simulate(t, "opnlb", bandit.Params{"gamma-scale": "0.0005"}, "bernoulli-4arm", bandit.Params{"tau": "0.5", "class": "8"}, 2000, 3, nil)
	if res.violations != 0 {
		t.Fatalf("%d rounds violate", res.violations)
	}
	learns(t, "opnlb", res.regret, 0.5)
}

func TestStagewiseDeterministic(t *testing.T) {
	for _, tc := range []struct{ algo, prob string }{
		{"lc-lucb", "unit-ball"}, {"safe-lts", "unit-ball"}, {"opb", "random-mab"}, {"oplb", "random-mab"},
	} {
		a := simulate(t, tc.algo, nil, tc.prob, bandit.Params{"tau": "0.5"}, 300, 21, nil)
		b := simulate(t, tc.algo, nil, tc.prob, bandit.Params{"tau": "0.5"}, 300, 21, nil)
		for k := range a.decisions {
			da, db := a.decisions[k], b.decisions[k]
			if da.Action.Arm != db.Action.Arm || len(da.Action.X) != len(db.Action.X) {
				t.Fatalf("%s: round %d differs: %+v vs %+v", tc.algo, k+1, da.Action, db.Action)
			}
			for i := range da.Action.X {
				if da.Action.X[i] != db.Action.X[i] {
					t.Fatalf("%s: round %d differs", tc.algo, k+1)
				}
			}
		}
	}
}

// Late and partial feedback: decide several rounds, then deliver costs and
// rewards separately and out of order.
func TestStagewiseLateFeedback(t *testing.T) {
	for _, tc := range []struct {
		algo string
		in   bandit.Info
	}{{"lc-lucb", starInfo(t, 4, 6, 0.5)}, {"opb", mabInfo(t, 5, 0.5)}, {"oplb", mabInfo(t, 5, 0.5)}} {
		ag, err := New(tc.algo, Config{Info: tc.in, Horizon: 100, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for k := 1; k <= 5; k++ {
			d, err := ag.Decide(&bandit.Round{T: k})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, d.ID)
		}
		for i := len(ids) - 1; i >= 0; i-- {
			if err := ag.Observe(bandit.Feedback{ID: ids[i], Costs: []float64{-0.2}}); err != nil {
				t.Fatalf("%s: %v", tc.algo, err)
			}
		}
		for _, id := range ids {
			if err := ag.Observe(bandit.Feedback{ID: id, Reward: 0.3, HasReward: true}); err != nil {
				t.Fatalf("%s: %v", tc.algo, err)
			}
		}
		if err := ag.Observe(bandit.Feedback{ID: ids[0], Reward: 0.3, HasReward: true}); err == nil {
			t.Fatalf("%s: duplicate reward accepted", tc.algo)
		}
		if err := ag.Observe(bandit.Feedback{ID: ids[0], Costs: []float64{math.NaN()}}); err == nil {
			t.Fatalf("%s: NaN cost accepted", tc.algo)
		}
		if _, err := ag.Decide(&bandit.Round{T: 6}); err != nil {
			t.Fatal(err)
		}
	}
}

var _ = linear.ErrInfeasible

// TestOPLBNodeBudget runs `oplb` with a node budget far too small to certify
// (34) at K = 5 and checks, against an exact solve of each round's problem
// with the default budget: the played policy is the incumbent (feasible for
// (32), at most optimal), a round that plays a policy suboptimal beyond the
// tolerance is counted as uncertified, with a certified gap at least the
// true one; and the diagnostics add up (fractions, means, maxima).
func TestOPLBNodeBudget(t *testing.T) {
	const budget = 3
	var searched, uncert, subopt int
	var gapSum, gapMax float64
	var prevUncert int
	var last *OPLB
	var exact linear.PolicySolver
	var prob linear.PolicyProblem
	check := func(_ int, d bandit.Decision, ag bandit.Agent) {
		o := ag.(*OPLB)
		last = o
		if o.warm != nil && o.warm.done() && o.diag.searched == searched {
			t.Fatal("a round after the warm-up was not searched")
		}
		if o.diag.searched == searched {
			return // warm-up round
		}
		searched = o.diag.searched
		if err := o.Model().PolicyProblem(o.onehot, &prob); err != nil {
			t.Fatal(err)
		}
		if !prob.Feasible(d.Policy, o.tau) {
			t.Fatalf("round policy %v infeasible for (32)", d.Policy)
		}
		opt := make([]float64, prob.K)
		vOpt, err := exact.Solve(&prob, o.tau, o.st.SafeArm, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		v := prob.Reward(d.Policy)
		scale := math.Max(1, math.Abs(v))
		if v > vOpt+1e-7*scale {
			t.Fatalf("played (31) = %v above the certified optimum %v", v, vOpt)
		}
		counted := o.diag.uncertified - prevUncert
		prevUncert = o.diag.uncertified
		if counted == 1 {
			uncert++
			g := o.solver.Gap / scale
			gapSum += g
			gapMax = math.Max(gapMax, g)
			if o.solver.Gap < vOpt-v-1e-7*scale {
				t.Fatalf("certified gap %v below the true gap %v", o.solver.Gap, vOpt-v)
			}
		} else if v < vOpt-1e-6*scale {
			t.Fatalf("round played %v < optimum %v but was not counted as uncertified", v, vOpt)
		}
		if v < vOpt-1e-6*scale {
			subopt++
		}
	}
	res := simulate(t, "oplb", bandit.Params{"nodes": strconv.Itoa(budget)}, "random-mab", bandit.Params{"k": "5", "tau": "0.5"}, 400, 6, check)
	if res.violations != 0 {
		t.Fatalf("%d violations", res.violations)
	}
	if subopt == 0 || uncert == 0 {
		t.Fatalf("budget %d: %d suboptimal, %d uncertified rounds: the test does not exercise the budget", budget, subopt, uncert)
	}
	t.Logf("budget %d: %d searched, %d uncertified, %d suboptimal rounds, gap max %.3g", budget, searched, uncert, subopt, gapMax)
	dg := last.Diagnostics()
	want := map[string]float64{
		"searched_rounds":      float64(searched),
		"uncertified_rounds":   float64(uncert),
		"uncertified_fraction": float64(uncert) / float64(searched),
		"gap_mean":             gapSum / float64(uncert),
		"gap_max":              gapMax,
	}
	for k, w := range want {
		if g, ok := dg[k]; !ok || math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
			t.Errorf("diagnostic %s = %v, want %v", k, g, w)
		}
	}
	if n := dg["nodes_per_round"]; n < 1 || n > budget+1 {
		t.Errorf("nodes_per_round = %v with a budget of %d", n, budget)
	}
	if len(dg) != 6 {
		t.Errorf("diagnostics %v: want 6 keys", dg)
	}
	lp, err := New("oplb-lp", Config{Info: mustInfo(t, "random-mab", bandit.Params{"k": "5"}), Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	if d := lp.(bandit.Diagnostics).Diagnostics(); d != nil {
		t.Errorf("oplb-lp diagnostics %v, want nil (no search)", d)
	}
}
