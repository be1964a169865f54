// Shared parameter declarations and model options of the GP agents: inducing, standardise, hyper, init, widths, refine, fits, the practical defaults, λ and the failure and multiplier docs.

package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/maximise"
	"github.com/cbandit/cbandit/model"
)

// inducingDoc declares the opt-in sparse GP of every GP agent on a box.
var inducingDoc = bandit.IntParam{Name: "inducing", Default: 0, Range: bandit.AtLeast(0),
	Doc: "M > 0: APPROXIMATE sparse GP, M inducing points, O(M²) per observation; 0: exact", Source: "Titsias 2009; exact by default"}

// standardiseDoc, hyperDoc and practicalDocs document the practical defaults
// (docs/defaults.md, "Generations 2–4") on the GP agents that take them (ckb family, rpol-ucb,
// rpol-sw-ucb, config): on, auto and practical for whoever names no
// setting; the paper reproductions pin off, fixed and theory (each
// declaration's Paper, given by defaults: paper in their experiment
// files). docs/defaults.md has the evidence.
var (
	standardiseDoc = bandit.ChoiceParam{Name: "standardise", Default: "on", Choices: []string{"on", "off"},
		Doc: "on: metrics standardised, decisions free of units; off: papers' units", Source: "measured: docs/defaults.md",
		Earlier: []bandit.Change{{Until: 1, Value: "off", Why: "metrics standardised"},
			{Until: 2, Value: "off", If: bandit.Without("widths"), Why: "metrics standardised also by the GP agents without practical widths"}},
		Paper: "off"}
	hyperDoc = bandit.ChoiceParam{Name: "hyper", Default: "auto", Choices: []string{"auto", "fit", "fixed"},
		Doc: "fit: ARD Matérn-5/2 by MAP at the model's refreshes (1, 2, 4, 8, … observations) from 2(d+2) on; fixed: the problem's; auto: fit if coordinates", Source: "measured: docs/defaults.md",
		Earlier: []bandit.Change{{Until: 1, Value: "fixed", Why: "hyperparameters fitted"}},
		Paper:   "fixed"}
)

// initDoc declares the initial design of the practical defaults.
var initDoc = bandit.IntParam{Name: "init", Computed: "none", Words: []string{"none", "auto", "startup"}, Range: bandit.AtLeast(0),
	Doc: "N shifted Halton points first: none, auto = 2(d+2), startup = StartupTrials (10) on a typed space of 7–9 parameters (none elsewhere), or N", Source: "Ax/BoTorch's design; off: no gain measured, docs/defaults.md"}

// logNEIInitDoc is lognei's init: GPSampler's start where a model fitted to
// its first few noisy evaluations can lock a knob at its edge.
var logNEIInitDoc = func() bandit.IntParam {
	d := initDoc
	d.Computed = "startup"
	d.Source = "Optuna v4.6 GPSampler's n_startup_trials = 10; typed spaces of 7–9 parameters measured: docs/offline.md, \"Generation 29\""
	d.Earlier = []bandit.Change{{Until: 28, Value: "none", Why: "on a typed space of 7–9 parameters, 10 shifted Halton points first"}}
	return d
}()

// The startup design (init=startup): StartupTrials points on a typed space
// (a box with discrete coordinates) of StartupFrom to TrustAutoDim−1
// parameters. Below 7 it cost the spring, vessel-mi and hartmann6; on the
// speed reducer's box it gained within its intervals and cost a tenth more
// a decision (docs/offline.md, "Generation 29").
const (
	StartupTrials = 10
	StartupFrom   = 7
)

// initDesign is an agent's initial design (parameter init): pts[t−1] is
// the point of round t ≤ len(pts).
type initDesign struct{ pts [][]float64 }

// newInitDesign reads init. The rotation draws d numbers from rng only
// when the design is not empty, so an agent without one keeps its random
// stream (and its numbers) as before.
func newInitDesign(name string, ps bandit.Params, dom domain.Domain, o model.Options, rng *rand.Rand) (initDesign, error) {
	box, isBox := dom.(*domain.Box)
	decl := own(name, initDoc)
	v, set := ps.Given(decl)
	if !set {
		v = decl.Computed
	}
	n := 0
	switch {
	case v == "auto":
		if o.Fit && isBox {
			n = model.FirstFit(box.Dim())
		}
	case v == "startup":
		if isBox && box.Mixed() && box.Params() >= StartupFrom && box.Params() < TrustAutoDim {
			n = StartupTrials
		}
	case v == "none":
	default:
		k, err := initDoc.ReadOr(name, bandit.Params{initDoc.Name: strings.TrimSpace(v)}, 0)
		if err != nil || v == "" {
			return initDesign{}, bandit.ParamErrorf(name, initDoc.Name, "= %q: must be %s", v, initDoc.Describe().Accepts)
		}
		if k > 0 && !isBox {
			return initDesign{}, bandit.ParamErrorf(name, "init", "= %d: an initial design needs a box domain (the problem gives %s)", k, dom)
		}
		n = k
	}
	if n == 0 {
		return initDesign{}, nil
	}
	d := box.Dim()
	shift := make([]float64, d)
	for i := range shift {
		shift[i] = rng.Float64()
	}
	pts := domain.HaltonPoints(box.Lo, box.Hi, n, shift)
	for _, x := range pts {
		box.Project(x) // a typed space's design plays valid values
	}
	return initDesign{pts: pts}, nil
}

// at returns the design's action of round t, if t is a design round.
func (d initDesign) at(t int) (bandit.Action, bool) {
	if t < 1 || t > len(d.pts) {
		return bandit.Action{}, false
	}
	return bandit.PointAction(append([]float64(nil), d.pts[t-1]...)), true
}

// Practical confidence widths (docs/defaults.md): with widths=practical a GP
// agent uses the constant widths μ ± β σ, β = PracticalBetaF for the
// objective and PracticalBetaG for every constraint, instead of its paper's
// β_t schedule (widths=theory). The values and the sweep behind them:
// docs/defaults.md.
const (
	PracticalBetaF = 2.0
	PracticalBetaG = 2.0
)

// practicalDocs document every parameter of the practical defaults, which
// each GP agent that has them takes (ckb family, rpol-ucb, rpol-sw-ucb,
// config): standardise, hyper, widths, beta-f, beta-g, init,
// constraint-fit, candidates.
var practicalDocs = []bandit.Param{
	standardiseDoc, hyperDoc, widthsDoc, betaFDoc, betaGDoc,
	initDoc,
	constraintFitDoc,
	refitDoc,
	pendingDoc,
	candidatesDoc,
	refineDoc,
	regionDoc,
	regionPendingDoc,
	regionCandidatesDoc,
	lengthscalePriorDoc,
	mixedMovesDoc,
}

// The confidence widths of the practical defaults (widthParams).
var (
	widthsDoc = bandit.ChoiceParam{Name: "widths", Default: "practical", Choices: []string{"practical", "theory"},
		Doc: "practical: μ ± βσ with beta-f, beta-g; theory: the paper's β_t", Source: "measured: docs/defaults.md",
		Earlier: []bandit.Change{{Until: 1, Value: "theory", Why: "practical confidence widths"}},
		Paper:   "theory"}
	betaFDoc = bandit.FloatParam{Name: "beta-f", Default: PracticalBetaF, Range: bandit.AtLeast(0), When: bandit.Is("widths", "practical"),
		Doc: "β of the objective", Source: "measured: docs/defaults.md"}
	betaGDoc = bandit.FloatParam{Name: "beta-g", Default: PracticalBetaG, Range: bandit.AtLeast(0), When: bandit.Is("widths", "practical"),
		Doc: fmt.Sprintf("β of the constraints (%v with region=trust in 3+ dims)", TrustBetaG), Source: "measured: docs/defaults.md"}
)

// lengthscalePriorDoc declares lengthscale-prior.
var lengthscalePriorDoc = bandit.ChoiceParam{Name: "lengthscale-prior", Default: "auto", Choices: []string{"auto", "gamma", "dimension"},
	Doc:    "fitted lengthscales' prior: gamma (BoTorch < 0.12's Gamma(3, 6)), dimension (LogNormal(√2 + ln(d)/2, √3)); auto: dimension on typed spaces, else gamma",
	Source: "Hvarfner et al. 2024; measured: docs/typed.md"}

// candidatesDoc declares the candidate set of a box.
var candidatesDoc = bandit.ChoiceParam{Name: "candidates", Default: "halton", Choices: []string{"halton", "grid"},
	Doc: "box candidates before refinement: halton (1024 points in 3+ dims, grid in 1–2) or grid (the papers')", Source: "measured: docs/defaults.md",
	Earlier: []bandit.Change{{Until: 1, Value: "grid", Why: "Halton candidates in 3+ dims"}},
	Paper:   "grid"}

// refineDoc declares refine.
var refineDoc = bandit.ChoiceParam{Name: "refine", Default: "ascent", Choices: []string{"ascent", "step"},
	Doc: "box refinement: ascent (3+ dims: ≤ 20 gradient steps) or step (one step ≤ 1/31 of a side)", Source: "measured: docs/defaults.md, \"Refinement\"",
	Earlier: []bandit.Change{{Until: 4, Value: "step", Why: "a multi-step box refinement in 3+ dims"}},
	Paper:   "step"}

// withDoc is d in an agent's own words.
func withDoc(d bandit.ChoiceParam, doc string) bandit.ChoiceParam {
	d.Doc = doc
	return d
}

// withDefault is decls with the default of the choice named name set to def.
func withDefault(decls []bandit.Param, name, def string) []bandit.Param {
	out := slices.Clone(decls)
	for i, d := range out {
		if c, ok := d.(bandit.ChoiceParam); ok && c.Name == name {
			c.Default = def
			out[i] = c
		}
	}
	return out
}

// replaced is a copy of decls with the declaration of d's name replaced by d.
func replaced(decls []bandit.Param, d bandit.Param) []bandit.Param {
	out := slices.Clone(decls)
	for i, p := range out {
		if p.Describe().Name == d.Describe().Name {
			out[i] = d
		}
	}
	return out
}

// own is agent name's declaration of d's parameter (its default may differ
// from d's: withDefault), or d when name declares none of that type.
func own[P bandit.Param](name string, d P) P {
	if s, err := Lookup(name); err == nil {
		want := d.Describe().Name
		for _, p := range s.Params {
			if q, ok := p.(P); ok && q.Describe().Name == want {
				return q
			}
		}
	}
	return d
}

// refineParam reads refine: the options of the local refinement on a box
// (maximise.RefineGrad). step is the single step of at most a grid
// spacing (1/31 of a side), enough in 1–2 dimensions, where the candidates
// are a 32-per-side grid. In 3 or more the 1024 Halton candidates lie
// 1024^{−1/d} of a side apart (0.31 in 6-D), so ascent climbs the
// acquisition as BoTorch's multi-step gradient refinement does: up to 20
// steps, the longest half that spacing (docs/defaults.md, "Refinement").
// The default is the one agent name declares in its Params.
func refineParam(name string, ps bandit.Params, dom domain.Domain) (maximise.GradOptions, error) {
	mode, err := own(name, refineDoc).Read(name, ps)
	box, ok := dom.(*domain.Box)
	if err != nil || mode == "step" || !ok || box.Dim() < 3 {
		return maximise.GradOptions{}, err
	}
	return ascentOptions(box.Dim()), nil
}

// constraintFitDoc declares constraint-fit.
var constraintFitDoc = bandit.ChoiceParam{Name: "constraint-fit", Default: "centred", Choices: []string{"centred", "threshold"},
	Doc: "centred: fit g about its mean (no stuck runs); threshold: about its threshold", Source: "measured: docs/defaults.md, \"Third look\"",
	Earlier: []bandit.Change{{Until: 4, Value: "threshold", If: FitsHyper, Why: "constraint hyperparameters fitted about their mean (no stuck runs)"}}}

// refitDoc declares refit.
var refitDoc = bandit.ChoiceParam{Name: "refit", Default: "inline", Choices: []string{"inline", "deferred"},
	Doc: "inline: a refit due at n is made in the ask at n; deferred: off the ask's path, in use from n + n/4 (opt-in)", Source: "measured: docs/defaults.md, \"Cost\"",
	Earlier: []bandit.Change{{Until: 4, Value: "inline", If: FitsHyper, Why: "the timing of refits a parameter (refit, inline by default)"}}}

// FitParams are the parameters that choose how hyperparameters are fitted:
// they apply only where a fit is made (hyper = fit, or auto on a domain
// with coordinates), and are refused elsewhere.
var FitParams = []string{constraintFitDoc.Name, refitDoc.Name}

// fitDecls declare FitParams.
var fitDecls = []bandit.Param{constraintFitDoc, refitDoc}

// FitsHyper is the condition of the changes of FitParams' defaults: a
// study whose parameters fit hyperparameters (FitsHyperparameters on
// actions with coordinates, as every service study's are: hyper ≠ fixed).
var FitsHyper = bandit.IsNot("hyper", "fixed")

// FitsHyperparameters is the one answer to "does an agent with parameters
// ps fit hyperparameters": hyper = fit, or auto (its default) where the
// actions have coordinates (coords; the service's studies always have).
func FitsHyperparameters(ps bandit.Params, coords bool) bool {
	v, _ := ps.Given(hyperDoc)
	return fitsHyper(v, coords)
}

// fitsHyper is FitsHyperparameters for the value v of hyper ("" for none).
func fitsHyper(v string, coords bool) bool { return v != "fixed" && (v == "fit" || coords) }

// widthParams reads beta, beta-f and beta-g: the constant widths of the
// objective and the constraints with widths=practical (fixed true), or the
// paper's schedule (fixed false) with widths=theory. With region=trust on
// a box of 3+ dimensions beta-g defaults to TrustBetaG.
func widthParams(name string, ps bandit.Params, dom domain.Domain) (fixed bool, cf, cg float64, err error) {
	mode, err := widthsDoc.Read(name, ps)
	if err != nil {
		return false, 0, 0, err
	}
	if cf, err = betaFDoc.Read(name, ps); err != nil {
		return false, 0, 0, err
	}
	defG := betaGDoc.Default
	if trust, err := regionParam(name, ps); err != nil {
		return false, 0, 0, err
	} else if box, ok := dom.(*domain.Box); trust != regionGlobal && ok && box.Dim() >= 3 && (trust&regionAuto == 0 || box.Dim() >= TrustAutoDim) {
		defG = TrustBetaG
	}
	if cg, err = betaGDoc.ReadOr(name, ps, defG); err != nil {
		return false, 0, 0, err
	}
	if mode == "theory" {
		return false, 0, 0, nil
	}
	return true, cf, cg, nil
}

// modelOptions reads the model options of a GP agent: inducing, and, where
// the agent documents them, standardise and hyper.
//
// Only agents with practical defaults (practical true: they document
// standardise, hyper and beta) read standardise and hyper here; igpCore's
// agents read standardise alone (standardiseOnly) and keep a fixed kernel.
// dom decides hyper=auto.
func modelOptions(name string, ps bandit.Params, dom domain.Domain, practical bool) (model.Options, error) {
	m, err := inducingDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	if !practical {
		return model.Options{Inducing: m}, nil
	}
	std, err := standardiseDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	hyper, err := hyperDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	fit := fitsHyper(hyper, hasCoordinates(dom))
	cands, err := candidatesDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	cfit, err := constraintFitDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	refit, err := refitDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	lprior, err := lengthscalePriorDoc.Read(name, ps)
	if err != nil {
		return model.Options{}, err
	}
	if box, ok := dom.(*domain.Box); lprior == "auto" && ok && box.Mixed() {
		lprior = "dimension"
	}
	for _, d := range fitDecls {
		if v, _ := ps.Given(d); v != "" && !fit {
			return model.Options{}, bandit.ParamErrorf(name, d.Describe().Name, "= %s applies when hyperparameters are fitted (hyper = %s here fits none)", v, hyper)
		}
	}
	return model.Options{Inducing: m, Standardise: std == "on", Fit: fit, SpaceFilling: cands == "halton", CentredFit: fit && cfit == "centred",
		DeferFit: fit && refit == "deferred", DimPrior: fit && lprior == "dimension"}, nil
}

// hasCoordinates reports whether the actions of dom are points a kernel
// over coordinates can be fitted on: a box, or arms with coordinates.
func hasCoordinates(dom domain.Domain) bool {
	switch d := dom.(type) {
	case *domain.Box:
		return true
	case *domain.Finite:
		return d.Dim() > 0
	}
	return false
}

// gpInfo is the Info a GP agent builds its constants from: the problem's,
// or, with standardise=on, the same in standardised units
// (model.StandardInfo), so that nothing the agent combines with the
// standardised posteriors carries the metrics' units.
func gpInfo(name string, cfg Config) (bandit.Info, error) {
	o, err := modelOptions(name, cfg.Params, cfg.Info.Domain, true)
	if err != nil {
		return bandit.Info{}, err
	}
	in := cfg.Info
	if DomainOf(in) == DomainContextual {
		return bandit.Info{}, fmt.Errorf("%s models functions over a fixed domain; the problem's action sets change every round (contextual: lc-lucb, safe-lts)", name)
	}
	if in.Kernel == nil {
		if !o.Fit {
			return bandit.Info{}, fmt.Errorf("%s needs a GP prior (a kernel and a noise variance), which this problem does not give", name)
		}
		// No prior kernel, and hyper fits one: until the first fit (2(d+2)
		// observations) the models use the fit's first start
		// (gp.DefaultStarts): ARD Matérn-5/2, σ² = 1, ℓ_d = 0.2·side_d.
		k, err := fitStartKernel(in.Domain)
		if err != nil {
			return bandit.Info{}, fmt.Errorf("%s: %w", name, err)
		}
		in.Kernel = k
	}
	if o.Standardise {
		return model.StandardInfo(in), nil
	}
	return in, nil
}

// fitStartKernel is the kernel a GP with fitted hyperparameters starts from
// when the problem gives none: the first of gp.DefaultStarts on dom's sides
// (a box's, or the spread of the arms' coordinates; 1 where 0).
func fitStartKernel(dom domain.Domain) (gp.Kernel, error) {
	var lo, hi []float64
	switch d := dom.(type) {
	case *domain.Box:
		lo, hi = d.Lo, d.Hi
	case *domain.Finite:
		lo, hi = slices.Clone(d.Points[0]), slices.Clone(d.Points[0])
		for _, x := range d.Points {
			for i, v := range x {
				lo[i], hi[i] = math.Min(lo[i], v), math.Max(hi[i], v)
			}
		}
	}
	ls := make([]float64, len(lo))
	for i := range ls {
		ls[i] = 0.2
		if s := hi[i] - lo[i]; s > 0 {
			ls[i] *= s
		}
	}
	return gp.NewARD(model.FitNu, ls, 1)
}

// standardiseOnly reads standardise for the GP agents that take it without
// the other practical defaults (rpol-censored-ucb, scgp-ucb, igp-ucb, the
// penalty agents, admmbo: their widths, kernels and candidates stay their
// papers'), and returns the Info their constants come from: model.StandardInfo
// with standardise=on, the problem's with off.
func standardiseOnly(name string, cfg Config) (bool, bandit.Info, error) {
	v, err := own(name, standardiseDoc).Read(name, cfg.Params)
	if err != nil {
		return false, bandit.Info{}, err
	}
	if v == "off" {
		return false, cfg.Info, nil
	}
	return true, model.StandardInfo(cfg.Info), nil
}

// runScale is a running scale of a metric the agent uses outside its GP
// models (sampled or observed costs): the population standard deviation of
// the values so far about their mean, |mean| when they do not spread, 1 when
// they are all 0 — the rule of model.Adaptive, so it moves with the metric's
// units (×a gives ×a up to rounding). Welford's update; plain data (the
// service's snapshot codec saves it).
type runScale struct {
	N        int
	Mean, M2 float64
}

// add records v.
func (r *runScale) add(v float64) {
	r.N++
	d := v - r.Mean
	r.Mean += d / float64(r.N)
	r.M2 += d * (v - r.Mean)
}

// scale is the current scale (1 before any value).
func (r *runScale) scale() float64 {
	if r.N == 0 {
		return 1
	}
	return model.ScaleOf(r.Mean, math.Sqrt(math.Max(r.M2, 0)/float64(r.N)))
}

// zeroToInf is [0, ∞]: ∞ accepted (a rule that then never stops or bounds).
var zeroToInf = bandit.Range{Min: 0, Max: math.Inf(1), MinEnd: bandit.Closed, MaxEnd: bandit.Closed}

// failureDoc declares a failure probability (α, δ, p) of a confidence
// width: name, what it is in the agent's schedule, and the source.
func failureDoc(name, doc, source string) bandit.FloatParam {
	return bandit.FloatParam{Name: name, Default: 0.05, Range: bandit.In(0, 1), Doc: doc, Source: source}
}

// multiplierDoc declares a multiplier on a width or a schedule (beta-scale,
// V-scale, …): 1, the paper's value, by default.
func multiplierDoc(name, doc, source string) bandit.FloatParam {
	return bandit.FloatParam{Name: name, Default: 1, Range: bandit.AtLeast(0), Doc: doc, Source: source}
}

// lambdaRPOL is the value of the lambda parameter that names Guo et al. §2's
// regulariser λ = 1 + 2/T, for any GP agent.
const lambdaRPOL = "1+2/T"

// lambdaDoc declares λ, which every GP agent takes with one meaning: the
// noise variance of the GP likelihood, i.e. the regulariser of
// (K_t + λI)⁻¹. The value "1+2/T" is Guo et al. §2's λ = 1 + 2/T at
// horizon T, so that the baselines of a figure can share the value its
// paper states for its own algorithm.
var lambdaDoc = bandit.FloatParam{Name: "lambda", Computed: "problem's noise variance", Range: bandit.Above(0), Words: []string{lambdaRPOL},
	Doc: "GP likelihood noise variance λ, the same meaning in every GP agent; 1+2/T: Guo et al. §2's value", Source: "the problem's GP prior"}

// lambdaAs is lambdaDoc in an agent's own words.
func lambdaAs(doc, source string) bandit.FloatParam {
	d := lambdaDoc
	d.Doc, d.Source = doc, source
	return d
}

// lambdaParam reads λ through agent name's declaration of it (lambdaDoc,
// or RPOL's, whose default is 1+2/T); def is the problem's noise variance.
func lambdaParam(name string, ps bandit.Params, horizon int, def float64) (float64, error) {
	if own(name, lambdaDoc).Computed == lambdaRPOL {
		def = 1 + 2/float64(horizon)
	}
	if s, ok := ps.Given(lambdaDoc); ok && strings.ReplaceAll(s, " ", "") == lambdaRPOL {
		if horizon <= 0 {
			return 0, bandit.ParamErrorf(name, "lambda", "= %s needs a horizon (T = %d)", s, horizon)
		}
		return 1 + 2/float64(horizon), nil
	}
	if _, set := ps.Given(lambdaDoc); !set && !(def > 0) {
		return 0, fmt.Errorf("%s needs a GP prior (a kernel and a noise variance), which this problem does not give", name)
	}
	return lambdaDoc.ReadOr(name, ps, def)
}

// Declarations that reports and reproductions read from a run's recorded
// parameters (bandit.Params.Given), so no reader names them by string.
var (
	InducingParam  = inducingDoc // the sparse GP's inducing points, 0 = exact
	CKBBetaScale   = ckbScale    // CKB's multiplier on β_t (the sensitivity sweep)
	OPLBNodesParam = oplbNodes   // OPLB's node budget for the search of (34)
)
