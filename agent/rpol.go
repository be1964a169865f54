package agent

import (
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/rule"
)

// rpolParams are shared by every RPOL variant (Guo et al. §3–6).
var (
	rpolP      = failureDoc("p", "failure probability p in β_t", "Guo et al. §4–6 leave it open: our choice")
	rpolScale  = multiplierDoc("beta-scale", "multiplier on the confidence widths β_t^f, β_t^g, v_t, Γ_t", "1: Guo et al. §4–6")
	rpolQ1     = bandit.FloatParam{Name: "Q1", Default: 1, Range: bandit.AtLeast(0), Doc: "initial penalty Q_1", Source: "Guo et al. §3, Initialization"}
	rpolParams = []bandit.Param{rpolP, rpolScale, rpolLambdaDoc, rpolQ1}
)

// rpolLambdaDoc is λ with Guo et al.'s default 1 + 2/T.
var rpolLambdaDoc = func() bandit.FloatParam {
	d := lambdaAs("GP regulariser λ of V_t(λ) = K_t + λI: the likelihood noise variance", "Guo et al. §2")
	d.Computed = lambdaRPOL
	return d
}()

// rpolUCBParams: the practical core with one refinement step and the trust
// region. The rules with a per-round constraint (rpol family, config) play
// where the optimistic bound μ_g − β_g σ_g reaches 0, and a refinement that
// finds that point exactly in 3+ dims raised their late violation on the
// suite (docs/defaults.md, "Refinement in 3+ dimensions"); the trust
// region: in 3+ dims, docs/defaults.md, "Generation 6".
var rpolUCBParams = practicalParams(rpolParams, "refine", "step", "region", "trust")

// rpolCensoredParams: the paper's core (coreOptions.paper) with standardise
// alone: the censored GPs take every decision at once (Guo et al. §5), so
// no pending conditioning, initial design or trust region, and no sparse GP.
var (
	rpolM     = bandit.IntParam{Name: "m", Default: 30, Range: bandit.AtLeast(0), Doc: "censoring window: later feedback is censored; 2 × the Poisson mean 15", Source: "Guo et al. §5; §7 gives none: our choice"}
	rpolWidth = bandit.ChoiceParam{Name: "width", Default: "paper", Choices: []string{"paper", "matched"},
		Doc: "paper: Guo et al. §5's widths; matched: OUR VARIANT, §4's β_t on the censored means", Source: "Guo et al. §4–5; docs/parameters.md"}
	rpolCensoredParams = append(slices.Clone(rpolParams), rpolM, rpolWidth,
		withDoc(standardiseDoc, "on: censored GPs see standardised values, costs scaled; off: the paper's units"))
)

// rpolSWParams: the practical core with one refinement step (as
// rpol-ucb's, which says why); region keeps its default, global.
var (
	rpolW         = bandit.IntParam{Name: "W", Computed: "⌈γ_T^{1/4}(T/P_T)^{1/2}⌉", Range: bandit.AtLeast(1), Doc: "sliding window, γ_T ≈ (ln T)^{d+1} (§2, SE kernel)", Source: "Guo et al. Thm. 4"}
	rpolPT        = bandit.FloatParam{Name: "PT", Default: 2, Range: bandit.Above(0), Doc: "variation budget P_T for W; unknown in §7, we count one unit per change (two changes)", Source: "Guo et al. §6, §7"}
	rpolVariation = bandit.FloatParam{Name: "variation", Default: 0, Range: bandit.AtLeast(0), Doc: "assumed variation of f within the window, Γ_t = C·variation; 0 switches Γ_t off", Source: "Guo et al. §6"}
	rpolSWParams  = practicalParams(append(slices.Clone(rpolParams), rpolW, rpolPT, rpolVariation), "refine", "step")
)

type rpolKind int

const (
	rpolUCB rpolKind = iota
	rpolCensored
	rpolSW
)

// RPOL is the rectified pessimistic-optimistic learner (Guo et al. §3) on
// the decision core: optimistic f̂, pessimistic ǧ and the rectified
// penalty rule. The three variants differ only in the models and widths:
// GP-UCB/LCB (§4), censored GP-UCB/LCB (§5, App. C), sliding-window
// GP-UCB/LCB (§6, App. D).
type RPOL struct {
	*gpCore
	kind  rpolKind
	rule  *rule.Rectified
	T     int
	lam   float64
	p     float64
	scale float64
	t     int
	// censored (§5)
	cf      *model.Censored
	cg      []*model.Censored
	sf      *censStd   // cf's values (standardised with std)
	sg      []*censStd // cg's
	m       int
	xs      [][]float64 // decisions, for Σ σ_t(x_s)
	matched bool        // width=matched: §4's β_t on the censored means
	br      float64     // B_r = B_f + R_f √(2 log T)
	bc      float64     // B_c = B_g + R_g √(2 log T)
	win     int         // W (§6)
	cfg     float64     // Γ^f_t (§6)
	cgg     float64     // Γ^g_t (§6)
	// widths of this round
	wf, wg float64
	// fixed: the practical constant widths constF, constG (widths=practical)
	fixed          bool
	constF, constG float64
	gAt            []float64 // scratch
}

func newRPOL(name string, kind rpolKind, cfg Config) (*RPOL, error) {
	ps := cfg.Params
	T := cfg.Horizon
	p, err := rpolP.Read(name, ps)
	if err != nil {
		return nil, err
	}
	scale, err := rpolScale.Read(name, ps)
	if err != nil {
		return nil, err
	}
	q1, err := rpolQ1.Read(name, ps)
	if err != nil {
		return nil, err
	}
	a := &RPOL{kind: kind, T: T, p: p, scale: scale}
	logT := math.Log(math.Max(float64(T), 1))
	var gammaT, variation float64
	switch kind {
	case rpolCensored:
		if a.m, err = rpolM.Read(name, ps); err != nil {
			return nil, err
		}
		w, err := rpolWidth.Read(name, ps)
		if err != nil {
			return nil, err
		}
		a.matched = w == "matched"
	case rpolSW:
		pt, err := rpolPT.Read(name, ps)
		if err != nil {
			return nil, err
		}
		d := float64(max(cfg.Info.Domain.Dim(), 1))
		gammaT = math.Pow(logT, d+1) // Guo et al. §2: γ_T = O((ln T)^{d+1}) for SE
		wDef := int(math.Ceil(math.Pow(gammaT, 0.25) * math.Sqrt(float64(T)/pt)))
		if a.win, err = rpolW.ReadOr(name, ps, wDef); err != nil {
			return nil, err
		}
		if variation, err = rpolVariation.Read(name, ps); err != nil {
			return nil, err
		}
	}
	// λ: Guo et al. §2's 1 + 2/T (rpolLambdaDoc); the censored variant is
	// its paper's alone (its GPs take the decisions at once: no pending
	// conditioning).
	o := coreOptions{paper: kind == rpolCensored, ownPending: kind == rpolCensored,
		models: func(in bandit.Info, lam float64, mo model.Options) (model.Model, []model.Model, gp.Kernel, error) {
			a.lam = lam
			return a.models(name, in, lam, mo, gammaT, variation)
		}}
	if a.gpCore, err = newGPCore(name, cfg, o); err != nil {
		return nil, err
	}
	in := a.info
	if a.rule, err = rule.NewRectified(in.M, q1); err != nil {
		return nil, fmt.Errorf("%s: parameter %w", name, err)
	}
	a.gAt = make([]float64, in.M)
	if kind != rpolCensored {
		a.fixed, a.constF, a.constG, err = widthParams(name, ps, in.Domain)
		return a, err
	}
	// With standardise=on in holds model.StandardInfo's B, G, R, RG: B_r =
	// B + R√(2 log T) bounds a standardised observation (Guo et al. §5,
	// Lemma 5: |r_s| ≤ B + R√(2 log T) w.h.p.), and the censored value 0 of
	// r̃_{s,t} (§5) is then the objective's running mean or the
	// constraint's threshold instead of the metric's 0, which an offset of
	// the units would move. λ = 1 + 2/T, p, m and Q_1 carry no units; the
	// penalty takes costs divided by their scale (Observe).
	a.br = in.B + in.R*math.Sqrt(2*logT) // Guo et al. §5
	a.bc = in.G + in.RG*math.Sqrt(2*logT)
	a.sf = &censStd{c: a.cf, on: a.std, s: 1, next: 1}
	for _, c := range a.cg {
		a.sg = append(a.sg, &censStd{c: c, on: a.std, constraint: true, s: 1, next: 1})
	}
	return a, nil
}

// models builds the variant's GPs: censored (§5) or, over the core's,
// sliding windows of W (§6) with Γ_t for f's assumed variation.
func (a *RPOL) models(name string, in bandit.Info, lam float64, o model.Options, gammaT, variation float64) (model.Model, []model.Model, gp.Kernel, error) {
	if a.kind == rpolCensored {
		var err error
		if a.cf, err = model.NewCensored(in.Domain, in.Kernel, lam, nil); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		var g []model.Model
		for j := 0; j < in.M; j++ {
			c, err := model.NewCensored(in.Domain, in.ConstraintKernel(), lam, nil)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			a.cg, g = append(a.cg, c), append(g, c)
		}
		return a.cf, g, in.Kernel, nil
	}
	f, g, err := model.ForAllOpts(in, lam, o)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if a.kind != rpolSW {
		return f, g, in.Kernel, nil
	}
	// Γ_t = C·Σ‖f_s − f_{s+1}‖, C = (1/λ)√(2W(1+λ)γ_T) (Guo et al. §6).
	c := math.Sqrt(2*float64(a.win)*(1+lam)*gammaT) / lam
	a.cfg, a.cgg = c*variation, c*variation
	if f, err = model.NewWindow(f, a.win); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: parameter %w", name, err)
	}
	for j := range g {
		if g[j], err = model.NewWindow(g[j], a.win); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: parameter %w", name, err)
		}
	}
	return f, g, in.Kernel, nil
}

// widths sets this round's w_f, w_g: β_t (§4), v_t (§5) or β_t (§6).
func (a *RPOL) widths() {
	in := a.info
	switch {
	case a.fixed: // widths=practical: constant widths
		a.wf, a.wg = a.constF, a.constG
	case a.kind == rpolUCB || a.matched: // Guo et al. §4: β_t = B + R√(2(γ_t + 1 + ln(2/p)))
		a.wf = estimator.Beta{B: in.B, R: in.R, Alpha: a.p, Scale: 1}.At(a.f.InfoGain())
		a.wg = estimator.Beta{B: in.G, R: in.RG, Alpha: a.p, Scale: 1}.At(a.g[0].InfoGain())
	case a.kind == rpolCensored:
		// Guo et al. §5: β_t = B + (R + B_r)√(2(γ_t+1+ln(4/p))), v_t = B_r Σ_{s=t−m}^{t−1} σ_t(x_s) + β_t.
		bf := in.B + (in.R+a.br)*math.Sqrt(2*(a.f.InfoGain()+1+math.Log(4/a.p)))
		bg := in.G + (in.RG+a.bc)*math.Sqrt(2*(a.g[0].InfoGain()+1+math.Log(4/a.p)))
		var sf, sg float64
		for s := max(0, len(a.xs)-a.m); s < len(a.xs); s++ {
			_, vf := a.cf.Predict(a.xs[s])
			_, vg := a.cg[0].Predict(a.xs[s])
			sf += math.Sqrt(vf)
			sg += math.Sqrt(vg)
		}
		a.wf = a.br*sf + bf
		a.wg = a.bc*sg + bg
	case a.kind == rpolSW:
		// Guo et al. §6: β_t = B + R/√λ · √(2γ_{t−t0} + 2 ln(2T/p)), γ over the window.
		l2 := 2 * math.Log(2*float64(a.T)/a.p)
		a.wf = in.B + in.R/math.Sqrt(a.lam)*math.Sqrt(2*a.f.InfoGain()+l2)
		a.wg = in.G + in.RG/math.Sqrt(a.lam)*math.Sqrt(2*a.g[0].InfoGain()+l2)
	}
	a.wf *= a.scale
	a.wg *= a.scale
}

// begin starts round t, own or imposed: Q_t from eq. (12) with the costs
// revealed so far.
func (a *RPOL) begin(t int) {
	a.t = t
	a.rule.AdvanceTo(t)
}

// Decide implements bandit.Agent: one round of the RPOL framework (Guo et
// al. §3), eq. (11): f̂ − Σ_j Q_j ǧ_j⁺, f̂ = μ_f + w_f σ_f + Γ_f, ǧ = μ_g −
// w_g σ_g − Γ_g.
func (a *RPOL) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.begin(r.T)
	return a.decideTurn(r, func() (turn, error) {
		a.widths()
		gF, gG := a.cfg*a.scale, a.cgg*a.scale
		acq := func(p Posterior) float64 {
			mu, v := p.F()
			f := mu + a.wf*math.Sqrt(v) + gF
			for j := range a.gAt {
				mu, v := p.G(j)
				a.gAt[j] = mu - a.wg*math.Sqrt(v) - gG
			}
			return a.rule.ScoreAt(f, a.gAt)
		}
		if a.cf == nil {
			return turn{acq: acq}, nil
		}
		return turn{acq: acq, after: func(act bandit.Action, _ int) (bandit.Action, error) { return act, a.enter(act) }}, nil
	})
}

// enter gives a decision of RPOL-CensoredUCB to its GPs at once, censored to 0
// until its feedback arrives (Guo et al. §5).
func (a *RPOL) enter(act bandit.Action) error {
	if err := a.sf.addPoint(act.X); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	for _, c := range a.sg {
		if err := c.addPoint(act.X); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	a.xs = append(a.xs, slices.Clone(act.X))
	return nil
}

// Impose implements bandit.Imposer: the penalty of eq. (12) follows the
// observed costs of every decision, imposed or not (Guo et al. §3); a
// censored GP takes the point at once, as its own decisions (Guo et al. §5).
func (a *RPOL) Impose(r *bandit.Round, act bandit.Action) (bandit.Decision, error) {
	d, err := a.impose(r, act, a.begin)
	if err == nil && a.cf != nil {
		err = a.enter(d.Action)
	}
	return d, err
}

// Observe implements bandit.Agent: costs enter the penalty (eq. 12, App. C:
// every cost revealed in the round), reward and costs update the models
// (censored: only when revealed within m rounds of the decision).
func (a *RPOL) Observe(fb bandit.Feedback) error {
	if a.cf != nil {
		return a.observeCensored(fb)
	}
	acc, err := a.observe(fb)
	if err != nil || acc.Costs == nil {
		return err
	}
	if !a.std {
		a.rule.Penalise(acc.Costs)
		return nil
	}
	// Standardised units: c_j / s_j with the scale that includes this
	// observation, so Q (eq. 12) and the penalty it weighs are in the units
	// of ǧ.
	c := make([]float64, len(acc.Costs))
	for j, v := range acc.Costs {
		c[j] = v / model.Scale(a.g[j])
	}
	a.rule.Penalise(c)
	return nil
}

// observeCensored is Observe of RPOL-CensoredUCB (Guo et al. §5, App. C).
func (a *RPOL) observeCensored(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	if acc.Costs != nil && !a.std {
		a.rule.Penalise(acc.Costs)
	}
	if a.t-acc.Round <= a.m { // d_s > m: censored for good
		s := int(fb.ID - 1)
		if acc.HasReward {
			if err := a.sf.setValue(s, acc.Reward); err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
		}
		for j, c := range acc.Costs {
			if err := a.sg[j].setValue(s, c); err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
		}
	}
	if acc.Costs != nil && a.std {
		c := make([]float64, len(acc.Costs))
		for j, v := range acc.Costs {
			c[j] = v / a.sg[j].s
		}
		a.rule.Penalise(c)
	}
	return nil
}

// Penalty returns the current penalty factors Q_t (for tests and reports).
func (a *RPOL) Penalty() []float64 { return append([]float64(nil), a.rule.Q...) }

func init() {
	Register(onCore(Spec{
		Name:    "rpol-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, NeedsConstraints: true, DefaultFor: []string{string(KindCumulative)}},
		Summary: "RPOL with GP-UCB for f, GP-LCB for g and the rectified penalty",
		Source:  "Guo et al. §3 (eq. 11–12), §4 (RPOL-UCB, Thm. 2)",
		Params:  rpolUCBParams,
	}, func(name string, cfg Config) (bandit.Agent, error) { return newRPOL(name, rpolUCB, cfg) }))
	Register(onCore(Spec{
		Name:    "rpol-censored-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, NeedsConstraints: true, Pending: PendingCensored},
		Summary: "RPOL with censored GP-UCB/LCB for delayed feedback",
		Source:  "Guo et al. §5, App. C (RPOL-CensoredUCB, Thm. 3)",
		Params:  rpolCensoredParams,
	}, func(name string, cfg Config) (bandit.Agent, error) { return newRPOL(name, rpolCensored, cfg) }))
	Register(onCore(Spec{
		Name:    "rpol-sw-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, NeedsConstraints: true},
		Summary: "RPOL with sliding-window GP-UCB/LCB for drifting f and g",
		Source:  "Guo et al. §6, App. D (RPOL-SWUCB, Thm. 4)",
		Params:  rpolSWParams,
	}, func(name string, cfg Config) (bandit.Agent, error) { return newRPOL(name, rpolSW, cfg) }))
}

// censStd holds the values of a censored GP (Guo et al. §5) and, with on
// (standardise=on), gives it standardised values: ỹ = (y − m)/s
// for an objective, y/s for a constraint, m and s the mean and population
// standard deviation of the values revealed so far (s = |m| when they do not
// spread, 1 when all are 0: model.Adaptive's rule), refreshed when the
// number of revealed values reaches 1, 2, 4, … (then every value is reset at
// once, Censored.SetValues, O(t² + t·M)); a censored value stays 0, the
// prior mean. Off, the values pass through unchanged.
type censStd struct {
	c          *model.Censored
	on         bool
	constraint bool
	raw        []float64
	has        []bool
	n, next    int
	m, s       float64
	buf        []float64
}

func (z *censStd) addPoint(x []float64) error {
	if _, err := z.c.AddPoint(x); err != nil {
		return err
	}
	z.raw, z.has = append(z.raw, 0), append(z.has, false)
	return nil
}

func (z *censStd) tr(y float64) float64 {
	if z.constraint {
		return y / z.s
	}
	return (y - z.m) / z.s
}

// setValue reveals y as the value of point i.
func (z *censStd) setValue(i int, y float64) error {
	if !z.on {
		return z.c.SetValue(i, y)
	}
	if i < 0 || i >= len(z.raw) {
		return fmt.Errorf("model: censored: point %d: outside [0, %d)", i, len(z.raw))
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("model: censored: value = %v: must be finite", y)
	}
	if !z.has[i] {
		z.n++
	}
	z.raw[i], z.has[i] = y, true
	if z.n < z.next {
		return z.c.SetValue(i, z.tr(y))
	}
	for z.next <= z.n {
		z.next *= 2
	}
	z.buf = z.buf[:0]
	for k, v := range z.raw {
		if z.has[k] {
			z.buf = append(z.buf, v)
		}
	}
	z.m, z.s = model.Standardisation(z.buf)
	z.buf = z.buf[:0]
	for k, v := range z.raw {
		if z.has[k] {
			z.buf = append(z.buf, z.tr(v))
		} else {
			z.buf = append(z.buf, 0)
		}
	}
	return z.c.SetValues(z.buf)
}
