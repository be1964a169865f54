// lognei's incumbent and its last rounds: the bar its expected improvement is measured over, and the replicates that confirm the recommendation under noise.

package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
)

// plugInIncumbent is the best posterior mean of f among the evaluated
// points whose posterior means hold every limit, and its index in ev (−1
// when none does or ok is false): noise-free it is the best feasible
// observation, noisy a smoothed one (the plug-in approximation of noisy EI
// that Letham et al. 2019 Bayesian Analysis §2 discuss). Where a metric is
// exact (exact[j], nil: none is), its observation stands for its posterior
// mean: a point observed exactly on a limit (g = 0, whose smoothed mean may
// be 1e-9 above it) holds it, and f's observations choose the point.
func plugInIncumbent(ev evaluated, ok bool, m int, exact []bool) (best float64, at int) {
	best, at = math.Inf(-1), -1
	if !ok {
		return best, at
	}
	for k, mv := range ev.mv {
		feasible := true
		for j := 1; j <= m; j++ {
			y := mv[2*j]
			if j < len(exact) && exact[j] && !math.IsNaN(ev.obs[k][j]) {
				y = ev.obs[k][j]
			}
			if !(y <= 0) {
				feasible = false
			}
		}
		if feasible && (at < 0 || ev.value(k, exact) > ev.value(at, exact)) {
			best, at = mv[0], k
		}
	}
	return best, at
}

// confirmDoc declares lognei's confirm: the share of the horizon spent at
// its end replicating the configuration the recommendation is to be.
var confirmDoc = bandit.FloatParam{Name: "confirm", Default: 0.1, Range: bandit.Range{Min: 0, Max: 0.5, MinEnd: bandit.Closed, MaxEnd: bandit.Closed},
	Doc:     "in the last ⌈confirm·T⌉ rounds (T the horizon, or the epoch's), where a metric is noisy, replicate in turn the recommendation and its challenger: among the other evaluated configurations the remaining rounds could bring to P(every limit holds) ≥ 0.95, the one of largest μ_f + 1.645σ_f (search when neither exists)",
	Source:  "our rule (the final choice under noise made on the model, as reviewed by Picheny, Wagner & Ginsbourger 2013, Struct. Multidisc. Optim.); measured: docs/offline.md, \"Under noise\"",
	Earlier: []bandit.Change{{Until: 10, Value: "0", Why: "lognei replicates its recommendation and its challenger in the last tenth of the horizon where a metric is noisy"}}}

// confirmDeepDoc declares lognei's confirm-deep: what the confirmation
// evaluates when nothing is confirmable.
var confirmDeepDoc = bandit.FloatParam{Name: "confirm-deep", Default: ConfirmBeta, Range: bandit.AtLeast(0),
	Doc:     "in the confirmation rounds, where a metric is noisy and no evaluated configuration holds, or could with the rounds left be brought to, P(every limit holds) ≥ 0.95, on a box: evaluate the maximiser of f's posterior mean subject to μ_j + β·σ_j ≤ 0 for every noisy constraint (σ_j its posterior std, β the value), from the incumbent, so that the replicates have a configuration to confirm; 0, or when the solve finds none: search",
	Source:  "the kriging quantile (Picheny, Ginsbourger, Richet & Caplin 2013, Technometrics 55(1)) as the final choice's candidate; β measured: docs/offline.md, \"Generation 14: a configuration to confirm\"",
	Earlier: []bandit.Change{{Until: 13, Value: "0", Why: "where nothing is confirmable, the confirmation evaluates the posterior means' optimum that its replicates could confirm"}}}

// confirmSpareDoc declares lognei's confirm-spare: what a challenger's
// turn of the confirmation does when no challenger can overtake the leader.
var confirmSpareDoc = bandit.ChoiceParam{Name: "confirm-spare", Default: "polish", Choices: []string{"leader", "polish"},
	Doc:     "on a box of floats (not a typed space), in the confirmation, a challenger's turn with no challenger, or one whose μ_f + 1.645σ_f is under the leader's μ_f: leader: replicate the leader; polish: evaluate confirm-deep's point searched from the leader where its μ_f beats the leader's, else replicate the leader",
	Source:  "LUCB's stopping rule (Kalyanakrishnan, Tewari, Auer & Stone 2012 ICML §3); the kriging quantile (Picheny et al. 2013, Technometrics 55(1)) as the candidate to confirm; measured: docs/offline.md, \"Generation 32\"",
	Earlier: []bandit.Change{{Until: 31, Value: "leader", Why: "on a box of floats, the confirmation's turns that no challenger can use polish the leader's configuration instead of replicating it"}}}

// confirmDeep is the decision of round t in the confirmation when
// confirmTurn found nothing to replicate: the deep point of
// confirmDeepDoc, which the following rounds can confirm (ok false:
// search).
func (a *LogNEI) confirmDeep(t int) (turn, bool, error) {
	if a.deep == 0 || t < a.from || t > a.horizon || !a.noisy() {
		return turn{}, false, nil
	}
	ev, ok := a.evaluated()
	_, at := plugInIncumbent(ev, ok, len(a.g), nil)
	if at < 0 {
		return turn{}, false, nil
	}
	return a.deepTurn(ev, ev.acts[at].X, t, exploitAim{noisy: true, beta: a.deep, reps: a.horizon - t + 1})
}

// confirmPolish is the decision of a spare turn of the confirmation
// (confirm-spare=polish): confirm-deep's point searched from the leader x0
// where its μ_f beats the leader's (ok false: the leader's replicate).
func (a *LogNEI) confirmPolish(t int, x0 []float64) (turn, bool, error) {
	if a.deep == 0 {
		return turn{}, false, nil
	}
	ev, ok := a.evaluated()
	if !ok {
		return turn{}, false, nil
	}
	return a.deepTurn(ev, x0, t, exploitAim{noisy: true, beta: a.deep, reps: a.horizon - t + 1, improve: true})
}

// deepTurn evaluates exploitPoint's point from x0 as aim says.
func (a *LogNEI) deepTurn(ev evaluated, x0 []float64, t int, aim exploitAim) (turn, bool, error) {
	x, ok, err := a.exploitPoint(ev, x0, a.delta, aim)
	if err != nil || !ok {
		return turn{}, false, err
	}
	act := bandit.PointAction(x)
	return playTurn(act), true, nil
}

// playTurn is a decision that plays act as it is (the confirmation's,
// the exploitation step's and the noise check's own turns).
func playTurn(act bandit.Action) turn {
	return turn{acq: func(Posterior) float64 { return 0 }, fixed: true, own: true,
		after: func(bandit.Action, int) (bandit.Action, error) { return act, nil }}
}

// confirmLevel is the level a replicate aims the recommendation-to-be at:
// the service's (learner.RecommendLevel, which this package cannot import).
const confirmLevel = 0.95

// confirmFrom is the first round of the confirmation (parameter confirm):
// T − ⌈confirm·T⌉ + 1, past the horizon when confirm is 0.
func confirmFrom(name string, ps bandit.Params, horizon int) (int, error) {
	c, err := confirmDoc.Read(name, ps)
	if err != nil {
		return 0, err
	}
	return horizon - int(math.Ceil(c*float64(horizon))) + 1, nil
}

// confirmTurn is the decision of round t ≤ T in the confirmation (t ≥
// from), where a metric is noisy, after LUCB (Kalyanakrishnan, Tewari,
// Auer & Stone 2012 ICML), which samples the leader and its strongest
// challenger: in turn the recommendation (the leader: Recommend's choice
// at the level) and, among the other evaluated configurations that
// replicates could bring to the level with the T − t + 1 rounds left, the
// one of largest upper bound μ_f + ConfirmBeta·σ_f; either alone when the
// other is missing, played as it is. ok false: search. With stop
// (confirm-spare=polish), on a box of floats, a challenger whose upper
// bound is under the leader's mean is dropped (LUCB's stop), and a
// challenger's turn left without one returns spare, the leader's
// configuration (confirmPolish).
func (c *gpCore) confirmTurn(t, from, horizon int, stop bool) (tn turn, ok bool, spare []float64) {
	if t < from || t > horizon {
		return turn{}, false, nil
	}
	if !c.noisy() {
		return turn{}, false, nil // every metric deterministic: a replicate repeats its value
	}
	ev, ok := c.evaluated()
	if !ok {
		return turn{}, false, nil
	}
	if box, isBox := c.info.Domain.(*domain.Box); !isBox || box.Mixed() {
		stop = false // no kriging-quantile point off a box of floats (exploitPoint)
	}
	lead := c.confirmable(ev, confirmLevel, 0, 0, -1)
	k := c.confirmable(ev, confirmLevel, horizon-t+1, ConfirmBeta, lead)
	if stop && lead >= 0 && k >= 0 && ev.mv[k][0]+ConfirmBeta*math.Sqrt(math.Max(ev.mv[k][1], 0)) <= ev.mv[lead][0] {
		k = -1 // LUCB's stop: the challenger's upper bound is under the leader's mean
	}
	if lead >= 0 && stop && k < 0 && (t-from)%2 == 1 {
		spare = ev.acts[lead].X
	}
	if lead >= 0 && (k < 0 || (t-from)%2 == 0) {
		k = lead
	}
	if k < 0 {
		return turn{}, false, nil
	}
	act := ev.acts[k]
	act.X = append([]float64(nil), act.X...)
	return playTurn(act), true, spare
}

// ConfirmNoise is the fitted noise variance (in the units of the model's
// standardised data, whose variance is about 1) below which a metric counts
// as deterministic for the confirmation: a noise std under 1 % of the
// metric's spread (our choice; the fit's floor is 1e-6, model/fit.go, where
// a noise-free metric's fit lands).
const ConfirmNoise = 1e-4

// fittedNoise is m's noise variance in its standardised units (0 when m
// does not fit or report one).
func fittedNoise(m model.Model) float64 {
	if k, ok := m.(interface{ Kernel() (gp.Kernel, float64) }); ok {
		_, lam := k.Kernel()
		return lam
	}
	return 0
}

// ConfirmBeta is the width of the upper bound that picks the configuration
// to replicate: the strongest challenger of the recommendation, as LUCB's
// (Kalyanakrishnan, Tewari, Auer & Stone 2012 ICML), at the one-sided
// 95 % of the recommendation's level (Φ⁻¹(0.95)).
const ConfirmBeta = 1.645

// confirmable is the index in ev of the evaluated configuration of largest
// μ_f + beta·σ_f among those (other than ev.acts[except]'s configuration)
// whose P(every limit holds) would reach level after n more observations
// there (−1: none). Each constraint's
// posterior variance after n observations of noise variance λ_j at the
// point is 1/(1/σ²_j + n/λ_j) (the Gaussian update of one value, the other
// points' data as they are), its mean as now; a deterministic constraint
// (λ_j below ConfirmNoise, or none) keeps its variance. With n = 0 and
// beta = 0 it is Recommend's choice.
func (c *gpCore) confirmable(ev evaluated, level float64, n int, beta float64, except int) int {
	lam := make([]float64, len(c.g))
	for j, g := range c.g {
		if lam[j] = fittedNoise(g); lam[j] < ConfirmNoise {
			lam[j] = 0
		}
	}
	best, bestU := -1, 0.0
	for k, mv := range ev.mv {
		pf := 1.0
		for j := range c.g {
			mu, v := mv[2+2*j], math.Max(mv[3+2*j], 0)
			lj := lam[j]
			if ev.pe != nil {
				lj = math.Max(lj, ev.pe[k][1+j])
			}
			if n > 0 && lj > 0 {
				v = 1 / (1/math.Max(v, 1e-300) + float64(n)/lj)
			}
			pf *= normCDF(-mu / math.Sqrt(math.Max(v, 1e-18)))
		}
		if u := mv[0] + beta*math.Sqrt(math.Max(mv[1], 0)); (except < 0 || !sameAction(ev.acts[k], ev.acts[except])) && pf >= level && (best < 0 || u > bestU) {
			best, bestU = k, u
		}
	}
	return best
}

// lastRounds is lognei's state beside its core: the confirmation's rounds
// (from, horizon; parameter confirm), the incumbent (nei: parameter
// incumbent) and the seed of its draws.
type lastRounds struct {
	from, horizon int
	deep          float64 // confirm-deep's β (0: off)
	polishSpare   bool    // confirm-spare=polish
	nei           bool
	neiNoisy      bool // incumbent=nei-noisy
	observedBar   bool // incumbent=observed
	seed          uint64
}

// incumbents are the noisy incumbent's draws for the decision of round t
// (nil: the plug-in incumbent best serves): with incumbent=nei (nei-noisy:
// in a noisy study, as fittedNoisy reads it), when a point looks feasible
// (at ≥ 0) and at least half the draws have a feasible point.
func (a *LogNEI) incumbents(ev evaluated, at, t int) []float64 {
	if !(a.nei || a.neiNoisy && a.fittedNoisy()) || at < 0 {
		return nil
	}
	if a.neiNoisy {
		ev = ev.contenders()
	}
	bests := a.noisyIncumbents(ev, a.seed*1000003+uint64(t))
	if 2*len(bests) < NEIDraws {
		return nil
	}
	return bests
}

// contenders are the evaluated configurations that can be a draw's best
// feasible value (nei-noisy draws at them alone): P(every limit holds) ≥
// ContendFeasible, and μ_f + 3σ_f at least the largest μ_f − 3σ_f among
// those with P ≥ 0.99 — a screen by the marginals, as BoTorch's
// prune_inferior_points screens noisy EI's baseline by its draws.
func (ev evaluated) contenders() evaluated {
	bar := math.Inf(-1)
	for k, mv := range ev.mv {
		if ev.feasible(k, nil) >= 0.99 {
			bar = math.Max(bar, mv[0]-3*math.Sqrt(math.Max(mv[1], 0)))
		}
	}
	var keep evaluated
	for k, mv := range ev.mv {
		if ev.feasible(k, nil) >= ContendFeasible && mv[0]+3*math.Sqrt(math.Max(mv[1], 0)) >= bar {
			keep.acts = append(keep.acts, ev.acts[k])
			keep.mv = append(keep.mv, mv)
		}
	}
	return keep
}

// ContendFeasible: a configuration less likely than this to hold every
// limit is a draw's feasible best in about 32·1e−3 of noisy EI's draws.
const ContendFeasible = 1e-3

// logImprovement is log EI over the plug-in incumbent best, or over the
// noisy incumbent's draws when there are any (logNEI).
func logImprovement(mu, v, best float64, bests []float64) float64 {
	if bests != nil {
		return logNEI(mu, v, bests)
	}
	return logEI(mu, v, best)
}

// repeatValueDoc declares lognei's repeat-value.
var repeatValueDoc = bandit.ChoiceParam{Name: "repeat-value", Default: "augmented", Choices: []string{"ei", "augmented", "none"},
	Doc:     "what evaluating an evaluated configuration again is worth while searching: ei: its log EI (at the incumbent σ_f·φ(0), which can beat every other point for many rounds); augmented: log EI + log(1 − τ/√(s² + τ²)) where f's fit is not exact (s² f's posterior variance, τ² its fitted noise variance), so that a configuration measured n times scores about 1/(2n) of its EI; none: nothing, the search does not repeat one (the confirmation rounds replicate)",
	Source:  "augmented: Huang, Allen, Notz & Zeng 2006 J. Global Optim. 34 (augmented EI's factor), reviewed by Picheny, Wagner & Ginsbourger 2013 Struct. Multidiscip. Optim.; none: noisy EI's value of a baseline point is 0 (Letham et al. 2019 §3; BoTorch's qNEI); measured: docs/offline.md, \"What a repeat is worth while searching\" and \"Generation 26: a repeat's worth\"",
	Earlier: []bandit.Change{{Until: 25, Value: "ei", Why: "the search values a configuration measured n times at about 1/(2n) of its log EI where f's fit is not exact (augmented EI's factor)"}}}

// logAugment is log(1 − τ/√(v + τ²)), augmented EI's factor for a point of
// posterior variance v under a noise of variance tau2 (0 where tau2 is 0).
func logAugment(v, tau2 float64) float64 {
	if tau2 <= 0 {
		return 0
	}
	return math.Log1p(-math.Sqrt(tau2 / (math.Max(v, 0) + tau2)))
}

// incumbentDoc declares lognei's incumbent: the bar of its expected
// improvement.
var incumbentDoc = bandit.ChoiceParam{Name: "incumbent", Default: "nei-noisy", Choices: []string{"plug-in", "nei", "nei-noisy", "observed"},
	Doc:     "plug-in: EI over the best posterior mean among the evaluated points whose means hold every limit; nei: EI averaged over joint posterior draws at the evaluated points of their best feasible value (noisy EI); nei-noisy: nei where every metric is noisy (as exploit-noisy reads it), drawn at the evaluated points that can be a draw's best (P(every limit holds) ≥ 1e-3, μ_f + 3σ_f ≥ the largest μ_f − 3σ_f among those with P ≥ 0.99), plug-in elsewhere; observed: where every metric is noisy (as exploit-noisy reads it), EI over the best observed value of f among the evaluations observed to hold every limit (a bar raised by the noise), plug-in elsewhere",
	Source:  "Letham, Karrer, Ottoni & Bakshy 2019 Bayesian Analysis §2 (plug-in), §3 (noisy EI; ours keeps the candidate's own posterior, not the one conditioned on each draw); nei-noisy's screen: as BoTorch's prune_inferior_points; observed: Optuna v4.6 GPSampler (samplers/_gp/sampler.py: threshold = the best observed feasible value, noisy or not); measured: docs/offline.md, \"Under noise\", \"Exploitation under noise (opt-in)\", \"Generation 27: noisy EI where the fits are noisy\"",
	Earlier: []bandit.Change{{Until: 26, Value: "plug-in", Why: "where every metric's fit is noisy, EI is averaged over joint posterior draws of the best feasible value at the evaluated configurations that can be it (noisy EI)"}}}

// observedIncumbent is the best observation of f, in its model's
// standardised units, among the evaluated points whose every constraint
// observation is ≤ 0 (ok false: none): Optuna GPSampler's threshold.
func (c *gpCore) observedIncumbent(ev evaluated) (best float64, ok bool) {
	off, s, unitsOK := c.units(c.f, false)
	if !unitsOK || s <= 0 {
		return 0, false
	}
	best = math.Inf(-1)
	for _, o := range ev.obs {
		feasible := !math.IsNaN(o[0])
		for _, y := range o[1:] {
			if !(y <= 0) {
				feasible = false
			}
		}
		if feasible && (o[0]-off)/s > best {
			best, ok = (o[0]-off)/s, true
		}
	}
	return best, ok
}

// NEIDraws is the number of joint posterior draws of the noisy incumbent:
// a fixed number, drawn from a stream seeded by the round, so a decision
// is a function of the data (Letham et al. 2019 use quasi-Monte Carlo
// draws; ours are pseudo-random normals, their antithetic pairs).
const NEIDraws = 32

// noisyIncumbents are the best feasible values of f in NEIDraws joint
// draws of f, g_1..g_m at the evaluated points (a draw without a feasible
// point is left out); nil when a model has no joint posterior there or
// none is evaluated. seed seeds the draws.
func (c *gpCore) noisyIncumbents(ev evaluated, seed uint64) []float64 {
	n := len(ev.acts)
	if n == 0 || len(ev.acts[0].X) == 0 {
		return nil
	}
	xs := make([][]float64, n)
	for k, a := range ev.acts {
		xs[k] = a.X
	}
	draws := make([][]float64, len(c.ms)) // draws[j][s·n + k]
	z := make([]float64, n)
	rng := seedRand(seed)
	mean, cov, l := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
	for j, m := range c.ms {
		jp := model.AsJointPredictor(m)
		if jp == nil || jp.PredictJoint(xs, mean, cov) != nil || !jitteredCholesky(cov, n, l) {
			return nil
		}
		draws[j] = make([]float64, NEIDraws*n)
		for s := 0; s < NEIDraws; s += 2 {
			for k := range z {
				z[k] = rng.NormFloat64()
			}
			for k := range n {
				var v float64
				for i := 0; i <= k; i++ {
					v += l[k*n+i] * z[i]
				}
				draws[j][s*n+k], draws[j][(s+1)*n+k] = mean[k]+v, mean[k]-v
			}
		}
	}
	var bests []float64
	for s := range NEIDraws {
		best := math.Inf(-1)
		for k := range n {
			ok := true
			for j := 1; j < len(draws); j++ {
				if !(draws[j][s*n+k] <= 0) {
					ok = false
					break
				}
			}
			if ok && draws[0][s*n+k] > best {
				best = draws[0][s*n+k]
			}
		}
		if !math.IsInf(best, -1) {
			bests = append(bests, best)
		}
	}
	return bests
}

// jitteredCholesky writes the lower Cholesky factor of the n×n covariance
// cov (its lower triangle read) into l, with 1e-10 of the mean diagonal
// added, ten times more after each failure up to 1e-4 of it (as
// gp.Sampler); false when every attempt fails.
func jitteredCholesky(cov []float64, n int, l []float64) bool {
	var tr float64
	for k := range n {
		tr += cov[k*n+k]
	}
	a := make([]float64, n*n)
	for jit := 1e-10 * math.Max(tr/float64(n), 1e-300); jit <= 1e-4*math.Max(tr/float64(n), 1e-300)*1.0001; jit *= 10 {
		for i := range n {
			for k := 0; k <= i; k++ {
				a[i*n+k] = cov[i*n+k]
			}
			a[i*n+i] += jit
		}
		if cholesky(a, n, l) == nil {
			return true
		}
	}
	return false
}

// logNEI is log of the mean over bests of EI(mu, v) over each: the noisy
// incumbent's log EI (log-sum-exp, finite where every EI underflows).
func logNEI(mu, v float64, bests []float64) float64 {
	top := math.Inf(-1)
	var ls [NEIDraws]float64
	for s, b := range bests {
		ls[s] = logEI(mu, v, b)
		top = math.Max(top, ls[s])
	}
	var sum float64
	for _, x := range ls[:len(bests)] {
		sum += math.Exp(x - top)
	}
	return top + math.Log(sum/float64(len(bests)))
}

// sameAction reports whether a and b are the same configuration.
func sameAction(a, b bandit.Action) bool { return a.Arm == b.Arm && slices.Equal(a.X, b.X) }
