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
	// Gap is |Best − f*|/|f*|, or |Best − f*| when f* = 0; nil with Best.
	Gap *float64 `json:"gap"`
	// Failed is the share of the T evaluations that failed (crashed);
	// FailedLate the share over the rounds t > T/2.
	Failed     float64 `json:"failed"`
	FailedLate float64 `json:"failed_late"`
	// Bad is the share that failed or broke a limit (a constraint metric
	// above its threshold on the true functions); BadLate over t > T/2.
	Bad     float64 `json:"bad"`
	BadLate float64 `json:"bad_late"`
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
	// The shares are means over all runs.
	Failed     float64 `json:"failed"`
	FailedLate float64 `json:"failed_late"`
	Bad        float64 `json:"bad"`
	BadLate    float64 `json:"bad_late"`
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
	}
	if !math.IsNaN(best) {
		gap := math.Abs(best - fa.Opt)
		if fa.Opt != 0 {
			gap /= math.Abs(fa.Opt)
		}
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
	var best, gap float64
	n := float64(len(scores))
	for _, s := range scores {
		m.Opt = s.Opt
		m.Failed += s.Failed / n
		m.FailedLate += s.FailedLate / n
		m.Bad += s.Bad / n
		m.BadLate += s.BadLate / n
		if s.Best != nil {
			m.Found++
			best += *s.Best
			gap += *s.Gap
		}
	}
	if m.Found > 0 {
		best /= float64(m.Found)
		gap /= float64(m.Found)
		m.Best, m.Gap = &best, &gap
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
			fmt.Fprintf(&sb, "\nSystems scores (T = %d, on the true functions in natural units): best = best feasible objective found within T (evaluations that ran and met every limit), mean over the seeds that found one (found = how many); gap = |best − f*|/|f*| (absolute when f* = 0), mean over the same seeds; failed = share of evaluations that crashed, bad = share that crashed or broke a limit, overall / over t > T/2, mean over seeds.\n\n", s.Horizon)
			sb.WriteString("| problem | algorithm | units | f* | best | gap | found | failed | failed late | bad | bad late |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		for _, u := range s.Units {
			m := c.Systems[u]
			best, gap := "–", "–"
			if m.Best != nil {
				best, gap = fmt.Sprintf("%.6g", *m.Best), fmt.Sprintf("%.4g", *m.Gap)
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %.6g | %s | %s | %d/%d | %.3f | %.3f | %.3f | %.3f |\n",
				c.Problem, c.Algorithm, u, m.Opt, best, gap, m.Found, m.Runs, m.Failed, m.FailedLate, m.Bad, m.BadLate)
		}
	}
	return sb.String()
}
