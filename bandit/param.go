package bandit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A Param declares one parameter of an algorithm or a problem: its name,
// type, default, accepted values, one line of what and why, and its source.
// The value is read and validated through the declaration (the Read methods
// of FloatParam, IntParam, ChoiceParam, BoolParam and StringParam), and
// `cbandit list --verbose` and docs/parameters-table.md print Describe, so
// a default is written once. The shape follows Vizier's ParameterConfig and
// Optuna's distributions: a type, bounds or choices, a default.
type Param interface {
	// Describe is the declaration in words, for listings and checks.
	Describe() ParamDoc
	// check reports a declaration whose default it would itself refuse.
	check() error
}

// ParamDoc is a Param in words: every field printable as is.
type ParamDoc struct {
	Name string
	// Type is float, int, choice, bool or string.
	Type string
	// Default is the default value as one would type it, or the name of a
	// value computed from the problem or the horizon (Computed true).
	Default  string
	Computed bool
	// Accepts says what values are accepted: a range ("(0, 1)", "[1, ∞)"),
	// choices ("gp, lipschitz"), words beside numbers ("or 1+2/T"); empty
	// when any value of the type is.
	Accepts string
	// When is the setting the parameter applies with, if only one.
	When Cond
	// Doc is one line of what the parameter does and why; Source where its
	// default comes from: a paper (author year, section), "our choice", or
	// "measured: docs/FILE".
	Doc, Source string
	// Earlier are the defaults of earlier generations, oldest first;
	// Paper is the value the papers' reproductions pin ("" where they pin
	// none). See Change.
	Earlier []Change
	Paper   string
}

// End says whether a range includes its bound.
type End uint8

// The ends of a range: none (unbounded, the zero value), closed, open.
const (
	Unbounded End = iota
	Closed
	Open
)

// Range is an interval of accepted numbers; its zero value accepts every
// number (NaN and ±Inf included), any bound refuses NaN, and an open
// bound at ±Inf refuses that infinity.
type Range struct {
	Min, Max       float64
	MinEnd, MaxEnd End
}

// In is (min, max).
func In(min, max float64) Range { return Range{min, max, Open, Open} }

// InClosed is [min, max].
func InClosed(min, max float64) Range { return Range{min, max, Closed, Closed} }

// InHalfOpen is (min, max].
func InHalfOpen(min, max float64) Range { return Range{min, max, Open, Closed} }

// AtLeast is [min, ∞): finite numbers ≥ min.
func AtLeast(min float64) Range { return Range{min, math.Inf(1), Closed, Open} }

// Above is (min, ∞): finite numbers > min.
func Above(min float64) Range { return Range{min, math.Inf(1), Open, Open} }

// Finite is (−∞, ∞): every finite number.
func Finite() Range { return Range{math.Inf(-1), math.Inf(1), Open, Open} }

// Contains reports whether r accepts v.
func (r Range) Contains(v float64) bool {
	if r == (Range{}) {
		return true
	}
	switch r.MinEnd {
	case Closed:
		if !(v >= r.Min) {
			return false
		}
	case Open:
		if !(v > r.Min) {
			return false
		}
	}
	switch r.MaxEnd {
	case Closed:
		return v <= r.Max
	case Open:
		return v < r.Max
	}
	return !math.IsNaN(v)
}

// String is r in interval notation, "" for every number.
func (r Range) String() string {
	if r == (Range{}) {
		return ""
	}
	num := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "−∞"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	lo, hi := "(−∞", "∞)"
	switch r.MinEnd {
	case Closed:
		lo = "[" + num(r.Min)
	case Open:
		lo = "(" + num(r.Min)
	}
	switch r.MaxEnd {
	case Closed:
		hi = num(r.Max) + "]"
	case Open:
		hi = num(r.Max) + ")"
	}
	return lo + ", " + hi
}

// refusal is why r refuses a value, in the words of the errors users have
// met: "must be in (0, 1)", "must be a finite number ≥ 0", "must be at
// least 1" (integers), "must be finite".
func (r Range) refusal(integer bool) string {
	switch {
	case r.MaxEnd == Open && math.IsInf(r.Max, 1) && r.MinEnd == Open && math.IsInf(r.Min, -1):
		return "must be finite"
	case r.MaxEnd == Open && math.IsInf(r.Max, 1) && r.MinEnd == Closed && integer:
		return "must be at least " + strconv.FormatFloat(r.Min, 'g', -1, 64)
	case r.MaxEnd == Open && math.IsInf(r.Max, 1) && r.MinEnd == Closed:
		return "must be a finite number ≥ " + strconv.FormatFloat(r.Min, 'g', -1, 64)
	case r.MaxEnd == Open && math.IsInf(r.Max, 1) && r.MinEnd == Open:
		return "must be a finite number > " + strconv.FormatFloat(r.Min, 'g', -1, 64)
	}
	return "must be in " + r.String()
}

// accepts is the Accepts line of a number's range and words.
func accepts(r Range, words []string) string {
	s := r.String()
	if len(words) > 0 {
		if s != "" {
			s += " or "
		}
		s += strings.Join(words, ", ")
	}
	return s
}

// orWords is the refusal's mention of the words also accepted.
func orWords(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return " (or " + strings.Join(words, ", ") + ")"
}

// FloatParam is a real-valued parameter.
type FloatParam struct {
	Name    string
	Default float64
	// Computed, when set, names a default computed from the problem or the
	// horizon ("problem's noise variance"; the reader passes the value to
	// ReadOr), or one of Words; Default is then unused.
	Computed string
	Range    Range
	// Words are values accepted beside numbers (e.g. "1+2/T"), which the
	// agent reads itself before ReadOr.
	Words []string
	// When is the setting the parameter applies with, if only one.
	When        Cond
	Doc, Source string
	// Earlier and Paper: the defaults of earlier generations and the
	// papers' value (ParamDoc).
	Earlier []Change
	Paper   string
}

// value is the one reader under every declaration's Read and ReadOr and
// Params' Float, Int and String: the value ps gives name parsed by parse
// (whose error is a ParamError naming owner and name), or def where ps
// gives none (absent or empty).
func value[T any](ps Params, name string, def T, parse func(s string) (T, error)) (T, error) {
	s, ok := ps[name]
	if !ok || s == "" {
		return def, nil
	}
	return parse(s)
}

// declared is the default of a declaration read without one given: a
// declaration whose default is computed (computed ≠ "") has its reader
// pass the value to ReadOr, and reading it with Read is a programming
// error.
func declared[T any](name, computed string, def T) T {
	if computed != "" {
		panic("bandit: parameter " + name + " has a computed default: read it with ReadOr")
	}
	return def
}

// inRange is parse with the value checked against r: a number outside it
// is a ParamError in the words of Range.refusal, naming the words also
// accepted.
func inRange[T int | float64](owner, name string, r Range, words []string, parse func(string) (T, error)) func(string) (T, error) {
	return func(s string) (T, error) {
		v, err := parse(s)
		if err != nil {
			return 0, err
		}
		if !r.Contains(float64(v)) {
			var zero T
			_, integer := any(zero).(int)
			return 0, ParamErrorf(owner, name, "= %v: %s%s", v, r.refusal(integer), orWords(words))
		}
		return v, nil
	}
}

// Read returns the value of d in ps, d.Default when absent; a value that is
// not a number or outside d.Range is a ParamError.
func (d FloatParam) Read(owner string, ps Params) (float64, error) {
	return d.ReadOr(owner, ps, declared(d.Name, d.Computed, d.Default))
}

// ReadOr is Read with the default def, the value of d.Computed.
func (d FloatParam) ReadOr(owner string, ps Params, def float64) (float64, error) {
	return value(ps, d.Name, def, inRange(owner, d.Name, d.Range, d.Words, parseFloat(owner, d.Name)))
}

// Describe implements Param.
func (d FloatParam) Describe() ParamDoc {
	def, computed := strconv.FormatFloat(d.Default, 'g', -1, 64), false
	if d.Computed != "" {
		def, computed = d.Computed, !slices.Contains(d.Words, d.Computed)
	}
	return ParamDoc{Name: d.Name, Type: "float", Default: def, Computed: computed, Accepts: accepts(d.Range, d.Words), When: d.When, Doc: d.Doc, Source: d.Source, Earlier: d.Earlier, Paper: d.Paper}
}

func (d FloatParam) check() error {
	if d.Computed == "" && !d.Range.Contains(d.Default) {
		return fmt.Errorf("default %v outside %s", d.Default, d.Range)
	}
	return checkEarlier(d.Describe(), validFor(func(ps Params) error { _, err := d.ReadOr("", ps, 0); return err }, d.Name, d.Words))
}

// IntParam is an integer parameter; its Range bounds are whole numbers.
type IntParam struct {
	Name    string
	Default int
	// Computed, Range, Words, When: as FloatParam's.
	Computed    string
	Range       Range
	Words       []string
	When        Cond
	Doc, Source string
	// Earlier and Paper: the defaults of earlier generations and the
	// papers' value (ParamDoc).
	Earlier []Change
	Paper   string
}

// Read returns the value of d in ps, d.Default when absent; a value that is
// not an integer or outside d.Range is a ParamError.
func (d IntParam) Read(owner string, ps Params) (int, error) {
	return d.ReadOr(owner, ps, declared(d.Name, d.Computed, d.Default))
}

// ReadOr is Read with the default def, the value of d.Computed.
func (d IntParam) ReadOr(owner string, ps Params, def int) (int, error) {
	return value(ps, d.Name, def, inRange(owner, d.Name, d.Range, d.Words, parseInt(owner, d.Name)))
}

// Describe implements Param.
func (d IntParam) Describe() ParamDoc {
	def, computed := strconv.Itoa(d.Default), false
	if d.Computed != "" {
		def, computed = d.Computed, !slices.Contains(d.Words, d.Computed)
	}
	return ParamDoc{Name: d.Name, Type: "int", Default: def, Computed: computed, Accepts: accepts(d.Range, d.Words), When: d.When, Doc: d.Doc, Source: d.Source, Earlier: d.Earlier, Paper: d.Paper}
}

func (d IntParam) check() error {
	if d.Computed == "" && !d.Range.Contains(float64(d.Default)) {
		return fmt.Errorf("default %d outside %s", d.Default, d.Range)
	}
	return checkEarlier(d.Describe(), validFor(func(ps Params) error { _, err := d.ReadOr("", ps, 0); return err }, d.Name, d.Words))
}

// ChoiceParam is one of a fixed set of words.
type ChoiceParam struct {
	Name    string
	Default string
	Choices []string
	When    Cond
	// Doc says what each choice does; Source as FloatParam's.
	Doc, Source string
	// Earlier and Paper: the defaults of earlier generations and the
	// papers' value (ParamDoc).
	Earlier []Change
	Paper   string
}

// Read returns the value of d in ps, d.Default when absent; a value not
// among d.Choices is a ParamError listing them.
func (d ChoiceParam) Read(owner string, ps Params) (string, error) {
	return value(ps, d.Name, d.Default, oneOf(owner, d.Name, d.Choices))
}

// Describe implements Param.
func (d ChoiceParam) Describe() ParamDoc {
	return ParamDoc{Name: d.Name, Type: "choice", Default: d.Default, Accepts: strings.Join(d.Choices, ", "), When: d.When, Doc: d.Doc, Source: d.Source, Earlier: d.Earlier, Paper: d.Paper}
}

func (d ChoiceParam) check() error {
	if !slices.Contains(d.Choices, d.Default) {
		return fmt.Errorf("default %q not among %s", d.Default, strings.Join(d.Choices, ", "))
	}
	return checkEarlier(d.Describe(), validFor(func(ps Params) error { _, err := d.Read("", ps); return err }, d.Name, nil))
}

// BoolParam is true or false (as strconv.ParseBool reads them: 1, t, T,
// TRUE, true, True, 0, f, F, FALSE, false, False).
type BoolParam struct {
	Name        string
	Default     bool
	When        Cond
	Doc, Source string
	// Earlier and Paper: the defaults of earlier generations and the
	// papers' value (ParamDoc).
	Earlier []Change
	Paper   string
}

// Read returns the value of d in ps, d.Default when absent.
func (d BoolParam) Read(owner string, ps Params) (bool, error) {
	return value(ps, d.Name, d.Default, func(s string) (bool, error) {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return false, ParamErrorf(owner, d.Name, "= %q: want true or false", s)
		}
		return v, nil
	})
}

// Describe implements Param.
func (d BoolParam) Describe() ParamDoc {
	return ParamDoc{Name: d.Name, Type: "bool", Default: strconv.FormatBool(d.Default), Accepts: "true, false", When: d.When, Doc: d.Doc, Source: d.Source, Earlier: d.Earlier, Paper: d.Paper}
}

func (d BoolParam) check() error {
	return checkEarlier(d.Describe(), validFor(func(ps Params) error { _, err := d.Read("", ps); return err }, d.Name, nil))
}

// StringParam is free text the owner parses itself (a path, a list).
type StringParam struct {
	Name    string
	Default string
	// Computed, when set, names a default computed elsewhere (the reader
	// passes its value to ReadOr).
	Computed    string
	When        Cond
	Doc, Source string
	// Earlier and Paper: the defaults of earlier generations and the
	// papers' value (ParamDoc).
	Earlier []Change
	Paper   string
}

// Read returns the value of d in ps, d.Default when absent.
func (d StringParam) Read(owner string, ps Params) string {
	return d.ReadOr(ps, declared(d.Name, d.Computed, d.Default))
}

// ReadOr is Read with the default def, the value of d.Computed.
func (d StringParam) ReadOr(ps Params, def string) string {
	s, _ := value(ps, d.Name, def, func(s string) (string, error) { return s, nil })
	return s
}

// Describe implements Param.
func (d StringParam) Describe() ParamDoc {
	def, computed := d.Default, false
	if d.Computed != "" {
		def, computed = d.Computed, true
	}
	return ParamDoc{Name: d.Name, Type: "string", Default: def, Computed: computed, When: d.When, Doc: d.Doc, Source: d.Source, Earlier: d.Earlier, Paper: d.Paper}
}

func (d StringParam) check() error {
	return checkEarlier(d.Describe(), func(string) error { return nil })
}

// CheckDecls reports a malformed list of declarations: a name declared
// twice or empty, a default its own declaration refuses, no doc or no
// source, a When on a parameter the list does not declare. Registries call it and panic on an error (a programming error
// every test run meets).
func CheckDecls(owner string, ps []Param) error {
	seen := map[string]bool{}
	for _, p := range ps {
		d := p.Describe()
		switch {
		case d.Name == "":
			return fmt.Errorf("%s: a parameter without a name", owner)
		case seen[d.Name]:
			return fmt.Errorf("%s: parameter %s declared twice", owner, d.Name)
		case d.Doc == "" || d.Source == "":
			return fmt.Errorf("%s: parameter %s needs a doc and a source", owner, d.Name)
		}
		if err := p.check(); err != nil {
			return fmt.Errorf("%s: parameter %s: %w", owner, d.Name, err)
		}
		if w := d.When.Param; w != "" && !Declares(ps, w) {
			return fmt.Errorf("%s: parameter %s applies with %s, which is not declared", owner, d.Name, d.When)
		}
		seen[d.Name] = true
	}
	return nil
}

// Declares reports whether ps declares a parameter named name.
func Declares(ps []Param, name string) bool {
	return slices.ContainsFunc(ps, func(p Param) bool { return p.Describe().Name == name })
}

// Values says what values d takes, in words: "float in (0, 1) or 1+2/T",
// "choice of gp, lipschitz", "bool", "int in [1, ∞)", and the setting it
// applies with when there is one.
func (d ParamDoc) Values() string {
	s := d.Type
	switch {
	case d.Type == "choice":
		s += " of " + d.Accepts
	case d.Type == "bool":
	case d.Accepts != "" && strings.HasPrefix(d.Accepts, "(") || strings.HasPrefix(d.Accepts, "["):
		s += " in " + d.Accepts
	case d.Accepts != "":
		s += " or " + d.Accepts
	}
	if w := d.When.String(); w != "" {
		s += "; with " + w
	}
	return s
}
