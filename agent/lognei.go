package agent

import (
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// LogNEI is the offline policy: only the configuration deployed at the end
// counts. It maximises log EI (Ament et al. 2023 NeurIPS §4.1) over the
// incumbent plus Σ_j log P(g_j ≤ 0) (constrained EI of Gardner et al. 2014
// ICML §3 and Gelbart, Snoek & Adams 2014 UAI, in log space, so the scores
// still rank points where both factors underflow); before any evaluated
// point is feasible, Σ_j log P(g_j ≤ 0) alone. The incumbent is the best
// posterior mean of f among the evaluated points whose posterior means
// hold every limit: noise-free, the fitted noise interpolates and it is
// the best feasible observation; noisy, a smoothed one (the plug-in
// approximation of noisy EI, Letham et al. 2019 Bayesian Analysis §2).
// The acquisition is searched from the best candidates and the incumbent
// with BFGS polish (wideSearch, after Optuna's GPSampler: on a box from
// each start, box-polish; on a typed space of the continuous coordinates
// where the discrete steps stop, mixed-polish); from TrustAutoDim
// dimensions inside SCBO's trust region (Eriksson & Poloczek 2021;
// region=auto), the core's search there. Decisions keep the failure
// model's P(fail) ≤ fail-limit.
// In the last rounds it replicates the recommendation-to-be (confirmTurn,
// parameter confirm). Where the metrics are deterministic (parameter
// deterministic) it reads their observations, not their smoothed means,
// does not repeat an evaluated configuration, and on a box every k-th
// decision evaluates the posterior means' constrained optimum near the
// incumbent (exploitPoint, parameter exploit: COBRA's step, Regis 2014).
type LogNEI struct {
	*gpCore
	region     *regionUCB // region-acq=ucb: CONFIG's rule in the trust region (hidim.go)
	lastRounds            // the confirmation and the noisy incumbent (incumbent.go)
	polish     bool       // mixed-polish=bfgs
	each       bool       // box-polish=each or starts
	startsOnly bool       // box-polish=starts
	autoStarts bool       // box-polish=auto: starts where every metric is deterministic
	reuse      bool       // search-again=reuse
	interp     bool       // polish-search=interp
	bound      bool       // polish-trials=bound
	adjoint    bool       // polish-grad=adjoint
	delta      float64    // fail-limit
	observed   bool       // deterministic=observed
	exploit    int        // exploit: every k-th decision of a deterministic study (0: never)
	// exploit-noisy: every k-th decision where every metric is noisy (0:
	// never), the constraints held at μ + beta·σ (exploit-beta)
	exploitNoisy int
	beta         float64
	noisyFit     noisyFit // noisy-prior, noisy-refit, noisy-starts, noisy-candidates (noisyfit.go)
	repeatValue  string   // repeat-value
}

// fittedNoisy reports whether every model has fitted its hyperparameters
// to at least model.DeferFrom(d) observations and every one's noise
// variance is at least ConfirmNoise: a noisy study. One noisy fit does not
// make one: before the first fit every model has the prior's noise, and a
// noise-free metric's fit can land above ConfirmNoise (the three-bar truss
// noise-free: 2e-4 to 3e-3 at rounds 12 and 16; the spring's deflection
// constraint 1.5e-3 from round 41, the other four at 1e-6 to 5e-6).
func (a *LogNEI) fittedNoisy() bool {
	box, ok := a.info.Domain.(*domain.Box)
	if !ok {
		return false
	}
	for _, m := range a.ms {
		f, ok := m.(interface{ Fitted() bool })
		if !ok || !f.Fitted() || m.Count() < model.DeferFrom(box.Dim()) || fittedNoise(m) < ConfirmNoise {
			return false
		}
	}
	return true
}

// logNEIDeterministicDoc declares deterministic: what lognei reads at the
// evaluated configurations of a metric whose fitted noise is at its floor.
var logNEIDeterministicDoc = bandit.ChoiceParam{Name: "deterministic", Default: "observed", Choices: []string{"observed", "posterior"},
	Doc:     "where a metric's fitted noise variance is below 1e-4 of its standardised data (ConfirmNoise): observed: its observations at the evaluated configurations are its values there (the incumbent holds a limit it was observed to hold, g = 0 included), and where every metric is so a decision that would repeat an evaluated configuration (within 1e-6 of the box's diameter) is made again away from them; posterior: the posterior means alone, repeats allowed",
	Source:  "Optuna v4.6 GPSampler (deterministic_objective: the observed value is the true one); a noise-free repeat returns the value already observed and leaves the posterior of the true function unchanged; measured: docs/offline.md, \"Deterministic metrics\"",
	Earlier: []bandit.Change{{Until: 10, Value: "posterior", Why: "lognei takes a deterministic metric's observations as its values and does not repeat an evaluated configuration of a deterministic study"}}}

// polishStarts is box-polish's choice of BFGS from the starts alone, no
// batched ascent: starts, or auto in a decision where every metric is
// deterministic.
func (a *LogNEI) polishStarts(deterministic bool) bool {
	return a.startsOnly || (a.autoStarts && deterministic)
}

// logNEISearchAgainDoc declares search-again: what the second search of
// deterministic=observed recomputes.
var logNEISearchAgainDoc = bandit.ChoiceParam{Name: "search-again", Default: "reuse", Choices: []string{"reuse", "full"},
	Doc:     "boxes, where a decision searches again away from the evaluated configurations (deterministic): reuse: a start's BFGS run of the first search that scored none of them ends where it ended (the same run, its predictions equal to rounding); full: every run again",
	Source:  "our choice (away from the evaluated configurations the acquisition is unchanged); measured: docs/offline.md, \"Generation 18\"",
	Earlier: []bandit.Change{{Until: 17, Value: "full", Why: "lognei's second search takes the first search's BFGS runs that came near no evaluated configuration"}}}

// logNEIBoxPolishDoc declares box-polish.
var logNEIBoxPolishDoc = bandit.ChoiceParam{Name: "box-polish", Default: "auto", Choices: []string{"auto", "each", "best", "starts"},
	Doc:     "boxes: each: BFGS from every start of the search (the best 4 candidates and the incumbent) and from the best end of a batched gradient ascent from all of them; best: from that end alone; starts: from every start alone, no ascent (0.5–0.7 of the CPU time a decision; noise-free gaps as each's on 10 seeds, worse at 5 % noise); auto: starts where every metric is deterministic (as the parameter deterministic reads them), each elsewhere",
	Source:  "Optuna v4.6 GPSampler (optuna/_gp/optim_mixed.py: a local search from each of its 10 starts, nothing before them); measured: docs/offline.md, \"Generation 11\", \"The box polish without its ascent (opt-in)\" and \"Generation 18\"",
	Earlier: []bandit.Change{{Until: 10, Value: "best", Why: "lognei polishes every start of its search on a box by BFGS"}, {Until: 17, Value: "each", Why: "where every metric is deterministic, lognei's box polish runs BFGS from its starts alone, without the batched ascent"}}}

// logNEIFailDoc declares fail-limit, lognei's δ.
var logNEIFailDoc = bandit.FloatParam{Name: "fail-limit", Default: 0.05, Range: bandit.Range{Min: 0, Max: 1, MinEnd: bandit.Open, MaxEnd: bandit.Closed},
	Doc:     "δ: decisions keep the failure model's estimated probability of failure at most δ (FailLimit = 0.1 for every other policy)",
	Source:  "Gelbart, Snoek & Adams 2014 UAI (Pr(x runs) ≥ 1 − δ); measured: docs/offline.md, \"Generation 11\"",
	Earlier: []bandit.Change{{Until: 10, Value: "0.1", Why: "lognei keeps P(fail) at most 0.05: EI pushed to the crash frontier"}}}

// logNEIPolishDoc declares mixed-polish.
var logNEIPolishDoc = bandit.ChoiceParam{Name: "mixed-polish", Default: "bfgs", Choices: []string{"bfgs", "ascent"},
	Doc:     "typed spaces: bfgs: where no discrete step improves, BFGS polishes the continuous coordinates (scaled by f's lengthscales) and the steps are tried again; ascent: the gradient ascent alone (shortest step 1/8 of its first)",
	Source:  "Optuna v4.6 GPSampler (optuna/_gp/optim_mixed.py: L-BFGS-B on the floats, discrete values fixed); measured: docs/offline.md, \"Generation 11\"",
	Earlier: []bandit.Change{{Until: 10, Value: "ascent", Why: "lognei polishes the continuous coordinates of a typed space by BFGS"}}}

// lognei's search: the best logNEITop candidates and the incumbent start a
// local search of at most logNEIIters BFGS iterations (our choice; GPSampler
// v4.6 runs 10 local searches of up to 200 L-BFGS-B iterations).
const (
	logNEITop   = 4
	logNEIIters = 30
)

// Decide implements bandit.Agent.
func (a *LogNEI) Decide(r *bandit.Round) (bandit.Decision, error) {
	if err := a.noisyFit.settle(a.ms, a.info.Domain); err != nil {
		return bandit.Decision{}, err
	}
	if err := a.noisyFit.restore(a.ms, r.T, a.from); err != nil {
		return bandit.Decision{}, err
	}
	if a.region != nil {
		if err := a.region.priors.set(a.gpCore); err != nil {
			return bandit.Decision{}, err
		}
	}
	return a.decideTurn(r, func() (turn, error) {
		if tn, ok := a.noiseCheck(r.T); ok {
			return tn, nil
		}
		if tn, ok, spare := a.confirmTurn(r.T, a.from, a.horizon, a.polishSpare); ok {
			if spare != nil {
				if tp, ok, err := a.confirmPolish(r.T, spare); err != nil || ok {
					return tp, err
				}
			}
			return tn, nil
		}
		if tn, ok, err := a.confirmDeep(r.T); err != nil || ok {
			return tn, err
		}
		if acq, skipF, ok := a.region.acq(a.gpCore, r.T); ok {
			return turn{acq: acq, skipF: skipF, points: a.region.count(a.gpCore), failLimit: a.delta}, nil
		}
		ev, ok := a.evaluated()
		var ex []bool
		if a.observed {
			ex = a.exact()
		}
		best, at := plugInIncumbent(ev, ok, len(a.g), ex)
		deterministic := ok && len(ex) > 0 && !slices.Contains(ex, false)
		exploit := deterministic && a.exploit > 0 && r.T%a.exploit == 0
		noisy := !exploit && a.exploitNoisy > 0 && r.T%a.exploitNoisy == 0 && r.T < a.from && a.fittedNoisy()
		if (exploit || noisy) && at >= 0 {
			x, ok, err := a.exploitPoint(ev, ev.acts[at].X, a.delta, exploitAim{noisy: noisy, beta: a.beta, improve: true})
			if err != nil {
				return turn{}, err
			}
			if ok {
				act := bandit.PointAction(x)
				return playTurn(act), nil
			}
		}
		if a.observedBar && at >= 0 && a.fittedNoisy() {
			if b, ok := a.observedIncumbent(ev); ok {
				best = b
			}
		}
		bests := a.incumbents(ev, at, r.T)
		m := len(a.g)
		tau2 := 0.0 // repeat-value=augmented: f's noise variance where its fit is not exact
		if a.repeatValue == "augmented" && ok && !a.exact()[0] {
			tau2, _ = a.noiseOf(0)
		}
		acq := func(p Posterior) float64 {
			lpf := logProbFeasible(p, m)
			if at < 0 {
				return lpf
			}
			mu, v := p.F()
			return logImprovement(mu, v, best, bests) + logAugment(v, tau2) + lpf
		}
		w := &wideSearch{Top: logNEITop, Iters: logNEIIters, MixedPolish: a.polish, PolishEach: a.each, StartsOnly: a.polishStarts(deterministic), Interp: a.interp, Adjoint: a.adjoint, Monotone: a.bound, Reuse: a.reuse}
		if a.noisyFit.noisy && a.noisyFit.starts > 0 {
			w.Top = a.noisyFit.starts
		}
		if a.noisyFit.noisy {
			w.Fresh = a.noisyFit.cands
		}
		if at >= 0 && len(ev.acts[at].X) > 0 {
			w.From = [][]float64{ev.acts[at].X}
		}
		tn := turn{acq: acq, wide: w, failLimit: a.delta}
		if deterministic || a.repeatValue == "none" {
			// every metric deterministic: a repeat tells nothing; none: the
			// confirmation rounds replicate, the search does not
			tn.fresh = ev.acts
		}
		return tn, nil
	})
}

func init() {
	Register(onCore(Spec{
		Name: "lognei",
		Summary: "offline: log EI over the best feasible posterior mean + Σ log P(g_j ≤ 0), searched from many starts; " +
			"evaluations may break limits, the recommendation may not",
		Source: "Ament et al. 2023 NeurIPS (log EI); Gardner et al. 2014 ICML §3; Gelbart, Snoek & Adams 2014 UAI; Letham et al. 2019 (not in the five papers)",
		// region=auto: SCBO's trust region from TrustAutoDim dimensions.
		Params: append(replaced(CoreParams, logNEIInitDoc), regionAcqDoc, regionPointsDoc, regionPointsBeforeDoc, regionPriorMeanDoc, confirmDoc, confirmDeepDoc, confirmSpareDoc, incumbentDoc, logNEIPolishDoc, logNEIBoxPolishDoc, logNEISearchAgainDoc, polishSearchDoc, polishGradDoc, polishTrialsDoc, logNEIFailDoc, logNEIDeterministicDoc, exploitDoc, exploitNoisyDoc, exploitBetaDoc, noisyPriorDoc, noisyRefitDoc, noisyStartsDoc, noisyCandidatesDoc, noisyFinalDoc, replicatesDoc, noiseCheckDoc, repeatValueDoc),
		// The default of offline studies, every constraint kind a limit on
		// the recommendation only (docs/offline.md).
		Can: Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative, KindLongTerm},
			DefaultFor: []string{Offline, string(KindPerRound) + "+" + Offline, string(KindCumulative) + "+" + Offline, string(KindLongTerm) + "+" + Offline}},
	}, newLogNEI, "region", "auto"))
}

// newLogNEI builds lognei on its core with its trust-region rule and its
// confirmation rounds.
func newLogNEI(name string, cfg Config) (bandit.Agent, error) {
	u, err := newRegionUCB(name, cfg)
	if err != nil {
		return nil, err
	}
	from, err := confirmFrom(name, cfg.Params, cfg.Horizon)
	if err != nil {
		return nil, err
	}
	inc, err := incumbentDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	polish, err := logNEIPolishDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	each, err := logNEIBoxPolishDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	search, err := polishSearchDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	trials, err := polishTrialsDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	grad, err := polishGradDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	delta, err := logNEIFailDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	det, err := logNEIDeterministicDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	again, err := logNEISearchAgainDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	exploit, err := exploitDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	exploitNoisy, err := exploitNoisyDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	beta, err := exploitBetaDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	deep, err := confirmDeepDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	rep, err := readReplicates(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	check, err := noiseCheckDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	nf, err := readNoisyFit(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	rv, err := repeatValueDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	spare, err := confirmSpareDoc.Read(name, cfg.Params)
	if err != nil {
		return nil, err
	}
	last := lastRounds{from: from, horizon: cfg.Horizon, deep: deep, polishSpare: spare == "polish", nei: inc == "nei", neiNoisy: inc == "nei-noisy", observedBar: inc == "observed", seed: cfg.Seed}
	return policyOn(func(c *gpCore) *LogNEI {
		c.replicates = rep
		c.pureError, c.pureUnseen = check != "off", check == "unseen"
		return &LogNEI{gpCore: c, region: u, lastRounds: last, polish: polish == "bfgs", each: each != "best", startsOnly: each == "starts", autoStarts: each == "auto", interp: search == "interp", bound: trials == "bound", adjoint: grad == "adjoint", delta: delta, observed: det == "observed", reuse: again == "reuse", exploit: exploit,
			exploitNoisy: exploitNoisy, beta: beta, noisyFit: nf, repeatValue: rv}
	})(name, cfg)
}
