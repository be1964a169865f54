// Aggregating the runs into cells, and the suite's outputs (suite.md, summary.json).

package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/service/api"
)

// Aggregate builds the summary from the results of o.Jobs(), in that order.
func Aggregate(o Options, results []RunResult) *Summary {
	s := &Summary{Set: o.Set, Horizon: o.Horizon, Seeds: o.Seeds, FirstSeed: firstSeed(o.FirstSeed), Problems: o.Problems, Algorithms: o.Algorithms, Units: o.Units, Batch: o.Batch, Async: o.Async, NoiseFree: o.NoiseFree,
		Noise: Job{NoiseFree: o.NoiseFree, Noise: o.Noise}.noiseLevel(), NoiseScale: o.NoiseScale, Evaluations: o.Evaluations}
	if s.Evaluations == "" {
		s.Evaluations = Live
	}
	s.EvaluationsSent = setEvaluations(&api.StudySpec{}, s.Evaluations)
	per := len(o.Units) * o.Seeds
	for i := 0; i+per <= len(results); i += per {
		runs := results[i : i+per]
		c := Cell{Problem: runs[0].Problem, Algorithm: runs[0].Algorithm, ViolationKind: "per-round", Mean: map[string]Score{}, Runs: slices.Clone(runs)}
		var resolved []string
		for _, r := range runs {
			c.Duplicates += r.Duplicates
			if r.Resolved != "" && !slices.Contains(resolved, r.Resolved) {
				resolved = append(resolved, r.Resolved)
			}
		}
		c.Resolved = strings.Join(resolved, ", ")
		if LongTerm(c.Algorithm) {
			c.ViolationKind = "long-term"
		}
		for _, u := range o.Units {
			var sc Score
			for _, r := range runs {
				if r.Units == u {
					sc.Regret += r.Regret / float64(o.Seeds)
					sc.Violation += r.Violation / float64(o.Seeds)
				}
			}
			c.Mean[u] = sc
		}
		for _, r := range runs {
			c.SecondsPerRound += r.SecondsPerRound / float64(len(runs))
		}
		if runs[0].Systems != nil {
			c.Systems = map[string]SystemsMean{}
			for _, u := range o.Units {
				var us []SystemsScore
				for _, r := range runs {
					if r.Units == u && r.Systems != nil {
						us = append(us, *r.Systems)
					}
				}
				c.Systems[u] = MeanSystems(us)
			}
		}
		n, okN := c.Mean[Natural]
		sc, okS := c.Mean[Scaled]
		if okN && okS {
			c.DiffRegret, c.DiffViolation = sc.Regret-n.Regret, sc.Violation-n.Violation
		}
		s.Cells = append(s.Cells, c)
	}
	return s
}

// Markdown is the results table (one row per problem and algorithm) and a
// per-algorithm summary: worst regret, worst violation and the largest unit
// change over the problems.
func (s *Summary) Markdown() string {
	var sb strings.Builder
	over := fmt.Sprintf("%d seed(s)", s.Seeds)
	if s.FirstSeed > 1 {
		over = fmt.Sprintf("seeds %d–%d", s.FirstSeed, s.FirstSeed+s.Seeds-1)
	}
	fmt.Fprintf(&sb, "Late normalised regret and violation over rounds t > T/2 (T = %d, mean over %s; violation long-term for the algorithms that honour long-term constraints, per round otherwise); Δ = scaled − natural.\n\n", s.Horizon, over)
	if s.NoiseFree {
		sb.WriteString("Metrics told without noise (--noise-free).\n\n")
	} else if s.NoiseScale == NoiseLimit {
		fmt.Fprintf(&sb, "Noise std %g of each metric's size: |f*| for the objective, the limit for a constraint (--noise, --noise-scale limit).\n\n", s.Noise)
	} else if s.Noise != 0 && s.Noise != NoiseFraction {
		fmt.Fprintf(&sb, "Noise std %g of each metric's range (--noise).\n\n", s.Noise)
	}
	if s.Evaluations == Offline {
		sent := "recorded here only: the API has no such field yet"
		if s.EvaluationsSent {
			sent = "passed in every study's definition"
		}
		fmt.Fprintf(&sb, "Evaluations: offline (%s); offline scores below.\n\n", sent)
	}
	if s.Batch > 1 {
		fmt.Fprintf(&sb, "Batches of %d suggestions (count: %d), then their observations; dups = suggestions within %g of the box diameter of a pending one.\n\n", s.Batch, s.Batch, DuplicateFraction)
	}
	if s.Async > 1 {
		fmt.Fprintf(&sb, "%d asynchronous workers (%d pending at every ask); dups = suggestions within %g of the box diameter of a pending one.\n\n", s.Async, s.Async-1, DuplicateFraction)
	}
	sb.WriteString("| problem | algorithm |")
	for _, u := range s.Units {
		fmt.Fprintf(&sb, " regret (%s) | violation (%s) |", u, u)
	}
	both := len(s.Units) == 2
	if both {
		sb.WriteString(" Δ regret | Δ violation |")
	}
	sb.WriteString(" ms/round | dups |\n|---|---|")
	for range s.Units {
		sb.WriteString("---|---|")
	}
	if both {
		sb.WriteString("---|---|")
	}
	sb.WriteString("---|---|\n")
	for _, c := range s.Cells {
		fmt.Fprintf(&sb, "| %s | %s |", c.Problem, c.Label())
		for _, u := range s.Units {
			fmt.Fprintf(&sb, " %.4f | %.4f |", c.Mean[u].Regret, c.Mean[u].Violation)
		}
		if both {
			fmt.Fprintf(&sb, " %+.4f | %+.4f |", c.DiffRegret, c.DiffViolation)
		}
		fmt.Fprintf(&sb, " %.1f | %d |\n", 1000*c.SecondsPerRound, c.Duplicates)
	}
	sb.WriteString("\n| algorithm | worst regret | worst violation |")
	if both {
		sb.WriteString(" largest abs Δ regret | largest abs Δ violation |")
	}
	sb.WriteString("\n|---|---|---|")
	if both {
		sb.WriteString("---|---|")
	}
	sb.WriteString("\n")
	for _, a := range s.Algorithms {
		var wr, wv, dr, dv float64
		wr = math.Inf(-1)
		var resolved []string
		for _, c := range s.Cells {
			if c.Algorithm != a {
				continue
			}
			if c.Resolved != "" && !slices.Contains(resolved, c.Resolved) {
				resolved = append(resolved, c.Resolved)
			}
			for _, u := range s.Units {
				wr = math.Max(wr, c.Mean[u].Regret)
				wv = math.Max(wv, c.Mean[u].Violation)
			}
			dr = math.Max(dr, math.Abs(c.DiffRegret))
			dv = math.Max(dv, math.Abs(c.DiffViolation))
		}
		fmt.Fprintf(&sb, "| %s | %.4f | %.4f |", Cell{Algorithm: a, Resolved: strings.Join(resolved, ", ")}.Label(), wr, wv)
		if both {
			fmt.Fprintf(&sb, " %.4f | %.4f |", dr, dv)
		}
		sb.WriteString("\n")
	}
	sb.WriteString(s.systemsMarkdown())
	sb.WriteString(s.pairedMarkdown())
	return sb.String()
}

// WriteFiles writes dir/suite.md (the table) and dir/summary.json.
func (s *Summary) WriteFiles(dir string) error {
	if dir == "" {
		return errors.New("suite: output directory: empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("suite: output directory: %w", err)
	}
	title := "# Practical-defaults suite\n\n"
	if s.Set == SetSystems {
		title = "# Systems suite\n\n"
	}
	md := title + s.Markdown()
	if err := os.WriteFile(filepath.Join(dir, "suite.md"), []byte(md), 0o644); err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	raw, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return fmt.Errorf("suite: encoding summary.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	return nil
}

// Label is the cell's algorithm as the tables show it: its entry, and for a
// Default one the algorithm the service chose, "default (lognei)".
func (c Cell) Label() string {
	if c.Resolved == "" {
		return c.Algorithm
	}
	return fmt.Sprintf("%s (%s)", c.Algorithm, c.Resolved)
}

// firstSeed is the summary's first_seed: omitted (0) for seed 1.
func firstSeed(s int) int {
	if s == 1 {
		return 0
	}
	return s
}
