// lognei's check of a noise its fits cannot see: a repeat of the recommendation-to-be, and the replicates' pure error as the least uncertainty at an evaluated configuration.

package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/model"
	"gonum.org/v1/gonum/stat/distuv"
)

// noiseCheckDoc declares lognei's noise-check.
var noiseCheckDoc = bandit.ChoiceParam{Name: "noise-check", Default: "unseen", Choices: []string{"unseen", "repeat", "off"},
	Doc:    "repeat: at the confirmation's first round, where some metric looks deterministic (its fitted noise below 1e-4 of its standardised data) and no configuration was evaluated twice, evaluate the recommendation-to-be again; a metric whose repeats differ is then noisy for the confirmation and, where its fit calls it exact, read at an evaluated configuration from its repeats there (their mean and pooled pure error over their count where more certain than the model, and never more certain than that where the fitted noise is below it); unseen: as repeat, but the posterior made no more certain than the repeats' only where their pure error exceeds the fitted noise beyond its 99 % χ² bound (a noise the fit does not see; within it the fit's posterior, which pools the neighbours, stands); off: neither",
	Source: "a noise far below a metric's spread fits below the fit's floor and the observation is read as the value (docs/offline.md, \"Generation 21\"); replication to estimate the noise: pure error (Draper & Smith 1998, §2.1), replication in stochastic design (Binois, Huang, Gramacy & Ludkovski 2019, Technometrics 61(1)); unseen measured: docs/offline.md, \"Generation 31\"",
	Earlier: []bandit.Change{{Until: 20, Value: "off", Why: "lognei repeats its recommendation-to-be once where a metric looks deterministic, and a noise its repeats show bounds its posterior"},
		{Until: 30, Value: "repeat", Why: "the repeats floor a metric's posterior only where they show more noise than its fit beyond a 99 % χ² bound"}}}

// noiseCheck is lognei's noise-check turn (repeat or unseen): at round t in the
// confirmation (t ≥ from), when no configuration was recorded twice and
// some metric is exact, the recommendation-to-be again. ok false: none.
func (a *LogNEI) noiseCheck(t int) (turn, bool) {
	if !a.pureError || t < a.from || t > a.horizon || a.ledger.repeated() {
		return turn{}, false
	}
	if !slices.Contains(a.exact(), true) {
		return turn{}, false
	}
	rec, ok := a.Recommend(confirmLevel)
	if !ok {
		return turn{}, false
	}
	act := rec.Action
	return playTurn(act), true
}

// floorPureError: where a metric's repeats differ (the ledger's pure
// error pe) but its fit calls it exact (fitted noise below ConfirmNoise: a
// noise far below its spread, which the fit's floor hides), its posterior
// at an evaluated configuration observed n times is the replicates' own
// estimate, their mean and its variance pe/n, where that is more certain
// than the model's (whose fitted noise floor, 1e-6 of the data's variance,
// can exceed the noise the repeats show), and where the fitted noise is
// below pe no more certain than pe/n — with noise-check=unseen only where
// pe exceeds it beyond its 99 % χ² bound, a noise the fit does not see
// (within it, the fit's posterior pools the neighbours); in the
// posterior's units (Units, the variance by the transform's slope at the
// mean). ev.pe records one observation's variance so. A no-op where no
// repeat differs.
func (c *gpCore) floorPureError(ev *evaluated) {
	pe, df, groups := c.ledger.pureError()
	if !slices.ContainsFunc(pe, func(v float64) bool { return v > 0 }) {
		return
	}
	// seen[j]: the ratio of pure error to fitted noise within the fit's
	// reach, χ²_{0.99}(ν)/ν over the pure error's ν degrees of freedom (a
	// one-sided test of one variance against another known).
	seen := make([]float64, len(pe))
	for j, v := range df {
		if v > 0 {
			seen[j] = distuv.ChiSquared{K: v}.Quantile(0.99) / v
		}
	}
	ev.pe = make([][]float64, len(ev.mv))
	var key []byte
	for k, act := range ev.acts {
		ev.pe[k] = make([]float64, len(c.ms))
		key = pointKey(key, act.X)
		g := groups[string(key)]
		n := 1
		if g != nil {
			n = g.n
		}
		for j, m := range c.ms {
			if w, isW := m.(*model.Window); isW {
				m = w.Model
			}
			u, ok := m.(interface{ Units(float64) float64 })
			if j >= len(pe) || pe[j] == 0 || !ok || fittedNoise(m) >= ConfirmNoise {
				continue // no repeat differs, or the fit sees a noise
			}
			sd := math.Sqrt(pe[j])
			mean := ev.obs[k][j] // one observation: its own value
			if n > 1 {
				mean = g.mean(j)
			}
			if math.IsNaN(mean) {
				continue
			}
			slope := (u.Units(mean+sd) - u.Units(mean-sd)) / 2
			one := slope * slope
			ev.pe[k][j] = one
			if v := one / float64(n); n > 1 && v < ev.mv[k][2*j+1] {
				ev.mv[k][2*j], ev.mv[k][2*j+1] = u.Units(mean), v
			} else if fittedNoise(m) < one && !(c.pureUnseen && one <= fittedNoise(m)*seen[j]) {
				// the floor where the repeats show more noise than the fit;
				// unseen: beyond the fit's reach, else its posterior pools the neighbours
				ev.mv[k][2*j+1] = math.Max(ev.mv[k][2*j+1], v)
			}
		}
	}
}

// noisy reports whether some metric is noisy for the confirmation: its
// fitted noise at least ConfirmNoise, or with noise-check its repeats
// differ.
func (c *gpCore) noisy() bool {
	if slices.ContainsFunc(c.ms, func(m model.Model) bool { return fittedNoise(m) >= ConfirmNoise }) {
		return true
	}
	return c.pureError && slices.Contains(c.ledger.replicatesDiffer(), true)
}
