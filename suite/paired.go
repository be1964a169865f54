// Every entry against the first, paired by seed: the suite's comparisons as
// intervals (the same seed is the same instance and noise for every entry).

package suite

import (
	"fmt"
	"math"
	"strings"

	"github.com/cbandit/cbandit/report"
)

// PairedScore is one score's difference, an entry's run less the first
// entry's run of the same problem, units and seed, over the seeds where
// both have it.
type PairedScore struct {
	Score string `json:"score"`
	// Diff is the mean difference with its 95 % paired-t interval and the
	// seeds where the entry is lower, equal, higher (report.PairedDiff).
	Diff report.Paired `json:"diff"`
}

// pairedScores are the scores compared: name, and the value of a run (ok
// false where the run has none, e.g. no feasible evaluation).
var pairedScores = []struct {
	name string
	of   func(r RunResult) (float64, bool)
}{
	{"late regret", func(r RunResult) (float64, bool) { return r.Regret, true }},
	{"late violation", func(r RunResult) (float64, bool) { return r.Violation, true }},
	{"break late", func(r RunResult) (float64, bool) {
		if r.Systems == nil {
			return 0, false
		}
		return r.Systems.BreakLate, true
	}},
	{"best gap", func(r RunResult) (float64, bool) {
		if r.Systems == nil || r.Systems.Gap == nil {
			return 0, false
		}
		return *r.Systems.Gap, true
	}},
	{"rec gap", func(r RunResult) (float64, bool) {
		if r.Systems == nil || r.Systems.Recommendation == nil || !r.Systems.Recommendation.Present || r.Systems.Recommendation.Gap == nil {
			return 0, false
		}
		return *r.Systems.Recommendation.Gap, true
	}},
}

// Paired compares cell c with cell base (the same problem) in units u:
// each score on the seeds where both runs have it. Late violations of
// different kinds (a long-term one, ckb-*, beside a per-round one) measure
// different things and are not paired.
func Paired(base, c Cell, u string) []PairedScore {
	bySeed := map[int]RunResult{}
	for _, r := range base.Runs {
		if r.Units == u {
			bySeed[r.Seed] = r
		}
	}
	var out []PairedScore
	for _, sc := range pairedScores {
		if sc.name == "late violation" && base.ViolationKind != c.ViolationKind {
			continue
		}
		var a, b []float64
		for _, r := range c.Runs {
			q, ok := bySeed[r.Seed]
			if r.Units != u || !ok {
				continue
			}
			x, okx := sc.of(r)
			y, oky := sc.of(q)
			if okx && oky {
				a, b = append(a, x), append(b, y)
			}
		}
		if p, ok := report.PairedDiff(a, b); ok {
			out = append(out, PairedScore{Score: sc.name, Diff: p})
		}
	}
	return out
}

// pairedMarkdown is every later entry against the first, per problem and
// units (two or more entries only).
func (s *Summary) pairedMarkdown() string {
	if len(s.Algorithms) < 2 {
		return ""
	}
	first := map[string]Cell{}
	for _, c := range s.Cells {
		if c.Algorithm == s.Algorithms[0] {
			first[c.Problem] = c
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nAgainst %s, paired by seed (the same seed is the same instance and noise): each entry less the first, mean difference [95 %% paired-t interval] (seeds lower / equal / higher), over the seeds where both have the score (late violation only between entries of one violation kind); break late = share of evaluations t > T/2 that ran and broke a limit; best gap and rec gap as above.\n\n", s.Algorithms[0])
	sb.WriteString("| problem | algorithm | units | score | difference | lower / equal / higher |\n|---|---|---|---|---|---|\n")
	for _, c := range s.Cells {
		base, ok := first[c.Problem]
		if !ok || c.Algorithm == s.Algorithms[0] {
			continue
		}
		for _, u := range s.Units {
			for _, p := range Paired(base, c, u) {
				d := p.Diff
				iv := fmt.Sprintf("%+.4g", d.Mean)
				if !math.IsNaN(d.Lo) {
					iv += fmt.Sprintf(" [%+.4g, %+.4g]", d.Lo, d.Hi)
				}
				fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %d / %d / %d |\n", c.Problem, c.Label(), u, p.Score, iv, d.AWins, d.Ties, d.BWins)
			}
		}
	}
	return sb.String()
}
