package bandit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Params are the key=value settings of a problem or an algorithm, as typed on
// the command line or in an experiment file.
type Params map[string]string

// ParseParams turns "k=v" strings into Params; the error names the bad entry.
func ParseParams(kvs []string) (Params, error) {
	p := Params{}
	for _, kv := range kvs {
		for _, part := range strings.Split(kv, ",") {
			if part == "" {
				continue
			}
			k, v, ok := strings.Cut(part, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("parameter %q: want key=value", part)
			}
			p[k] = strings.TrimSpace(v)
		}
	}
	return p, nil
}

// Check returns an error naming the first key not among the declared ones,
// with the accepted names, or else the first parameter given where its
// declaration's When does not hold (Applies): every declaration's
// condition enforced where the values are read, at construction.
func (p Params) Check(owner string, docs []Param) error {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !Declares(docs, k) {
			names := make([]string, len(docs))
			for i, d := range docs {
				names[i] = d.Describe().Name
			}
			if len(names) == 0 {
				return &ParamError{Name: k, text: fmt.Sprintf("%s: unknown parameter %q: it takes no parameters", owner, k)}
			}
			return &ParamError{Name: k, text: fmt.Sprintf("%s: unknown parameter %q: accepted are %s", owner, k, strings.Join(names, ", "))}
		}
	}
	for _, d := range docs {
		if err := Applies(owner, docs, p, d); err != nil {
			return err
		}
	}
	return nil
}

// ParamError is a bad value of one parameter: its owner (an algorithm or a
// problem), the parameter's name and what is wrong. The service names the
// field params.<Name> from it.
type ParamError struct {
	Name string
	text string
}

func (e *ParamError) Error() string { return e.text }

// ParamErrorf is the ParamError "owner: parameter name " + format with args,
// e.g. ParamErrorf("rpol-ucb", "p", "= %v: must be in (0, 1)", v).
func ParamErrorf(owner, name, format string, args ...any) error {
	return &ParamError{Name: name, text: owner + ": parameter " + name + " " + fmt.Sprintf(format, args...)}
}

// Float returns the value of key as a float64, or def when absent: the
// parsing under FloatParam, which also checks the range.
func (p Params) Float(owner, key string, def float64) (float64, error) {
	return value(p, key, def, parseFloat(owner, key))
}

// Int returns the value of key as an int, or def when absent.
func (p Params) Int(owner, key string, def int) (int, error) {
	return value(p, key, def, parseInt(owner, key))
}

// String returns the value of key, or def when absent; when choices is not
// empty the value must be one of them.
func (p Params) String(owner, key, def string, choices ...string) (string, error) {
	return value(p, key, def, oneOf(owner, key, choices))
}

// parseFloat parses a value of parameter key as a float64.
func parseFloat(owner, key string) func(string) (float64, error) {
	return func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, ParamErrorf(owner, key, "= %q: out of range (a float64's magnitude is at most %g)", s, math.MaxFloat64)
		}
		if err != nil {
			return 0, ParamErrorf(owner, key, "= %q: not a number", s)
		}
		return v, nil
	}
}

// parseInt parses a value of parameter key as an int.
func parseInt(owner, key string) func(string) (int, error) {
	return func(s string) (int, error) {
		v, err := strconv.Atoi(s)
		if errors.Is(err, strconv.ErrRange) {
			return 0, ParamErrorf(owner, key, "= %q: out of range (an integer in [%d, %d])", s, math.MinInt, math.MaxInt)
		}
		if err != nil {
			return 0, ParamErrorf(owner, key, "= %q: not an integer", s)
		}
		return v, nil
	}
}

// oneOf accepts a value of parameter key among choices (any value when
// there are none).
func oneOf(owner, key string, choices []string) func(string) (string, error) {
	return func(s string) (string, error) {
		if len(choices) == 0 || slices.Contains(choices, s) {
			return s, nil
		}
		return "", ParamErrorf(owner, key, "= %q: accepted are %s", s, strings.Join(choices, ", "))
	}
}

// Given returns the value p gives the parameter d declares, and whether
// it gives one (set, even empty): a parameter read through its
// declaration, not its name typed again.
func (p Params) Given(d Param) (string, bool) {
	v, ok := p[d.Describe().Name]
	return v, ok
}

// Clone returns a copy of p.
func (p Params) Clone() Params {
	q := make(Params, len(p))
	for k, v := range p {
		q[k] = v
	}
	return q
}
