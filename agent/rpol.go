package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/estimator"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/rule"
)

// rpolParams are shared by every RPOL variant (Guo et al. §3–6).
var rpolParams = []bandit.Param{
	failureDoc("p", "failure probability p in β_t", "Guo et al. §4–6 leave it open: our choice"),
	multiplierDoc("beta-scale", "multiplier on the confidence widths β_t^f, β_t^g, v_t, Γ_t", "1: Guo et al. §4–6"),
	rpolLambdaDoc,
	bandit.FloatParam{Name: "Q1", Default: 1, Range: bandit.AtLeast(0), Doc: "initial penalty Q_1", Source: "Guo et al. §3, Initialization"},
}

// rpolLambdaDoc is λ with Guo et al.'s default 1 + 2/T.
var rpolLambdaDoc = func() bandit.FloatParam {
	d := lambdaAs("GP regulariser λ of V_t(λ) = K_t + λI: the likelihood noise variance", "Guo et al. §2")
	d.Computed = lambdaRPOL
	return d
}()

// rpolUCBParams: rpol-ucb also takes the opt-in sparse GP.
var rpolUCBParams = append(append(slices.Clone(rpolParams), inducingDoc), trustPractical...)

// stepPractical are the practical defaults with refine = step, for the
// rules with a per-round constraint (rpol family, config): they play where
// the optimistic bound μ_g − β_g σ_g reaches 0, and a refinement that finds
// that point exactly in 3+ dims raised their late violation on the suite
// (docs/defaults.md, "Refinement in 3+ dimensions").
var stepPractical = withDefault(practicalDocs, "refine", "step")

// trustPractical are stepPractical with region = trust: rpol-ucb's and
// config's (in 3+ dims; docs/defaults.md, "Generation 6").
var trustPractical = withDefault(stepPractical, "region", "trust")

var rpolCensoredParams = append(slices.Clone(rpolParams),
	bandit.IntParam{Name: "m", Default: 30, Range: bandit.AtLeast(0), Doc: "censoring window: later feedback is censored; 2 × the Poisson mean 15", Source: "Guo et al. §5; §7 gives none: our choice"},
	bandit.ChoiceParam{Name: "width", Default: "paper", Choices: []string{"paper", "matched"},
		Doc: "paper: Guo et al. §5's widths; matched: OUR VARIANT, §4's β_t on the censored means", Source: "Guo et al. §4–5; docs/parameters.md"},
	withDoc(standardiseDoc, "on: censored GPs see standardised values, costs scaled; off: the paper's units"))

var rpolSWParams = append(append(slices.Clone(rpolParams),
	bandit.IntParam{Name: "W", Computed: "⌈γ_T^{1/4}(T/P_T)^{1/2}⌉", Range: bandit.AtLeast(1), Doc: "sliding window, γ_T ≈ (ln T)^{d+1} (§2, SE kernel)", Source: "Guo et al. Thm. 4"},
	bandit.FloatParam{Name: "PT", Default: 2, Range: bandit.Above(0), Doc: "variation budget P_T for W; unknown in §7, we count one unit per change (two changes)", Source: "Guo et al. §6, §7"},
	bandit.FloatParam{Name: "variation", Default: 0, Range: bandit.AtLeast(0), Doc: "assumed variation of f within the window, Γ_t = C·variation; 0 switches Γ_t off", Source: "Guo et al. §6"},
	inducingDoc,
), stepPractical...)

type rpolKind int

const (
	rpolUCB rpolKind = iota
	rpolCensored
	rpolSW
)

// RPOL is the rectified pessimistic-optimistic learner (Guo et al. §3): optimistic
// f̂, pessimistic ǧ, the rectified penalty rule and an acquisition
// maximiser. The three variants differ only in the models and widths:
// GP-UCB/LCB (§4), censored GP-UCB/LCB (§5, App. C), sliding-window
// GP-UCB/LCB (§6, App. D).
type RPOL struct {
	name   string
	kind   rpolKind
	info   bandit.Info
	rng    *rand.Rand
	f      model.Model
	g      []model.Model
	models []model.Model // f, g_1..g_m
	pf     model.Predictor
	pg     []model.Predictor
	rule   *rule.Rectified
	ledger *Ledger
	T      int
	lam    float64
	p      float64
	scale  float64
	t      int
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
	// std: the models are standardised; costs enter the penalty divided
	// by their metric's scale (model.Scale)
	std bool
	// design: the initial design (parameter init)
	design initDesign
	// halluc: condition on the pending decisions (parameter pending)
	halluc pendingMode
	trust  regionMode           // parameters region, region-pending
	grad   maximise.GradOptions // the box refinement (parameter refine)
	// scratch
	score []float64
	gAt   []float64
}

func newRPOL(name string, kind rpolKind, cfg Config) (*RPOL, error) {
	ps := cfg.Params
	var in bandit.Info
	var censoredStd bool
	var err error
	if kind != rpolCensored {
		in, err = gpInfo(name, cfg)
	} else {
		censoredStd, in, err = standardiseOnly(name, cfg)
	}
	if err != nil {
		return nil, err
	}
	if in.M < 1 {
		return nil, fmt.Errorf("%s: the problem has no constraints (M = %d)", name, in.M)
	}
	T := cfg.Horizon
	p, err := unitParam(name, ps, "p", 0.05)
	if err != nil {
		return nil, err
	}
	scale, err := scaleParam(name, ps, "beta-scale", 1)
	if err != nil {
		return nil, err
	}
	lam, err := lambdaParam(name, ps, T, 1+2/float64(T)) // Guo et al. §2: λ = 1 + 2/T
	if err != nil {
		return nil, err
	}
	q1, err := ps.Float(name, "Q1", 1)
	if err != nil {
		return nil, err
	}
	rr, err := rule.NewRectified(in.M, q1)
	if err != nil {
		return nil, fmt.Errorf("%s: parameter %w", name, err)
	}
	a := &RPOL{name: name, kind: kind, info: in, rng: seedRand(cfg.Seed), rule: rr,
		ledger: NewLedger(in.M), T: T, lam: lam, p: p, scale: scale}
	logT := math.Log(math.Max(float64(T), 1))
	switch kind {
	case rpolCensored:
		if a.m, err = ps.Int(name, "m", 30); err != nil {
			return nil, err
		}
		if a.m < 0 {
			return nil, bandit.ParamErrorf(name, "m", "= %d: must be ≥ 0", a.m)
		}
		w, err := ps.String(name, "width", "paper", "paper", "matched")
		if err != nil {
			return nil, err
		}
		a.matched = w == "matched"
		// With standardise=on in holds model.StandardInfo's B,
		// G, R, RG: B_r = B + R√(2 log T) bounds a standardised observation
		// (Guo et al. §5, Lemma 5: |r_s| ≤ B + R√(2 log T) w.h.p.), and the censored
		// value 0 of r̃_{s,t} (§5) is then the objective's running mean or
		// the constraint's threshold instead of the metric's 0, which an
		// offset of the units would move. λ = 1 + 2/T, p, m and Q_1 carry
		// no units; the penalty takes costs divided by their scale (Observe).
		a.std = censoredStd
		a.br = in.B + in.R*math.Sqrt(2*logT) // Guo et al. §5
		a.bc = in.G + in.RG*math.Sqrt(2*logT)
		if a.cf, err = model.NewCensored(in.Domain, in.Kernel, lam, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		a.f = a.cf
		a.sf = &censStd{c: a.cf, on: a.std, s: 1, next: 1}
		for j := 0; j < in.M; j++ {
			c, err := model.NewCensored(in.Domain, in.ConstraintKernel(), lam, nil)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			a.cg = append(a.cg, c)
			a.g = append(a.g, c)
			a.sg = append(a.sg, &censStd{c: c, on: a.std, constraint: true, s: 1, next: 1})
		}
	default:
		opts, err := modelOptions(name, ps, in.Domain, true)
		if err != nil {
			return nil, err
		}
		if a.f, a.g, err = model.ForAllOpts(in, lam, opts); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if a.fixed, a.constF, a.constG, err = widthParams(name, ps, in.Domain); err != nil {
			return nil, err
		}
		a.std = opts.Standardise
		if a.design, err = newInitDesign(name, ps, in.Domain, opts, a.rng); err != nil {
			return nil, err
		}
		if a.grad, err = refineParam(name, ps, in.Domain); err != nil {
			return nil, err
		}
	}
	if kind == rpolSW {
		pt, err := ps.Float(name, "PT", 2)
		if err != nil {
			return nil, err
		}
		if !(pt > 0) || math.IsInf(pt, 0) {
			return nil, bandit.ParamErrorf(name, "PT", "= %v: must be a finite number > 0", pt)
		}
		d := float64(max(in.Domain.Dim(), 1))
		gammaT := math.Pow(logT, d+1) // Guo et al. §2: γ_T = O((ln T)^{d+1}) for SE
		wDef := int(math.Ceil(math.Pow(gammaT, 0.25) * math.Sqrt(float64(T)/pt)))
		if a.win, err = ps.Int(name, "W", wDef); err != nil {
			return nil, err
		}
		if a.win <= 0 {
			return nil, bandit.ParamErrorf(name, "W", "= %d: window must be at least 1", a.win)
		}
		variation, err := scaleParam(name, ps, "variation", 0)
		if err != nil {
			return nil, err
		}
		// Γ_t = C·Σ‖f_s − f_{s+1}‖, C = (1/λ)√(2W(1+λ)γ_T) (Guo et al. §6).
		c := math.Sqrt(2*float64(a.win)*(1+lam)*gammaT) / lam
		a.cfg, a.cgg = c*variation, c*variation
		if a.f, err = model.NewWindow(a.f, a.win); err != nil {
			return nil, fmt.Errorf("%s: parameter %w", name, err)
		}
		for j := range a.g {
			if a.g[j], err = model.NewWindow(a.g[j], a.win); err != nil {
				return nil, fmt.Errorf("%s: parameter %w", name, err)
			}
		}
	}
	a.pf, a.pg = predictors(a.f, a.g)
	a.models = append([]model.Model{a.f}, a.g...)
	a.ledger.learnFailures(in.Domain, in.Kernel, a.f)
	a.score, a.gAt = make([]float64, a.f.Len()), make([]float64, in.M)
	if kind != rpolCensored {
		if a.halluc, err = pendingParam(name, ps); err != nil {
			return nil, err
		}
		if a.trust, err = regionParam(name, ps); err != nil {
			return nil, err
		}
	}
	return a, nil
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

// Decide implements bandit.Agent: one round of the RPOL framework (Guo et al. §3).
func (a *RPOL) Decide(r *bandit.Round) (bandit.Decision, error) {
	a.t = r.T
	a.rule.AdvanceTo(r.T) // Q_t from eq. (12) with the costs revealed so far
	if act, ok := a.design.at(r.T); ok {
		return a.ledger.Record(r.T, act, 0), nil
	}
	a.widths()
	gF := a.cfg * a.scale
	gG := a.cgg * a.scale
	undo, pend, err := pendModels(a.halluc, a.ledger, a.f, a.g)
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	// eq. (11): f̂ − Σ_j Q_j ǧ_j⁺, f̂ = μ_f + w_f σ_f + Γ_f, ǧ = μ_g − w_g σ_g − Γ_g
	acq := func(mv []float64) float64 {
		f := mv[0] + a.wf*math.Sqrt(mv[1]) + gF
		for j := range a.g {
			a.gAt[j] = mv[2+2*j] - a.wg*math.Sqrt(mv[3+2*j]) - gG
		}
		return a.rule.ScoreAt(f, a.gAt)
	}
	act, _, err := choice{ms: a.models, acq: acq, score: a.score, refine: refineIf(a.pf != nil, &a.grad), pend: pend, reg: regionIf(a.trust, a.info.Domain, a.ledger, pend)}.pick(a.rng, a.info.Domain)
	undo()
	if err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: round %d: %w", a.name, r.T, err)
	}
	return a.record(r.T, act)
}

// record records a decision; RPOL-CensoredUCB enters it into the kernel
// matrices now, censored to 0 until its feedback arrives (Guo et al. §5).
func (a *RPOL) record(t int, act bandit.Action) (bandit.Decision, error) {
	d := a.ledger.Record(t, act, 0)
	if a.kind != rpolCensored {
		return d, nil
	}
	if err := a.sf.addPoint(act.X); err != nil {
		return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
	}
	for _, c := range a.sg {
		if err := c.addPoint(act.X); err != nil {
			return bandit.Decision{}, fmt.Errorf("%s: %w", a.name, err)
		}
	}
	a.xs = append(a.xs, d.Action.X)
	return d, nil
}

// Observe implements bandit.Agent: costs enter the penalty (eq. 12, App. C:
// every cost revealed in the round), reward and costs update the models
// (censored: only when revealed within m rounds of the decision).
func (a *RPOL) Observe(fb bandit.Feedback) error {
	acc, err := a.ledger.Accept(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	if acc.Costs != nil && !a.std {
		a.rule.Penalise(acc.Costs)
	}
	if a.kind == rpolCensored {
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
	if err := ObserveModels(acc, a.f, a.g); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	if acc.Costs != nil && a.std {
		// Standardised units: c_j / s_j with the scale that includes
		// this observation, so Q (eq. 12) and the penalty it weighs are
		// in the units of ǧ.
		c := make([]float64, len(acc.Costs))
		for j, v := range acc.Costs {
			c[j] = v / model.Scale(a.g[j])
		}
		a.rule.Penalise(c)
	}
	return nil
}

// Penalty returns the current penalty factors Q_t (for tests and reports).
func (a *RPOL) Penalty() []float64 { return append([]float64(nil), a.rule.Q...) }

func init() {
	Register(Spec{
		Name:    "rpol-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, Pending: PendingHallucinate, DefaultFor: []string{string(KindCumulative)}, LearnsFailures: true},
		Summary: "RPOL with GP-UCB for f, GP-LCB for g and the rectified penalty",
		Source:  "Guo et al. §3 (eq. 11–12), §4 (RPOL-UCB, Thm. 2)",
		Params:  rpolUCBParams,
		New:     func(cfg Config) (bandit.Agent, error) { return newRPOL("rpol-ucb", rpolUCB, cfg) },
	})
	Register(Spec{
		Name:    "rpol-censored-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, Pending: PendingCensored, LearnsFailures: true},
		Summary: "RPOL with censored GP-UCB/LCB for delayed feedback",
		Source:  "Guo et al. §5, App. C (RPOL-CensoredUCB, Thm. 3)",
		Params:  rpolCensoredParams,
		New:     func(cfg Config) (bandit.Agent, error) { return newRPOL("rpol-censored-ucb", rpolCensored, cfg) },
	})
	Register(Spec{
		Name:    "rpol-sw-ucb",
		Can:     Caps{Domains: []string{DomainFinite, DomainBox}, Kinds: []bandit.ConstraintKind{KindCumulative}, Pending: PendingHallucinate, LearnsFailures: true},
		Summary: "RPOL with sliding-window GP-UCB/LCB for drifting f and g",
		Source:  "Guo et al. §6, App. D (RPOL-SWUCB, Thm. 4)",
		Params:  rpolSWParams,
		New:     func(cfg Config) (bandit.Agent, error) { return newRPOL("rpol-sw-ucb", rpolSW, cfg) },
	})
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
