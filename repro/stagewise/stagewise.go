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
		Source:  "004 §4.5, §5.4, App. B, App. H",
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

// plan lists the runs of the reproduction (004 Figs. 1–8).
func plan() []runSpec {
	var rs []runSpec
	for _, d := range []string{"3", "5", "10"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			rs = append(rs, runSpec{group: "shifts", file: "stagewise/shifts.yaml", sub: "d=" + d, tau: tau,
				sets: []string{"params.d=" + d, "params.tau=" + tau,
					"title=LC-LUCB vs Safe-LTS, cyclic shifts, d = " + d + ", τ = " + tau + " (004 Fig. 1, App. B)"},
				name: "fig1-shifts-d" + d + "-tau" + tau})
		}
	}
	for _, d := range []string{"5", "10"} {
		rs = append(rs, runSpec{group: "unit-ball", file: "stagewise/unit-ball.yaml", sub: "d=" + d,
			sets: []string{"params.d=" + d, "title=LC-LUCB vs Safe-LTS, unit ball, d = " + d + " (004 Fig. 2)"},
			name: "fig2-unit-ball-d" + d})
	}
	for _, k := range []string{"5", "10", "20"} {
		for _, tau := range []string{"0.2", "0.5", "0.8"} {
			rs = append(rs, runSpec{group: "random-mab", file: "stagewise/random-mab.yaml", sub: "K=" + k, tau: tau,
				sets: []string{"params.k=" + k, "params.tau=" + tau,
					"title=OPB, random Bernoulli bandits, K = " + k + ", τ = " + tau + " (004 Fig. 3)"},
				name: "fig3-random-mab-k" + k + "-tau" + tau})
		}
	}
	for _, tau := range []string{"0.8", "0.6", "0.5", "0.2"} {
		fig := "Fig. 4"
		if tau == "0.6" || tau == "0.5" {
			fig = "Fig. 8"
		}
		rs = append(rs, runSpec{group: "bernoulli-4arm", file: "stagewise/bernoulli-4arm.yaml", sub: "4 arms", tau: tau,
			sets: []string{"params.tau=" + tau, "title=OPB and OPLB, 4-armed Bernoulli bandit, τ = " + tau + " (004 " + fig + ")"},
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

// relabel returns the curves of one metric with "<algorithm> <suffix>" labels.
func relabel(out *runner.Output, metric, suffix string) []report.Curve {
	var cs []report.Curve
	for _, c := range out.Results.Curves {
		if c.Metric != metric {
			continue
		}
		c.Algorithm = strings.TrimSpace(c.Algorithm + " " + suffix)
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
		c.Stderr = append(c.Stderr, se)
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
// policy of a Bernoulli problem (the red lines of 004 Fig. 4).
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
		case "shifts", "random-mab":
			fig := map[string]string{"shifts": "fig1", "random-mab": "fig3"}[g]
			var reg, cost []report.Curve
			for _, r := range rs {
				reg = append(reg, relabel(r.out, runner.Regret, "τ="+r.tau)...)
				cost = append(cost, relabel(r.out, runner.Cost, "τ="+r.tau)...)
				t, _ := strconv.ParseFloat(r.tau, 64)
				cost = append(cost, constant("threshold τ="+r.tau, runner.Cost, r.out.Rounds, t))
			}
			name := map[string]string{"shifts": "cyclic shifts", "random-mab": "random Bernoulli bandits"}[g]
			if err := save(dir, fig+"-"+g+"-"+slug+"-regret", runner.Regret, "Regret, "+name+", "+sub, "cumulative regret", reg); err != nil {
				return err
			}
			if err := save(dir, fig+"-"+g+"-"+slug+"-cost", runner.Cost, "Per-round expected cost, "+name+", "+sub, "E[c(X_t)]", cost); err != nil {
				return err
			}
		case "unit-ball":
			if err := save(dir, "fig2-unit-ball-"+slug+"-regret", runner.Regret, "Regret, unit ball, "+sub, "cumulative regret", relabel(rs[0].out, runner.Regret, "")); err != nil {
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
				title := "4-armed Bernoulli bandit, τ = " + r.tau
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

func writeReport(file string, o experiment.Options, results []result) error {
	var b strings.Builder
	size := "full size"
	if o.Quick {
		size = "--quick (reduced horizons and trials)"
	}
	fmt.Fprintf(&b, "# Stage-wise constraints (004): reproduction, %s\n\n", size)
	if o.Quick {
		b.WriteString(report.QuickBanner("see each run's report.md"))
	}
	b.WriteString("Each run's own summary.json, curves.csv, figures and report.md are in the subdirectories; the combined figures of 004 Figs. 1–4 and 8 are in figures/.\n\n")

	// Claim 1: safety.
	b.WriteString("## Claim 1: the stage-wise constraint holds in every round except with the failure probability δ\n\n")
	b.WriteString("Counted with the true (noise-free) costs: a round violates when the played action's (LC-LUCB, Safe-LTS) or policy's (OPB, OPLB) expected cost exceeds τ. The theorems allow a violation in a run with probability δ = 0.05 (004 Thm. 10, Prop. 26, Thm. 31).\n\n")
	b.WriteString("| run | algorithm | T | runs with a violation | violating rounds (all runs) | regret (mean ± stderr) |\n|---|---|---:|---:|---:|---:|\n")
	totalBad, totalRuns := 0, 0
	for _, r := range results {
		s := r.out.Results.Summary
		for _, l := range sortedLabels(r.out) {
			bad, n, rounds := trialsViolating(r.out, l)
			totalBad += bad
			totalRuns += n
			a := s.Algorithms[l]
			fmt.Fprintf(&b, "| %s | %s | %d | %d / %d | %d | %s |\n", r.name, l, s.Horizon, bad, n, rounds, report.FormatStat(a.Regret))
		}
	}
	frac := float64(totalBad) / float64(max(totalRuns, 1))
	verdict := "holds"
	if frac > 0.05 {
		verdict = "does NOT hold"
	}
	fmt.Fprintf(&b, "\n**Verdict: %s** — %d of %d runs had a violating round (%.3g; δ = 0.05).\n\n", verdict, totalBad, totalRuns, frac)

	// Claim 2: regret shrinks as τ − c₀ grows.
	b.WriteString("## Claim 2: regret shrinks as the safety gap τ − c₀ grows (c₀ = 0 in every experiment)\n\n")
	b.WriteString("| experiment | algorithm | regret at T for increasing τ | decreasing? |\n|---|---|---|---|\n")
	type key struct{ group, sub, alg string }
	series := map[key][][2]float64{}
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
			series[k] = append(series[k], [2]float64{t, r.out.Results.Summary.Algorithms[l].Regret.Mean})
		}
	}
	mono, all := 0, 0
	for _, k := range order {
		s := series[k]
		sort.Slice(s, func(i, j int) bool { return s[i][0] < s[j][0] })
		ok := true
		var parts []string
		for i, p := range s {
			parts = append(parts, fmt.Sprintf("τ=%g: %.4g", p[0], p[1]))
			if i > 0 && p[1] > s[i-1][1] {
				ok = false
			}
		}
		all++
		yes := "no"
		if ok {
			mono++
			yes = "yes"
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s |\n", k.group, k.sub, k.alg, strings.Join(parts, ", "), yes)
	}
	verdict = "holds"
	if mono < all {
		verdict = fmt.Sprintf("holds in %d of %d series", mono, all)
	}
	fmt.Fprintf(&b, "\n**Verdict: %s.**\n\n", verdict)

	// Claim 3: LC-LUCB beats Safe-LTS.
	b.WriteString("## Claim 3: LC-LUCB's regret is below Safe-LTS's (004 §4.5, Figs. 1, 2, 5–7)\n\n")
	b.WriteString("| run | LC-LUCB regret | Safe-LTS regret | LC-LUCB lower? |\n|---|---:|---:|---|\n")
	wins, cmp := 0, 0
	for _, r := range results {
		al := r.out.Results.Summary.Algorithms
		lc, ok1 := al["lc-lucb"]
		ts, ok2 := al["safe-lts"]
		if !ok1 || !ok2 {
			continue
		}
		cmp++
		yes := "no"
		if lc.Regret.Mean < ts.Regret.Mean {
			wins++
			yes = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.name, report.FormatStat(lc.Regret), report.FormatStat(ts.Regret), yes)
	}
	verdict = "holds"
	if wins < cmp {
		verdict = fmt.Sprintf("holds in %d of %d runs", wins, cmp)
	}
	fmt.Fprintf(&b, "\n**Verdict: %s.**\n\n", verdict)

	b.WriteString("## Settings the paper leaves open\n\n")
	b.WriteString("Horizons (10 000 for Fig. 1, 5 000 for Fig. 2, 50 000 for Figs. 3, 4, 8), noise std 0.1 for the linear problems, δ = 0.05 for every algorithm, and the Safe-LTS inflation κ = 1 + 2/τ are our choices; the experiment files in experiments/stagewise/ state them, and each run's report.md repeats them. The paper's figures give no numbers to compare with, so the comparison is with the qualitative claims above.\n")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
