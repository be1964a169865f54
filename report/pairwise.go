package report

import (
	"fmt"
	"math"
	"strings"
)

// pairwiseMetrics are the headline metrics of the pairwise table: lower is
// better for each.
// maxPairwise is the largest number of algorithms compared all against all.
const maxPairwise = 8

var pairwiseMetrics = []string{MetricRegret, MetricViolationSoft, MetricViolationHard, MetricViolationCount}

// writePairwise writes, for every pair of algorithms and every headline
// metric, the mean paired difference over trials with its 95 % paired-t
// interval and the count of trials each wins. Trials are paired: trial i is
// the same instance and noise for both algorithms.
func writePairwise(b *strings.Builder, s *Summary, algs []string) {
	if len(algs) < 2 {
		return
	}
	b.WriteString("## Pairwise comparisons (paired by trial)\n\n")
	// Beyond maxPairwise algorithms the table would run to hundreds of rows:
	// compare only entries of the same algorithm ID (parameter variants).
	sameIDOnly := len(algs) > maxPairwise
	if sameIDOnly {
		fmt.Fprintf(b, "With %d algorithms, only entries of the same algorithm (parameter variants) are compared here; "+
			"per_trial in summary.json pairs any two.\n\n", len(algs))
	}
	ids := map[string]string{}
	for _, sp := range s.Specs {
		ids[sp.Label] = sp.ID
	}
	fmt.Fprintf(b, "Difference A − B of the final value over the %d trials, paired by trial (same instance and noise for both); "+
		"95 %% interval by the paired t distribution, mean(d) ± t₀.₉₇₅,ₙ₋₁ · sd(d)/√n. "+
		"Lower is better for every metric here; *A lower* / *B lower* when the interval excludes 0, *no difference shown* otherwise. "+
		"Wins count the trials where each is lower (ties apart).\n\n", s.Trials)
	var allZero []string // metrics whose paired differences are all exactly 0
	for _, m := range pairwiseMetrics {
		var rows []string
		nonzero := false
		for i := 0; i < len(algs); i++ {
			for j := i + 1; j < len(algs); j++ {
				if sameIDOnly && ids[algs[i]] != ids[algs[j]] {
					continue
				}
				sa, okA := s.Algorithms[algs[i]].Metric(m)
				sb, okB := s.Algorithms[algs[j]].Metric(m)
				if !okA || !okB {
					continue
				}
				p, ok := PairedDiff(sa.PerTrial, sb.PerTrial)
				if !ok {
					continue
				}
				interval, verdict := "—", "no difference shown"
				if !math.IsNaN(p.Lo) {
					interval = "[" + formatNum(p.Lo) + ", " + formatNum(p.Hi) + "]"
					switch {
					case p.Hi < 0:
						verdict = "A lower"
					case p.Lo > 0:
						verdict = "B lower"
					}
				} else {
					verdict = "one trial: no interval"
				}
				if p.Lo == 0 && p.Hi == 0 && p.Mean == 0 {
					verdict = "identical"
				}
				nonzero = nonzero || p.AWins+p.BWins > 0
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %d / %d / %d | %s |\n", mdCell(algs[i]), mdCell(algs[j]),
					formatNum(p.Mean), interval, p.AWins, p.Ties, p.BWins, verdict))
			}
		}
		if len(rows) == 0 {
			continue
		}
		if !nonzero {
			allZero = append(allZero, m)
			continue
		}
		fmt.Fprintf(b, "### %s\n\n| A | B | mean A − B | 95 %% interval | A wins / ties / B wins | verdict |\n|---|---|---:|---:|---:|---|\n", m)
		for _, r := range rows {
			b.WriteString(r)
		}
		b.WriteString("\n")
	}
	if len(allZero) > 0 {
		fmt.Fprintf(b, "Not tabulated: %s, whose paired differences are all exactly 0 (every pair, every trial).\n\n", strings.Join(allZero, ", "))
	}
}
