package agent

import (
	"fmt"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// FitsHyper, the condition of the fit parameters' earlier defaults (the
// service's migration), is the agents' own answer on a domain with
// coordinates, as every service study's is: one answer to "does this study
// fit hyperparameters".
func TestFitsHyperIsTheAgentsAnswer(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, ps := range []bandit.Params{{}, {"hyper": "auto"}, {"hyper": "fit"}, {"hyper": "fixed"}} {
		o, err := modelOptions("rpol-ucb", ps, box, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := FitsHyper.Holds(practicalDocs, ps); got != o.Fit {
			t.Errorf("%v: FitsHyper %v, the agent fits %v", ps, got, o.Fit)
		}
	}
}

// Every change of a default is declared once per parameter and
// generation (the declarations shared), and the papers' settings agree
// across the registry.
func TestDeclaredChanges(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Changes(All()) {
		k := fmt.Sprint(c.Param, "@", c.Until)
		if seen[k] {
			t.Errorf("%s changed twice in generation %d: declarations of it differ (%v)", c.Param, c.Until+1, c.Algorithms)
		}
		seen[k] = true
	}
	if _, err := PaperDefaults(All()); err != nil {
		t.Error(err)
	}
}
