package model_test

import (
	"fmt"
	"log"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// An exact GP posterior over five arms on a line: two observations pull the
// mean near them and shrink the variance there, the far arms keep the
// prior.
func ExampleFor() {
	dom, err := domain.NewFinite([][]float64{{0}, {0.25}, {0.5}, {0.75}, {1}})
	if err != nil {
		log.Fatal(err)
	}
	k, _ := gp.NewSE(0.2, 1) // lengthscale 0.2, variance 1
	m, err := model.For(bandit.Info{Domain: dom}, k, 0.01)
	if err != nil {
		log.Fatal(err)
	}
	for _, obs := range []struct {
		arm int
		y   float64
	}{{0, 1}, {1, 0.5}} {
		if err := m.Observe(m.Action(obs.arm), obs.y); err != nil {
			log.Fatal(err)
		}
	}
	for i := range m.Len() {
		fmt.Printf("x = %.2f: mean %.3f, variance %.3f\n", m.Action(i).X[0], m.Mean()[i], m.Var()[i])
	}
	// Output:
	// x = 0.00: mean 0.990, variance 0.010
	// x = 0.25: mean 0.499, variance 0.010
	// x = 0.50: mean 0.069, variance 0.759
	// x = 0.75: mean 0.003, variance 0.998
	// x = 1.00: mean 0.000, variance 1.000
}

// Standardised units: a model with standardisation sees (y − m)/s, so the
// same data in other units (×1000 + 50) give the same posterior in its own
// units.
func ExampleNewAdaptive() {
	dom, _ := domain.NewFinite([][]float64{{0}, {0.5}, {1}})
	k, _ := gp.NewSE(0.3, 1)
	for _, unit := range []struct{ a, b float64 }{{1, 0}, {1000, 50}} {
		m, err := model.NewAdaptive(dom, k, 0.01, model.AdaptiveOptions{Standardise: true})
		if err != nil {
			log.Fatal(err)
		}
		for i, y := range []float64{0.2, 0.9} {
			if err := m.Observe(m.Action(i), unit.a*y+unit.b); err != nil {
				log.Fatal(err)
			}
		}
		mean, s := m.Standardisation()
		fmt.Printf("units ×%g + %g: m = %.3g, s = %.3g, standardised means %.3f\n", unit.a, unit.b, mean, s, m.Mean())
	}
	// Output:
	// units ×1 + 0: m = 0.55, s = 0.35, standardised means [-0.987 0.987 0.323]
	// units ×1000 + 50: m = 600, s = 350, standardised means [-0.987 0.987 0.323]
}
