package stagewise

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/linear"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

func init() {
	experiment.Register(experiment.Paper{
		Name:    "stagewise",
		Summary: "stage-wise constraints: LC-LUCB vs Safe-LTS (Figs. 1, 2, 5–7), OPB on random and 4-armed Bernoulli bandits (Figs. 3, 4, 8)",
		Source:  "Pacchiano et al. §4.5, §5.4, App. B, App. H",
		Run:     run,
	})
}

// run is one experiment file with overrides.
type runSpec struct {
	group string   // shifts, unit-ball, random-mab, bernoulli-4arm
	file  string   // embedded experiment file
	sub   string   // figure group inside the experiment: "d=10", "K=5", "τ=0.2"
	tau   string   // threshold ("" when drawn per instance)
	sets  []string // --set overrides
	name  string   // output subdirectory
}

type result struct {
	runSpec
	out *runner.Output
}

// plan lists the runs of the reproduction (Pacchiano et al. Figs. 1–8).
func plan() []runSpec {
	var rs []runSpec
	for _, d := range []string{"3", "5", "10"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			rs = append(rs, runSpec{group: "shifts", file: "stagewise/shifts.yaml", sub: "d=" + d, tau: tau,
				sets: []string{"params.d=" + d, "params.tau=" + tau,
					"title=LC-LUCB vs Safe-LTS, cyclic shifts, d = " + d + ", τ = " + tau + " (Pacchiano et al. Fig. 1, App. B)"},
				name: "fig1-shifts-d" + d + "-tau" + tau})
		}
	}
	for _, d := range []string{"5", "10"} {
		rs = append(rs, runSpec{group: "unit-ball", file: "stagewise/unit-ball.yaml", sub: "d=" + d,
			sets: []string{"params.d=" + d, "title=LC-LUCB vs Safe-LTS, unit ball, d = " + d + " (Pacchiano et al. Fig. 2)"},
			name: "fig2-unit-ball-d" + d})
	}
	for _, k := range []string{"5", "10", "20"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			rs = append(rs, runSpec{group: "random-mab", file: "stagewise/random-mab.yaml", sub: "K=" + k, tau: tau,
				sets: []string{"params.k=" + k, "params.tau=" + tau,
					"title=OPB, random Bernoulli bandits, K = " + k + ", τ = " + tau + " (Pacchiano et al. Fig. 3)"},
				name: "fig3-random-mab-k" + k + "-tau" + tau})
		}
	}
	for _, tau := range []string{"0.2", "0.5", "0.8"} {
		rs = append(rs, runSpec{group: "oplb-exact", file: "stagewise/oplb-exact.yaml", sub: "K=5", tau: tau,
			sets: []string{"params.tau=" + tau,
				"title=OPLB exact (34) vs LP relaxation vs OPB, random Bernoulli bandits, K = 5, τ = " + tau + " (Pacchiano et al. Fig. 3 sizes)"},
			name: "fig3-oplb-exact-k5-tau" + tau})
	}
	for _, k := range []string{"10", "20"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			rs = append(rs, runSpec{group: "oplb-exact", file: "stagewise/oplb-budget.yaml", sub: "K=" + k, tau: tau,
				sets: []string{"params.k=" + k, "params.tau=" + tau,
					"title=OPLB (34) with a node budget vs LP relaxation vs OPB, random Bernoulli bandits, K = " + k + ", τ = " + tau + " (Pacchiano et al. Fig. 3 sizes)"},
				name: "fig3-oplb-budget-k" + k + "-tau" + tau})
		}
	}
	for _, tau := range []string{"0.8", "0.6", "0.5", "0.2"} {
		fig := "Fig. 4"
		if tau == "0.6" || tau == "0.5" {
			fig = "Fig. 8"
		}
		rs = append(rs, runSpec{group: "bernoulli-4arm", file: "stagewise/bernoulli-4arm.yaml", sub: "4 arms", tau: tau,
			sets: []string{"params.tau=" + tau, "title=OPB and OPLB, 4-armed Bernoulli bandit, τ = " + tau + " (Pacchiano et al. " + fig + ")"},
			name: "fig4-bernoulli-4arm-tau" + tau})
	}
	return rs
}

func run(ctx context.Context, o experiment.Options) error {
	var results []result
	for _, r := range plan() {
		c, err := experiment.Embedded(r.file)
		if err != nil {
			return err
		}
		for _, s := range r.sets {
			if err := c.Set(s); err != nil {
				return fmt.Errorf("%s: %w", r.file, err)
			}
		}
		sub := o
		sub.Out = filepath.Join(o.Out, r.name)
		out, err := experiment.Execute(ctx, c, sub)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", r.file, strings.Join(r.sets[:len(r.sets)-1], ", "), err)
		}
		results = append(results, result{r, out})
	}
	figDir := filepath.Join(o.Out, "figures")
	if err := figures(figDir, results); err != nil {
		return err
	}
	return writeReport(filepath.Join(o.Out, "report.md"), o, results)
}

// bandFactor turns a standard error over the run's trials into the band its
// experiment file states (figures.band: stderr, std = ±1 standard deviation,
// half-std = ±0.5 standard deviation; the scale of report's per-run figures),
// and describes it.
func bandFactor(out *runner.Output) (float64, string) {
	n := float64(out.Results.Summary.Trials)
	switch out.Results.Band {
	case "std":
		return math.Sqrt(n), "±1 standard deviation"
	case "half-std":
		return 0.5 * math.Sqrt(n), "±0.5 standard deviation"
	}
	return 1, "±1 standard error"
}

// relabel returns the curves of one metric with "<algorithm> <suffix>"
// labels, their bands scaled to the experiment file's band.
func relabel(out *runner.Output, metric, suffix string) []report.Curve {
	f, _ := bandFactor(out)
	var cs []report.Curve
	for _, c := range out.Results.Curves {
		if c.Metric != metric {
			continue
		}
		c.Algorithm = strings.TrimSpace(c.Algorithm + " " + suffix)
		se := make([]float64, len(c.Stderr))
		for i, v := range c.Stderr {
			se[i] = f * v
		}
		c.Stderr = se
		cs = append(cs, c)
	}
	return cs
}

// constant is a horizontal reference line drawn as a curve.
func constant(label, metric string, rounds []int, v float64) report.Curve {
	c := report.Curve{Algorithm: label, Metric: metric, Rounds: rounds}
	for range rounds {
		c.Mean = append(c.Mean, v)
		c.Stderr = append(c.Stderr, 0)
	}
	return c
}

func save(dir, base, metric, title, ylabel string, curves []report.Curve) error {
	if len(curves) == 0 {
		return nil
	}
	p, err := report.Figure(curves, metric, title, ylabel, false)
	if err != nil {
		return fmt.Errorf("figure %s: %w", base, err)
	}
	if err := report.SavePlot(p, dir, base); err != nil {
		return fmt.Errorf("figure %s: %w", base, err)
	}
	return nil
}

// rewardCurve is the per-round expected reward opt − ΔR/Δt between recorded
// rounds, from the per-trial cumulative regret.
func rewardCurve(out *runner.Output, label string, opt float64) report.Curve {
	f, _ := bandFactor(out)
	c := report.Curve{Algorithm: label, Metric: "reward", Rounds: out.Rounds}
	trials := out.PerTrial[label]["regret"]
	for k := range out.Rounds {
		prevT, dt := 0, 0
		if k > 0 {
			prevT = out.Rounds[k-1]
		}
		dt = out.Rounds[k] - prevT
		var vals []float64
		for _, tr := range trials {
			prev := 0.0
			if k > 0 {
				prev = tr[k-1]
			}
			vals = append(vals, opt-(tr[k]-prev)/float64(dt))
		}
		m, se := meanSE(vals)
		c.Mean = append(c.Mean, m)
		c.Stderr = append(c.Stderr, f*se)
	}
	return c
}

func meanSE(xs []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		s2 += (x - m) * (x - m)
	}
	if len(xs) < 2 {
		return m, 0
	}
	return m, math.Sqrt(s2 / float64(len(xs)-1) / float64(len(xs)))
}

// optimalPolicy returns the value and the expected cost of the best feasible
// policy of a Bernoulli problem (the red lines of Pacchiano et al. Fig. 4).
func optimalPolicy(tau string) (float64, float64, error) {
	p, err := problem.New("bernoulli-4arm", bandit.Params{"tau": tau}, 1)
	if err != nil {
		return 0, 0, err
	}
	m, ok := p.(interface {
		Means() ([]float64, []float64, []float64)
	})
	if !ok {
		return 0, 0, fmt.Errorf("bernoulli-4arm does not expose its means")
	}
	r, c, t := m.Means()
	pi := make([]float64, len(r))
	v, err := linear.SolveLP1(r, c, t[0], pi)
	if err != nil {
		return 0, 0, err
	}
	var cost float64
	for a := range pi {
		cost += pi[a] * c[a]
	}
	return v, cost, nil
}

func figures(dir string, results []result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	groups := map[string][]result{}
	var keys []string
	for _, r := range results {
		k := r.group + "|" + r.sub
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range keys {
		rs := groups[k]
		g, sub := rs[0].group, rs[0].sub
		slug := strings.NewReplacer("=", "", " ", "", "τ", "tau").Replace(sub)
		switch g {
		case "shifts", "random-mab", "oplb-exact":
			fig := map[string]string{"shifts": "fig1", "random-mab": "fig3", "oplb-exact": "fig3"}[g]
			var reg, cost []report.Curve
			for _, r := range rs {
				reg = append(reg, relabel(r.out, runner.Regret, "τ="+r.tau)...)
				cost = append(cost, relabel(r.out, runner.Cost, "τ="+r.tau)...)
				t, _ := strconv.ParseFloat(r.tau, 64)
				cost = append(cost, constant("threshold τ="+r.tau, runner.Cost, r.out.Rounds, t))
			}
			name := map[string]string{"shifts": "cyclic shifts", "random-mab": "random Bernoulli bandits", "oplb-exact": "OPLB exact vs LP"}[g]
			_, band := bandFactor(rs[0].out)
			if err := save(dir, fig+"-"+g+"-"+slug+"-regret", runner.Regret, "Regret, "+name+", "+sub+" (band "+band+")", "cumulative regret", reg); err != nil {
				return err
			}
			if err := save(dir, fig+"-"+g+"-"+slug+"-cost", runner.Cost, "Per-round expected cost, "+name+", "+sub+" (band "+band+")", "E[c(X_t)]", cost); err != nil {
				return err
			}
		case "unit-ball":
			_, band := bandFactor(rs[0].out)
			if err := save(dir, "fig2-unit-ball-"+slug+"-regret", runner.Regret, "Regret, unit ball, "+sub+" (band "+band+")", "cumulative regret", relabel(rs[0].out, runner.Regret, "")); err != nil {
				return err
			}
		case "bernoulli-4arm":
			for _, r := range rs {
				opt, optCost, err := optimalPolicy(r.tau)
				if err != nil {
					return err
				}
				base := "fig4-bernoulli-4arm-tau" + r.tau
				rounds := r.out.Rounds
				t, _ := strconv.ParseFloat(r.tau, 64)
				cost := append(relabel(r.out, runner.Cost, ""),
					constant("threshold τ", runner.Cost, rounds, t), constant("optimal policy", runner.Cost, rounds, optCost))
				var rew []report.Curve
				for _, label := range sortedLabels(r.out) {
					rew = append(rew, rewardCurve(r.out, label, opt))
				}
				rew = append(rew, constant("optimal policy", "reward", rounds, opt))
				_, band := bandFactor(r.out)
				title := "4-armed Bernoulli bandit, τ = " + r.tau + " (band " + band + ")"
				if err := save(dir, base+"-regret", runner.Regret, "Regret, "+title, "cumulative regret", relabel(r.out, runner.Regret, "")); err != nil {
					return err
				}
				if err := save(dir, base+"-cost", runner.Cost, "Per-round expected cost, "+title, "E_π[c]", cost); err != nil {
					return err
				}
				if err := save(dir, base+"-reward", "reward", "Per-round expected reward, "+title, "E_π[r]", rew); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func sortedLabels(out *runner.Output) []string {
	var ls []string
	for l := range out.Results.Summary.Algorithms {
		ls = append(ls, l)
	}
	sort.Strings(ls)
	return ls
}

// trialsViolating counts the trials of one algorithm with at least one
// violating round, and the violating rounds over all trials.
func trialsViolating(out *runner.Output, label string) (int, int, int) {
	tr := out.PerTrial[label][runner.ViolationCount]
	bad, rounds := 0, 0
	for _, v := range tr {
		n := int(v[len(v)-1])
		if n > 0 {
			bad++
		}
		rounds += n
	}
	return bad, len(tr), rounds
}

// claim is one row of the claims table that ends report.md.
type claim struct {
	text, figure, ours string
	agree              bool
	reason             string
}

// perTrial returns the final per-trial values of one metric (trial order).
func perTrial(out *runner.Output, label, metric string) []float64 {
	a, ok := out.Results.Summary.Algorithms[label]
	if !ok {
		return nil
	}
	switch metric {
	case runner.Regret:
		return a.Regret.PerTrial
	case runner.ViolationCount:
		return a.ViolationCount.PerTrial
	}
	return nil
}

// paired formats the paired difference a − b with its 95 % paired-t interval.
func paired(a, b []float64) (report.Paired, string) {
	p, ok := report.PairedDiff(a, b)
	if !ok {
		return p, "n/a"
	}
	if math.IsNaN(p.Lo) {
		return p, fmt.Sprintf("%+.4g (n = %d)", p.Mean, p.N)
	}
	return p, fmt.Sprintf("%+.4g [%+.4g, %+.4g] (n = %d)", p.Mean, p.Lo, p.Hi, p.N)
}

// optimumOf is the per-round value of the best feasible action or policy of
// a run's problem when it does not depend on the trial (cyclic shifts,
// 4-armed Bernoulli), else NaN.
func optimumOf(out *runner.Output) float64 {
	s := out.Results.Summary
	if s.Problem != "star-convex-shifts" && s.Problem != "bernoulli-4arm" {
		return math.NaN()
	}
	p, err := problem.New(s.Problem, bandit.Params(s.Params), s.Seed)
	if err != nil {
		return math.NaN()
	}
	return p.Optimum(&bandit.Round{T: 1})
}

func figureOf(group string) string {
	return map[string]string{"shifts": "Fig. 1, App. B Figs. 5–7", "unit-ball": "Fig. 2", "random-mab": "Fig. 3",
		"oplb-exact": "Fig. 3 sizes (K = 5, 10, 20)", "bernoulli-4arm": "Figs. 4, 8"}[group]
}

func writeReport(file string, o experiment.Options, results []result) error {
	var b strings.Builder
	size := "full size"
	if o.Quick {
		size = "--quick (reduced horizons and trials)"
	}
	fmt.Fprintf(&b, "# Stage-wise constraints (Pacchiano et al.): reproduction, %s\n\n", size)
	if o.Quick {
		b.WriteString(report.QuickBanner("see each run's report.md"))
	}
	b.WriteString("Each run's own summary.json, curves.csv, figures and report.md are in the subdirectories; the combined figures of Pacchiano et al. Figs. 1–4 and 8 are in figures/.\n\n")
	b.WriteString("Paired statistics: every algorithm of a run meets the same instances and noise (common random numbers), and runs of one experiment file at different τ share the instances too, so differences are paired trial by trial: mean difference with its 95 % paired-t interval (report.PairedDiff); \"lower\" needs an interval below 0.\n\n")

	// Bands.
	b.WriteString("## Bands of the combined figures\n\n| experiment | band drawn | the paper's figure |\n|---|---|---|\n")
	seenBand := map[string]bool{}
	for _, r := range results {
		if seenBand[r.group] {
			continue
		}
		seenBand[r.group] = true
		_, band := bandFactor(r.out)
		fmt.Fprintf(&b, "| %s (%s) | %s | %s |\n", r.group, r.file, band, r.out.Results.PaperBand)
	}
	b.WriteString("\nThe band is the one the experiment file states (figures.band); each run's own figures use the same.\n\n")

	var claims []claim

	// Claim 1: safety.
	b.WriteString("## Claim 1: the stage-wise constraint holds in every round except with the failure probability δ\n\n")
	b.WriteString("Counted with the true (noise-free) costs: a round violates when the played action's (LC-LUCB, Safe-LTS) or policy's (OPB, OPLB) expected cost exceeds τ. The theorems allow a violation in a run with probability δ = 0.05 (Pacchiano et al. Thm. 10, Prop. 26, Thm. 31).\n\n")
	b.WriteString("| run | algorithm | T | runs with a violation | violating rounds (all runs) | regret (mean ± stderr) |\n|---|---|---:|---:|---:|---:|\n")
	totalBad, totalRuns := 0, 0
	var badRuns []string
	for _, r := range results {
		s := r.out.Results.Summary
		for _, l := range sortedLabels(r.out) {
			bad, n, rounds := trialsViolating(r.out, l)
			totalBad += bad
			totalRuns += n
			if bad > 0 {
				badRuns = append(badRuns, fmt.Sprintf("%s %s: %d of %d runs, %d rounds", r.name, l, bad, n, rounds))
			}
			a := s.Algorithms[l]
			fmt.Fprintf(&b, "| %s | %s | %d | %d / %d | %d | %s |\n", r.name, l, s.Horizon, bad, n, rounds, report.FormatStat(a.Regret))
		}
	}
	frac := float64(totalBad) / float64(max(totalRuns, 1))
	c1 := claim{text: "the stage-wise constraint holds in every round except w.p. δ = 0.05", figure: "Figs. 1–4, 8 (cost panels)",
		ours: fmt.Sprintf("%d of %d runs had a violating round (%.3g)", totalBad, totalRuns, frac), agree: frac <= 0.05}
	if !c1.agree {
		c1.reason = "violating runs: " + strings.Join(badRuns, "; ")
	}
	claims = append(claims, c1)
	fmt.Fprintf(&b, "\n%d of %d runs had a violating round (%.3g; δ = 0.05).\n\n", totalBad, totalRuns, frac)

	// Claim 2: regret shrinks as τ − c₀ grows.
	b.WriteString("## Claim 2: regret shrinks as the safety gap τ − c₀ grows (c₀ = 0 in every experiment)\n\n")
	b.WriteString("Paired over the instances shared by the runs of one file: regret at the smaller τ minus regret at the next larger τ (positive = the claim).\n\n")
	b.WriteString("| experiment | algorithm | regret at T for increasing τ | paired differences R(τ_i) − R(τ_{i+1}) | decreasing? |\n|---|---|---|---|---|\n")
	type key struct{ group, sub, alg string }
	type point struct {
		tau float64
		out *runner.Output
	}
	series := map[key][]point{}
	var order []key
	for _, r := range results {
		if r.tau == "" {
			continue
		}
		t, _ := strconv.ParseFloat(r.tau, 64)
		for _, l := range sortedLabels(r.out) {
			k := key{r.group, r.sub, l}
			if _, ok := series[k]; !ok {
				order = append(order, k)
			}
			series[k] = append(series[k], point{t, r.out})
		}
	}
	for _, k := range order {
		s := series[k]
		sort.Slice(s, func(i, j int) bool { return s[i].tau < s[j].tau })
		ok := true
		var parts, diffs, why []string
		for i, p := range s {
			parts = append(parts, fmt.Sprintf("τ=%g: %.4g", p.tau, p.out.Results.Summary.Algorithms[k.alg].Regret.Mean))
			if i == 0 {
				continue
			}
			d, txt := paired(perTrial(s[i-1].out, k.alg, runner.Regret), perTrial(p.out, k.alg, runner.Regret))
			diffs = append(diffs, fmt.Sprintf("%g→%g: %s", s[i-1].tau, p.tau, txt))
			if d.Mean < 0 {
				ok = false
				if d.Hi < 0 {
					w := fmt.Sprintf("R(τ=%g) < R(τ=%g) by %.4g, interval below 0", s[i-1].tau, p.tau, -d.Mean)
					if o0, o1 := optimumOf(s[i-1].out), optimumOf(p.out); !math.IsNaN(o0) && !math.IsNaN(o1) {
						w += fmt.Sprintf("; the optimum per round is %.4g at τ=%g and %.4g at τ=%g, so the regret is measured against a lower target at the smaller τ", o0, s[i-1].tau, o1, p.tau)
					}
					why = append(why, w)
				} else {
					why = append(why, fmt.Sprintf("R(τ=%g) − R(τ=%g) = %+.4g, interval [%+.4g, %+.4g] contains 0: within trial noise", s[i-1].tau, p.tau, d.Mean, d.Lo, d.Hi))
				}
			}
		}
		yes := "yes"
		if !ok {
			yes = "no"
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s |\n", k.group, k.sub, k.alg, strings.Join(parts, ", "), strings.Join(diffs, "; "), yes)
		if k.group == "oplb-exact" && k.alg == "opb" {
			continue // the same instances as random-mab K=5 at a shorter horizon
		}
		claims = append(claims, claim{text: "regret shrinks as τ grows: " + k.alg + ", " + k.group + " " + k.sub, figure: figureOf(k.group),
			ours: strings.Join(diffs, "; "), agree: ok, reason: strings.Join(why, "; ")})
	}
	b.WriteString("\n")

	// Claim 3: LC-LUCB beats Safe-LTS.
	b.WriteString("## Claim 3: LC-LUCB's regret is below Safe-LTS's (Pacchiano et al. §4.5, Figs. 1, 2, 5–7)\n\n")
	b.WriteString("| run | LC-LUCB regret | Safe-LTS regret | LC-LUCB − Safe-LTS (paired) | LC-LUCB lower? |\n|---|---:|---:|---|---|\n")
	for _, r := range results {
		al := r.out.Results.Summary.Algorithms
		lc, ok1 := al["lc-lucb"]
		ts, ok2 := al["safe-lts"]
		if !ok1 || !ok2 {
			continue
		}
		d, txt := paired(lc.Regret.PerTrial, ts.Regret.PerTrial)
		yes := d.Hi < 0 || d.N == 1 && d.Mean < 0
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %v |\n", r.name, report.FormatStat(lc.Regret), report.FormatStat(ts.Regret), txt, yes)
		c := claim{text: "LC-LUCB's regret below Safe-LTS's: " + r.name, figure: figureOf(r.group), ours: "LC-LUCB − Safe-LTS = " + txt, agree: yes}
		if !yes {
			_, _, tsBad := trialsViolating(r.out, "safe-lts")
			if d.Mean < 0 {
				c.reason = "LC-LUCB lower on average but the interval contains 0 (within trial noise)"
			} else {
				c.reason = fmt.Sprintf("Safe-LTS lower by %.4g (LC-LUCB wins %d of %d trials); Safe-LTS violating rounds %d", d.Mean, d.AWins, d.N, tsBad)
			}
		}
		claims = append(claims, c)
	}
	b.WriteString("\n")

	// OPLB exact vs relaxation (our comparison, not a claim of Pacchiano et al.).
	writeOPLB(&b, results)

	b.WriteString("## Settings the paper leaves open\n\n")
	b.WriteString("Horizons (10 000 for Fig. 1, 5 000 for Fig. 2, 50 000 for Figs. 3, 4, 8; 5 000 for the OPLB comparison, with 10 trials at K = 5 and 5 trials and a budget of 500 simplices per round at K = 10 and 20), noise std 0.1 for the linear problems and δ = 0.05 are our choices; Safe-LTS follows the code Pacchiano et al. ran (κ = 1/min(1, τ), δ_t = 1/(1+t), √d; departures in experiments/stagewise/shifts.yaml). The experiment files in experiments/stagewise/ state them, and each run's report.md repeats them. The paper's figures give no numbers to compare with, so the comparison is with the qualitative claims.\n\n")

	// Claims table.
	b.WriteString("## Claims table\n\n")
	if o.Quick {
		b.WriteString("At reduced size (--quick): the verdicts below are computed as at full size but on fewer rounds and trials.\n\n")
	}
	b.WriteString("Rules: safety agrees when at most a fraction δ of runs has a violating round; \"regret shrinks as τ grows\" agrees when every paired mean difference R(τ_i) − R(τ_{i+1}) is positive; \"LC-LUCB below Safe-LTS\" agrees when the paired interval of LC-LUCB − Safe-LTS lies below 0.\n\n")
	b.WriteString("| claim | paper's figure | ours | agree? | measured reason for a disagreement |\n|---|---|---|---|---|\n")
	nAgree := 0
	for _, c := range claims {
		v := "disagree"
		if c.agree {
			v = "agree"
			nAgree++
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.text, c.figure, c.ours, v, c.reason)
	}
	fmt.Fprintf(&b, "\n%d of %d claims agree.\n", nAgree, len(claims))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// oplbLabel returns the label of the run's `oplb` entry (the exact search of
// (34), with or without a node budget) and its node budget ("" = default).
func oplbLabel(out *runner.Output) (string, string, bool) {
	for _, a := range out.Results.Summary.Specs {
		if a.ID == "oplb" {
			nodes, _ := bandit.Params(a.Params).Given(agent.OPLBNodesParam)
			return a.Label, nodes, true
		}
	}
	return "", "", false
}

// searchStats pools an `oplb` entry's diagnostics over the trials: the
// fraction of searched rounds that ended uncertified, its per-trial range,
// the mean relative gap over all uncertified rounds and the largest.
type searchStats struct {
	frac, fracLo, fracHi, gapMean, gapMax float64
	ok                                    bool
}

func oplbSearch(a report.Algorithm) searchStats {
	d := a.Diagnostics
	sr, ur, gm, gx := d["searched_rounds"], d["uncertified_rounds"], d["gap_mean"], d["gap_max"]
	n := len(sr.PerTrial)
	if n == 0 || len(ur.PerTrial) != n || len(gm.PerTrial) != n || len(gx.PerTrial) != n {
		return searchStats{}
	}
	st := searchStats{ok: true, fracLo: math.Inf(1), fracHi: math.Inf(-1)}
	var searched, uncert, gapSum float64
	for i := 0; i < n; i++ {
		searched += sr.PerTrial[i]
		uncert += ur.PerTrial[i]
		gapSum += gm.PerTrial[i] * ur.PerTrial[i]
		st.gapMax = math.Max(st.gapMax, gx.PerTrial[i])
		f := 0.0
		if sr.PerTrial[i] > 0 {
			f = ur.PerTrial[i] / sr.PerTrial[i]
		}
		st.fracLo, st.fracHi = math.Min(st.fracLo, f), math.Max(st.fracHi, f)
	}
	if searched > 0 {
		st.frac = uncert / searched
	}
	if uncert > 0 {
		st.gapMean = gapSum / uncert
	}
	return st
}

// writeOPLB is the table of `oplb` (exact, or with a node budget) against
// `oplb-lp` and OPB, with the share of rounds whose search was not certified.
func writeOPLB(b *strings.Builder, results []result) {
	b.WriteString("## OPLB: problem (34) solved exactly (`oplb`) against its LP relaxation (`oplb-lp`)\n\n")
	b.WriteString("Not a figure of Pacchiano et al. (§5.4 runs OPB only): (34) is a convex maximisation (§5.1.1), solved here by a certified branch-and-bound (linear.PolicySolver); `oplb-lp` replaces the norm of the mean action by the mean of the norms (agent/oplb.go). ")
	b.WriteString("At K = 5 (experiments/stagewise/oplb-exact.yaml, 10 trials) the search runs with its default budget of 200 000 simplices and certifies every round. ")
	b.WriteString("At K = 10 and 20 (experiments/stagewise/oplb-budget.yaml) it runs as `oplb-budget`, with 500 simplices per round: a round that ends at the budget plays the best feasible policy found (still feasible for (33), so safe; at least the LP policy's (31)) and is counted. ")
	b.WriteString("Such rounds are not OPLB as stated: their policy's value of (31) lies between the LP policy's and the optimum of (34), so where the uncertified share is large `oplb-budget`'s regret is not the regret of (34) solved exactly. ")
	b.WriteString("Uncertified: the share of searched rounds, pooled over the trials, with the per-trial range; gap: (upper bound − incumbent)/max(1, |incumbent|) at the budget, mean over the uncertified rounds and largest (the values of (34) are 3–6 at these sizes). The 4-armed Bernoulli runs (Figs. 4, 8) run both too and close the table.\n\n")
	b.WriteString("| run | oplb | oplb regret | oplb-lp regret | opb regret | oplb − oplb-lp (paired) | oplb lower? | oplb − opb (paired) | uncertified rounds | gap mean; max |\n|---|---|---:|---:|---:|---|---|---|---:|---:|\n")
	for _, r := range results {
		al := r.out.Results.Summary.Algorithms
		label, nodes, ok := oplbLabel(r.out)
		if !ok {
			continue
		}
		ex := al[label]
		lp, ok := al["oplb-lp"]
		if !ok {
			continue
		}
		what := "`" + label + "` (exact)"
		if nodes != "" {
			what = "`" + label + "` (≤ " + nodes + " simplices/round)"
		}
		ob, obd := "—", "—"
		if x, ok := al["opb"]; ok {
			ob = report.FormatStat(x.Regret)
			_, obd = paired(ex.Regret.PerTrial, x.Regret.PerTrial)
		}
		d, txt := paired(ex.Regret.PerTrial, lp.Regret.PerTrial)
		unc, gap := "—", "—"
		if st := oplbSearch(ex); st.ok {
			unc = fmt.Sprintf("%.1f %% (%.1f–%.1f %%)", 100*st.frac, 100*st.fracLo, 100*st.fracHi)
			gap = fmt.Sprintf("%.3g; %.3g", st.gapMean, st.gapMax)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %v | %s | %s | %s |\n", r.name, what, report.FormatStat(ex.Regret), report.FormatStat(lp.Regret), ob, txt, d.Hi < 0, obd, unc, gap)
	}
	b.WriteString("\n")
}
