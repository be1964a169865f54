package agent

import (
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/model"
)

// configParams: the practical core with one refinement step and the trust
// region, as rpol-ucb's (rpolUCBParams says why).
var (
	configAlpha = failureDoc("alpha", "failure probability α in β_t (the Chowdhury–Gopalan width CONFIG builds on)", "our choice")
	configScale = multiplierDoc("beta-scale", "multiplier on β_t", "1: Chowdhury & Gopalan 2017's β_t")
	// configFeasibility declares feasibility.
	configFeasibility = bandit.ChoiceParam{Name: "feasibility", Default: "pessimistic", Choices: []string{"pessimistic", "optimistic"}, When: bandit.IsNot("region", "global"),
		Doc:     "pessimistic (3+ dims): in the safe stage (safe-from), once an evaluation met every limit, points whose UCB of every g is ≤ 0 first (by f's UCB), then the least largest UCB of g; optimistic: CONFIG's LCB set",
		Source:  "Sui et al. 2018 (StageOpt) §4; Berkenkamp et al. 2016 (SafeOpt); measured: docs/defaults.md, \"Generation 10\"",
		Earlier: []bandit.Change{{Until: 9, Value: "optimistic", Why: "config's safe stage in the trust region: late decisions among points whose constraint UCBs hold"}}}
	// configBetaSafe declares beta-safe, the width of the safe set's UCB.
	configBetaSafe = bandit.FloatParam{Name: "beta-safe", Default: 1, Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc: "β of the constraints' UCB that decides the safe set", Source: "measured: docs/defaults.md, \"Generation 10\""}
	// configBetaSafeNoisy declares beta-safe-noisy, the safe set's width on
	// a noisy constraint.
	configBetaSafeNoisy = bandit.FloatParam{Name: "beta-safe-noisy", Computed: "3 in 7–19 dims (FreshDim to NoisyBetaBelow), beta-safe-noisy-wide from NoisyBetaBelow (20) dims on, else 0", Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "β of the safe set's UCB on a constraint whose fitted noise variance is at least 1e-4 of its standardised data (noisy, ConfirmNoise; beta-safe on the others), where beta-safe-noisy-seed allows; 0: beta-safe on every constraint",
		Source:  "SafeOpt's β_t grows with the noise (Berkenkamp et al. 2016 §3); measured: docs/live_limits.md, \"Noisy constraints\" and \"Generation 13\"",
		Earlier: []bandit.Change{{Until: 12, Value: "0", Why: "in 7–19 dims the safe set of noisy constraints at β = 3 where an evaluated point holds in it"}}}
	// configBetaNoisyWide declares beta-safe-noisy-wide, beta-safe-noisy's
	// default on boxes of NoisyBetaBelow dims or more.
	configBetaNoisyWide = bandit.FloatParam{Name: "beta-safe-noisy-wide", Default: 1.5, Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "β of the noisy safe set (beta-safe-noisy's default) on boxes of NoisyBetaBelow (20) dims or more; an explicit beta-safe-noisy overrides it",
		Source:  "SafeOpt's β grows with the noise (Berkenkamp et al. 2016 §3); measured: docs/live_limits.md, \"Generation 15: 20 parameters at 2 % noise\" (ackley20 at 2 % noise one at a time: 10/10 seeds within the late bar, from 7/10)",
		Earlier: []bandit.Change{{Until: 14, Value: "0", Why: "the noisy safe set at β = 1.5 from 20 dims on, where it was beta-safe's"}}}
	// configBetaFWide declares beta-f-wide, beta-f's default on boxes of
	// floats of NoisyBetaBelow dims or more (measured there alone).
	configBetaFWide = bandit.FloatParam{Name: "beta-f-wide", Default: 3, Range: bandit.AtLeast(0), When: bandit.Is("widths", "practical"),
		Doc:     "β of the objective (beta-f's default) on boxes of floats of NoisyBetaBelow (20) dims or more; an explicit beta-f overrides it",
		Source:  "GP-UCB's β_t grows with the dimension (Srinivas et al. 2010, Theorem 2); measured: docs/live_limits.md, \"Generation 35: the objective's width from 20 dims\"",
		Earlier: []bandit.Change{{Until: 34, Value: "2", Why: "config's UCB of the objective at β = 3 on boxes of floats of 20 dims or more"}}}
	// configFirstFit declares first-fit, when a wide box's models first fit
	// their hyperparameters.
	configFirstFit = bandit.ChoiceParam{Name: "first-fit", Default: "early", Choices: []string{"early", "doubling"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "early: on boxes of floats of NoisyBetaBelow (20) dims or more, every model (f and each g) fits its hyperparameters first at 2(d+2) observations (44 in 20 dims), hyper's first fit, then on the doubling schedule; doubling: at the schedule's first refresh from 2(d+2) on (64 in 20 dims)",
		Source:  "BoTorch and Optuna's GPSampler fit at every trial; measured: docs/live_limits.md, \"Generation 36: the first fit at 2(d+2) from 20 dims\"",
		Earlier: []bandit.Change{{Until: 35, Value: "doubling", Why: "from 20 dims config's models fit their hyperparameters first at 2(d+2) observations, not at the doubling schedule's next refresh"}}}
	// configNoisySeed declares beta-safe-noisy-seed, where beta-safe-noisy
	// applies.
	configNoisySeed = bandit.ChoiceParam{Name: "beta-safe-noisy-seed", Default: "none", Choices: []string{"evaluated", "none"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "evaluated: beta-safe-noisy only while some evaluated point lies in the safe set at it (else beta-safe everywhere); none: always",
		Source:  "SafeOpt's safe set grows from a seed set of evaluated points (Berkenkamp et al. 2016 §3); measured: docs/live_limits.md, \"Generation 13\" and \"Generation 14\" (in 7–19 dims, with safe-hold, none kept the speed reducer's late limits at 2 % noise where evaluated let seed 9 break them at β = 1)",
		Earlier: []bandit.Change{{Until: 12, Value: "none", Why: "beta-safe-noisy only while an evaluated point lies in its safe set"}, {Until: 13, Value: "evaluated", Why: "beta-safe-noisy on every noisy constraint again, safe-hold repeating an evaluated point of its set"}}}
	// configSafeFrom declares safe-from, when the safe stage starts.
	configSafeFrom = bandit.FloatParam{Name: "safe-from", Default: 0.5, Range: bandit.Range{Min: 0, Max: 1, MinEnd: bandit.Closed, MaxEnd: bandit.Closed}, When: bandit.Is("feasibility", "pessimistic"),
		Doc: "the safe stage starts at round ⌈safe-from·T⌉ (T the horizon, or the first epoch's): CONFIG's optimistic search before it", Source: "StageOpt's two stages, Sui et al. 2018 §4; measured: docs/defaults.md, \"Generation 10\""}
	// configSafePending declares safe-pending, what the safe set sees of a
	// batch's pending decisions.
	configSafePending = bandit.ChoiceParam{Name: "safe-pending", Default: "observed", Choices: []string{"observed", "hallucinated"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "a batch's later decisions in the safe stage: observed: the safe set from the evaluations observed (the pending decisions condition f alone), and a decision outside it (safe-batch-beta) repeats, of the pending decisions and the best feasible evaluation, the safe one of the largest UCB of f; hallucinated: the constraints also conditioned on the pending decisions at their posterior mean (shrinking σ about them, so the set grows on outcomes not yet seen), no repeat",
		Source:  "SafeOpt's safe set is built from observations only (Berkenkamp et al. 2016, §3); measured: docs/live_limits.md",
		Earlier: []bandit.Change{{Until: 10, Value: "hallucinated", Why: "a batch's safe set from the observed evaluations only; a later member outside it repeats a safe pending decision or the best feasible evaluation"}}}
	// configFirstPending declares first-pending, what the feasibility
	// search sees of a batch's pending decisions.
	configFirstPending = bandit.ChoiceParam{Name: "first-pending", Default: "observed", Choices: []string{"hallucinated", "observed"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "a batch's later decisions while no evaluation has met every limit (CONFIG's optimistic search): observed: the pending decisions condition f alone, so the constraints' optimistic set stays that of the evaluations observed, as safe-pending's; hallucinated: the constraints too, at their posterior mean (their LCBs rise about the pending points and the later decisions go where the constraints are least known)",
		Source:  "the safe stage's rule (safe-pending) carried to the first stage; measured: docs/live_limits.md, \"Generation 17: a batch's feasibility search from its observations\"",
		Earlier: []bandit.Change{{Until: 16, Value: "hallucinated", Why: "a batch's later decisions search for a first feasible point from the constraints' observations, f alone conditioned on the pending decisions"}}}
	// configBatchBeta declares safe-batch-beta, how sure of a new point a
	// batch's later decision must be.
	configBatchBeta = bandit.FloatParam{Name: "safe-batch-beta", Default: 1, Range: bandit.AtLeast(0), When: bandit.Is("safe-pending", "observed"),
		Doc: "β of the constraints' UCB a batch's later decision must hold ≤ 0 in the safe stage to be played; else it repeats a safe pending decision or the best feasible evaluation (safe-pending)", Source: "measured: docs/live_limits.md, \"Where g11 still breaks\""}
	// configBeforeFeasible declares before-feasible, the search while no
	// evaluation has met every limit late in the first stage.
	configBeforeFeasible = bandit.ChoiceParam{Name: "before-feasible", Default: "optimistic", Choices: []string{"optimistic", "mean", "thompson"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:    "optimistic: CONFIG's LCB set until an evaluation met every limit; thompson (opt-in): from round ⌈0.35·T⌉ (as mean) while none has, SCBO's rule: f and every g drawn jointly at the trust region's points, the best drawn f among the drawn-feasible points, else the least total drawn violation (each batch member its own draw, pending decisions conditioned); mean (opt-in): from round ⌈0.35·T⌉ while none has, points whose posterior mean of every g is ≤ 0 first, by f's UCB, else the least largest LCB of g (feasibility first: it kept every late limit of the spring in batches of 4 but found its first feasible point in a worse basin on 2 of 3 runs it changed)",
		Source: "feasibility first, as SCBO (Eriksson & Poloczek 2021, §3) and FuRBO (Ascia et al. 2025); measured: docs/live_limits.md, \"Feasibility first\" and \"SCBO's rule before feasibility (opt-in, measured)\""}
	// configSafeObserved declares safe-observed, whether an observation
	// vouches for the point keepSafe repeats.
	configSafeObserved = bandit.ChoiceParam{Name: "safe-observed", Default: "exact", Choices: []string{"exact", "model"}, When: bandit.Is("safe-pending", "observed"),
		Doc:     "what makes the best feasible evaluation safe for a batch's later decision outside the safe set to repeat: exact: its observations, when every constraint's fitted noise variance is below 1e-4 of its standardised data (deterministic metrics), else the constraints' UCBs at beta-safe; model: those UCBs alone",
		Source:  "a deterministic metric's observation is its value (as Recommend reads it, ConfirmNoise); measured: docs/live_limits.md, \"Generation 12\"",
		Earlier: []bandit.Change{{Until: 11, Value: "model", Why: "a batch's later decision outside the safe set repeats the best feasible evaluation when deterministic observations met every limit there"}}}
	// configWarp declares constraint-warp, the constraints' models in a
	// feasibility search that has found nothing by ⌈MeanFrom·T⌉.
	configWarp = bandit.ChoiceParam{Name: "constraint-warp", Default: "bilog", Choices: []string{"bilog", "none"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "bilog: from round ⌈0.35·T⌉ while no evaluation has met every limit, each constraint's model sees sign(g)·log(1 + |g|/k), k the standard deviation of its observations (WarpKnee = 1), refitted at once, so that a limit whose values span orders of magnitude is resolved near 0; none: the values as they are",
		Source:  "SCBO's bilog transform of the constraints (Eriksson & Poloczek 2021, §3); measured: docs/live_limits.md, \"Generation 13\"",
		Earlier: []bandit.Change{{Until: 12, Value: "none", Why: "a feasibility search that has found nothing by ⌈0.35·T⌉ fits the constraints on SCBO's bilog scale"}}}
	// configSafeHold declares safe-hold, what a safe-stage decision outside
	// the noisy safe set plays.
	configSafeHold = bandit.ChoiceParam{Name: "safe-hold", Default: "unseen", Choices: []string{"unseen", "evaluated", "none"}, When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "evaluated: where beta-safe-noisy acts (> 0, some constraint noisy), a safe-stage decision outside the safe set at beta-safe-noisy (the set with no point among the trust region's candidates) plays the evaluated point of the largest UCB of f inside that set (when one lies inside), repeated; unseen: that, and where beta-safe-noisy is 0 the same at beta-safe while some constraint's repeats differ but its fitted noise is below 1e-4 of its standardised data (its model interpolates the noise; noisy-replicates); none: the decision stands",
		Source:  "SafeOpt's safe set always holds its seed set of evaluated points (Berkenkamp et al. 2016 §3; Sui et al. 2015 Alg. 1); measured: docs/live_limits.md, \"Generation 14\" and \"Generation 20\"",
		Earlier: []bandit.Change{{Until: 13, Value: "none", Why: "a safe-stage decision outside the noisy safe set repeats the evaluated point of the largest UCB of f inside it"}, {Until: 19, Value: "evaluated", Why: "below 7 dims too, at beta-safe, where a constraint's repeats differ but its model fits no noise: a safe-stage decision outside the safe set repeats the evaluated point of the largest UCB of f inside it"}}}
	// configRepeatBeta declares safe-repeat-beta, how sure of an evaluated
	// point under noise a safe-stage repeat must be (opt-in).
	configRepeatBeta = bandit.FloatParam{Name: "safe-repeat-beta", Default: 0, Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc:    "opt-in: b > 0: where some constraint is noisy, a safe-stage decision that repeats an evaluated point (within RepeatRadius) whose posterior has some μ_j + b·σ_j > 0 is made again away from every such point; 0: off",
		Source: "safe-observed's vouching by observation extended to noise (a point repeated n times vouches when its mean lies about b·σ/√n inside); measured: docs/live_limits.md, \"Generation 14\""}
	// configWarpFrom declares constraint-warp-from, where the warp may start
	// (opt-in earlier than MeanFrom).
	configWarpFrom = bandit.FloatParam{Name: "constraint-warp-from", Default: MeanFrom, Range: bandit.Range{Min: 0, Max: 1, MinEnd: bandit.Closed, MaxEnd: bandit.Closed}, When: bandit.Is("constraint-warp", "bilog"),
		Doc:    "constraint-warp starts at round ⌈constraint-warp-from·T⌉ while no evaluation has met every limit (0: from the first decision after the initial design)",
		Source: "MeanFrom (docs/live_limits.md, \"Feasibility first\"); earlier (opt-in) measured: docs/live_limits.md, \"SCBO's rule before feasibility (opt-in, measured)\""}
	// configSafeRefit declares safe-refit, how often the constraints refit
	// in a wide box's noisy safe stage.
	configSafeRefit = bandit.IntParam{Name: "safe-refit", Default: 8, Range: bandit.AtLeast(0), When: bandit.Is("feasibility", "pessimistic"),
		Doc:     "k > 0: on boxes of NoisyBetaBelow (20) dims or more, from the safe stage's first decision where some constraint is noisy, every constraint's model refits its hyperparameters at once and then every k observations, not only at doublings of the data; 0: the doubling schedule alone",
		Source:  "BoTorch and Optuna's GPSampler refit every trial; the noise fitted to the first half's data left the safe set overconfident at the boundary: docs/live_limits.md, \"Generation 19\"",
		Earlier: []bandit.Change{{Until: 18, Value: "0", Why: "in 20+ dims the constraints refit every 8 observations from the noisy safe stage on"}}}
	configParams = practicalParams([]bandit.Param{configAlpha, configScale, lambdaDoc, configFeasibility, configBetaSafe, configBetaSafeNoisy, configBetaNoisyWide, configBetaFWide, configFirstFit, configSafeFrom, configSafePending, configFirstPending, configBatchBeta, configBeforeFeasible, configSafeObserved, configWarp, configWarpFrom, configNoisySeed, configSafeHold, configRepeatBeta, configSafeRefit, configWarpWide, configBetaWide, configHoldFallback, configSafeOutside, configSafeCentre, configSafeSearch, configFirstRegion, configFirstWide, replicatesDoc}, "refine", "step", "region", "trust")
)

// ConfigAgent is CONFIG (Xu et al. 2023, "constrained efficient global
// optimization"), the baseline of Guo et al. §7: play the maximiser of
// the UCB of f over the optimistic feasible set {x : LCB of every g_j ≤ 0};
// when that set is empty, play the minimiser of max_j LCB of g_j.
type ConfigAgent struct {
	*gpCore
	betaF, betaG estimator.Beta
	gmax         []float64
	// pessimistic: feasibility=pessimistic with the practical widths.
	pessimistic   bool
	betaSafe      float64
	betaNoisy     float64 // beta-safe-noisy (0: betaSafe)
	noisySeed     bool    // beta-safe-noisy-seed=evaluated
	safeFrom      int     // the first round of the safe stage
	refitEvery    int     // safe-refit
	refitting     bool    // refitSafe has set the constraints' refits
	observedG     bool    // safe-pending=observed
	firstObserved bool    // first-pending=observed
	batchBeta     float64
	firstMean     bool        // before-feasible=mean
	firstDraw     bool        // before-feasible=thompson
	meanFrom      int         // their first round: ⌈MeanFrom·T⌉
	buf           drawBuffers `snap:"-"` // thompson's joint draws
	obsSafe       bool        // safe-observed=exact
	warp          bool        // constraint-warp=bilog
	warpFrom      int         // its first round: ⌈constraint-warp-from·T⌉
	hold          bool        // safe-hold=evaluated or unseen
	holdLow       bool        // safe-hold=unseen: at beta-safe where beta-safe-noisy is 0
	fallback      int         // safe-hold-fallback: fallbackWide, fallbackAlways or 0 (none)
	likely        bool        // safe-outside=likely
	plausible     bool        // safe-centre=plausible or surest
	surest        bool        // safe-centre=surest
	shrink        bool        // safe-hold-search=shrink
	firstMeans    bool        // first-region=mean
	wideMeans     bool        // first-wide=means
	wideRatio     float64     // constraint-warp-wide (0: off)
	betaWide      float64     // beta-safe-wide
	wideChecked   bool        // warpWide has read the initial design
	wide          bool        // and put the constraints on the bilog scale
	repeatBeta    float64     // safe-repeat-beta
	earlyFit      bool        // first-fit=early
	earlyDone     bool        // fitEarly has fitted the models (or will not)
}

func newConfig(name string, cfg Config) (bandit.Agent, error) {
	ps := cfg.Params
	c, err := newGPCore(name, cfg, coreOptions{})
	if err != nil {
		return nil, err
	}
	in := c.info
	alpha, err := configAlpha.Read(name, ps)
	if err != nil {
		return nil, err
	}
	scale, err := configScale.Read(name, ps)
	if err != nil {
		return nil, err
	}
	fixed, cf, cg, err := widthParams(name, ps, in.Domain)
	if err != nil {
		return nil, err
	}
	if box, ok := in.Domain.(*domain.Box); ok && fixed && box.Dim() >= NoisyBetaBelow && !box.Mixed() {
		wide, err := configBetaFWide.Read(name, ps)
		if err != nil {
			return nil, err
		}
		if cf, err = betaFDoc.ReadOr(name, ps, wide); err != nil {
			return nil, err
		}
	}
	feas, err := configFeasibility.Read(name, ps)
	if err != nil {
		return nil, err
	}
	ff, err := configFirstFit.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bs, err := configBetaSafe.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bw, err := configBetaNoisyWide.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bn, err := configBetaSafeNoisy.ReadOr(name, ps, betaNoisyDefault(in.Domain, bw))
	if err != nil {
		return nil, err
	}
	ns, err := configNoisySeed.Read(name, ps)
	if err != nil {
		return nil, err
	}
	from, err := configSafeFrom.Read(name, ps)
	if err != nil {
		return nil, err
	}
	sp, err := configSafePending.Read(name, ps)
	if err != nil {
		return nil, err
	}
	fp, err := configFirstPending.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bb, err := configBatchBeta.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bfe, err := configBeforeFeasible.Read(name, ps)
	if err != nil {
		return nil, err
	}
	so, err := configSafeObserved.Read(name, ps)
	if err != nil {
		return nil, err
	}
	cw, err := configWarp.Read(name, ps)
	if err != nil {
		return nil, err
	}
	wf, err := configWarpFrom.Read(name, ps)
	if err != nil {
		return nil, err
	}
	sh, err := configSafeHold.Read(name, ps)
	if err != nil {
		return nil, err
	}
	rb, err := configRepeatBeta.Read(name, ps)
	if err != nil {
		return nil, err
	}
	if c.replicates, err = readReplicates(name, ps); err != nil {
		return nil, err
	}
	rf, err := configSafeRefit.Read(name, ps)
	if err != nil {
		return nil, err
	}
	ww, err := configWarpWide.Read(name, ps)
	if err != nil {
		return nil, err
	}
	bwide, err := configBetaWide.Read(name, ps)
	if err != nil {
		return nil, err
	}
	hf, err := configHoldFallback.Read(name, ps)
	if err != nil {
		return nil, err
	}
	sout, err := configSafeOutside.Read(name, ps)
	if err != nil {
		return nil, err
	}
	sc, err := configSafeCentre.Read(name, ps)
	if err != nil {
		return nil, err
	}
	ss, err := configSafeSearch.Read(name, ps)
	if err != nil {
		return nil, err
	}
	fr, err := configFirstRegion.Read(name, ps)
	if err != nil {
		return nil, err
	}
	fw, err := configFirstWide.Read(name, ps)
	if err != nil {
		return nil, err
	}
	if cw != "bilog" {
		ww = 0
	}
	// The safe stage goes with the practical widths and the trust region (3+
	// dims): the papers' settings and 1–2-D boxes keep CONFIG's rule.
	box, isBox := in.Domain.(*domain.Box)
	staged := fixed && feas == "pessimistic" && c.trust != regionGlobal && isBox && box.Dim() >= 3 && !box.Mixed()
	return &ConfigAgent{gpCore: c, gmax: make([]float64, c.f.Len()), pessimistic: staged, earlyFit: ff == "early" && FitsHyperparameters(ps, true), betaSafe: bs, betaNoisy: bn, noisySeed: ns == "evaluated", observedG: sp == "observed", firstObserved: fp == "observed", batchBeta: bb, firstMean: bfe == "mean", firstDraw: bfe == "thompson", meanFrom: int(math.Ceil(MeanFrom * float64(cfg.Horizon))), obsSafe: so == "exact", warp: cw == "bilog", warpFrom: int(math.Ceil(wf * float64(cfg.Horizon))), hold: sh != "none", holdLow: sh == "unseen", repeatBeta: rb,
		safeFrom: int(math.Ceil(from * float64(cfg.Horizon))), refitEvery: rf, wideRatio: ww, betaWide: bwide, fallback: map[string]int{"wide": fallbackWide, "always": fallbackAlways, "likelier": fallbackLikelier}[hf], likely: sout == "likely", plausible: sc != "observed", surest: sc == "surest", shrink: ss == "shrink", firstMeans: fr == "mean", wideMeans: fw == "means",
		betaF: estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cf},
		betaG: estimator.Beta{B: in.G, R: in.RG, Alpha: alpha, Scale: scale, Fixed: fixed, Const: cg}}, nil
}

// Decide implements bandit.Agent.
func (a *ConfigAgent) Decide(r *bandit.Round) (bandit.Decision, error) {
	bf := a.betaF.At(a.f.InfoGain())
	bg := make([]float64, len(a.g))
	for j, g := range a.g {
		bg[j] = a.betaG.At(g.InfoGain())
	}
	if a.pessimistic && a.earlyFit && !a.earlyDone {
		if err := a.fitEarly(); err != nil {
			return bandit.Decision{}, err
		}
	}
	if a.pessimistic && a.wideRatio > 0 && !a.wideChecked {
		if err := a.warpWide(); err != nil {
			return bandit.Decision{}, err
		}
	}
	if a.pessimistic && a.warp && r.T >= a.warpFrom && len(a.ledger.done) > 0 && !a.feasibleSeen() {
		if err := a.warpConstraints(); err != nil {
			return bandit.Decision{}, err
		}
	}
	if a.pessimistic && r.T >= a.safeFrom && a.feasibleSeen() {
		if err := a.refitSafe(); err != nil {
			return bandit.Decision{}, err
		}
		// A batch's later decisions condition f alone on the pending ones
		// (safe-pending=observed): the safe set stays that of the evaluations seen.
		a.unpendG = a.observedG
		defer func() { a.unpendG = false }()
		return a.decideTurn(r, func() (turn, error) {
			bs := a.safeBetas()
			// safe-outside=likely and safe-centre=plausible where some constraint is noisy (exact reads the fits safeBetas read).
			noisy := slices.Contains(a.exact()[1:], false)
			tn := turn{acq: safeFirst(bf, bs, a.likely && noisy), fresh: a.unvouched()}
			if a.plausible && noisy && (a.info.Domain.(*domain.Box).Dim() < TrustAutoDim || a.wideMeans) {
				tn.centre = a.safeCentre()
			}
			if a.shrink && a.info.Domain.(*domain.Box).Dim() >= FreshDim {
				tn.shrink = a.shrinkAt(bf)
			}
			tn.after = func(act bandit.Action, _ int) (bandit.Action, error) {
				act = a.holdSafe(bf, act)
				if a.observedG {
					act = a.keepSafe(bf, act)
				}
				return act, nil
			}
			return tn, nil
		})
	}
	if a.pessimistic && a.firstDraw && r.T >= a.meanFrom && len(a.ledger.done) > 0 && !a.feasibleSeen() {
		// SCBO's own rule before feasibility (Eriksson & Poloczek 2021, §3):
		// each member of a batch draws its own sample, which spreads the batch.
		return a.decideTurn(r, func() (turn, error) {
			return turn{draw: func(pend pending) (bandit.Action, error) {
				return a.thompson(&a.buf, regionIf(a.trust, a.info.Domain, a.ledger, pend), pend)
			}}, nil
		})
	}
	if a.pessimistic && a.firstMean && r.T >= a.meanFrom && len(a.ledger.done) > 0 && !a.feasibleSeen() {
		// Feasibility first: CONFIG's LCB set puts the search on the
		// infeasible side of a boundary by the constraints' width, where it
		// can crawl for the rest of the horizon (docs/live_limits.md).
		return a.decide(r, func() Acquisition { return meanFirst(bf, bg) })
	}
	// first-region=mean in the first stage, below TrustAutoDim dims (from them with first-wide=means), where some constraint's fit is not exact.
	firstMeans := a.pessimistic && a.firstMeans && len(a.ledger.done) > 0 && !a.feasibleSeen() && (a.info.Domain.(*domain.Box).Dim() < TrustAutoDim || a.wideMeans)
	if a.unpendFirst() {
		a.unpendG = true
		defer func() { a.unpendG = false }()
	}
	return a.decideTurn(r, func() (turn, error) {
		tn := turn{acq: a.optimistic(bf, bg)}
		if firstMeans && slices.Contains(a.exact()[1:], false) {
			tn.replay = a.meanReplay()
		}
		return tn, nil
	})
}

// optimistic is CONFIG's acquisition over the models as conditioned now.
func (a *ConfigAgent) optimistic(bf float64, bg []float64) Acquisition {
	// The optimistic feasible set {x : max_j LCB g_j(x) ≤ 0} over the
	// candidates decides which of CONFIG's two scores the round uses.
	for i := range a.gmax {
		a.gmax[i] = math.Inf(-1)
	}
	for j, g := range a.g {
		mu, v := g.Mean(), g.Var()
		for i := range a.gmax {
			a.gmax[i] = math.Max(a.gmax[i], mu[i]-bg[j]*math.Sqrt(v[i]))
		}
	}
	feasible := slices.ContainsFunc(a.gmax, func(v float64) bool { return v <= 0 })
	return func(p Posterior) float64 {
		gm := math.Inf(-1)
		for j := range a.g {
			mu, v := p.G(j)
			gm = math.Max(gm, mu-bg[j]*math.Sqrt(v))
		}
		if !feasible {
			return -gm
		}
		if gm > 0 {
			return -1e9 * (1 + gm) // outside the optimistic feasible set
		}
		mu, v := p.F()
		return mu + bf*math.Sqrt(v)
	}
}

// unpendFirst: CONFIG's optimistic search of the first stage, while no
// evaluation has met every limit, conditions f alone on a batch's pending
// decisions (first-pending=observed), so that the constraints' LCBs about
// them stay those of the evaluations observed.
func (a *ConfigAgent) unpendFirst() bool {
	return a.pessimistic && a.firstObserved && len(a.ledger.done) > 0 && !a.feasibleSeen()
}

// meanFirst ranks the points whose posterior mean of every g_j is ≤ 0
// first, by f's UCB, and below them the least largest LCB of g.
func meanFirst(bf float64, bg []float64) Acquisition {
	return func(p Posterior) float64 {
		gm, gl := math.Inf(-1), math.Inf(-1)
		for j := range bg {
			mu, v := p.G(j)
			gm, gl = math.Max(gm, mu), math.Max(gl, mu-bg[j]*math.Sqrt(v))
		}
		if gm > 0 {
			return -safeMargin * math.Exp(math.Min(gl, 50)) // below every point inside, ordered by gl (finite)
		}
		mu, v := p.F()
		return mu + bf*math.Sqrt(v)
	}
}

// keepSafe returns act when the constraints' models hold it safe (every
// UCB μ_j + safe-batch-beta·σ_j ≤ 0), else, of the pending decisions and
// the best feasible evaluation, the one of the largest UCB of f among those
// safe at beta-safe, repeated: a batch's later members otherwise land on
// the safe set's edge where the models are least sure, or by a trust
// region's restart (docs/live_limits.md). With none safe, or no decision
// pending, act stays.
func (a *ConfigAgent) keepSafe(bf float64, act bandit.Action) bandit.Action {
	pend := a.ledger.Pending(false, MaxPending)
	if len(pend) == 0 || act.X == nil {
		return act
	}
	if ok, isSafe := a.safeAt(act.X, uniform(a.batchBeta, len(a.g))); !ok || isSafe {
		return act
	}
	fp, isP := a.f.(model.Predictor)
	if !isP {
		return act
	}
	// With deterministic constraints (safe-observed=exact) the best
	// feasible evaluation's observations vouch for it.
	vouched := len(pend) + 1
	if inc, ok := a.incumbent(); ok {
		pend = append(pend, inc)
		if a.obsSafe && !slices.Contains(a.exact()[1:], false) {
			vouched = len(pend) - 1
		}
	}
	best, bestU, bs := -1, math.Inf(-1), a.safeBetas()
	for i, pa := range pend {
		if _, isSafe := a.safeAt(pa.X, bs); !isSafe && i != vouched {
			continue
		}
		mu, v := fp.Predict(pa.X)
		if u := mu + bf*math.Sqrt(math.Max(v, 0)); u > bestU {
			best, bestU = i, u
		}
	}
	if best < 0 {
		return act
	}
	return bandit.Action{Arm: -1, X: slices.Clone(pend[best].X)}
}

// unseenNoise reports whether some constraint's repeats differ
// (noisy-replicates) while its fitted noise is below ConfirmNoise: a noise
// small beside the constraint's spread, which its model interpolates, so
// that its UCBs near the limit cannot be trusted (docs/live_limits.md,
// "Generation 20").
func (a *ConfigAgent) unseenNoise() bool {
	if !a.replicates {
		return false
	}
	fit, rep := a.fitExact(), a.ledger.replicatesDiffer()
	for j := 1; j < len(fit) && j < len(rep); j++ {
		if fit[j] && rep[j] {
			return true
		}
	}
	return false
}

// unvouched are, with safe-repeat-beta b > 0 and some constraint noisy, the
// evaluated points whose posterior has some μ_j + b·σ_j > 0: a safe-stage
// decision does not repeat them (nil otherwise).
func (a *ConfigAgent) unvouched() []bandit.Action {
	if a.repeatBeta <= 0 || !slices.Contains(a.exact()[1:], false) {
		return nil
	}
	ev, ok := a.evaluated()
	if !ok {
		return nil
	}
	bs := uniform(a.repeatBeta, len(a.g))
	var out []bandit.Action
	for k, mv := range ev.mv {
		if ev.acts[k].X != nil && safeGate(bs, Posterior{mv}) > 0 {
			out = append(out, ev.acts[k])
		}
	}
	return out
}

// safeAt reports whether every μ_j + bs_j·σ_j ≤ 0 at x (isSafe); ok false:
// a constraint model that does not predict off its candidates.
func (a *ConfigAgent) safeAt(x []float64, bs []float64) (ok, isSafe bool) {
	for j, m := range a.g {
		p, isP := m.(model.Predictor)
		if !isP {
			return false, false
		}
		mu, v := p.Predict(x)
		if mu+bs[j]*math.Sqrt(math.Max(v, 0)) > 0 {
			return true, false
		}
	}
	return true, true
}

// safeBetas are the safe set's β_j: beta-safe-noisy on a noisy constraint
// (its fitted noise at least ConfirmNoise), beta-safe on the others; with
// beta-safe-noisy-seed=evaluated, beta-safe everywhere while no evaluated
// point lies in the set at those β (in 20 dims it held none, and the
// search left the feasible region: docs/live_limits.md, "Generation 13").
func (a *ConfigAgent) safeBetas() []float64 {
	bs, noisy := a.noisyBetas()
	if noisy && a.noisySeed && !a.seeded(bs) {
		return uniform(a.betaSafe, len(a.g))
	}
	return bs
}

// noisyBetas are beta-safe-noisy on the noisy constraints and beta-safe on
// the others, unseeded; noisy reports whether any constraint got it.
func (a *ConfigAgent) noisyBetas() (bs []float64, noisy bool) {
	bs, ex, b := uniform(a.betaSafe, len(a.g)), a.exact(), a.noisyBeta()
	for j := range bs {
		if b > 0 && !ex[1+j] {
			bs[j], noisy = b, true
		}
	}
	return bs, noisy
}

// seeded reports whether some evaluated point has every μ_j + bs_j·σ_j ≤ 0.
func (a *ConfigAgent) seeded(bs []float64) bool {
	ev, ok := a.evaluated()
	if !ok {
		return false
	}
	for _, mv := range ev.mv {
		if safeGate(bs, Posterior{mv}) <= 0 {
			return true
		}
	}
	return false
}

// betaNoisyDefault is beta-safe-noisy's default: 3 on boxes of FreshDim (7)
// to NoisyBetaBelow dimensions, where it kept ackley10's late limits at 2 %
// noise; wide (beta-safe-noisy-wide) from NoisyBetaBelow on; 0 below
// FreshDim, where the practical-defaults suite (2–6 dims) lost 4–8 % of its
// regret to it (docs/live_limits.md, "Noisy constraints", "Generation 13"
// and "Generation 15: 20 parameters at 2 % noise").
func betaNoisyDefault(dom domain.Domain, wide float64) float64 {
	box, ok := dom.(*domain.Box)
	switch {
	case !ok || box.Dim() < FreshDim:
		return 0
	case box.Dim() < NoisyBetaBelow:
		return 3
	}
	return wide
}

// NoisyBetaBelow is the dimension from which beta-safe-noisy's default is
// beta-safe-noisy-wide instead of 3: on ackley20 at 2 % noise (10 seeds)
// β = 3 kept the late limits but gave up 0.5–0.7 of the best feasible gap
// (docs/live_limits.md, "Generation 13"), where β = 1.5 kept them one at a
// time at a gap no worse by the interval ("Generation 15: 20 parameters at
// 2 % noise"). From it too, config's β of the objective is beta-f-wide.
const NoisyBetaBelow = 20

// uniform is m copies of b.
func uniform(b float64, m int) []float64 {
	bs := make([]float64, m)
	for j := range bs {
		bs[j] = b
	}
	return bs
}

// incumbent is the action of the evaluation of the largest reward that met
// every limit (ok false: none yet).
func (a *ConfigAgent) incumbent() (act bandit.Action, ok bool) {
	l, best := a.ledger, math.Inf(-1)
	for _, id := range l.done {
		e := &l.entries[id-1]
		if e.failed || !e.gotCosts || !e.gotReward || slices.ContainsFunc(e.costs, func(c float64) bool { return c > 0 }) {
			continue
		}
		if e.reward > best {
			act, best, ok = e.action, e.reward, true
		}
	}
	return act, ok
}

// MeanFrom is where before-feasible=mean (and thompson) starts, as a share of the
// horizon: after the round by which the optimistic search had met every
// limit on 39 of 40 runs (spring and welded beam, 10 seeds each, one at a
// time and in batches of 4; round 61 at the latest), so that it changes
// only a search that failed; from 0.25 it also changed a spring run that
// found one at round 61 (docs/live_limits.md, "Feasibility first").
const MeanFrom = 0.35

// safeMargin puts every point outside the safe set below every point in it
// (standardised UCBs of f are far smaller), at a magnitude where the
// refinement's central differences keep their precision.
const safeMargin = 1e4

func init() {
	Register(onCore(Spec{
		Name:    "config",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindPerRound, KindCumulative}, NeedsConstraints: true, DefaultFor: []string{string(KindPerRound)}},
		Summary: "CONFIG: UCB of f over the optimistic feasible set {LCB of g ≤ 0}",
		Source:  "Xu et al. 2023 (AISTATS), baseline of Guo et al. §7",
		Params:  configParams,
	}, newConfig))
}
