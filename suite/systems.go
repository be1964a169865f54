package suite

import (
	"fmt"
	"math"
	"strings"

	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service/api"
)

// SystemsScore scores one run of a systems suite problem as the BO
// literature scores a run (e.g. Eriksson & Poloczek 2021 §5, Gelbart et al.
// 2014 §5): the best feasible value found within T, on the true noise-free
// functions in natural units, and how often an evaluation was wasted.
type SystemsScore struct {
	// Opt is the optimum f* (problem.SuiteFacts.Opt, natural units).
	Opt float64 `json:"opt"`
	// Best is the best objective value among the evaluations that ran and
	// met every limit (the smallest for a minimised objective); nil when
	// there was none.
	Best *float64 `json:"best"`
	// Gap is the signed gap (Best − f*)/|f*| (f* − Best for a maximised
	// objective; not divided when |f*| < 1e-9): ≥ 0 unless Best beats f*; nil
	// with Best. This is the offline score of a study: the best truly
	// feasible configuration evaluated.
	Gap *float64 `json:"gap"`
	// Failed is the share of the T evaluations that failed (crashed);
	// FailedLate the share over the rounds t > T/2.
	Failed     float64 `json:"failed"`
	FailedLate float64 `json:"failed_late"`
	// Bad is the share that failed or broke a limit (a constraint metric
	// above its threshold on the true functions); BadLate over t > T/2.
	Bad     float64 `json:"bad"`
	BadLate float64 `json:"bad_late"`
	// BreakLate is the share of the rounds t > T/2 whose evaluation ran and
	// broke a limit (BadLate less FailedLate).
	BreakLate float64 `json:"break_late"`
	// Recommendation scores the service's recommendation at the end of the
	// study (RecommendationScore; Present false when the summary has none).
	Recommendation *RecommendationScore `json:"recommendation,omitempty"`
}

// SystemsMean is the mean of the SystemsScore of a cell's runs in one unit
// system.
type SystemsMean struct {
	Opt float64 `json:"opt"`
	// Runs is the number of runs; Found how many found a feasible point.
	Runs  int `json:"runs"`
	Found int `json:"found"`
	// Best and Gap are means over the runs that found one (nil: none did).
	Best *float64 `json:"best"`
	Gap  *float64 `json:"gap"`
	// GapWorst is the largest Gap of those runs.
	GapWorst *float64 `json:"gap_worst"`
	// The shares are means over all runs; …Worst the largest of a run.
	Failed          float64 `json:"failed"`
	FailedLate      float64 `json:"failed_late"`
	FailedLateWorst float64 `json:"failed_late_worst"`
	Bad             float64 `json:"bad"`
	BadLate         float64 `json:"bad_late"`
	BadLateWorst    float64 `json:"bad_late_worst"`
	BreakLate       float64 `json:"break_late"`
	BreakLateWorst  float64 `json:"break_late_worst"`
	// RecPresent counts the runs whose summary had a recommendation,
	// RecFeasible those whose recommendation truly runs and holds every
	// limit; RecGap and RecGapWorst are the mean and largest Gap of the
	// recommendations that run (nil: none).
	RecPresent  int      `json:"rec_present"`
	RecFeasible int      `json:"rec_feasible"`
	RecGap      *float64 `json:"rec_gap"`
	RecGapWorst *float64 `json:"rec_gap_worst"`
}

// ScoreSystems scores the evaluations xs (round t = index + 1, T = len(xs))
// of problem p (SystemsScore).
func ScoreSystems(p *problem.SuiteProblem, fa problem.SuiteFacts, xs [][]float64) SystemsScore {
	T := len(xs)
	sc := SystemsScore{Opt: fa.Opt}
	cons := make([]float64, len(p.Constraints))
	var failed, bad, failedLate, badLate, late int
	best := math.NaN()
	for i, x := range xs {
		isLate := i+1 > T/2
		if isLate {
			late++
		}
		if p.CrashAt(x) != "" {
			failed++
			bad++
			if isLate {
				failedLate++
				badLate++
			}
			continue
		}
		f := p.Eval(x, cons)
		ok := true
		for j, c := range p.Constraints {
			ok = ok && cons[j] <= c.Threshold
		}
		if !ok {
			bad++
			if isLate {
				badLate++
			}
			continue
		}
		if math.IsNaN(best) || p.Sign()*f > p.Sign()*best {
			best = f
		}
	}
	if T > 0 {
		sc.Failed, sc.Bad = float64(failed)/float64(T), float64(bad)/float64(T)
	}
	if late > 0 {
		sc.FailedLate, sc.BadLate = float64(failedLate)/float64(late), float64(badLate)/float64(late)
		sc.BreakLate = float64(badLate-failedLate) / float64(late)
	}
	if !math.IsNaN(best) {
		gap := signedGap(p, fa.Opt, best)
		sc.Best, sc.Gap = &best, &gap
	}
	return sc
}

// MeanSystems averages scores of one problem (SystemsMean).
func MeanSystems(scores []SystemsScore) SystemsMean {
	m := SystemsMean{Runs: len(scores)}
	if len(scores) == 0 {
		return m
	}
	var best, gap, recGap float64
	gapWorst, recWorst := math.Inf(-1), math.Inf(-1)
	recRan := 0
	n := float64(len(scores))
	for _, s := range scores {
		m.Opt = s.Opt
		m.Failed += s.Failed / n
		m.FailedLate += s.FailedLate / n
		m.FailedLateWorst = math.Max(m.FailedLateWorst, s.FailedLate)
		m.Bad += s.Bad / n
		m.BadLate += s.BadLate / n
		m.BadLateWorst = math.Max(m.BadLateWorst, s.BadLate)
		m.BreakLate += s.BreakLate / n
		m.BreakLateWorst = math.Max(m.BreakLateWorst, s.BreakLate)
		if s.Best != nil {
			m.Found++
			best += *s.Best
			gap += *s.Gap
			gapWorst = math.Max(gapWorst, *s.Gap)
		}
		if r := s.Recommendation; r != nil && r.Present {
			m.RecPresent++
			if r.Feasible {
				m.RecFeasible++
			}
			if r.Gap != nil {
				recRan++
				recGap += *r.Gap
				recWorst = math.Max(recWorst, *r.Gap)
			}
		}
	}
	if m.Found > 0 {
		best /= float64(m.Found)
		gap /= float64(m.Found)
		m.Best, m.Gap, m.GapWorst = &best, &gap, &gapWorst
	}
	if recRan > 0 {
		recGap /= float64(recRan)
		m.RecGap, m.RecGapWorst = &recGap, &recWorst
	}
	return m
}

// apiParameters states typed suite parameters as the service's.
func apiParameters(ps []problem.SuiteParam) []api.Parameter {
	out := make([]api.Parameter, len(ps))
	for i, q := range ps {
		out[i] = api.Parameter{Name: q.Name, Type: q.Type, Log: q.Log}
		if q.Type == problem.SuiteCategorical {
			for _, c := range q.Choices {
				out[i].Choices = append(out[i].Choices, c)
			}
			continue
		}
		lo, hi := q.Lo, q.Hi
		out[i].Low, out[i].High = &lo, &hi
		if q.Step > 0 {
			step := q.Step
			out[i].Step = &step
		}
	}
	return out
}

// paramsPoint is the point x of a suggestion's parameter values (an int or
// float its value, a categorical its choice's index).
func paramsPoint(ps []problem.SuiteParam, vals map[string]any) ([]float64, error) {
	x := make([]float64, len(ps))
	for k, q := range ps {
		v, ok := vals[q.Name]
		if !ok {
			return nil, fmt.Errorf("suggestion: parameter %s missing from params %v", q.Name, vals)
		}
		if q.Type == problem.SuiteCategorical {
			idx := -1
			for c, name := range q.Choices {
				if v == name {
					idx = c
				}
			}
			if idx < 0 {
				return nil, fmt.Errorf("suggestion: parameter %s = %v: not one of %v", q.Name, v, q.Choices)
			}
			x[k] = float64(idx)
			continue
		}
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || f < q.Lo || f > q.Hi || (q.Type == problem.SuiteInt && f != math.Trunc(f)) {
			return nil, fmt.Errorf("suggestion: parameter %s = %v: want a %s in [%v, %v]", q.Name, v, q.Type, q.Lo, q.Hi)
		}
		x[k] = f
	}
	return x, nil
}

// systemsMarkdown is the systems scores' table (cells with them only).
func (s *Summary) systemsMarkdown() string {
	var sb strings.Builder
	for _, c := range s.Cells {
		if c.Systems == nil {
			continue
		}
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "\nSystems scores (T = %d, on the true functions in natural units): best = best feasible objective found within T (evaluations that ran and met every limit), mean over the seeds that found one (found = how many); gap = (best − f*)/|f*| for a minimised objective, (f* − best)/|f*| for a maximised one (not divided when |f*| < 1e-9), mean / worst over the same seeds; failed = share of evaluations that crashed, bad = share that crashed or broke a limit, overall / over t > T/2, mean over seeds (late: mean / worst seed).\n\n", s.Horizon)
			sb.WriteString("| problem | algorithm | units | f* | best | gap (mean / worst) | found | failed | failed late | bad | bad late (mean / worst) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		for _, u := range s.Units {
			m := c.Systems[u]
			best, gap := "–", "–"
			if m.Best != nil {
				best, gap = fmt.Sprintf("%.6g", *m.Best), fmt.Sprintf("%.4g / %.4g", *m.Gap, *m.GapWorst)
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %.6g | %s | %s | %d/%d | %.3f | %.3f | %.3f | %.3f / %.3f |\n",
				c.Problem, c.Label(), u, m.Opt, best, gap, m.Found, m.Runs, m.Failed, m.FailedLate, m.Bad, m.BadLate, m.BadLateWorst)
		}
	}
	if sb.Len() == 0 {
		return ""
	}
	if s.Evaluations == Offline {
		sb.WriteString(s.offlineMarkdown())
	}
	sb.WriteString(s.perSeedMarkdown())
	return sb.String()
}

// offlineMarkdown is the offline scores' table: what counts is the
// configuration deployed at the end.
func (s *Summary) offlineMarkdown() string {
	var sb strings.Builder
	sb.WriteString("\nOffline scores (only the final configuration counts; true functions, natural units): best gap = the gap of the best truly feasible evaluation (as above); rec = the service's recommendation at the end (the summary's \"recommendation\"): present = seeds with one, ok = seeds whose recommendation truly runs and holds every limit, rec gap = its gap (mean / worst over the seeds where it runs); crash late = share of evaluations t > T/2 that crash, break late = that run and break a limit (mean / worst seed).\n\n")
	sb.WriteString("| problem | algorithm | units | best gap (mean / worst) | rec present | rec ok | rec gap (mean / worst) | crash late (mean / worst) | break late (mean / worst) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range s.Cells {
		if c.Systems == nil {
			continue
		}
		for _, u := range s.Units {
			m := c.Systems[u]
			gap, rec := "–", "–"
			if m.Gap != nil {
				gap = fmt.Sprintf("%.4g / %.4g", *m.Gap, *m.GapWorst)
			}
			if m.RecGap != nil {
				rec = fmt.Sprintf("%.4g / %.4g", *m.RecGap, *m.RecGapWorst)
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %d/%d | %d/%d | %s | %.3f / %.3f | %.3f / %.3f |\n",
				c.Problem, c.Label(), u, gap, m.RecPresent, m.Runs, m.RecFeasible, m.Runs, rec,
				m.FailedLate, m.FailedLateWorst, m.BreakLate, m.BreakLateWorst)
		}
	}
	return sb.String()
}

// perSeedMarkdown lists every seed's gap and late shares (systems cells).
func (s *Summary) perSeedMarkdown() string {
	var sb strings.Builder
	sb.WriteString("\nPer seed (gap of the best feasible evaluation, – when none; bad late; break late):\n\n")
	for _, c := range s.Cells {
		if c.Systems == nil {
			continue
		}
		for _, u := range s.Units {
			fmt.Fprintf(&sb, "- %s, %s, %s:", c.Problem, c.Label(), u)
			for _, r := range c.Runs {
				if r.Units != u || r.Systems == nil {
					continue
				}
				gap := "–"
				if r.Systems.Gap != nil {
					gap = fmt.Sprintf("%.4g", *r.Systems.Gap)
				}
				fmt.Fprintf(&sb, " %d: (%s, %.3f, %.3f)", r.Seed, gap, r.Systems.BadLate, r.Systems.BreakLate)
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}
