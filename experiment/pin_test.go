package experiment

import (
	"testing"

	"github.com/cbandit/cbandit/agent"
)

// TestReproductionsPinThePapersSettings (issue 14): every algorithm of every
// paper's experiment file that has practical defaults (it documents
// standardise, hyper and widths) runs with the papers' fixed settings —
// standardise off, hyper fixed, widths theory — so the practical defaults
// of cbandit run and the service leave the reproductions' numbers as they
// were; and algorithm_defaults reaches no algorithm that does not take the
// parameter.
func TestReproductionsPinThePapersSettings(t *testing.T) {
	want := map[string]string{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid"}
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
					takes[d.Name] = true
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
