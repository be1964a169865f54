// Package penalty registers `cbandit reproduce penalty`: the experiments of
// Shi & Eryilmaz 2022 App. E: the L/S trade-off of Alg. 2 (Fig. 1), and for
// gardner (App. E.1) and data-rate (App. E.2), noiseless and noisy
// constraints, boxplots of time-averaged regret (utility for data-rate) and
// time-averaged violation every 20 rounds (Figs. 2, 4, 6, 8) plus the mean
// curves (Figs. 3, 5, 7, 9). Experiment files in experiments/penalty/.
package penalty

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

func init() {
	experiment.Register(experiment.Paper{
		Name:    "penalty",
		Summary: "Shi & Eryilmaz penalty epochs (Alg. 2, 3) vs OCO bandit: L/S trade-off, gardner and data-rate, noiseless and noisy g",
		Source:  "Shi & Eryilmaz 2022 App. E, Figs. 1–9",
		Run:     run,
	})
}

// Every is the spacing of the boxplot checkpoints (Shi & Eryilmaz 2022 App. E.1.1: "every 20 iterations").
const Every = 20

// file is one experiment of the reproduction.
type file struct {
	name    string // embedded file
	utility bool   // plot utility f* − R(t)/t instead of regret (data-rate, Shi & Eryilmaz 2022 App. E.2)
	boxes   bool   // boxplots (not for the trade-off of Fig. 1)
}

var files = []file{
	{name: "penalty/tradeoff.yaml"},
	{name: "penalty/gardner-noiseless.yaml", boxes: true},
	{name: "penalty/gardner-noisy.yaml", boxes: true},
	{name: "penalty/datarate-noiseless.yaml", utility: true, boxes: true},
	{name: "penalty/datarate-noisy.yaml", utility: true, boxes: true},
}

// finals are the time-averaged metrics of one algorithm at the checkpoints.
type finals struct {
	checkpoints []int
	regret      [][]float64 // [k][trial] R(t)/t (or utility)
	violation   [][]float64 // [k][trial] V(t)/t
	// stops[trial] is the round of the last BO query of an algorithm that
	// stops by its own rule (ADMMBO; 0 = did not stop), nil for the others.
	stops []int
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func run(ctx context.Context, o experiment.Options) error {
	verdicts := map[string]map[string]finals{}
	var order []string
	for _, f := range files {
		c, err := experiment.Embedded(f.name)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(path.Base(f.name), ".yaml")
		dir := filepath.Join(o.Out, base)
		out, err := execute(ctx, c, o, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		fin, err := checkpoints(c, out, f.utility)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		stops, err := admmboStops(c, o.Quick)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		for label, st := range stops {
			if g, ok := fin[label]; ok {
				g.stops = st
				fin[label] = g
			}
		}
		verdicts[base] = fin
		order = append(order, base)
		if f.boxes {
			if err := boxes(dir, c.Title, fin, f.utility); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	sens, err := sensitivity(ctx, o)
	if err != nil {
		return err
	}
	return writeSummary(o.Out, order, verdicts, o.Quick, sens)
}

// execute is experiment.Execute with every round recorded (the boxplots
// need the per-trial values at multiples of 20): curve_points is set as a
// --set override, so report.md's command line records every round too.
func execute(ctx context.Context, c *experiment.Config, o experiment.Options, dir string) (*runner.Output, error) {
	spec, err := c.Spec(o.Quick)
	if err != nil {
		return nil, err
	}
	if err := c.Set(fmt.Sprintf("curve_points=%d", spec.Horizon)); err != nil {
		return nil, err
	}
	sub := o
	sub.Out = dir
	return experiment.Execute(ctx, c, sub)
}

// checkpoints extracts R(t)/t (or the utility f* − R(t)/t) and V(t)/t per
// trial at t = 20, 40, … ≤ T.
func checkpoints(c *experiment.Config, out *runner.Output, utility bool) (map[string]finals, error) {
	opt := 0.0
	if utility {
		p, err := problem.New(c.Problem, c.Params, 0)
		if err != nil {
			return nil, err
		}
		opt = p.Optimum(&bandit.Round{T: 1})
	}
	idx := map[int]int{}
	for k, r := range out.Rounds {
		idx[r] = k
	}
	res := map[string]finals{}
	for label, per := range out.PerTrial {
		var fin finals
		for t := Every; ; t += Every {
			k, ok := idx[t]
			if !ok {
				break
			}
			fin.checkpoints = append(fin.checkpoints, t)
			var rs, vs []float64
			for tr := range per[runner.Regret] {
				r := per[runner.Regret][tr][k] / float64(t)
				if utility {
					r = opt - r
				}
				rs = append(rs, r)
				vs = append(vs, per[runner.ViolationSoft][tr][k]/float64(t))
			}
			fin.regret = append(fin.regret, rs)
			fin.violation = append(fin.violation, vs)
		}
		if len(fin.checkpoints) == 0 {
			return nil, fmt.Errorf("horizon %d is shorter than the first checkpoint %d", out.Rounds[len(out.Rounds)-1], Every)
		}
		res[label] = fin
	}
	return res, nil
}

// boxes draws the boxplots of Shi & Eryilmaz 2022 Figs. 2, 4, 6, 8.
func boxes(dir, title string, fin map[string]finals, utility bool) error {
	rg, vg := map[string][][]float64{}, map[string][][]float64{}
	var cps []int
	for label, f := range fin {
		cps = f.checkpoints
		for k := range f.checkpoints {
			// ADMMBO: only the trials not yet stopped (Shi & Eryilmaz 2022 plot it up to its stop).
			rg[label] = append(rg[label], f.running(f.regret, k))
			vg[label] = append(vg[label], f.running(f.violation, k))
		}
	}
	ylab, base := "time-averaged regret R(t)/t", "box_regret"
	if utility {
		ylab, base = "time-averaged utility (noise-free)", "box_utility"
	}
	p, err := report.BoxFigure(rg, cps, title, ylab)
	if err != nil {
		return err
	}
	if err := report.SavePlot(p, dir, base); err != nil {
		return err
	}
	p, err = report.BoxFigure(vg, cps, title, "time-averaged violation V(t)/t")
	if err != nil {
		return err
	}
	if err := report.SavePlot(p, dir, "box_violation"); err != nil {
		return err
	}
	md, err := os.OpenFile(filepath.Join(dir, "report.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer md.Close()
	_, err = fmt.Fprintf(md, "\n## Boxplots (Shi & Eryilmaz 2022 App. E)\n\n![%s](%s.svg)\n\n![box_violation](box_violation.svg)\n", base, base)
	return err
}

// writeSummary writes DIR/report.md: the paper's qualitative claims beside ours.
func writeSummary(dir string, order []string, v map[string]map[string]finals, quick bool, sens string) error {
	var b strings.Builder
	b.WriteString("# Reproduction of Shi & Eryilmaz 2022, App. E\n\n")
	if quick {
		b.WriteString(report.QuickBanner("see each experiment's report.md"))
	}
	b.WriteString("Per experiment: mean over trials of the time-averaged regret R(t)/t (utility for data-rate) and violation V(t)/t at the first checkpoint, the middle and the last.\n\n")
	for _, name := range order {
		fmt.Fprintf(&b, "## %s\n\n| algorithm | metric | t | mean | t | mean | t | mean |\n|---|---|---|---|---|---|---|---|\n", name)
		labels := make([]string, 0, len(v[name]))
		for l := range v[name] {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		for _, l := range labels {
			f := v[name][l]
			ks := []int{0, len(f.checkpoints) / 2, len(f.checkpoints) - 1}
			for _, m := range []struct {
				n string
				x [][]float64
			}{{"R/t or utility", f.regret}, {"V/t", f.violation}} {
				fmt.Fprintf(&b, "| %s | %s |", l, m.n)
				for _, k := range ks {
					if xs := f.running(m.x, k); len(xs) > 0 {
						fmt.Fprintf(&b, " %d | %.4f |", f.checkpoints[k], mean(xs))
					} else {
						fmt.Fprintf(&b, " %d | — |", f.checkpoints[k])
					}
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
		b.WriteString(stopNote(v[name]))
	}
	b.WriteString(sens)
	if quick {
		b.WriteString("## The paper's claims against ours\n\nLeft out at reduced size.\n")
	} else {
		b.WriteString(verdict(v))
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(b.String()), 0o644)
}

// ends returns the mean of x at the first checkpoint and at the last.
func ends(x [][]float64) (first, last float64) { return mean(x[0]), mean(x[len(x)-1]) }

// verdict states the paper's claims (Shi & Eryilmaz 2022 App. E) and whether ours agree.
func verdict(v map[string]map[string]finals) string {
	var b strings.Builder
	b.WriteString("## The paper's claims against ours\n\n")
	yes := func(ok bool) string {
		if ok {
			return "**agrees**"
		}
		return "**does not agree**"
	}
	for _, c := range []struct{ exp, alg string }{
		{"gardner-noiseless", "penalty-noiseless"}, {"gardner-noisy", "penalty-noisy"},
		{"datarate-noiseless", "penalty-noiseless"}, {"datarate-noisy", "penalty-noisy"},
	} {
		e, ok := v[c.exp]
		if !ok {
			continue
		}
		o, okO := e["oco-bandit"]
		if !okO {
			continue
		}
		// The algorithm as written (history=epoch) and its labelled variants.
		var variants []string
		for l := range e {
			if l == c.alg || strings.HasPrefix(l, c.alg+" ") {
				variants = append(variants, l)
			}
		}
		sort.Strings(variants)
		for _, label := range variants {
			a := e[label]
			k := len(a.checkpoints) / 2
			v0, v1 := ends(a.violation)
			vm, om := mean(a.violation[k]), mean(o.violation[k])
			o0, o1 := ends(o.violation)
			r0, r1 := ends(a.regret)
			what := "R(t)/t"
			if !strings.HasPrefix(c.exp, "gardner") {
				what = "utility"
			}
			fmt.Fprintf(&b, "- %s: %s V(t)/t %.4f (t=%d) → %.4f (t=%d) → %.4f, %s %.4f → %.4f; oco-bandit V(t)/t %.4f → %.4f → %.4f.",
				c.exp, label, v0, a.checkpoints[0], vm, a.checkpoints[k], v1, what, r0, r1, o0, om, o1)
			// "Falls toward 0": still falling over the second half and below OCO at
			// the end; "OCO stalls": its V(t)/t changes by less than 20% over the second half.
			fmt.Fprintf(&b, " Paper: the violation of Alg. 2/3 falls toward 0 while OCO stalls: %s.\n",
				yes(v1 < vm && v1 < o1 && o1 > 0.8*om))
		}
	}
	for _, p := range []struct{ noiseless, noisy string }{{"gardner-noiseless", "gardner-noisy"}, {"datarate-noiseless", "datarate-noisy"}} {
		a, ok1 := v[p.noiseless]["penalty-noiseless"]
		n, ok2 := v[p.noisy]["penalty-noisy"]
		if !ok1 || !ok2 {
			continue
		}
		_, a1 := ends(a.violation)
		_, n1 := ends(n.violation)
		fmt.Fprintf(&b, "- %s vs %s: final V(t)/t Alg. 2 %.4f, Alg. 3 %.4f. Paper: Alg. 3's violation converges more slowly: %s.\n",
			p.noiseless, p.noisy, a1, n1, yes(n1 > a1))
	}
	if t, ok := v["tradeoff"]; ok {
		labels := make([]string, 0, len(t))
		for l := range t {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		b.WriteString("- tradeoff (Fig. 1): final R(t)/t and V(t)/t per (L, S):")
		for _, l := range labels {
			_, r := ends(t[l].regret)
			_, vv := ends(t[l].violation)
			fmt.Fprintf(&b, " %s: %.4f, %.4f;", l, r, vv)
		}
		// Labels sort as S=10 < S=20 < S=40 < S=80: the violation should rise with S.
		mono := true
		for i := 1; i < len(labels); i++ {
			_, a := ends(t[labels[i-1]].violation)
			_, b := ends(t[labels[i]].violation)
			mono = mono && a <= b
		}
		fmt.Fprintf(&b, " Paper: more frequent κ updates (smaller S, larger L) reduce the violation, at some cost in regret: %s.\n", yes(mono))
	}
	return b.String()
}
