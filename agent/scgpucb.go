package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/rule"
)

// The settings of SCGP-UCB (Zhou & Ji (CBO) Alg. 2, Thm. 3).
var (
	scgpAlpha  = failureDoc("alpha", "failure probability in β_t = B + R√(2(γ_{t−1}+1+ln(2/α))) (Thm. 3 writes ln(2/δ))", "Zhou & Ji (CBO) Thm. 3 leaves it open: our choice")
	scgpScale  = multiplierDoc("beta-scale", "multiplier on β_t", "1: Zhou & Ji (CBO) Thm. 3")
	scgpV      = bandit.FloatParam{Name: "V-scale", Default: 1, Range: bandit.Above(0), Doc: "multiplier on V_t = δ√t/(8B)", Source: "1: Zhou & Ji (CBO) Thm. 3"}
	scgpEps    = multiplierDoc("eps-scale", "multiplier on ε_t = 1/√t", "1: Zhou & Ji (CBO) Thm. 3")
	scgpParams = []bandit.Param{scgpAlpha, scgpScale, scgpV, scgpEps,
		lambdaAs("GP likelihood noise variance λ", "Zhou & Ji (CBO) §2"),
		withDoc(standardiseDoc, "on: f standardised, constraint samples scaled, unit-free; off: the paper's units")}
)

// SCGP is SCGP-UCB, Zhou & Ji (CBO) Algorithm 2: GP-UCB for f, the i.i.d. constraint
// sample g_t(·) given before each decision (stochastic full constraint
// information, Zhou & Ji (CBO) §4) and the virtual-queue rule.
type SCGP struct {
	info   bandit.Info
	rng    *rand.Rand
	f      model.Model
	beta   estimator.Beta
	rule   *rule.VirtualQueue
	ledger *Ledger
	fb     []float64
	gs     [][]float64
	score  []float64
	gAtX   []float64
	cbuf   []float64
	// std: standardise=on. f̄ is the UCB of the standardised
	// f (clipped to the standardised B); the samples enter the score and
	// the queue as g_{j,t}(x)/s_j, s_j the running scale of every sample
	// of g_j so far (this round's included). Then every constant of Zhou & Ji (CBO)
	// Alg. 2 / Thm. 3 is in standardised units: B and δ (in V_t =
	// δ√t/(8B)) from model.StandardInfo, ε_t = 1/√t (§4: the queue's drift,
	// in the units of g) now in units of s_j, and Q_j/V_t weighs a unit-free
	// g against a unit-free f̄. A sample's scale rather than an observed
	// cost's: the agent knows g_t(·) on every arm each round (§4), which
	// is the constraint's spread over the domain.
	std bool
	gs0 []runScale
}

func newSCGP(cfg Config) (*SCGP, error) {
	const name = "scgp-ucb"
	p := cfg.Params
	std, in, err := standardiseOnly(name, cfg)
	if err != nil {
		return nil, err
	}
	if !in.FullInfo {
		return nil, fmt.Errorf("%s: the problem does not give full constraint information (Info.FullInfo is false); SCGP-UCB needs a sample g_t(·) before every round (Zhou & Ji (CBO) §4)", name)
	}
	if !(in.B > 0) {
		return nil, fmt.Errorf("%s: the problem must state B > 0 (got %v)", name, in.B)
	}
	alpha, err := scgpAlpha.Read(name, p)
	if err != nil {
		return nil, err
	}
	scale, err := scgpScale.Read(name, p)
	if err != nil {
		return nil, err
	}
	vs, err := scgpV.Read(name, p)
	if err != nil {
		return nil, err
	}
	es, err := scgpEps.Read(name, p)
	if err != nil {
		return nil, err
	}
	lambda, err := lambdaParam(name, p, cfg.Horizon, in.NoiseVar)
	if err != nil {
		return nil, err
	}
	delta := in.Slater
	if !(delta > 0) {
		delta = 1 // Zhou & Ji (CBO) Ass. 1: δ ≤ 1 w.l.o.g.; unknown δ → 1
	}
	vq, err := rule.NewVirtualQueue(in.M, delta, in.B, vs, es)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var f model.Model
	if std {
		var ms []model.Model
		if ms, err = model.ForGroupOpts(in, []gp.Kernel{in.Kernel}, lambda, model.Options{Standardise: true}); err == nil {
			f = ms[0]
		}
	} else {
		f, err = model.For(in, in.Kernel, lambda)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := f.Len()
	a := &SCGP{
		info: in, rng: seedRand(cfg.Seed), f: f,
		beta: estimator.Beta{B: in.B, R: in.R, Alpha: alpha, Scale: scale},
		rule: vq, ledger: NewLedger(in.M),
		fb: make([]float64, n), score: make([]float64, n),
		gAtX: make([]float64, in.M), cbuf: make([]float64, in.M),
		std: std, gs0: make([]runScale, in.M),
	}
	for j := 0; j < in.M; j++ {
		a.gs = append(a.gs, make([]float64, n))
	}
	return a, nil
}

// Decide implements bandit.Agent: lines 2–7 of Zhou & Ji (CBO) Alg. 2.
func (a *SCGP) Decide(r *bandit.Round) (bandit.Decision, error) {
	if r.ConstraintSample == nil {
		return bandit.Decision{}, fmt.Errorf("scgp-ucb: round %d carries no constraint sample g_t(·) (Round.ConstraintSample is nil)", r.T)
	}
	if err := (estimator.UCB{}).Estimate(a.rng, a.f, a.beta.At(a.f.InfoGain()), a.fb); err != nil {
		return bandit.Decision{}, fmt.Errorf("scgp-ucb: %w", err)
	}
	estimator.Clip(a.fb, a.info.B)
	for i := range a.fb {
		r.ConstraintSample(a.f.Action(i), a.cbuf)
		for j, v := range a.cbuf {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bandit.Decision{}, fmt.Errorf("scgp-ucb: round %d: constraint sample g_%d(arm %d) = %v: must be finite", r.T, j+1, i, v)
			}
			a.gs[j][i] = v
			if a.std {
				a.gs0[j].add(v)
			}
		}
	}
	if a.std {
		for j, g := range a.gs {
			s := a.gs0[j].scale()
			for i := range g {
				g[i] /= s
			}
		}
	}
	a.rule.Score(r.T, a.fb, a.gs, a.score)
	i, err := maximise.ArgMaxFinite(a.rng, a.score)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("scgp-ucb: round %d: %w", r.T, err)
	}
	for j := range a.gs {
		a.gAtX[j] = a.gs[j][i]
	}
	a.rule.Update(r.T, a.gAtX)
	return a.ledger.Record(r.T, a.f.Action(i), 0), nil
}

// Observe implements bandit.Agent: line 8 of Zhou & Ji (CBO) Alg. 2 (costs are not
// needed: the constraint is known through its samples).
func (a *SCGP) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("scgp-ucb: %w", err)
	}
	if acc.HasReward {
		if err := a.f.Observe(acc.Action, acc.Reward); err != nil {
			return fmt.Errorf("scgp-ucb: %w", err)
		}
	}
	return nil
}

// Queue returns the virtual queues Q(t) (for tests and reports).
func (a *SCGP) Queue() []float64 { return append([]float64(nil), a.rule.Q...) }

func init() {
	Register(Spec{
		Name:    "scgp-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true, NeedsFullInfo: true, Pending: PendingHallucinate},
		Summary: "SCGP-UCB: GP-UCB with a virtual queue on sampled constraints (full info)",
		Source:  "Zhou & Ji (CBO) Alg. 2, §4, Thm. 3",
		Params:  scgpParams,
		New:     func(cfg Config) (bandit.Agent, error) { return newSCGP(cfg) },
	})
}
