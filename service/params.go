package service

import (
	"fmt"
	"github.com/cbandit/cbandit/domain"
	"math"
	"strings"

	"github.com/cbandit/cbandit/service/api"
)

// Named, typed parameters (StudySpec.Parameters) are an alternative to a
// space. The learner never sees their values: it works in the unit cube
// [0, 1]^D of an encoding, as BoTorch and Ax do (inputs normalised to the
// unit cube: botorch.models.transforms.input.Normalize; Ax's UnitX, Log,
// IntToFloat and OneHot transforms), and OSS Vizier does (its converters
// scale every parameter to [0, 1], log-scaled ones after a log):
//
//   - float: one coordinate, (v − low)/(high − low), or with log
//     (ln v − ln low)/(ln high − ln low) (Ax's Log transform, Vizier's
//     LOG scale type, Optuna's log=True);
//   - int: one coordinate encoded like a float (log allowed, low ≥ 1 as
//     Optuna requires), decoded by rounding to the nearest integer (Ax's
//     IntToFloat transform rounds on the way back);
//   - categorical with k choices: k one-hot coordinates (Ax's OneHot
//     transform, BoTorch's one-hot inputs), decoded by arg max (ties to
//     the first choice), as Ax's OneHot untransform does.
//
// By default the learner chooses among a finite candidate set whose points
// are exact encodings of valid parameter values (every int an integer,
// every categorical a one-hot vector), so a suggestion decodes without
// rounding; with space.native the learner gets the cube itself and its
// points are decoded by rounding and arg max as above. The candidate set:
// with no float parameter and at most space.candidates combinations, every
// combination (BoTorch's optimize_acqf_mixed enumerates discrete values the
// same way); otherwise a Halton set (bases 2, 3, 5, … over the parameters,
// from index 1) mapped to parameter values and deduplicated.

// MaxParameters bounds the number of parameters; MaxEncodedDim the width of
// their encoding (one coordinate a float or int, one per choice of a
// categorical); MaxChoices the choices of one categorical.
const (
	MaxParameters = 32
	MaxEncodedDim = 64
	MaxChoices    = 64
)

// Parameter types.
const (
	ParamFloat       = "float"
	ParamInt         = "int"
	ParamCategorical = "categorical"
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
	seen := map[string]bool{}
	dim := 0
	for i := range ps {
		p := &ps[i]
		f := fmt.Sprintf("parameters[%d]", i)
		if e := checkName(f+".name", p.Name); e != nil {
			return e
		}
		if seen[p.Name] {
			return invalid(f+".name", "= %q: parameter names must be distinct", p.Name)
		}
		seen[p.Name] = true
		switch p.Type {
		case ParamFloat, ParamInt:
			if p.Choices != nil {
				return invalid(f+".choices", "applies to categorical parameters only")
			}
			if p.Low == nil {
				return invalid(f+".low", "is required for a %s parameter", p.Type)
			}
			if p.High == nil {
				return invalid(f+".high", "is required for a %s parameter", p.Type)
			}
			lo, hi := *p.Low, *p.High
			if e := checkMagnitude(f+".low", lo); e != nil {
				return e
			}
			if e := checkMagnitude(f+".high", hi); e != nil {
				return e
			}
			if p.Type == ParamInt {
				if lo != math.Trunc(lo) {
					return invalid(f+".low", "= %v: an int parameter's bounds are integers", lo)
				}
				if hi != math.Trunc(hi) {
					return invalid(f+".high", "= %v: an int parameter's bounds are integers", hi)
				}
			}
			if hi < lo {
				return invalid(f+".high", "= %v is below low = %v", hi, lo)
			}
			if p.Log {
				if p.Type == ParamFloat && !(lo > 0) {
					return invalid(f+".low", "= %v: a log-scaled float needs low > 0", lo)
				}
				if p.Type == ParamInt && lo < 1 {
					return invalid(f+".low", "= %v: a log-scaled int needs low ≥ 1", lo)
				}
			}
			dim++
		case ParamCategorical:
			if p.Low != nil || p.High != nil || p.Log {
				return invalid(f+".low", "low, high and log apply to float and int parameters only")
			}
			if len(p.Choices) == 0 {
				return invalid(f+".choices", "must hold at least one choice")
			}
			if len(p.Choices) > MaxChoices {
				return invalid(f+".choices", "has %d choices, at most %d allowed", len(p.Choices), MaxChoices)
			}
			keys := map[string]bool{}
			for k, c := range p.Choices {
				cf := fmt.Sprintf("%s.choices[%d]", f, k)
				var key string
				switch v := c.(type) {
				case string:
					if e := checkName(cf, v); e != nil {
						return e
					}
					key = "s" + v
				case float64:
					if e := checkMagnitude(cf, v); e != nil {
						return e
					}
					key = fmt.Sprintf("n%v", v)
				case bool:
					key = fmt.Sprintf("b%v", v)
				default:
					return invalid(cf, "= %v: a choice is a string, a number or a boolean", c)
				}
				if keys[key] {
					return invalid(cf, "= %v: choices must be distinct", c)
				}
				keys[key] = true
			}
			dim += len(p.Choices)
		case "":
			return invalid(f+".type", "is missing: accepted are %q, %q, %q", ParamFloat, ParamInt, ParamCategorical)
		default:
			return invalid(f+".type", "= %q: accepted are %q, %q, %q", p.Type, ParamFloat, ParamInt, ParamCategorical)
		}
	}
	if dim > MaxEncodedDim {
		return invalid("parameters", "encode to %d coordinates (one per float or int, one per categorical choice), at most %d allowed", dim, MaxEncodedDim)
	}
	if derived {
		return checkDerivedSpace(ps, sp, dim)
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
		lo, hi := make([]float64, dim), make([]float64, dim)
		for i := range hi {
			hi[i] = 1
		}
		s.Space = api.Space{Type: api.SpaceBox, Lo: lo, Hi: hi, Native: true}
		return nil
	}
	// The candidates are stored with the definition, so that a later change
	// of how they are generated never changes a stored study's replay.
	s.Space = api.Space{Type: api.SpacePoints, Points: paramCandidates(ps, n)}
	return nil
}

// checkDerivedSpace checks a space given with parameters: the unit cube of
// their encoding (dim coordinates) with native set, or candidates each an
// exact encoding of parameter values — every coordinate in [0, 1], an int's
// that of an integer, a categorical's one-hot — as normalizeParameters
// derives them.
func checkDerivedSpace(ps []api.Parameter, sp api.Space, dim int) *apiError {
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
		k := 0
		for _, p := range ps {
			switch p.Type {
			case ParamCategorical:
				ones := 0
				for c := range p.Choices {
					switch x[k+c] {
					case 1:
						ones++
					case 0:
					default:
						ones = -1
					}
				}
				if ones != 1 {
					return invalid(f, "= %v: coordinates %d to %d of parameter %q are not one-hot (one 1, the rest 0)", x, k, k+len(p.Choices)-1, p.Name)
				}
				k += len(p.Choices)
				continue
			case ParamInt:
				if v := decodeNumber(p, x[k]).(int64); x[k] != unit(p, float64(v)) {
					return invalid(f, "= %v: coordinate %d of int parameter %q is not the encoding of an integer", x, k, p.Name)
				}
			}
			if !(x[k] >= 0 && x[k] <= 1) {
				return invalid(f, "= %v: coordinate %d of parameter %q is outside [0, 1]", x, k, p.Name)
			}
			k++
		}
	}
	return nil
}

// paramCandidates is the deterministic candidate set of a parameter space,
// as encoded points (see the comment at the top of this file).
func paramCandidates(ps []api.Parameter, n int) [][]float64 {
	combos, floats := 1, false
	for _, p := range ps {
		switch p.Type {
		case ParamFloat:
			floats = true
		case ParamInt:
			combos = mulCap(combos, int(*p.High-*p.Low)+1, n+1)
		case ParamCategorical:
			combos = mulCap(combos, len(p.Choices), n+1)
		}
	}
	var out [][]float64
	if !floats && combos <= n {
		idx := make([]int, len(ps))
		for {
			vals := make([]any, len(ps))
			for i, p := range ps {
				if p.Type == ParamInt {
					vals[i] = int64(*p.Low) + int64(idx[i])
				} else {
					vals[i] = p.Choices[idx[i]]
				}
			}
			out = append(out, encodeParams(ps, vals))
			k := len(ps) - 1
			for ; k >= 0; k-- {
				idx[k]++
				lim := len(ps[k].Choices)
				if ps[k].Type == ParamInt {
					lim = int(*ps[k].High-*ps[k].Low) + 1
				}
				if idx[k] < lim {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				return out
			}
		}
	}
	seen := map[string]bool{}
	for _, us := range domain.Halton(n, len(ps)) {
		vals := make([]any, len(ps))
		for j, p := range ps {
			u := us[j]
			switch p.Type {
			case ParamCategorical:
				vals[j] = p.Choices[min(int(u*float64(len(p.Choices))), len(p.Choices)-1)]
			default:
				// Equal-width bins for ints (every integer as likely), the
				// scale's value for floats.
				if p.Type == ParamInt && !p.Log {
					k := int64(*p.High-*p.Low) + 1
					vals[j] = int64(*p.Low) + min(int64(u*float64(k)), k-1)
				} else {
					vals[j] = decodeNumber(p, u)
				}
			}
		}
		x := encodeParams(ps, vals)
		key := fmt.Sprint(x)
		if !seen[key] {
			seen[key] = true
			out = append(out, x)
		}
	}
	return out
}

func mulCap(a, b, limit int) int {
	if b <= 0 || a > limit/b {
		return limit
	}
	return a * b
}

// unit maps a float or int parameter's value to [0, 1].
func unit(p api.Parameter, v float64) float64 {
	lo, hi := *p.Low, *p.High
	if hi == lo {
		return 0
	}
	var u float64
	if p.Log {
		u = (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
	} else {
		u = (v - lo) / (hi - lo)
	}
	return math.Min(1, math.Max(0, u))
}

// decodeNumber maps u ∈ [0, 1] to a float (float64) or int (int64) value
// of p, in [low, high].
func decodeNumber(p api.Parameter, u float64) any {
	lo, hi := *p.Low, *p.High
	u = math.Min(1, math.Max(0, u))
	if math.IsNaN(u) {
		u = 0
	}
	var v float64
	if p.Log {
		v = math.Exp(math.Log(lo) + u*(math.Log(hi)-math.Log(lo)))
	} else {
		v = lo + u*(hi-lo)
	}
	v = math.Min(hi, math.Max(lo, v))
	if p.Type == ParamInt {
		return int64(math.Min(hi, math.Max(lo, math.Round(v))))
	}
	return v
}

// encodeParams encodes parameter values (float64, int64 or a choice) as a
// point of the unit cube.
func encodeParams(ps []api.Parameter, vals []any) []float64 {
	var x []float64
	for i, p := range ps {
		switch p.Type {
		case ParamCategorical:
			for _, c := range p.Choices {
				if c == vals[i] {
					x = append(x, 1)
				} else {
					x = append(x, 0)
				}
			}
		case ParamInt:
			x = append(x, unit(p, float64(vals[i].(int64))))
		default:
			x = append(x, unit(p, vals[i].(float64)))
		}
	}
	return x
}

// decodeParams maps a point of the encoded cube to parameter values: floats
// as float64, ints as int64 (rounded), categoricals as the choice with the
// largest coordinate. It returns nil when x does not have the encoding's
// width.
func decodeParams(ps []api.Parameter, x []float64) map[string]any {
	out := make(map[string]any, len(ps))
	k := 0
	for _, p := range ps {
		if p.Type == ParamCategorical {
			if k+len(p.Choices) > len(x) {
				return nil
			}
			best := 0
			for c := range p.Choices {
				if x[k+c] > x[k+best] {
					best = c
				}
			}
			out[p.Name] = p.Choices[best]
			k += len(p.Choices)
			continue
		}
		if k >= len(x) {
			return nil
		}
		out[p.Name] = decodeNumber(p, x[k])
		k++
	}
	if k != len(x) {
		return nil
	}
	return out
}

// paramNames lists the parameters' names in order.
func paramNames(ps []api.Parameter) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// paramTypes describes the parameters for messages: "lr (float, log)".
func paramTypes(ps []api.Parameter) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", p.Name, p.Type)
	}
	return b.String()
}
