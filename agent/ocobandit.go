package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
)

// The settings of oco-bandit, none given by Shi & Eryilmaz 2022 App. E.
var (
	ocoAlpha = bandit.FloatParam{Name: "alpha", Computed: "T^{-3/4}", Range: bandit.Above(0),
		Doc: "primal-dual step α, of the order T^{-3/4} of bandit OCO", Source: "Shi & Eryilmaz 2022 App. E does not give it: our choice"}
	ocoDelta = bandit.FloatParam{Name: "delta", Computed: "0.1·(shortest box side)", Range: bandit.Above(0),
		Doc: "exploration radius δ of the one-point gradient estimate, below half the shortest box side", Source: "our choice"}
	ocoEta = bandit.FloatParam{Name: "eta", Default: 0.1, Range: bandit.AtLeast(0),
		Doc: "dual regulariser η in λ ← [(1 − αη)λ + α ĉ]⁺", Source: "our choice"}
	ocoParams = []bandit.Param{ocoAlpha, ocoDelta, ocoEta}
)

// OCOBandit is the constrained online convex optimisation baseline with
// bandit feedback of Shi & Eryilmaz 2022 App. E (Cao & Liu 2018, IEEE TAC), as we read it
// (the paper itself could not be retrieved with the search tool): a
// primal-dual method on the Lagrangian −f + Σ_j λ_j g_j whose gradients are
// one-point estimates from function values (Flaxman et al. 2005):
//
//	play x_t = y_t + δ u_t,  u_t uniform on the unit sphere;
//	∇̂ = (d/δ)(−r_t + Σ_j λ_j c_{t,j}) u_t;
//	y_{t+1} = Π_{Y}(y_t − α ∇̂),  Y the box shrunk by δ;
//	λ_{t+1,j} = [(1 − αη) λ_{t,j} + α c_{t,j}]⁺.
//
// y_1 is drawn uniformly (Shi & Eryilmaz 2022 App. E: runs start from different points).
// Reward and costs update the iterate when both have arrived.
type OCOBandit struct {
	rng       *rand.Rand
	box       *domain.Box
	lo, hi    []float64
	y, lambda []float64
	alpha     float64
	delta     float64
	eta       float64
	ledger    *Ledger
	dirs      map[int64][]float64
}

func newOCOBandit(cfg Config) (bandit.Agent, error) {
	const name = "oco-bandit"
	in, ps := cfg.Info, cfg.Params
	box, ok := in.Domain.(*domain.Box)
	if !ok {
		return nil, fmt.Errorf("%s: needs a box domain, got %v", name, in.Domain)
	}
	side := math.Inf(1)
	for i := range box.Lo {
		side = math.Min(side, box.Hi[i]-box.Lo[i])
	}
	alpha, err := ocoAlpha.ReadOr(name, ps, math.Pow(float64(cfg.Horizon), -0.75))
	if err != nil {
		return nil, err
	}
	delta, err := ocoDelta.ReadOr(name, ps, 0.1*side)
	if err != nil {
		return nil, err
	}
	eta, err := ocoEta.Read(name, ps)
	if err != nil {
		return nil, err
	}
	if !(delta > 0) || !(2*delta < side) {
		return nil, bandit.ParamErrorf(name, "delta", "= %v: must be in (0, %v) (half the shortest box side)", delta, side/2)
	}
	a := &OCOBandit{rng: seedRand(cfg.Seed), box: box, alpha: alpha, delta: delta, eta: eta,
		ledger: NewLedger(in.M), lambda: make([]float64, in.M),
		dirs: map[int64][]float64{}}
	d := box.Dim()
	a.lo, a.hi, a.y = make([]float64, d), make([]float64, d), make([]float64, d)
	for i := 0; i < d; i++ {
		a.lo[i], a.hi[i] = box.Lo[i]+delta, box.Hi[i]-delta
		a.y[i] = a.lo[i] + (a.hi[i]-a.lo[i])*a.rng.Float64()
	}
	return a, nil
}

// Decide implements bandit.Agent.
func (a *OCOBandit) Decide(r *bandit.Round) (bandit.Decision, error) {
	d := len(a.y)
	u := make([]float64, d)
	n := 0.0
	for n == 0 {
		for i := range u {
			u[i] = a.rng.NormFloat64()
			n += u[i] * u[i]
		}
	}
	n = math.Sqrt(n)
	x := make([]float64, d)
	for i := range u {
		u[i] /= n
		x[i] = math.Min(a.box.Hi[i], math.Max(a.box.Lo[i], a.y[i]+a.delta*u[i]))
	}
	dec := a.ledger.Record(r.T, bandit.PointAction(x), 0)
	a.dirs[dec.ID] = u
	return dec, nil
}

// Observe implements bandit.Agent: one primal-dual step per decision once
// its reward and costs are in.
func (a *OCOBandit) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("oco-bandit: %w", err)
	}
	if !acc.Complete { // a failure, or reward or costs still to come
		return nil
	}
	reward, costs := a.ledger.Observed(fb.ID)
	u := a.dirs[fb.ID]
	delete(a.dirs, fb.ID)
	v := -reward
	for j, c := range costs {
		v += a.lambda[j] * c
	}
	s := float64(len(a.y)) / a.delta * v
	for i := range a.y {
		a.y[i] = math.Min(a.hi[i], math.Max(a.lo[i], a.y[i]-a.alpha*s*u[i]))
	}
	for j, c := range costs {
		a.lambda[j] = math.Max(0, (1-a.alpha*a.eta)*a.lambda[j]+a.alpha*c)
	}
	return nil
}

func init() {
	Register(Spec{
		Name:    "oco-bandit",
		Can:     Caps{Domains: []string{DomainBox}, Kinds: []bandit.ConstraintKind{KindLongTerm}, NeedsConstraints: true, Randomised: true, Pending: PendingDraw},
		Summary: "constrained online convex optimisation, one-point gradients (baseline)",
		Source:  "Cao & Liu 2018 (IEEE TAC), baseline of Shi & Eryilmaz 2022 App. E; our reading, see doc",
		Params:  ocoParams,
		New:     newOCOBandit,
	})
}
