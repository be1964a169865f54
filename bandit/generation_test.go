package bandit

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// A declaration with two earlier defaults, one of them for fitted studies
// only, and a parameter that applies with one setting.
var (
	genMode = ChoiceParam{Name: "mode", Default: "b", Choices: []string{"a", "b", "c"}, Doc: "d", Source: "s",
		Earlier: []Change{{Until: 2, Value: "a", Why: "b better"}, {Until: 4, Value: "c", If: IsNot("hyper", "fixed"), Why: "b also when fitted"}}}
	genHyper = ChoiceParam{Name: "hyper", Default: "auto", Choices: []string{"auto", "fixed"}, Doc: "d", Source: "s",
		Earlier: []Change{{Until: 1, Value: "fixed", Why: "fitted"}}}
	genWidth = FloatParam{Name: "width", Default: 2, When: Is("mode", "b"), Doc: "d", Source: "s"}
	genDecls = []Param{genHyper, genMode, genWidth}
)

// A study keeps the default of its generation: the first change after it
// whose condition holds on what is pinned so far, unless it sets the
// parameter; the current generation pins nothing.
func TestPinEarlier(t *testing.T) {
	for _, c := range []struct {
		gen   int
		given Params
		want  Params
	}{
		{0, Params{}, Params{"hyper": "fixed", "mode": "a"}},
		{2, Params{}, Params{"mode": "a"}},
		{3, Params{}, Params{"mode": "c"}},
		{3, Params{"hyper": "fixed"}, Params{"hyper": "fixed"}},
		{4, Params{"mode": "b"}, Params{"mode": "b"}},
		{5, Params{}, Params{}},
	} {
		ps := maps.Clone(c.given)
		PinEarlier(genDecls, c.gen, 5, ps)
		if !maps.Equal(ps, c.want) {
			t.Errorf("generation %d given %v: pinned %v, want %v", c.gen, c.given, ps, c.want)
		}
	}
}

func TestCond(t *testing.T) {
	for _, c := range []struct {
		c    Cond
		ps   Params
		want bool
		s    string
	}{
		{Is("mode", "b"), Params{}, true, "mode=b"},
		{Is("mode", "b"), Params{"mode": "a"}, false, "mode=b"},
		{IsNot("hyper", "fixed"), Params{}, true, "hyper≠fixed"},
		{IsNot("hyper", "fixed"), Params{"hyper": "fixed"}, false, "hyper≠fixed"},
		{Without("widths"), Params{}, true, "without widths"},
		{Without("mode"), Params{}, false, "without mode"},
		{Cond{}, Params{}, true, ""},
	} {
		if got := c.c.Holds(genDecls, c.ps); got != c.want || c.c.String() != c.s {
			t.Errorf("%+v on %v: %v %q, want %v %q", c.c, c.ps, got, c.c.String(), c.want, c.s)
		}
	}
}

// A parameter given where its setting does not hold is refused, naming
// the setting; given where it holds, or not given, it is not.
func TestApplies(t *testing.T) {
	err := Applies("x", genDecls, Params{"mode": "a", "width": "3"}, genWidth)
	if err == nil || !strings.Contains(err.Error(), "width") || !strings.Contains(err.Error(), "applies with mode=b only (mode = a)") {
		t.Errorf("width with mode=a: %v", err)
	}
	for _, ps := range []Params{{"width": "3"}, {"mode": "b", "width": "3"}, {"mode": "a"}} {
		if err := Applies("x", genDecls, ps, genWidth); err != nil {
			t.Errorf("%v: %v", ps, err)
		}
	}
	// an earlier default, which a migration pins whatever the mode, is
	// accepted where it does not apply; another value is not
	old := genWidth
	old.Earlier = []Change{{Until: 3, Value: "1", Why: "wider"}}
	if err := Applies("x", genDecls, Params{"mode": "a", "width": "1"}, old); err != nil {
		t.Errorf("the earlier default where it does not apply: %v", err)
	}
	if err := Applies("x", genDecls, Params{"mode": "a", "width": "3"}, old); err == nil {
		t.Error("width = 3 with mode=a accepted")
	}
}

// Check enforces every declaration's When where the values are read: the
// first parameter given where it does not apply is a ParamError naming
// it, after the unknown keys.
func TestCheckEnforcesWhen(t *testing.T) {
	err := Params{"mode": "c", "width": "3"}.Check("x", genDecls)
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Name != "width" || !strings.Contains(err.Error(), "x: parameter width = 3 applies with mode=b only (mode = c)") {
		t.Errorf("width with mode=c: %v", err)
	}
	if err := (Params{"zz": "1", "mode": "c", "width": "3"}).Check("x", genDecls); err == nil || !strings.Contains(err.Error(), `unknown parameter "zz"`) {
		t.Errorf("unknown key first: %v", err)
	}
	for _, ps := range []Params{{"width": "3"}, {"mode": "b", "width": "3"}, {"mode": "c"}} {
		if err := ps.Check("x", genDecls); err != nil {
			t.Errorf("%v: %v", ps, err)
		}
	}
	if err := CheckDecls("x", []Param{genWidth}); err == nil || !strings.Contains(err.Error(), "applies with mode=b, which is not declared") {
		t.Errorf("a When on an undeclared parameter: %v", err)
	}
}

// Earlier defaults out of order, without a reason or refused by their own
// declaration, and a papers' value it refuses, are declaration errors.
func TestCheckEarlier(t *testing.T) {
	if err := CheckDecls("x", genDecls); err != nil {
		t.Fatal(err)
	}
	bad := []Param{
		ChoiceParam{Name: "m", Default: "a", Choices: []string{"a", "b"}, Doc: "d", Source: "s", Earlier: []Change{{Until: 3, Value: "b", Why: "w"}, {Until: 2, Value: "b", Why: "w"}}},
		ChoiceParam{Name: "m", Default: "a", Choices: []string{"a", "b"}, Doc: "d", Source: "s", Earlier: []Change{{Until: 1, Value: "z", Why: "w"}}},
		ChoiceParam{Name: "m", Default: "a", Choices: []string{"a", "b"}, Doc: "d", Source: "s", Earlier: []Change{{Until: 1, Value: "b"}}},
		ChoiceParam{Name: "m", Default: "a", Choices: []string{"a", "b"}, Doc: "d", Source: "s", Paper: "z"},
		IntParam{Name: "n", Default: 2, Range: InClosed(1, 2), Doc: "d", Source: "s", Earlier: []Change{{Until: 1, Value: "3", Why: "w"}}},
		FloatParam{Name: "f", Computed: "c", Words: []string{"opt"}, Range: AtLeast(0), Doc: "d", Source: "s", Earlier: []Change{{Until: 1, Value: "-1", Why: "w"}}},
	}
	for _, p := range bad {
		if err := CheckDecls("x", []Param{p}); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	ok := FloatParam{Name: "f", Computed: "c", Words: []string{"opt"}, Range: AtLeast(0), Doc: "d", Source: "s", Earlier: []Change{{Until: 1, Value: "opt", Why: "w"}, {Until: 2, Value: "0.5", Why: "w"}}}
	if err := CheckDecls("x", []Param{ok}); err != nil {
		t.Error(err)
	}
}
