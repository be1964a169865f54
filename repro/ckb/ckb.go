// Package ckb registers `cbandit reproduce ckb`: the experiments of Zhou & Ji (CBO) §5 /
// App. F and Zhou & Ji 2022 §5 (experiment files in experiments/ckb/), plus SCGP-UCB
// (Zhou & Ji (CBO) §4, App. A). Besides each experiment's own outputs it writes
// violations.md: the violation counts N of every experiment beside the
// papers' numbers (Zhou & Ji (CBO) App. F.1, Zhou & Ji 2022 §5.2).
package ckb

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
	"github.com/cbandit/cbandit/report"
)

func init() {
	experiment.Register(experiment.Paper{
		Name:    "ckb",
		Summary: "constrained kernelized bandits: synthetic, light-sensor and stock experiments; SCGP-UCB",
		Source:  "Zhou & Ji (CBO) §4–5, App. A, App. F; Zhou & Ji 2022 §5",
		Run:     run,
	})
}

type row struct {
	file string
	res  report.Results
}

func run(ctx context.Context, o experiment.Options) error {
	runs, err := experiment.RunFiles(ctx, o, experiment.EmbeddedNames("ckb"))
	if err != nil {
		return err
	}
	var rows []row
	for _, r := range runs {
		rows = append(rows, row{r.Base, r.Out.Results})
		if r.Base == "beta-sensitivity" {
			if err := writeSensitivity(filepath.Join(o.Out, r.Base), r.Out.Results.Summary, o.Quick); err != nil {
				return fmt.Errorf("%s: %w", r.Base, err)
			}
		}
	}
	return writeViolations(filepath.Join(o.Out, "violations.md"), rows, o.Quick)
}

// writeSensitivity writes beta-sensitivity.md and two figures: final regret
// and violation count N of each CKB variant against the β scale.
func writeSensitivity(dir string, s report.Summary, quick bool) error {
	regret := map[string][]report.SweepPoint{}
	count := map[string][]report.SweepPoint{}
	type cell struct{ regret, n report.Stat }
	table := map[string]map[float64]cell{}
	var scales []float64
	seen := map[float64]bool{}
	for _, sp := range s.Specs {
		v, ok := bandit.Params(sp.Params).Given(agent.CKBBetaScale)
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("algorithm %s: beta-scale = %q: %v", sp.Label, v, err)
		}
		a := s.Algorithms[sp.Label]
		regret[sp.ID] = append(regret[sp.ID], report.SweepPoint{X: x, Stat: a.Regret})
		count[sp.ID] = append(count[sp.ID], report.SweepPoint{X: x, Stat: a.ViolationCount})
		if table[sp.ID] == nil {
			table[sp.ID] = map[float64]cell{}
		}
		table[sp.ID][x] = cell{a.Regret, a.ViolationCount}
		if !seen[x] {
			seen[x] = true
			scales = append(scales, x)
		}
	}
	if len(table) == 0 {
		return fmt.Errorf("no algorithm with a beta-scale parameter")
	}
	sort.Float64s(scales)
	ids := make([]string, 0, len(table))
	for id := range table {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("# β sensitivity: CKB variants on rkhs-synthetic, h = B/2\n\n")
	if quick {
		b.WriteString(report.QuickBanner(fmt.Sprintf("T = %d, %d trials", s.Horizon, s.Trials)))
	}
	fmt.Fprintf(&b, "Final regret and N (rounds with g(x_t) > 0) at T = %d, mean ± stderr over %d trials (the same instances and noise for every entry), against the multiplier on β_t of Zhou & Ji (CBO) Thm. 1. The paper (App. F.1): N = 3.25 / 2.9 / 5 for UCB / TS / Rand, and TS and Rand with lower regret than UCB.\n\n", s.Horizon, s.Trials)
	b.WriteString("| β scale |")
	for _, id := range ids {
		fmt.Fprintf(&b, " %s regret | %s N |", id, id)
	}
	b.WriteString("\n|---:|" + strings.Repeat("---:|---:|", len(ids)) + "\n")
	for _, x := range scales {
		fmt.Fprintf(&b, "| %g |", x)
		for _, id := range ids {
			c, ok := table[id][x]
			if !ok {
				b.WriteString(" — | — |")
				continue
			}
			fmt.Fprintf(&b, " %s | %s |", report.FormatStat(c.regret), report.FormatStat(c.n))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n![regret against β scale](beta_regret.svg)\n\n![N against β scale](beta_violation_count.svg)\n")
	for _, f := range []struct {
		base, ylabel string
		series       map[string][]report.SweepPoint
	}{{"beta_regret", "Cumulative regret at T", regret}, {"beta_violation_count", "Rounds with violation N", count}} {
		p, err := report.SweepFigure(f.series, "CKB on rkhs-synthetic h = B/2: β sensitivity (±1 stderr)", "multiplier on β_t (Zhou & Ji (CBO) Thm. 1)", f.ylabel, true)
		if err != nil {
			return err
		}
		if err := report.SavePlot(p, dir, f.base); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(dir, "beta-sensitivity.md"), b.String())
}

// writeViolations tabulates N (violation_count) and the hard violation
// Σ[g(x_t)]⁺ at the horizon for every experiment and algorithm, with the
// paper's N and the same verdict as report.md (agrees: within ±2 stderr).
// An algorithm the paper reports but the experiment did not run is listed
// as "not run".
func writeViolations(file string, rows []row, quick bool) error {
	var b strings.Builder
	b.WriteString("# Violation counts N (rounds with g(x_t) > 0) at the horizon\n\n")
	if quick {
		b.WriteString(report.QuickBanner("see each experiment's report.md"))
		b.WriteString("| experiment | T | algorithm | N ours (mean ± stderr) | Σ[g(x_t)]⁺ ours | regret ours |\n|---|---:|---|---:|---:|---:|\n")
		for _, r := range rows {
			s := r.res.Summary
			for _, n := range s.Order() {
				a := s.Algorithms[n]
				fmt.Fprintf(&b, "| %s | %d | %s | %.3g ± %.2g | %.3g ± %.2g | %.4g ± %.2g |\n", r.file, s.Horizon, n,
					a.ViolationCount.Mean, a.ViolationCount.Stderr, a.ViolationHard.Mean, a.ViolationHard.Stderr, a.Regret.Mean, a.Regret.Stderr)
			}
		}
		return writeFile(file, b.String())
	}
	b.WriteString("A paper value *agrees* when it lies within ±2 stderr of our mean (as in each report.md).\n\n")
	b.WriteString("| experiment | T | algorithm | N ours (mean ± stderr) | N paper | verdict | Σ[g(x_t)]⁺ ours | regret ours |\n|---|---:|---|---:|---:|---|---:|---:|\n")
	var sources []string
	for _, r := range rows {
		s := r.res.Summary
		if r.res.PaperSource != "" {
			sources = append(sources, fmt.Sprintf("- %s: %s", r.file, r.res.PaperSource))
		}
		seen := map[string]bool{}
		names := make([]string, 0, len(s.Algorithms))
		for n := range s.Algorithms {
			names = append(names, n)
		}
		for n, m := range r.res.Paper {
			_, ran := s.Algorithms[n]
			if _, ok := m["violation_count"]; ok && !ran {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			pv, hasPaper := r.res.Paper[n]["violation_count"]
			paper, verdict := "–", "–"
			if hasPaper {
				paper = fmt.Sprintf("%g", pv)
			}
			a, ran := s.Algorithms[n]
			if !ran {
				fmt.Fprintf(&b, "| %s | %d | %s | — | %s | not run | — | — |\n", r.file, s.Horizon, n, paper)
				continue
			}
			if hasPaper {
				verdict = "differs"
				if report.Agrees(pv, a.ViolationCount) {
					verdict = "agrees"
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %.3g ± %.2g | %s | %s | %.3g ± %.2g | %.4g ± %.2g |\n", r.file, s.Horizon, n,
				a.ViolationCount.Mean, a.ViolationCount.Stderr, paper, verdict,
				a.ViolationHard.Mean, a.ViolationHard.Stderr, a.Regret.Mean, a.Regret.Stderr)
		}
	}
	b.WriteString("\nPaper numbers:\n")
	for _, l := range sources {
		b.WriteString(l + "\n")
	}
	b.WriteString("\nEach experiment's report.md states its settings and explains the differences.\n")
	writeOrdering(&b, rows)
	return writeFile(file, b.String())
}

// writeOrdering adds the regret claim of Zhou & Ji (CBO) App. F.1 ("CBO-TS and CBO-Rand
// have a significant gain compared to" the UCB-based algorithms) as paired
// differences against ckb-ucb, trial by trial.
func writeOrdering(b *strings.Builder, rows []row) {
	b.WriteString("\n## Regret: CKB-TS and CKB-Rand against CKB-UCB (paired by trial)\n\n")
	b.WriteString("Zhou & Ji (CBO) App. F.1: on the synthetic function CBO-TS and CBO-Rand have a significant gain in regret over the UCB-based algorithms; on the light sensors CBO-Rand is best and CBO-TS worse than CBO-UCB. Mean difference of the final regret, 95 % paired-t interval; *lower* / *higher* when the interval excludes 0.\n\n")
	b.WriteString("| experiment | comparison | mean difference | 95 % interval | wins / ties / losses | ours |\n|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		s := r.res.Summary
		base, ok := s.Algorithms["ckb-ucb"]
		if !ok {
			continue
		}
		for _, other := range []string{"ckb-ts", "ckb-rand"} {
			a, ok := s.Algorithms[other]
			if !ok {
				continue
			}
			p, ok := report.PairedDiff(a.Regret.PerTrial, base.Regret.PerTrial)
			if !ok || math.IsNaN(p.Lo) {
				continue
			}
			verdict := "no difference shown"
			switch {
			case p.Hi < 0:
				verdict = "lower"
			case p.Lo > 0:
				verdict = "higher"
			}
			fmt.Fprintf(b, "| %s | %s − ckb-ucb | %.4g | [%.4g, %.4g] | %d / %d / %d | %s |\n", r.file, other, p.Mean, p.Lo, p.Hi, p.AWins, p.Ties, p.BWins, verdict)
		}
	}
}

func writeFile(file, content string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(content), 0o644)
}
