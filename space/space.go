package space

import (
	"fmt"
	"math"
	"strings"

	"github.com/cbandit/cbandit/domain"
)

// Parameter types (the service's "type" values).
const (
	TypeFloat       = "float"
	TypeInt         = "int"
	TypeCategorical = "categorical"
)

// MaxParameters bounds the number of parameters; MaxEncodedDim the width of
// their encoding (one coordinate a float or int, one per choice of a
// categorical); MaxChoices the choices of one categorical. A GP learner in
// more dimensions than MaxEncodedDim learns little in a study's budget.
const (
	MaxParameters = 32
	MaxEncodedDim = 64
	MaxChoices    = 64
)

// maxInt bounds an int parameter's bounds: every integer up to 2^53 is
// exact in a float64.
const maxInt = 1 << 53

// Param is one named, typed parameter.
type Param struct {
	// Name names the parameter (distinct among a space's parameters).
	Name string
	// Type is TypeFloat, TypeInt or TypeCategorical.
	Type string
	// Low and High bound a float or int (inclusive; integers for an int).
	Low, High float64
	// Log searches a float or int on a log scale (low > 0 for a float,
	// low ≥ 1 for an int).
	Log bool
	// Step, for a float without Log, restricts it to low + k·step, k = 0,
	// 1, … up to high (0: continuous).
	Step float64
	// Choices are a categorical's values: strings, numbers (float64, int,
	// int64) or booleans, distinct.
	Choices []any
}

// Float is a float parameter in [low, high].
func Float(name string, low, high float64) Param {
	return Param{Name: name, Type: TypeFloat, Low: low, High: high}
}

// LogFloat is a float parameter in [low, high] searched on a log scale
// (low > 0).
func LogFloat(name string, low, high float64) Param {
	return Param{Name: name, Type: TypeFloat, Low: low, High: high, Log: true}
}

// SteppedFloat is a float parameter taking the values low + k·step up to
// high.
func SteppedFloat(name string, low, high, step float64) Param {
	return Param{Name: name, Type: TypeFloat, Low: low, High: high, Step: step}
}

// Int is an int parameter in [low, high].
func Int(name string, low, high int) Param {
	return Param{Name: name, Type: TypeInt, Low: float64(low), High: float64(high)}
}

// LogInt is an int parameter in [low, high] searched on a log scale
// (low ≥ 1).
func LogInt(name string, low, high int) Param {
	return Param{Name: name, Type: TypeInt, Low: float64(low), High: float64(high), Log: true}
}

// Categorical is a parameter taking one of the choices.
func Categorical(name string, choices ...any) Param {
	return Param{Name: name, Type: TypeCategorical, Choices: choices}
}

// FieldError names the parameter and the field a check refused.
type FieldError struct {
	// Index is the parameter's position; −1 for the list as a whole.
	Index int
	// Field is "name", "type", "low", "high", "step", "choices" or
	// "choices[k]" ("" with Index −1).
	Field string
	// Msg says what is wrong, starting with "= value" when it quotes one.
	Msg string
}

// Path is the field's path from the parameter list: "parameters[1].low".
func (e *FieldError) Path() string {
	if e.Index < 0 {
		return "parameters"
	}
	return fmt.Sprintf("parameters[%d].%s", e.Index, e.Field)
}

func (e *FieldError) Error() string { return e.Path() + ": " + e.Msg }

func bad(i int, field, format string, args ...any) *FieldError {
	return &FieldError{Index: i, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Check refuses a parameter list that cannot be encoded, with a
// *FieldError naming the first bad field.
func Check(ps []Param) error {
	if len(ps) == 0 {
		return bad(-1, "", "must hold at least one parameter")
	}
	if len(ps) > MaxParameters {
		return bad(-1, "", "has %d entries, at most %d allowed", len(ps), MaxParameters)
	}
	seen := map[string]bool{}
	for i, p := range ps {
		if strings.TrimSpace(p.Name) == "" {
			return bad(i, "name", "must not be empty")
		}
		if seen[p.Name] {
			return bad(i, "name", "= %q: parameter names must be distinct", p.Name)
		}
		seen[p.Name] = true
		if err := checkOne(i, p); err != nil {
			return err
		}
	}
	if d := Dim(ps); d > MaxEncodedDim {
		return bad(-1, "", "encode to %d coordinates (one per float or int, one per categorical choice), at most %d allowed", d, MaxEncodedDim)
	}
	return nil
}

func checkOne(i int, p Param) error {
	switch p.Type {
	case TypeFloat, TypeInt:
		if p.Choices != nil {
			return bad(i, "choices", "applies to categorical parameters only")
		}
		lo, hi := p.Low, p.High
		if !finite(lo) {
			return bad(i, "low", "= %v: must be a finite number", lo)
		}
		if !finite(hi) {
			return bad(i, "high", "= %v: must be a finite number", hi)
		}
		if p.Type == TypeInt {
			if lo != math.Trunc(lo) || math.Abs(lo) > maxInt {
				return bad(i, "low", "= %v: an int parameter's bounds are integers of magnitude at most 2^53", lo)
			}
			if hi != math.Trunc(hi) || math.Abs(hi) > maxInt {
				return bad(i, "high", "= %v: an int parameter's bounds are integers of magnitude at most 2^53", hi)
			}
			if p.Step != 0 {
				return bad(i, "step", "= %v: applies to float parameters only (an int's step is 1)", p.Step)
			}
		}
		if hi < lo {
			return bad(i, "high", "= %v is below low = %v", hi, lo)
		}
		if p.Log {
			if p.Type == TypeFloat && !(lo > 0) {
				return bad(i, "low", "= %v: a log-scaled float needs low > 0", lo)
			}
			if p.Type == TypeInt && lo < 1 {
				return bad(i, "low", "= %v: a log-scaled int needs low ≥ 1", lo)
			}
		}
		if p.Step != 0 {
			switch {
			case !(p.Step > 0) || !finite(p.Step):
				return bad(i, "step", "= %v: must be a positive number (or 0: continuous)", p.Step)
			case p.Log:
				return bad(i, "step", "= %v: a log-scaled float takes no step", p.Step)
			case hi > lo && p.Step > hi-lo:
				return bad(i, "step", "= %v exceeds high − low = %v", p.Step, hi-lo)
			case (hi-lo)/p.Step > maxInt:
				return bad(i, "step", "= %v: more than 2^53 steps between low and high", p.Step)
			}
		}
	case TypeCategorical:
		if p.Low != 0 || p.High != 0 || p.Log || p.Step != 0 {
			return bad(i, "low", "low, high, log and step apply to float and int parameters only")
		}
		if len(p.Choices) == 0 {
			return bad(i, "choices", "must hold at least one choice")
		}
		if len(p.Choices) > MaxChoices {
			return bad(i, "choices", "has %d choices, at most %d allowed", len(p.Choices), MaxChoices)
		}
		keys := map[string]bool{}
		for k, c := range p.Choices {
			f := fmt.Sprintf("choices[%d]", k)
			var key string
			switch v := c.(type) {
			case string:
				key = "s" + v
			case float64:
				if !finite(v) {
					return bad(i, f, "= %v: must be a finite number", v)
				}
				key = fmt.Sprintf("n%v", v)
			case int:
				key = fmt.Sprintf("n%v", float64(v))
			case int64:
				key = fmt.Sprintf("n%v", float64(v))
			case bool:
				key = fmt.Sprintf("b%v", v)
			default:
				return bad(i, f, "= %v: a choice is a string, a number or a boolean", c)
			}
			if keys[key] {
				return bad(i, f, "= %v: choices must be distinct", c)
			}
			keys[key] = true
		}
	case "":
		return bad(i, "type", "is missing: accepted are %q, %q, %q", TypeFloat, TypeInt, TypeCategorical)
	default:
		return bad(i, "type", "= %q: accepted are %q, %q, %q", p.Type, TypeFloat, TypeInt, TypeCategorical)
	}
	return nil
}

// Dim is the width of the encoding: one coordinate per float or int, one
// per choice of a categorical.
func Dim(ps []Param) int {
	d := 0
	for _, p := range ps {
		if p.Type == TypeCategorical {
			d += len(p.Choices)
		} else {
			d++
		}
	}
	return d
}

// Continuous reports whether every parameter is a float without a step:
// the encoding is then a box whose every point decodes to distinct values,
// which a learner may search as a box.
func Continuous(ps []Param) bool {
	for _, p := range ps {
		if p.Type != TypeFloat || p.Step != 0 {
			return false
		}
	}
	return len(ps) > 0
}

// levels is the number of values of a discrete parameter (an int, a
// stepped float, a categorical), 0 for a continuous float.
func levels(p Param) int {
	switch {
	case p.Type == TypeCategorical:
		return len(p.Choices)
	case p.Type == TypeInt:
		return int(p.High-p.Low) + 1
	case p.Step > 0:
		return steps(p) + 1
	}
	return 0
}

// steps is the largest k with low + k·step ≤ high (up to rounding).
func steps(p Param) int {
	return int(math.Floor((p.High-p.Low)/p.Step + 1e-9))
}

// level is the k-th value of a discrete numeric parameter: an int64 for an
// int, a float64 for a stepped float.
func level(p Param, k int) any {
	if p.Type == TypeInt {
		return int64(p.Low) + int64(k)
	}
	return math.Min(p.High, p.Low+float64(k)*p.Step)
}

// Candidates is the deterministic candidate set of a checked parameter
// list, at most n exact encodings: with no continuous float and at most n
// combinations, every combination (the last parameter varying fastest);
// otherwise the first n points of a Halton sequence (bases 2, 3, 5, …,
// one per parameter, from index 1) mapped to parameter values — equal-width
// bins for categoricals, non-log ints and stepped floats (every value as
// likely), the scale's value for the others — and deduplicated.
func Candidates(ps []Param, n int) [][]float64 {
	combos, floats := 1, false
	for _, p := range ps {
		if k := levels(p); k > 0 {
			combos = mulCap(combos, k, n+1)
		} else {
			floats = true
		}
	}
	var out [][]float64
	if !floats && combos <= n {
		idx := make([]int, len(ps))
		for {
			vals := make([]any, len(ps))
			for i, p := range ps {
				if p.Type == TypeCategorical {
					vals[i] = p.Choices[idx[i]]
				} else {
					vals[i] = level(p, idx[i])
				}
			}
			out = append(out, encode(ps, vals))
			k := len(ps) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < levels(ps[k]) {
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
			switch k := levels(p); {
			case p.Type == TypeCategorical:
				vals[j] = p.Choices[min(int(u*float64(k)), k-1)]
			case k > 0 && !p.Log:
				vals[j] = level(p, min(int(u*float64(k)), k-1))
			default:
				vals[j] = decodeNumber(p, u)
			}
		}
		x := encode(ps, vals)
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
func unit(p Param, v float64) float64 {
	lo, hi := p.Low, p.High
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
// of p, in [low, high]: an int rounded to the nearest integer, a stepped
// float to the nearest step.
func decodeNumber(p Param, u float64) any {
	lo, hi := p.Low, p.High
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
	if p.Type == TypeInt {
		return int64(math.Min(hi, math.Max(lo, math.Round(v))))
	}
	if p.Step > 0 {
		k := min(max(int(math.Round((v-lo)/p.Step)), 0), steps(p))
		return level(p, k)
	}
	return v
}

// encode is Encode for values known to be valid.
func encode(ps []Param, vals []any) []float64 {
	x := make([]float64, 0, Dim(ps))
	for i, p := range ps {
		switch p.Type {
		case TypeCategorical:
			for _, c := range p.Choices {
				if same(c, vals[i]) {
					x = append(x, 1)
				} else {
					x = append(x, 0)
				}
			}
		default:
			v, _ := number(vals[i])
			x = append(x, unit(p, v))
		}
	}
	return x
}

// number reads a numeric value of any Go integer or float type.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	}
	return 0, false
}

// same compares a choice with a value: numbers by value whatever their Go
// type (a choice 16 is the JSON number 16), others by ==.
func same(c, v any) bool {
	a, okA := number(c)
	b, okB := number(v)
	if okA || okB {
		return okA && okB && a == b
	}
	return c == v
}

// Encode encodes parameter values, one per parameter in order (a number of
// any Go numeric type for a float or int, one of the choices for a
// categorical), as a point of the unit cube. It refuses, naming the
// parameter, a value of the wrong type, out of range, not an integer for an
// int, off the grid of a stepped float, or not among the choices.
func Encode(ps []Param, vals []any) ([]float64, error) {
	if len(vals) != len(ps) {
		return nil, fmt.Errorf("encode: %d values for %d parameters", len(vals), len(ps))
	}
	for i, p := range ps {
		v := vals[i]
		if p.Type == TypeCategorical {
			found := false
			for _, c := range p.Choices {
				found = found || same(c, v)
			}
			if !found {
				return nil, fmt.Errorf("%s = %v is not one of its choices %v", p.Name, v, p.Choices)
			}
			continue
		}
		n, ok := number(v)
		switch {
		case !ok || !finite(n):
			return nil, fmt.Errorf("%s = %v: must be a number", p.Name, v)
		case n < p.Low || n > p.High:
			return nil, fmt.Errorf("%s = %v is out of range [%v, %v]", p.Name, n, p.Low, p.High)
		case p.Type == TypeInt && n != math.Trunc(n):
			return nil, fmt.Errorf("%s = %v: must be an integer", p.Name, n)
		case p.Step > 0 && level(p, int(math.Round((n-p.Low)/p.Step))) != n:
			return nil, fmt.Errorf("%s = %v is not low + k·step (low %v, step %v)", p.Name, n, p.Low, p.Step)
		}
	}
	return encode(ps, vals), nil
}

// Decode maps a point of the encoded cube to parameter values by name:
// floats as float64 (a stepped float rounded to the nearest step), ints as
// int64 (rounded), categoricals as the choice with the largest coordinate
// (ties to the first). It refuses a point of another width than Dim.
func Decode(ps []Param, x []float64) (map[string]any, error) {
	if len(x) != Dim(ps) {
		return nil, fmt.Errorf("decode: a point of %d coordinates, the encoding has %d", len(x), Dim(ps))
	}
	out := make(map[string]any, len(ps))
	k := 0
	for _, p := range ps {
		if p.Type == TypeCategorical {
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
		out[p.Name] = decodeNumber(p, x[k])
		k++
	}
	return out, nil
}

// Names lists the parameters' names in order.
func Names(ps []Param) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// Describe describes the parameters for messages: "lr (float, log), opt
// (categorical)".
func Describe(ps []Param) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s", p.Name, p.Type)
		if p.Log {
			b.WriteString(", log")
		}
		if p.Step > 0 {
			fmt.Fprintf(&b, ", step %v", p.Step)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Vars are the discrete coordinates of a checked parameter list's
// encoding, for a learner that searches the encoded cube as a mixed space
// (domain.Box.Vars): one per int (step 1) and stepped float, one one-hot
// block per categorical; continuous floats have none.
func Vars(ps []Param) []domain.Var {
	var vs []domain.Var
	at := 0
	for _, p := range ps {
		switch {
		case p.Type == TypeCategorical:
			vs = append(vs, domain.Var{At: at, Width: len(p.Choices), Choices: true})
			at += len(p.Choices)
			continue
		case p.Type == TypeInt:
			vs = append(vs, domain.Var{At: at, Width: 1, Low: p.Low, High: p.High, Log: p.Log, Step: 1})
		case p.Step > 0:
			vs = append(vs, domain.Var{At: at, Width: 1, Low: p.Low, High: p.High, Log: p.Log, Step: p.Step})
		}
		at++
	}
	return vs
}
