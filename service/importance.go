package service

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/cbandit/cbandit/importance"
	"github.com/cbandit/cbandit/service/api"
)

// GET /studies/{id}/importance: which parameters matter (package
// importance). The configurations and values are copied under the study's
// lock; the fit runs outside it.

// importanceHandler answers GET /studies/{id}/importance.
func (s *Server) importanceHandler(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Importance(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// Importance computes the importance of a study's parameters from its
// evaluated configurations (the same numbers on every call for the same
// decisions).
func (s *Server) Importance(ctx context.Context, id string) (api.Importance, error) {
	var (
		spec api.StudySpec
		xs   [][]float64
		ys   []float64
	)
	err := s.withStudy(ctx, id, true, func(l *live) error {
		spec = l.spec
		for i := range l.decs {
			if d := &l.decs[i]; d.reward != nil && !d.failed {
				xs = append(xs, d.x)
				ys = append(ys, *d.reward)
			}
		}
		return nil
	})
	if err != nil {
		return api.Importance{}, err
	}
	params, enc, e := importanceSpace(spec)
	if e != nil {
		return api.Importance{}, e
	}
	ux := make([][]float64, len(xs))
	for i, x := range xs {
		ux[i] = enc(x)
	}
	res, err := importance.Compute(ux, ys, params)
	var few *importance.TooFewError
	switch {
	case errors.As(err, &few):
		return api.Importance{}, conflict("too_few_observations", "observations", "%v", err)
	case errors.Is(err, importance.ErrFlat):
		return api.Importance{}, conflict("flat_objective", "reward", "%v", err)
	case err != nil:
		return api.Importance{}, internal(err)
	}
	out := api.Importance{Method: importance.Method, Observations: res.Observations, Explained: res.Explained,
		Parameters: make([]api.ParameterImportance, len(res.Entries))}
	for i, e := range res.Entries {
		out.Parameters[i] = api.ParameterImportance{Parameter: e.Name, Importance: e.Importance, FirstOrder: e.FirstOrder}
	}
	return out, nil
}

// importanceSpace describes a study's points for package importance: its
// named parameters on their unit-cube encoding (a categorical's one-hot
// coordinates together), or a space's coordinates x1..xd scaled to [0, 1]
// by the box or by the range of the candidate points (a coordinate the
// candidates never vary is left out).
func importanceSpace(spec api.StudySpec) ([]importance.Param, func([]float64) []float64, *apiError) {
	if len(spec.Parameters) > 0 {
		ps := make([]importance.Param, len(spec.Parameters))
		for i, p := range spec.Parameters {
			ps[i] = importance.Param{Name: p.Name, Coords: 1}
			if p.Type == ParamCategorical {
				ps[i] = importance.Param{Name: p.Name, Coords: len(p.Choices), OneHot: true}
			}
		}
		return ps, func(x []float64) []float64 { return clampUnit(x, nil, nil, nil) }, nil
	}
	var lo, hi []float64
	switch spec.Space.Type {
	case api.SpaceBox:
		lo, hi = spec.Space.Lo, spec.Space.Hi
	case api.SpacePoints:
		for k, p := range spec.Space.Points {
			if k == 0 {
				lo, hi = append([]float64(nil), p...), append([]float64(nil), p...)
			}
			for d, v := range p {
				lo[d], hi[d] = math.Min(lo[d], v), math.Max(hi[d], v)
			}
		}
	default:
		return nil, nil, &apiError{status: http.StatusUnprocessableEntity, code: "unsupported_space", field: "space.type",
			msg: "= " + strconv.Quote(spec.Space.Type) + ": a contextual study's actions change every round; importance needs a fixed space (parameters, a box or points)"}
	}
	var keep []int
	var ps []importance.Param
	for d := range lo {
		if hi[d] > lo[d] {
			keep = append(keep, d)
			ps = append(ps, importance.Param{Name: "x" + strconv.Itoa(d+1), Coords: 1})
		}
	}
	if len(ps) == 0 {
		return nil, nil, &apiError{status: http.StatusUnprocessableEntity, code: "unsupported_space", field: "space.points",
			msg: "the candidate points do not vary in any coordinate: no parameter to rank"}
	}
	return ps, func(x []float64) []float64 { return clampUnit(x, keep, lo, hi) }, nil
}

// clampUnit maps x's coordinates keep (all when nil) to [0, 1] by lo and
// hi (none: already in the unit cube).
func clampUnit(x []float64, keep []int, lo, hi []float64) []float64 {
	if keep == nil {
		keep = make([]int, len(x))
		for d := range keep {
			keep[d] = d
		}
	}
	out := make([]float64, len(keep))
	for i, d := range keep {
		v := x[d]
		if lo != nil {
			v = (v - lo[d]) / (hi[d] - lo[d])
		}
		out[i] = math.Min(1, math.Max(0, v))
	}
	return out
}
