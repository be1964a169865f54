package agent

import (
	"fmt"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// FitsHyperparameters is what the agents do: hyper = fit fits, fixed does
// not, auto fits on a domain with coordinates and not on bare arms; and
// FitsHyper, the condition of the fit parameters' earlier defaults (the
// service's migration), is it on coordinates, as every service study has.
func TestFitsHyperparameters(t *testing.T) {
	box, err := domain.NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	arms := &domain.Finite{N: 3}
	for _, c := range []struct {
		ps        bandit.Params
		box, arms bool
	}{{bandit.Params{}, true, false}, {bandit.Params{"hyper": "auto"}, true, false}, {bandit.Params{"hyper": "fit"}, true, true}, {bandit.Params{"hyper": "fixed"}, false, false}} {
		for _, d := range []struct {
			dom  domain.Domain
			want bool
		}{{box, c.box}, {arms, c.arms}} {
			o, err := modelOptions("rpol-ucb", c.ps, d.dom, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := FitsHyperparameters(c.ps, hasCoordinates(d.dom)); got != d.want || o.Fit != d.want {
				t.Errorf("%v on %s: FitsHyperparameters %v, the agent fits %v, want %v", c.ps, d.dom, got, o.Fit, d.want)
			}
		}
		if got := FitsHyper.Holds(practicalDocs, c.ps); got != c.box {
			t.Errorf("%v: FitsHyper %v, on coordinates the agent fits %v", c.ps, got, c.box)
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
