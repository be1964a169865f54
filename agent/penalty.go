package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/rule"
)

// The settings of Shi & Eryilmaz 2022 Alg. 2–3 (penalty-noiseless, penalty-noisy).
var (
	penaltyS = bandit.IntParam{Name: "S", Default: 20, Range: bandit.AtLeast(1), Doc: "epoch length S", Source: "Shi & Eryilmaz 2022 App. E.1.1: S = 20"}
	penaltyL = bandit.IntParam{Name: "L", Computed: "⌈T/S⌉", Range: bandit.AtLeast(1),
		Doc: "number of epochs L; enters β through δ/L; L·S must cover the horizon", Source: "Shi & Eryilmaz 2022 Alg. 2–3: T = LS"}
	penaltyHistory = bandit.ChoiceParam{Name: "history", Default: "epoch", Choices: []string{"all", "epoch"},
		Doc: "epoch: a fresh IGP-UCB per epoch; all: every observation kept (our variant)", Source: "Shi & Eryilmaz 2022 Alg. 2–3"}
	penaltyPsi = bandit.ChoiceParam{Name: "psi", Default: "exp", Choices: []string{"exp", "poly"},
		Doc: "ψ: exp = eq. (10) exp(cx), poly = eq. (9) (cx+1)^n", Source: "Shi & Eryilmaz 2022 App. E.1.1 uses ψ(x) = exp(x)"}
	penaltyC        = bandit.FloatParam{Name: "c", Default: 1, Range: bandit.Above(0), Doc: "c of eq. (9)–(10)", Source: "Shi & Eryilmaz 2022 App. E.1.1: ψ(x) = exp(x), so c = 1"}
	penaltyN        = bandit.FloatParam{Name: "n", Default: 2, When: bandit.Is("psi", "poly"), Doc: "n ≥ 1 of eq. (9); §5.1 needs n > 1 for a sublinear CV", Source: "our choice"}
	penaltyKappaMax = bandit.FloatParam{Name: "kappa-max", Default: 1e12, Range: bandit.Range{Min: 1, Max: math.Inf(1), MinEnd: bandit.Closed, MaxEnd: bandit.Closed},
		Doc: "overflow guard: κ_j is capped here (§5.1 warns that ψ = exp overflows κ)", Source: "our choice"}
	penaltyMu = bandit.FloatParam{Name: "mu", Default: 0.5, Range: bandit.Above(0),
		Doc: "step μ of the additive κ update (Thm. 2: μ = O(1/√L))", Source: "Shi & Eryilmaz 2022 App. E.1.2: μ = 0.5"}
)

var penaltyCommon = []bandit.Param{penaltyS, penaltyL, penaltyHistory}

var penaltyNoiselessParams = append(append(slices.Clone(igpParams), penaltyCommon...), penaltyPsi, penaltyC, penaltyN, penaltyKappaMax)

var penaltyNoisyParams = append(append(slices.Clone(igpParams), penaltyCommon...), penaltyMu)

// Penalty is Shi & Eryilmaz 2022 Alg. 2 (penalty-noiseless) and Alg. 3 (penalty-noisy):
// epochs of S rounds; inside epoch l, IGP-UCB (Alg. 1) on
//
//	Alg. 2: F_l = f − Σ_j κ_j^l (ψ(g_j) − 1),  noise R,          δ/L;
//	Alg. 3: G_l = f − Σ_j κ_j^l g_j,          noise √(1+Σκ²)·R,  δ/(2L);
//
// after it the κ update of rule.Penalty. F_l is modelled as the GP on the
// penalised values F_l(x_s) = y_s − Σ_j κ_j^l h_j(x_s), with h_j = ψ(g_j)−1
// from the exact g of Alg. 2 or h_j = the noisy cost of Alg. 3, kept as one
// GP per term (igpCore) so that a new κ re-weights the whole history exactly.
type Penalty struct {
	name    string
	noisy   bool
	core    *igpCore
	rule    *rule.Penalty
	ledger  *Ledger
	L       int
	history string
	epoch   int // epoch of the models (history=epoch)
	// costs: a decision's costs as they entered the κ update (divided by
	// the running scale with std), kept until its reward is in
	costs map[int64][]float64
	h     []float64
	// std: standardise=on. Every cost is divided by the running scale of
	// its metric (cs, over every cost observed so far, this one included)
	// before it enters the κ update and the h GPs: then ψ's argument c·g
	// (eq. 9–10: c has the units of 1/g), the step μ·ḡ (Alg. 3: κ has the
	// units of f per g) and κ itself are unit-free, and F_l = f − Σ κ_j h_j
	// is in the objective's standardised units (its GP is standardised,
	// igpCore). B, R and λ come from model.StandardInfo; S, L, δ, n and
	// kappa-max carry no units. Our choice: Shi & Eryilmaz 2022 state their
	// algorithms for known units.
	std bool
	cs  []runScale
}

func newPenalty(name string, noisy bool, cfg Config) (*Penalty, error) {
	in, ps := cfg.Info, cfg.Params
	if !noisy && in.RG > 0 {
		return nil, fmt.Errorf("%s: the problem declares noisy constraint observations (cost noise scale %v); Alg. 2 needs exact g (Shi & Eryilmaz 2022 §5): use penalty-noisy (§6) or a noiseless problem setting", name, in.RG)
	}
	S, err := penaltyS.Read(name, ps)
	if err != nil {
		return nil, err
	}
	T := cfg.Horizon
	L, err := penaltyL.ReadOr(name, ps, (T+S-1)/S)
	if err != nil {
		return nil, err
	}
	if L*S < T {
		return nil, fmt.Errorf("%s: parameters L = %d, S = %d: L·S = %d rounds do not cover the horizon T = %d (Shi & Eryilmaz 2022: T = LS)", name, L, S, L*S, T)
	}
	hist, err := penaltyHistory.Read(name, ps)
	if err != nil {
		return nil, err
	}
	var r *rule.Penalty
	if noisy {
		mu, err := penaltyMu.Read(name, ps)
		if err != nil {
			return nil, err
		}
		if r, err = rule.NewAdditive(in.M, S, mu); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		kind, err := penaltyPsi.Read(name, ps)
		if err != nil {
			return nil, err
		}
		c, err := penaltyC.Read(name, ps)
		if err != nil {
			return nil, err
		}
		n, err := penaltyN.Read(name, ps)
		if err != nil {
			return nil, err
		}
		kmax, err := penaltyKappaMax.Read(name, ps)
		if err != nil {
			return nil, err
		}
		psi, err := rule.NewPsi(kind, c, n)
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %w", name, err)
		}
		if r, err = rule.NewMultiplicative(in.M, S, psi, kmax); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	core, err := newIGPCore(name, cfg, in.M, hPlain)
	if err != nil {
		return nil, err
	}
	return &Penalty{name: name, noisy: noisy, core: core, rule: r, ledger: core.ledger, L: L,
		history: hist, costs: map[int64][]float64{}, h: make([]float64, in.M),
		std: core.std, cs: make([]runScale, in.M)}, nil
}

// Decide implements bandit.Agent: one step of IGP-UCB on F_l (Alg. 2 line 3,
// Alg. 3) with the κ in force.
func (a *Penalty) Decide(r *bandit.Round) (bandit.Decision, error) {
	k := a.ledger.Decisions() + 1
	e := a.rule.EpochOf(k)
	if a.history == "epoch" && e != a.epoch {
		a.core.reset() // a new IGP-UCB run (Alg. 2 line 3)
		a.epoch = e
	}
	R, div := a.core.info.R, float64(a.L)
	if a.noisy {
		// Shi & Eryilmaz 2022 Alg. 3: noise scale √(1 + Σ_j (κ_j^l)²)·R, confidence δ/(2L).
		s := 1.0
		for _, kj := range a.rule.Kappa {
			s += kj * kj
		}
		R, div = math.Sqrt(s)*R, 2*div
	}
	beta := a.core.Beta(R, div)
	a.core.epoch = e // the decision's tag
	return a.core.decide(r, func() Acquisition { return a.core.ucb(a.rule.Kappa, beta) })
}

// Observe implements bandit.Agent: costs enter the κ update of their epoch
// (Alg. 2 step 4, Alg. 3); once a decision's reward and costs are both in,
// the point enters the GPs of F_l.
func (a *Penalty) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	if acc.Failed { // nothing to wait for: the failure model (if any) has it
		return nil
	}
	if acc.Costs != nil {
		costs := append([]float64(nil), acc.Costs...)
		if a.std {
			for j, c := range costs {
				a.cs[j].add(c)
				costs[j] = c / a.cs[j].scale()
			}
		}
		a.costs[fb.ID] = costs
		if _, err := a.rule.Record(acc.Tag, costs); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	if !acc.Complete {
		return nil
	}
	costs := a.costs[fb.ID]
	delete(a.costs, fb.ID)
	if a.history == "epoch" && acc.Tag != a.epoch {
		return nil // belongs to a finished IGP-UCB run
	}
	reward, _ := a.ledger.Observed(fb.ID)
	for j, c := range costs {
		a.h[j] = a.rule.Transform(c)
	}
	return a.core.add(acc.Action, reward, a.h)
}

// Kappa returns the multipliers κ in force (for tests and reports).
func (a *Penalty) Kappa() []float64 { return append([]float64(nil), a.rule.Kappa...) }

func init() {
	Register(onCore(Spec{
		Name:    "penalty-noiseless",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true},
		Summary: "GP-UCB on f − Σκ_j(ψ(g_j)−1), multiplicative κ epochs (noiseless g)",
		Source:  "Shi & Eryilmaz 2022 §5, Alg. 2 (ψ of eq. 9–10), Thm. 1",
		Params:  penaltyNoiselessParams,
	}, func(name string, cfg Config) (bandit.Agent, error) { return newPenalty(name, false, cfg) }))
	Register(onCore(Spec{
		Name:    "penalty-noisy",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true},
		Summary: "GP-UCB with noisy constraints: IGP-UCB on f − Σκ_j g_j, additive κ epochs",
		Source:  "Shi & Eryilmaz 2022 §6, Alg. 3, Thm. 2",
		Params:  penaltyNoisyParams,
	}, func(name string, cfg Config) (bandit.Agent, error) { return newPenalty(name, true, cfg) }))
}

// decisionCore is the core the penalty agent stands on.
func (a *Penalty) decisionCore() *gpCore { return a.core.gpCore }
