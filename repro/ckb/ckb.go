// Package ckb registers `cbandit reproduce ckb`: the experiments of 001 §5 /
// App. F and 003 §5 (experiment files in experiments/ckb/), plus SCGP-UCB
// (001 §4, App. A). Besides each experiment's own outputs it writes
// violations.md: the violation counts N of every experiment beside the
// papers' numbers (001 App. F.1, 003 §5.2).
package ckb

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/report"
)

func init() {
	experiment.Register(experiment.Paper{
		Name:    "ckb",
		Summary: "constrained kernelized bandits: synthetic, light-sensor and stock experiments; SCGP-UCB",
		Source:  "001 §4–5, App. A, App. F; 003 §5",
		Run:     run,
	})
}

type row struct {
	file string
	res  report.Results
}

func run(ctx context.Context, o experiment.Options) error {
	var rows []row
	for _, f := range experiment.EmbeddedNames("ckb") {
		c, err := experiment.Embedded(f)
		if err != nil {
			return err
		}
		sub := o
		base := strings.TrimSuffix(path.Base(f), ".yaml")
		sub.Out = filepath.Join(o.Out, base)
		out, err := experiment.Execute(ctx, c, sub)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		rows = append(rows, row{base, out.Results})
	}
	return writeViolations(filepath.Join(o.Out, "violations.md"), rows, o.Quick)
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
	return writeFile(file, b.String())
}

func writeFile(file, content string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(content), 0o644)
}
