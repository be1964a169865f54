package experiment

import (
	"maps"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
)

// TestReproductionsPinThePapersSettings: every algorithm of every
// paper's experiment file that has practical defaults (it documents
// standardise, hyper and widths) runs with the papers' fixed settings —
// standardise off, hyper fixed, widths theory — so the practical defaults
// of cbandit run and the service leave the reproductions' numbers as they
// were; and algorithm_defaults reaches no algorithm that does not take the
// parameter.
func TestReproductionsPinThePapersSettings(t *testing.T) {
	want := PaperDefaults
	checked := 0
	for _, dir := range []string{"ckb", "rpol", "penalty", "stagewise"} {
		for _, name := range EmbeddedNames(dir) {
			c, err := Embedded(name)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Spec(false)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, a := range s.Algos {
				spec, err := agent.Lookup(a.ID)
				if err != nil {
					t.Fatal(err)
				}
				takes := map[string]bool{}
				for _, d := range spec.Params {
					takes[d.Describe().Name] = true
				}
				for k, v := range want {
					switch {
					case takes[k] && a.Params[k] != v:
						t.Errorf("%s: %s runs with %s = %q, want the paper's %q", name, a.ID, k, a.Params[k], v)
					case !takes[k] && a.Params[k] != "":
						t.Errorf("%s: %s is given %s = %q, which it does not take", name, a.ID, k, a.Params[k])
					case takes[k]:
						checked++
					}
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d pinned parameters checked", checked)
	}
}

// TestPaperDefaultsAreTheFilesPins: every paper's experiment file with an
// algorithm that declares a papers' setting takes them from the
// declarations (defaults: paper), and no file pins a copy of them, so `cbandit run --defaults paper` gives an algorithm
// what the reproductions give it, and a setting that moves is one
// declaration's edit.
func TestPaperDefaultsAreTheFilesPins(t *testing.T) {
	for _, dir := range []string{"ckb", "rpol", "penalty", "stagewise"} {
		for _, name := range EmbeddedNames(dir) {
			c, err := Embedded(name)
			if err != nil {
				t.Fatal(err)
			}
			takes := false // some algorithm declares a papers' setting
			for _, a := range c.Algorithms {
				spec, err := agent.Lookup(a.ID)
				if err != nil {
					t.Fatal(err)
				}
				for k := range PaperDefaults {
					takes = takes || bandit.Declares(spec.Params, k)
				}
			}
			if takes && c.Defaults != "paper" || len(c.AlgorithmDefaults) > 0 {
				t.Errorf("%s: defaults %q, algorithm_defaults %v: want defaults: paper and no copy", name, c.Defaults, c.AlgorithmDefaults)
			}
		}
	}
}

// The papers' settings read from the declarations are those the
// experiment files pinned by hand before (generation 9), so the
// reproductions decide as before.
func TestPaperDefaultsAsBefore(t *testing.T) {
	was := map[string]string{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid", "pending": "ignore", "refine": "step", "region": "global"}
	if !maps.Equal(PaperDefaults, was) {
		t.Errorf("PaperDefaults = %v, the files pinned %v", PaperDefaults, was)
	}
}
