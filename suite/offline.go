package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"

	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service/api"
)

// Evaluation modes of a study (DESIGN.md, "Live and offline evaluations"):
// live, every evaluation counts (limits at every round); offline, only the
// configuration deployed at the end counts (evaluations may break limits
// while searching; failures still cost).
const (
	Live    = "live"
	Offline = "offline"
)

// setEvaluations puts the evaluation mode into a study's definition
// (api.StudySpec.Evaluations) and reports that the definition carries it.
func setEvaluations(spec *api.StudySpec, mode string) bool {
	spec.Evaluations = mode
	return true
}

// summaryJSON returns GET /studies/{id}/summary as the service wrote it,
// keys the client's api.Summary does not know included (the
// recommendation).
func (s *Server) summaryJSON(ctx context.Context, id string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+"/studies/"+url.PathEscape(id)+"/summary", nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET summary: %s: %s", resp.Status, raw)
	}
	return raw, nil
}

// RecommendationScore scores the configuration the service recommends at
// the end of a study (its summary's "recommendation": the configuration
// the model believes best among the evaluated ones with P(every limit
// holds) ≥ 0.95; bandit.Recommendation) on the true noise-free functions.
type RecommendationScore struct {
	// Present: the summary had a recommendation with a configuration.
	Present bool      `json:"present"`
	X       []float64 `json:"x,omitempty"`
	// Crashed: the configuration fails (hidden constraint); Value and Gap
	// are then nil.
	Crashed bool `json:"crashed,omitempty"`
	// Value is the true objective there, Gap its signed gap to f*
	// (SystemsScore.Gap).
	Value *float64 `json:"value,omitempty"`
	Gap   *float64 `json:"gap,omitempty"`
	// Feasible: it runs and truly holds every limit.
	Feasible bool `json:"feasible"`
}

// readRecommendation reads the "recommendation" of a study's summary (raw
// JSON): its configuration as "x" (a box study) or "params"/"parameters"
// (a study defined by parameters, whose "x" is encoded), or the same under
// "action". Absent, null or without a configuration: Present false.
func readRecommendation(p *problem.SuiteProblem, fa problem.SuiteFacts, raw []byte) (*RecommendationScore, error) {
	var doc struct {
		Recommendation *recommendationJSON `json:"recommendation"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	r := doc.Recommendation
	if r == nil {
		return &RecommendationScore{}, nil
	}
	if r.Action != nil && len(r.X) == 0 && r.Params == nil && r.Parameters == nil {
		r = r.Action
	}
	var x []float64
	switch {
	case p.Params != nil && (r.Params != nil || r.Parameters != nil):
		vals := r.Params
		if vals == nil {
			vals = r.Parameters
		}
		var err error
		if x, err = paramsPoint(p.Params, vals); err != nil {
			return nil, fmt.Errorf("recommendation: %w", err)
		}
	case p.Params != nil:
		// x is then in the learner's encoded coordinates: only the
		// parameters' values say the configuration.
		return &RecommendationScore{}, nil
	case len(r.X) == len(p.Lo):
		x = r.X
	case len(r.X) > 0:
		return nil, fmt.Errorf("recommendation: x = %v has %d coordinates, want %d", r.X, len(r.X), len(p.Lo))
	default:
		return &RecommendationScore{}, nil
	}
	return scoreRecommendation(p, fa, x), nil
}

type recommendationJSON struct {
	X          []float64           `json:"x"`
	Params     map[string]any      `json:"params"`
	Parameters map[string]any      `json:"parameters"`
	Action     *recommendationJSON `json:"action"`
}

// scoreRecommendation scores a recommended configuration x.
func scoreRecommendation(p *problem.SuiteProblem, fa problem.SuiteFacts, x []float64) *RecommendationScore {
	rs := &RecommendationScore{Present: true, X: x}
	if p.CrashAt(x) != "" {
		rs.Crashed = true
		return rs
	}
	f := p.Objective.F(x)
	g := signedGap(p, fa.Opt, f)
	rs.Value, rs.Gap, rs.Feasible = &f, &g, p.Feasible(x)
	return rs
}

// ZeroOpt is the |f*| below which a gap is not divided by it.
const ZeroOpt = 1e-9

// signedGap is (f − f*)/|f*| for a minimised objective and (f* − f)/|f*|
// for a maximised one (absolute, without the division, when f* is 0 up to
// rounding, |f*| < ZeroOpt: ackley3's computed f* is 2.5e-13):
// positive when f is worse than f*, negative only if f beats it.
func signedGap(p *problem.SuiteProblem, opt, f float64) float64 {
	g := p.Sign() * (opt - f)
	if math.Abs(opt) >= ZeroOpt {
		g /= math.Abs(opt)
	}
	return g
}
