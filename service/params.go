package service

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/space"
)

// Named, typed parameters (StudySpec.Parameters) are an alternative to a
// space. The learner never sees their values: it works in the unit cube of
// their encoding, package space (shared with package optimize and the
// clients: floats and ints scaled to [0, 1], log-scaled ones after a log,
// categoricals one-hot). By default the learner chooses among a finite
// candidate set of exact encodings (space.Candidates, stored with the
// definition), so a suggestion decodes without rounding; with space.native
// it gets the cube itself and its points are decoded by rounding and arg
// max (space.Decode).

// MaxParameters bounds the number of parameters; MaxEncodedDim the width of
// their encoding (one coordinate a float or int, one per choice of a
// categorical); MaxChoices the choices of one categorical.
const (
	MaxParameters = space.MaxParameters
	MaxEncodedDim = space.MaxEncodedDim
	MaxChoices    = space.MaxChoices
)

// Parameter types.
const (
	ParamFloat       = space.TypeFloat
	ParamInt         = space.TypeInt
	ParamCategorical = space.TypeCategorical
)

func normalizeParameters(s *api.StudySpec) *apiError {
	ps := s.Parameters
	if len(ps) > MaxParameters {
		return invalid("parameters", "has %d entries, at most %d allowed", len(ps), MaxParameters)
	}
	sp := s.Space
	// The space a stored study derived from its parameters, as GET
	// /studies/{id} returns it (its candidates, or the native cube), is
	// accepted back, checked against the parameters below: a definition
	// read from the service can be posted to create a study that decides
	// identically, even after the candidates' generation has changed.
	derived := sp.Dim == 0 && !sp.StarConvex && sp.Candidates == 0 &&
		(sp.Type == api.SpacePoints && len(sp.Points) > 0 && !sp.Native && len(sp.Lo) == 0 && len(sp.Hi) == 0 ||
			sp.Type == api.SpaceBox && sp.Native && len(sp.Lo) > 0 && len(sp.Points) == 0)
	if !derived && (sp.Type != "" || len(sp.Lo) > 0 || len(sp.Hi) > 0 || len(sp.Points) > 0 || sp.Dim != 0 || sp.StarConvex) {
		return invalid("space", "give either space or parameters: with parameters, space may hold only candidates and native (or the space the service derived from them, as a study's definition shows it)")
	}
	if s.Prior.Safe != nil || s.Prior.RewardClass != nil || s.Prior.CostClass != nil {
		return invalid("prior.safe", "studies with parameters take no safe point or function classes (they are given in the space's coordinates): use a space")
	}
	if s.FullInfo {
		return invalid("full_info", "studies with parameters take no constraint sample: use a points space")
	}
	// What JSON adds to the encoding's own checks (space.Check): names and
	// choices a person can read, magnitudes within the service's limit, and
	// bounds present rather than zero.
	for i := range ps {
		p := &ps[i]
		f := fmt.Sprintf("parameters[%d]", i)
		if e := checkName(f+".name", p.Name); e != nil {
			return e
		}
		switch p.Type {
		case ParamFloat, ParamInt:
			if p.Low == nil {
				return invalid(f+".low", "is required for a %s parameter", p.Type)
			}
			if p.High == nil {
				return invalid(f+".high", "is required for a %s parameter", p.Type)
			}
			if e := checkMagnitude(f+".low", *p.Low); e != nil {
				return e
			}
			if e := checkMagnitude(f+".high", *p.High); e != nil {
				return e
			}
		case ParamCategorical:
			if p.Low != nil || p.High != nil || p.Log || p.Step != nil {
				return invalid(f+".low", "low, high, log and step apply to float and int parameters only")
			}
			for k, c := range p.Choices {
				cf := fmt.Sprintf("%s.choices[%d]", f, k)
				switch v := c.(type) {
				case string:
					if e := checkName(cf, v); e != nil {
						return e
					}
				case float64:
					if e := checkMagnitude(cf, v); e != nil {
						return e
					}
				}
			}
		}
	}
	sps := toSpace(ps)
	if err := space.Check(sps); err != nil {
		var fe *space.FieldError
		if errors.As(err, &fe) {
			return invalid(fe.Path(), "%s", fe.Msg)
		}
		return invalid("parameters", "%v", err)
	}
	if derived {
		return checkDerivedSpace(ps, sps, sp)
	}
	n := sp.Candidates
	if n == 0 {
		n = DefaultCandidates
	}
	if n < 1 || n > MaxCandidates {
		return invalid("space.candidates", "= %d: must be in [1, %d]", n, MaxCandidates)
	}
	if sp.Native {
		if sp.Candidates != 0 {
			return invalid("space.candidates", "applies to the candidate set, not to a native space")
		}
		dim := space.Dim(sps)
		lo, hi := make([]float64, dim), make([]float64, dim)
		for i := range hi {
			hi[i] = 1
		}
		s.Space = api.Space{Type: api.SpaceBox, Lo: lo, Hi: hi, Native: true, Rounded: sp.Rounded}
		return nil
	}
	if sp.Rounded {
		return invalid("space.rounded", "applies to a native space (space.native: the encoded cube)")
	}
	// The candidates are stored with the definition, so that a later change
	// of how they are generated never changes a stored study's replay.
	s.Space = api.Space{Type: api.SpacePoints, Points: learner.TypedCandidates(sps, n)}
	return nil
}

// toSpace is the encoding's view of the study's parameters (an absent bound
// is 0: normalizeParameters refuses it first).
func toSpace(ps []api.Parameter) []space.Param {
	out := make([]space.Param, len(ps))
	for i, p := range ps {
		out[i] = space.Param{Name: p.Name, Type: p.Type, Log: p.Log, Choices: p.Choices}
		if p.Low != nil {
			out[i].Low = *p.Low
		}
		if p.High != nil {
			out[i].High = *p.High
		}
		if p.Step != nil {
			out[i].Step = *p.Step
		}
	}
	return out
}

// encodeParams encodes valid parameter values (float64, int64 or a choice)
// as a point of the unit cube; nil for invalid ones (paramsToX checks them
// first, naming the field).
func encodeParams(ps []api.Parameter, vals []any) []float64 {
	x, err := space.Encode(toSpace(ps), vals)
	if err != nil {
		return nil
	}
	return x
}

// decodeParams maps a point of the encoded cube to parameter values: floats
// as float64, ints as int64 (rounded), categoricals as the choice with the
// largest coordinate. It returns nil when x does not have the encoding's
// width.
func decodeParams(ps []api.Parameter, x []float64) map[string]any {
	out, err := space.Decode(toSpace(ps), x)
	if err != nil {
		return nil
	}
	return out
}

// paramNames lists the parameters' names in order.
func paramNames(ps []api.Parameter) []string { return space.Names(toSpace(ps)) }

// paramTypes describes the parameters for messages: "lr (float, log)".
func paramTypes(ps []api.Parameter) string { return space.Describe(toSpace(ps)) }

// checkDerivedSpace checks a space given with parameters: the unit cube of
// their encoding with native set, or candidates each an exact encoding of
// parameter values (package space), as normalizeParameters derives them.
func checkDerivedSpace(ps []api.Parameter, sps []space.Param, sp api.Space) *apiError {
	dim := space.Dim(sps)
	if sp.Type == api.SpaceBox {
		if len(sp.Lo) != dim || len(sp.Hi) != dim {
			return invalid("space.lo", "has %d coordinates and space.hi %d: the parameters encode to %d (%s)", len(sp.Lo), len(sp.Hi), dim, paramTypes(ps))
		}
		for i := range sp.Lo {
			if sp.Lo[i] != 0 || sp.Hi[i] != 1 {
				return invalid(fmt.Sprintf("space.lo[%d]", i), "= %v (space.hi[%d] = %v): with parameters, a native space is the unit cube of their encoding, lo 0 and hi 1", sp.Lo[i], i, sp.Hi[i])
			}
		}
		return nil
	}
	if len(sp.Points) > MaxCandidates {
		return invalid("space.points", "has %d candidates, at most %d allowed", len(sp.Points), MaxCandidates)
	}
	for i, x := range sp.Points {
		f := fmt.Sprintf("space.points[%d]", i)
		if len(x) != dim {
			return invalid(f, "has %d coordinates: the parameters encode to %d (%s)", len(x), dim, paramTypes(ps))
		}
		vals, err := space.Decode(sps, x)
		if err != nil {
			return invalid(f, "%v", err)
		}
		y, err := space.Encode(sps, valuesOf(sps, vals))
		if err != nil || !slices.EqualFunc(x, y, func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }) {
			return invalid(f, "= %v is not the exact encoding of parameter values (%s): ints integers, categoricals one-hot", x, paramTypes(ps))
		}
	}
	return nil
}

// valuesOf lists decoded values in the parameters' order.
func valuesOf(sps []space.Param, vals map[string]any) []any {
	out := make([]any, len(sps))
	for i, p := range sps {
		out[i] = vals[p.Name]
	}
	return out
}
