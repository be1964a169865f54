package agent

import (
	"math"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// noiseCheckFixture: lognei on [0, 1] (horizon 20: the confirmation from
// round 19) after ten evaluations of f = x, g = x − ½ + a noise of 1e-6,
// which every fit calls exact.
func noiseCheckFixture(t *testing.T, ps bandit.Params) *LogNEI {
	t.Helper()
	dom, err := domain.NewBox([]float64{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1}, Horizon: 20, Seed: 1, Params: ps})
	if err != nil {
		t.Fatal(err)
	}
	for r := range 10 {
		x := float64(r) / 10
		tellAt(t, ag, r+1, x, x-0.5+1e-6*math.Sin(1e3*float64(r)))
	}
	a := ag.(*LogNEI)
	if ex := a.exact(); !ex[0] || !ex[1] {
		t.Fatalf("fitted noises %v, %v: the case needs both below ConfirmNoise", fittedNoise(a.ms[0]), fittedNoise(a.ms[1]))
	}
	return a
}

func tellAt(t *testing.T, ag bandit.Agent, r int, x, g float64) {
	t.Helper()
	d, err := ag.(bandit.Imposer).Impose(&bandit.Round{T: r}, bandit.PointAction([]float64{x}))
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: x, HasReward: true, Costs: []float64{g}}); err != nil {
		t.Fatal(err)
	}
}

// TestNoiseCheck: noise-check=repeat plays the recommendation-to-be again
// at the confirmation's first round and only once; off never does.
func TestNoiseCheck(t *testing.T) {
	a := noiseCheckFixture(t, nil)
	if _, ok := a.noiseCheck(18); ok {
		t.Fatal("a repeat before the confirmation")
	}
	rec, ok := a.Recommend(confirmLevel)
	if !ok {
		t.Fatal("no recommendation-to-be")
	}
	tn, ok := a.noiseCheck(19)
	if !ok {
		t.Fatal("no repeat at the confirmation's first round")
	}
	act, err := tn.after(bandit.Action{}, 0)
	if err != nil || !slices.Equal(act.X, rec.Action.X) {
		t.Fatalf("repeat %v, %v; want the recommendation-to-be %v", act.X, err, rec.Action.X)
	}
	tellAt(t, a, 19, act.X[0], act.X[0]-0.5)
	if _, ok := a.noiseCheck(20); ok {
		t.Error("a second repeat")
	}
	if _, ok := noiseCheckFixture(t, bandit.Params{"noise-check": "off"}).noiseCheck(19); ok {
		t.Error("noise-check=off repeats")
	}
}

// TestNoiseCheckArms: on a finite domain (12 arms on [0, 1], 10 evaluated
// once, g = x − 0.75) an arm's action carries its point, so the check
// repeats the recommended arm (8, x = 8/11) once, as on a box.
func TestNoiseCheckArms(t *testing.T) {
	pts := make([][]float64, 12)
	for i := range pts {
		pts[i] = []float64{float64(i) / 11}
	}
	dom, err := domain.NewFinite(pts)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := New("lognei", Config{Info: bandit.Info{Domain: dom, M: 1}, Horizon: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*LogNEI)
	tell := func(r int, act bandit.Action) {
		t.Helper()
		d, err := a.Impose(&bandit.Round{T: r}, act)
		if err != nil {
			t.Fatal(err)
		}
		x := d.Action.X[0]
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: x, HasReward: true, Costs: []float64{x - 0.75}}); err != nil {
			t.Fatal(err)
		}
	}
	for arm := range 10 {
		tell(arm+1, bandit.ArmAction(arm))
	}
	if ex := a.exact(); !ex[0] || !ex[1] {
		t.Fatalf("exact %v: the case needs both metrics exact", ex)
	}
	tn, ok := a.noiseCheck(11)
	if !ok {
		t.Fatal("no repeat at the confirmation's round")
	}
	act, err := tn.after(bandit.Action{}, 0)
	if err != nil || act.Arm != 8 {
		t.Fatalf("repeat %+v, %v; want arm 8 (the best arm within the limit)", act, err)
	}
	tell(11, act)
	if _, ok := a.noiseCheck(12); ok {
		t.Error("a second repeat")
	}
}

// TestPureErrorPosterior: once repeats differ (by 0.02, pe = 2e-4, above
// the fitted noise), the posterior at an evaluated configuration is no more
// certain than its repeats' mean (one observation's pure error pe over
// their count, in the model's units: a constraint divided by its scale s);
// where the model is less certain than the repeats' mean (a repeat
// differing by 2e-6, pe = 2e-12, below the fit's noise floor) the repeats'
// mean and pe/2 stand there, the rest as the model says; the metric is then
// noisy (noisy()). off: the model's posterior. unseen: as repeat, but
// where pe is above the fitted noise by less than its 99 % χ² bound (one
// degree of freedom: 6.63 times; a repeat differing by twice the fitted
// noise's std) the model's posterior stands, pe recorded.
func TestPureErrorPosterior(t *testing.T) {
	f0 := noiseCheckFixture(t, nil)
	within := unitScale(t, f0.ms[1]) * 2 * math.Sqrt(fittedNoise(f0.ms[1]))
	for _, c := range []struct {
		diff float64
		mean bool // the repeats' mean replaces the model's
	}{{0.02, false}, {2e-6, true}, {within, false}} {
		for _, check := range []string{"repeat", "unseen", "off"} {
			a := noiseCheckFixture(t, bandit.Params{"noise-check": check})
			x := 0.3
			g1, g2 := x-0.5+1e-6*math.Sin(3e3), x-0.5+1e-6*math.Sin(3e3)+c.diff
			tellAt(t, a, 11, x, g2)
			ev, _ := a.evaluated()
			ratio := c.diff * c.diff / 2 / math.Pow(unitScale(t, a.ms[1]), 2) / fittedNoise(a.ms[1])
			if reach := ratio > 1 && ratio <= 6.6349; reach != (c.diff == within) {
				t.Fatalf("diff %g: pure error %g times the fitted noise: the case needs it within the fit's reach %v", c.diff, ratio, !reach)
			}
			if check == "off" || check == "unseen" && c.diff == within {
				mean, vr := make([]float64, 1), make([]float64, 1)
				if err := model.AsBatchPredictor(a.ms[1]).PredictBatch([][]float64{{x}}, mean, vr, nil, nil); err != nil {
					t.Fatal(err)
				}
				for k, act := range ev.acts {
					if act.X[0] == x && (ev.mv[k][2] != mean[0] || ev.mv[k][3] != vr[0]) {
						t.Errorf("diff %g, %s: posterior at the repeats (%v, %v), the model's (%v, %v)", c.diff, check, ev.mv[k][2], ev.mv[k][3], mean[0], vr[0])
					}
				}
				if recorded := ev.pe != nil; recorded != (check == "unseen") {
					t.Errorf("diff %g, %s: pure error recorded %v", c.diff, check, recorded)
				}
				continue
			}
			pe := c.diff * c.diff / 2
			s := unitScale(t, a.ms[1])
			one := pe / (s * s)
			if lam := fittedNoise(a.ms[1]); (lam < one) == c.mean {
				t.Fatalf("diff %g: fitted noise %v, one observation's pure error %v: the case needs it %s", c.diff, lam, one, map[bool]string{true: "above", false: "below"}[c.mean])
			}
			if !a.noisy() {
				t.Errorf("diff %g: repeats differ, noisy() false", c.diff)
			}
			for k, act := range ev.acts {
				v := ev.mv[k][3]
				if math.Abs(ev.pe[k][1]-one) > 1e-9*one {
					t.Errorf("diff %g, x %v: one observation's variance %v, want %v", c.diff, act.X, ev.pe[k][1], one)
				}
				if act.X[0] != x {
					if !c.mean && v < one*(1-1e-9) {
						t.Errorf("diff %g, x %v: variance %v below one observation's %v", c.diff, act.X, v, one)
					}
					continue
				}
				wantMean := (g1 + g2) / 2 / s
				if c.mean && (math.Abs(v-one/2) > 1e-9*one || math.Abs(ev.mv[k][2]-wantMean) > 1e-9) {
					t.Errorf("diff %g: at the repeats (%v, %v), want the repeats' (%v, %v)", c.diff, ev.mv[k][2], v, wantMean, one/2)
				}
				if !c.mean && math.Abs(v-one/2) > 1e-9*one {
					t.Errorf("diff %g: variance at the repeats %v, want pe/2 = %v", c.diff, v, one/2)
				}
			}
		}
	}
}

// unitScale is a constraint model's scale: Units(1) − Units(0) (unwarped).
func unitScale(t *testing.T, m model.Model) float64 {
	t.Helper()
	u, ok := m.(interface{ Units(float64) float64 })
	if !ok {
		t.Fatalf("%T has no Units", m)
	}
	return 1 / (u.Units(1) - u.Units(0))
}
