package bandit

import (
	"fmt"
	"slices"
	"strings"
)

// Defaults evolve by generations (the service's studies keep the
// generation they were created under, migrated as Optuna's storage
// versions are). What a generation changed is declared with the
// parameter it changed: a declaration's Earlier lists the values its
// default had before, each with the last generation that had it, and
// Paper the value the papers' reproductions pin. The service's migration
// (PinEarlier), the list of generations in its API and docs, and the
// reproductions' pins are read from the declarations, so a new
// generation is one Change on a declaration and one constant
// (docs/defaults.md, "How to add a generation").

// A Change is an earlier default of a parameter: Value was the default
// in the generations up to and including Until (and after the previous
// Change's Until). A study of such a generation keeps Value where If
// holds and the study does not set the parameter.
type Change struct {
	// Until is the last generation whose default was Value.
	Until int
	// Value is the earlier default as one would type it.
	Value string
	// If limits the change to the studies where it holds (zero: every
	// study whose algorithm declares the parameter).
	If Cond
	// Why is what generation Until+1 does instead, a phrase for the list
	// of generations ("pending decisions hallucinated (GP-BUCB)").
	Why string
}

// Cond is a condition on a parameter's value: Param = Value, or
// Param ≠ Value with Not; with Value "" (Without), that the parameter has
// no value: neither declared nor given. The zero Cond always holds.
type Cond struct {
	Param, Value string
	Not          bool
}

// Is is the condition name = value.
func Is(name, value string) Cond { return Cond{Param: name, Value: value} }

// IsNot is the condition name ≠ value.
func IsNot(name, value string) Cond { return Cond{Param: name, Value: value, Not: true} }

// Without is the condition that the algorithm neither declares nor is
// given parameter name.
func Without(name string) Cond { return Cond{Param: name} }

// Holds reports whether c holds for parameters ps of an algorithm that
// declares decls: the value of c.Param is ps's, or else its declared
// default ("" when neither).
func (c Cond) Holds(decls []Param, ps Params) bool {
	if c.Param == "" {
		return true
	}
	v := ps[c.Param]
	if v == "" {
		for _, d := range decls {
			if p := d.Describe(); p.Name == c.Param {
				v = p.Default
			}
		}
	}
	return (v == c.Value) != c.Not
}

// String is c as the docs write it: "widths=practical", "hyper≠fixed";
// "" for the zero Cond.
func (c Cond) String() string {
	switch {
	case c.Param == "":
		return ""
	case c.Value == "" && !c.Not:
		return "without " + c.Param
	case c.Not:
		return c.Param + "≠" + c.Value
	}
	return c.Param + "=" + c.Value
}

// PinEarlier sets on ps, for a study of generation gen under the newest
// generation current, the default each parameter declared in decls had in
// gen where a later generation changed it (Earlier): for g from gen to
// current−1, the Changes with Until = g whose If holds on ps as pinned so
// far, unless ps sets the parameter. A study without a generation
// (gen < 1) is of generation 1.
func PinEarlier(decls []Param, gen, current int, ps Params) {
	for g := max(gen, 1); g < current; g++ {
		for _, d := range decls {
			p := d.Describe()
			for _, c := range p.Earlier {
				if c.Until != g || !c.If.Holds(decls, ps) {
					continue
				}
				if _, set := ps[p.Name]; !set {
					ps[p.Name] = c.Value
				}
			}
		}
	}
}

// checkEarlier reports Earlier changes out of order, or a value of Earlier
// or Paper that the declaration would refuse (valid).
func checkEarlier(p ParamDoc, valid func(string) error) error {
	last := 0
	for _, c := range p.Earlier {
		if c.Until <= last {
			return fmt.Errorf("earlier default %q until generation %d: generations must increase from 1", c.Value, c.Until)
		}
		last = c.Until
		if c.Why == "" {
			return fmt.Errorf("earlier default %q until generation %d: say why it changed", c.Value, c.Until)
		}
		if err := valid(c.Value); err != nil {
			return fmt.Errorf("earlier default %q: %w", c.Value, err)
		}
	}
	if p.Paper != "" {
		if err := valid(p.Paper); err != nil {
			return fmt.Errorf("papers' value %q: %w", p.Paper, err)
		}
	}
	return nil
}

// validFor is the check of a value typed for d: what Read refuses, or for
// a number with words, one of the words.
func validFor(read func(Params) error, name string, words []string) func(string) error {
	return func(v string) error {
		for _, w := range words {
			if strings.EqualFold(strings.ReplaceAll(v, " ", ""), strings.ReplaceAll(w, " ", "")) {
				return nil
			}
		}
		return read(Params{name: v})
	}
}

// Applies refuses d given in ps where its When does not hold, the setting
// read from ps or, when ps lacks it, from its declaration in decls: a
// ParamError naming the setting ("= 3 applies with widths=practical only
// (widths = theory)"). Params.Check calls it for every declaration. An
// earlier default of d (Earlier) is accepted where it does not apply: the
// migration of a stored study pins it whether or not it applies
// (PinEarlier; region-pending=global with region=global), where it does
// nothing, and the study builds as before.
func Applies(owner string, decls []Param, ps Params, d Param) error {
	p := d.Describe()
	v, given := ps[p.Name]
	if !given || p.When.Holds(decls, ps) || slices.ContainsFunc(p.Earlier, func(c Change) bool { return c.Value == v }) {
		return nil
	}
	now := ps[p.When.Param]
	if now == "" {
		for _, q := range decls {
			if q := q.Describe(); q.Name == p.When.Param {
				now = q.Default
			}
		}
	}
	return ParamErrorf(owner, p.Name, "= %s applies with %s only (%s = %s)", v, p.When, p.When.Param, now)
}
