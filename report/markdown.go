package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
)

// formatNum formats x with four significant digits, without trailing zeros,
// switching to exponent notation for very large or very small magnitudes.
func formatNum(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'g', -1, 64)
	case x == 0:
		return "0"
	}
	a := math.Abs(x)
	if a >= 1e6 || a < 1e-3 {
		return strconv.FormatFloat(x, 'e', 3, 64)
	}
	decimals := 3 - int(math.Floor(math.Log10(a)))
	if decimals < 0 {
		decimals = 0
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// QuickBanner is the opening of every report of a --quick run: sizes (e.g.
// "T = 1000, 5 trials") are reduced, the numbers are not the paper's.
func QuickBanner(sizes string) string {
	return "> **Quick run (--quick): reduced size (" + sizes + ").** These numbers are not comparable " +
		"with the paper's, and the paper's values are left out. Run without --quick for the paper's size.\n\n"
}

// formatQuartiles formats a median with its quartiles: "median [q1, q3]".
func formatQuartiles(s Stat) string {
	return formatNum(s.Median) + " [" + formatNum(s.Q1) + ", " + formatNum(s.Q3) + "]"
}

// FormatStat formats a mean and its standard error as "mean ± stderr".
func FormatStat(s Stat) string { return formatNum(s.Mean) + " ± " + formatNum(s.Stderr) }

// Agrees reports whether a value reported by a paper lies within ±2 standard
// errors of our mean: |paper − mean| ≤ 2·stderr.
func Agrees(paper float64, ours Stat) bool {
	return math.Abs(paper-ours.Mean) <= 2*math.Abs(ours.Stderr)
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// figureLink is one figure embedded in report.md.
type figureLink struct{ alt, file string }

// writeMarkdown writes report.md content for res, embedding figs.
func writeMarkdown(w io.Writer, res *Results, figs []figureLink) error {
	var b strings.Builder
	s := &res.Summary

	fmt.Fprintf(&b, "# %s\n\n", reportTitle(res))
	if res.Quick {
		b.WriteString(QuickBanner(fmt.Sprintf("T = %d, %d trials", s.Horizon, s.Trials)))
	}

	// Context.
	b.WriteString("## Run\n\n")
	fmt.Fprintf(&b, "- problem: `%s`\n", s.Problem)
	params := sortedKeys(s.Params)
	if len(params) == 0 {
		b.WriteString("- params: (defaults)\n")
	} else {
		b.WriteString("- params:")
		for i, k := range params {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " `%s=%s`", k, s.Params[k])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- horizon: %d rounds\n", s.Horizon)
	fmt.Fprintf(&b, "- trials: %d (trial i is the same problem instance, noise and delays for every algorithm)\n", s.Trials)
	switch s.Defaults {
	case "practical":
		b.WriteString("- defaults: practical (metrics standardised, hyperparameters fitted, constant widths, pending decisions conditioned on; docs/defaults.md) where an algorithm's parameters do not say otherwise; `--defaults paper` gives the papers' settings\n")
	case "paper":
		b.WriteString("- defaults: the papers' settings (problem's units and kernel, β_t schedules, candidate grid, pending decisions ignored) where an algorithm's parameters do not say otherwise\n")
	}
	if s.Batch > 1 {
		fmt.Fprintf(&b, "- parallel evaluations: batches of %d (q decisions, then their feedback); rounds are evaluations, so every figure is per evaluation, and batch k ends at round %d·k\n", s.Batch, s.Batch)
	}
	if s.Async > 1 {
		fmt.Fprintf(&b, "- parallel evaluations: %d asynchronous workers (each decision made with %d pending); rounds are evaluations\n", s.Async, s.Async-1)
	}
	fmt.Fprintf(&b, "- seed: %d\n", s.Seed)
	algs := s.Order()
	if len(s.Specs) > 0 {
		b.WriteString("- algorithms:")
		for i, a := range s.Specs {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " `%s`", a.Label)
			if a.Label != a.ID || len(a.Params) > 0 {
				fmt.Fprintf(&b, " (%s", a.ID)
				for _, k := range sortedKeys(a.Params) {
					fmt.Fprintf(&b, " %s=%s", k, a.Params[k])
				}
				b.WriteString(")")
			}
		}
		b.WriteString("\n")
	}
	for _, a := range s.Specs {
		if m, _ := bandit.Params(a.Params).Given(agent.InducingParam); m != "" && m != "0" {
			fmt.Fprintf(&b, "\n> **Approximation:** `%s` runs a sparse GP with %s inducing points (DTC/VFE predictive, Titsias 2009), not the exact posterior.\n", a.Label, m)
		}
	}
	b.WriteString("\nThis command re-creates the run (same summary.json, timings aside):\n\n```\n")
	if res.Command != "" {
		b.WriteString(res.Command + "\n```\n\n")
	} else {
		b.WriteString("cbandit run --problem " + ShellQuote(s.Problem))
		for _, k := range params {
			b.WriteString(" --param " + ShellQuote(k+"="+s.Params[k]))
		}
		if len(algs) > 0 {
			b.WriteString(" --algos " + ShellQuote(strings.Join(algs, ",")))
		}
		fmt.Fprintf(&b, " --trials %d --horizon %d --seed %d --out DIR\n```\n\n", s.Trials, s.Horizon, s.Seed)
	}

	// Final metrics.
	withCost := false
	for _, a := range s.Algorithms {
		if a.Cost != nil {
			withCost = true
		}
	}
	cols := []string{MetricRegret, MetricViolationSoft, MetricViolationHard, MetricViolationCount}
	if withCost {
		cols = append(cols, MetricCost)
	}
	table := func(cell func(Stat) string, withTime bool) {
		b.WriteString("| algorithm | " + strings.Join(cols, " | "))
		n := len(cols)
		if withTime {
			b.WriteString(" | µs/round")
			n++
		}
		b.WriteString(" |\n|---" + strings.Repeat("|---:", n) + "|\n")
		for _, name := range algs {
			a := s.Algorithms[name]
			b.WriteString("| " + mdCell(name) + " |")
			for _, key := range cols {
				if st, ok := a.Metric(key); ok {
					b.WriteString(" " + cell(st) + " |")
				} else {
					b.WriteString(" — |")
				}
			}
			if withTime {
				b.WriteString(" " + formatNum(a.SecondsPerRound*1e6) + " |")
			}
			b.WriteString("\n")
		}
		if len(algs) == 0 {
			b.WriteString("\n(no algorithms)\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "## Final metrics (round %d, mean ± stderr over %d trials)\n\n", s.Horizon, s.Trials)
	table(FormatStat, true)
	fmt.Fprintf(&b, "Median [first quartile, third quartile] over the %d trials (quantile definition 7 of Hyndman & Fan 1996, as R and numpy):\n\n", s.Trials)
	table(formatQuartiles, false)
	writePairwise(&b, s, algs)
	writeDiagnostics(&b, s, algs)

	// Paper comparison.
	if len(res.Paper) > 0 && res.Quick {
		b.WriteString("## Ours vs paper\n\nLeft out: a --quick run is smaller than the paper's, so its numbers are not comparable.\n\n")
	} else if len(res.Paper) > 0 {
		b.WriteString("## Ours vs paper\n\n")
		src := res.PaperSource
		if src == "" {
			src = "(source not given)"
		}
		b.WriteString("Paper values: " + src + ".\n")
		b.WriteString("A paper value *agrees* when it lies within ±2 stderr of our mean, and *differs* otherwise.\n\n")
		b.WriteString("| algorithm | metric | paper | ours (mean ± stderr) | verdict |\n")
		b.WriteString("|---|---|---:|---:|---|\n")
		for _, name := range sortedKeys(res.Paper) {
			metrics := sortedKeys(res.Paper[name])
			sortMetrics(metrics)
			a, ran := s.Algorithms[name]
			for _, m := range metrics {
				pv := res.Paper[name][m]
				ours, verdict := "—", "not run"
				if ran {
					if st, ok := a.Metric(m); ok {
						ours = FormatStat(st)
						verdict = "differs"
						if Agrees(pv, st) {
							verdict = "agrees"
						}
					} else {
						verdict = "not measured"
					}
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(name), mdCell(m), formatNum(pv), ours, verdict)
			}
		}
		b.WriteString("\n")
	}

	// Figures.
	if len(figs) > 0 {
		b.WriteString("## Figures\n\n")
		_, band, err := bandScale(res.Band, s.Trials)
		if err != nil {
			band = err.Error()
		}
		fmt.Fprintf(&b, "Lines are means over the %d trials; shaded bands are %s.", s.Trials, band)
		if res.PaperBand != "" {
			b.WriteString(" The paper's figure: " + res.PaperBand + ".")
		}
		b.WriteString("\n\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "![%s](%s)\n\n", f.alt, f.file)
		}
	}

	// Notes.
	if res.Notes != "" {
		b.WriteString(res.Notes)
		if !strings.HasSuffix(res.Notes, "\n") {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reportTitle is the title of figures and report.md.
func reportTitle(res *Results) string {
	if res.Title != "" {
		return res.Title
	}
	if res.Summary.Problem != "" {
		return "cbandit run: " + res.Summary.Problem
	}
	return "cbandit run"
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ShellQuote quotes s for a POSIX shell when it needs quoting (single
// quotes; a single quote inside is written as quote, backslash, quote, quote).
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,=/:+@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeDiagnostics writes the agents' own numbers (Algorithm.Diagnostics),
// when some agent reports any.
func writeDiagnostics(b *strings.Builder, s *Summary, algs []string) {
	found := false
	for _, name := range algs {
		if len(s.Algorithms[name].Diagnostics) > 0 {
			found = true
		}
	}
	if !found {
		return
	}
	fmt.Fprintf(b, "## Agent diagnostics (end of each trial, over %d trials)\n\n", s.Trials)
	b.WriteString("Numbers the agents report about their own work (bandit.Diagnostics), not metrics of the problem.\n\n")
	b.WriteString("| algorithm | diagnostic | mean ± stderr | median [q1, q3] | max |\n|---|---|---:|---:|---:|\n")
	for _, name := range algs {
		d := s.Algorithms[name].Diagnostics
		for _, k := range sortedKeys(d) {
			st := d[k]
			mx := math.Inf(-1)
			for _, v := range st.PerTrial {
				mx = math.Max(mx, v)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdCell(name), mdCell(k), FormatStat(st), formatQuartiles(st), formatNum(mx))
		}
	}
	b.WriteString("\n")
}
