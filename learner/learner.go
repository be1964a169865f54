package learner

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/space"
)

// What counts in a study (Definition.Evaluations; DESIGN.md, "Live and
// offline evaluations").
const (
	// Live: every evaluation is served to real traffic, so regret and
	// limits count at every round (the papers' setting).
	Live = "live"
	// Offline: only the configuration deployed at the end counts;
	// evaluations may break limits while searching, failures still cost.
	Offline = "offline"
)

// CheckEvaluations refuses a value that is neither Live nor Offline ("" is
// Live).
func CheckEvaluations(e string) error {
	switch e {
	case "", Live, Offline:
		return nil
	}
	return fmt.Errorf("evaluations %q: accepted are %q, %q", e, Live, Offline)
}

// The default prior and candidate set of a definition that gives none
// (the service's defaults, docs/defaults.md). The GP algorithms with
// practical defaults standardise the metrics and fit the kernel, so this
// prior only starts them; the others (safe BO, igp-ucb, …) take it as is.
const (
	DefaultCandidates = 256
	// DefaultLengthscaleFraction × the mean side of the space's bounding
	// box is the default lengthscale.
	DefaultLengthscaleFraction = 0.2
	DefaultKernel              = "se"
	DefaultVariance            = 1.0
	DefaultNoiseVar            = 0.01
	DefaultB                   = 1.0
	DefaultG                   = 1.0
	// DefaultS bounds the norms of the unknown linear parameters
	// (Pacchiano et al. Ass. 2; their linear experiments use S = 1).
	DefaultS = 1.0
)

// Space is where a definition's actions live: exactly one of a box (Lo,
// Hi), Points, typed Parameters, or per-round action sets of Dim
// coordinates (contextual).
type Space struct {
	Lo, Hi []float64
	// Points are a finite set of actions; with Parameters, encodings of
	// their values (a candidate set fixed before, as a service study stores
	// it).
	Points [][]float64
	// Parameters are named, typed parameters (package space): the learner
	// searches the unit cube of their encoding, its discrete coordinates
	// marked (domain.Box.Vars), or Points, or a candidate set.
	Parameters []space.Param
	// Dim > 0: a contextual space, its actions given with each round.
	Dim int
	// Native gives a box (or the parameters' cube) to the learner as such;
	// Candidates > 0 a candidate set of that size instead. Neither: a box
	// when the algorithm takes one (or none is named), else DefaultCandidates.
	Native     bool
	Candidates int
	// Rounded gives the parameters' cube without its discrete coordinates
	// (ints and categoricals searched as floats, decoded by rounding).
	Rounded bool
	// StarConvex: the segments between the safe point and the points are
	// actions too (Pacchiano et al. Def. 8).
	StarConvex bool
}

// Constraint is metric ≤ Threshold, kept as Kind says.
type Constraint struct {
	Name      string
	Threshold float64
	Kind      Kind
}

// Prior is what the learner assumes about the unknown functions. A zero
// Kernel, Lengthscale, Variance or NoiseVar takes the default (DefaultPrior);
// R and RG default to √NoiseVar; B and G to 1; S to DefaultS, L to DefaultL.
type Prior struct {
	Kernel                          string
	Lengthscale, Variance, NoiseVar float64
	B, G, R, RG, Slater, S, L       float64
	RSet, RGSet                     bool // R, RG given (0 is a valid noise scale)
	SafeReward                      *float64
	SafeCosts                       []float64
	RewardClass, CostClass          [][]float64
}

// Definition is a study as the learner needs it.
type Definition struct {
	Space       Space
	Minimize    bool
	Constraints []Constraint
	// Algorithm is a registered ID; empty: chosen (Choose) from the
	// constraints' kinds, the domain, the safe point and Evaluations.
	Algorithm string
	Params    bandit.Params
	Prior     Prior
	// Safe is an action known to hold every limit (x₀), or nil.
	Safe        []float64
	Seed        uint64
	Horizon     int
	FullInfo    bool
	Evaluations string
	// Stored marks a definition checked and made explicit when it was
	// created (a service study): its kinds, its box's candidate count and
	// native flag are taken as they are, so a later change of a default or
	// of an algorithm's declaration never changes or refuses a stored study.
	Stored bool
}

// Error is a definition the learner cannot build, naming the field (as the
// service's wire format spells it: "space", "parameters", "prior",
// "prior.safe", "algorithm", "params.<name>", "constraints[j].kind").
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func fieldErr(field string, err error) *Error { return &Error{Field: field, Err: err} }

// Learner is a built definition: the learner's Info (domain with its
// encoding, kernel and prior, safe action, stage-wise facts), the points
// its arms stand for, and the algorithm chosen or named.
type Learner struct {
	Def  Definition
	Info bandit.Info
	// Points are the arms' points (nil for a box).
	Points [][]float64
	// Domain is the kind of domain (agent.Domain*).
	Domain string
	// Sign is +1 for a maximised objective, −1 for a minimised one: the
	// agent maximises Sign·objective.
	Sign float64
	// Thresh are the constraints' thresholds: the agent sees g = metric −
	// threshold.
	Thresh []float64
	// Algorithm runs; Choice says why when it was chosen.
	Algorithm string
	Choice    *Choice
	// Kinds are the constraints' kinds, defaults filled in.
	Kinds []Kind
}

// New builds the definition and its agent for Def.Horizon rounds with
// Def.Seed.
func New(def Definition) (*Learner, bandit.Agent, error) {
	l, err := Build(def)
	if err != nil {
		return nil, nil, err
	}
	a, err := l.NewAgent(def.Horizon, def.Seed)
	if err != nil {
		return nil, nil, err
	}
	return l, a, nil
}

// Build turns a definition into the learner's view, choosing the algorithm
// when none is named; NewAgent makes a run of it.
func Build(def Definition) (*Learner, error) {
	if err := CheckEvaluations(def.Evaluations); err != nil {
		return nil, fieldErr("evaluations", err)
	}
	l := &Learner{Def: def, Sign: 1}
	if def.Minimize {
		l.Sign = -1
	}
	kinds := make([]Kind, len(def.Constraints))
	for j, c := range def.Constraints {
		if err := ValidKind(c.Kind); err != nil {
			return nil, fieldErr(fmt.Sprintf("constraints[%d].kind", j), err)
		}
		if math.IsNaN(c.Threshold) || math.IsInf(c.Threshold, 0) {
			return nil, fieldErr(fmt.Sprintf("constraints[%d].threshold", j), fmt.Errorf("= %v: must be finite", c.Threshold))
		}
		l.Thresh = append(l.Thresh, c.Threshold)
		kinds[j] = c.Kind
	}
	var named *agent.Spec
	if def.Algorithm != "" {
		spec, err := agent.Lookup(def.Algorithm)
		if err != nil {
			return nil, fieldErr("algorithm", err)
		}
		named = &spec
	}
	dom, safe, err := l.domain(named)
	if err != nil {
		return nil, err
	}
	if named == nil {
		ch, err := Choose(kinds, def.Safe != nil, l.Domain, def.Evaluations)
		if err != nil {
			return nil, fieldErr("algorithm", err)
		}
		l.Algorithm, l.Choice, l.Kinds = ch.Algorithm, &ch, ch.Kinds
	} else {
		l.Algorithm = named.Name
		l.Kinds = make([]Kind, len(kinds))
		for j, k := range kinds {
			if k == "" {
				k = DefaultKind(named)
			} else if err := CheckKeeps(*named, k); err != nil && !def.Stored {
				return nil, fieldErr(fmt.Sprintf("constraints[%d].kind", j), err)
			}
			l.Kinds[j] = k
		}
	}
	p, err := l.prior(dom)
	if err != nil {
		return nil, err
	}
	k, err := gp.NewNamed(p.Kernel, p.Lengthscale, p.Variance)
	if err != nil {
		return nil, fieldErr("prior", err)
	}
	l.Info = bandit.Info{
		Domain: dom, M: len(def.Constraints), Kernel: k, NoiseVar: p.NoiseVar,
		B: p.B, G: p.G, R: p.R, RG: p.RG, Slater: p.Slater, Safe: safe,
		Horizon: def.Horizon, FullInfo: def.FullInfo,
	}
	if safe != nil && len(def.Constraints) > 0 {
		l.Info.Stage = l.stage(p, safe)
	}
	return l, nil
}

// NewAgent builds a fresh run of the algorithm for horizon rounds.
func (l *Learner) NewAgent(horizon int, seed uint64) (bandit.Agent, error) {
	info := l.Info
	info.Horizon = horizon
	a, err := agent.New(l.Algorithm, agent.Config{Info: info, Horizon: horizon, Params: l.Def.Params, Seed: seed})
	if err != nil {
		field := "algorithm"
		if pe := (*bandit.ParamError)(nil); errors.As(err, &pe) {
			field = "params." + pe.Name
		}
		return nil, fieldErr(field, err)
	}
	return a, nil
}

// native reports whether a box or the parameters' cube goes to the learner
// as such (Space.Native); a stored definition says so explicitly.
func (s *Space) native(named *agent.Spec, stored bool) bool {
	return s.Native || !stored && s.Candidates == 0 && (named == nil || named.Can.Takes(agent.DomainBox))
}

// domain builds the learner's domain and names its kind (l.Domain); a safe
// point is one of its arms, or added to a box's candidates.
func (l *Learner) domain(named *agent.Spec) (domain.Domain, *bandit.Action, error) {
	s := &l.Def.Space
	x0 := slices.Clone(l.Def.Safe)
	box := len(s.Lo) > 0 || len(s.Hi) > 0
	switch {
	case s.Dim > 0:
		// The learner's fixed domain is the safe point alone: its actions
		// come with each round (Round.Arms).
		if x0 == nil {
			return nil, nil, fieldErr("prior.safe", errors.New("is required for a contextual space"))
		}
		dom, err := domain.NewFinite([][]float64{x0})
		if err != nil {
			return nil, nil, fieldErr("space", err)
		}
		l.Domain = agent.DomainContextual
		return dom, &bandit.Action{Arm: -1, X: x0}, nil
	case len(s.Parameters) > 0 && box:
		return nil, nil, fieldErr("parameters", errors.New("give parameters, a box (lo and hi) or points, only one of them"))
	case len(s.Parameters) > 0:
		if err := space.Check(s.Parameters); err != nil {
			return nil, nil, fieldErr("parameters", err)
		}
		if s.Candidates < 0 {
			return nil, nil, fieldErr("space.candidates", fmt.Errorf("= %d: must be at least 0 (0: %d)", s.Candidates, DefaultCandidates))
		}
		if s.Points == nil && s.native(named, l.Def.Stored) {
			d := space.Dim(s.Parameters)
			lo, hi := make([]float64, d), make([]float64, d)
			for i := range hi {
				hi[i] = 1
			}
			return l.box(lo, hi, x0, !s.Rounded)
		}
		if s.Points == nil {
			l.Points = TypedCandidates(s.Parameters, orDefault(s.Candidates, DefaultCandidates))
		} else {
			l.Points = s.Points
		}
		return l.finite(x0)
	case len(s.Points) > 0 && box:
		return nil, nil, fieldErr("space", errors.New("give a box (lo and hi) or points, not both"))
	case len(s.Points) > 0:
		l.Points = s.Points
		return l.finite(x0)
	case len(s.Lo) == 0 || len(s.Lo) != len(s.Hi):
		return nil, nil, fieldErr("space", fmt.Errorf("lo and hi: %d and %d bounds, want as many as x has coordinates (at least 1)", len(s.Lo), len(s.Hi)))
	case s.native(named, l.Def.Stored):
		return l.box(s.Lo, s.Hi, x0, false)
	}
	n := s.Candidates // a stored definition's count is the one it was built with
	if !l.Def.Stored {
		n = orDefault(n, DefaultCandidates)
	}
	l.Points = BoxCandidates(s.Lo, s.Hi, n)
	if x0 != nil && pointIndex(l.Points, x0) < 0 {
		l.Points = append(l.Points, x0)
	}
	return l.finite(x0)
}

// orDefault is n, or def when n is 0.
func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// box is the box domain [lo, hi], with the parameters' discrete coordinates
// when typed.
func (l *Learner) box(lo, hi, x0 []float64, typed bool) (domain.Domain, *bandit.Action, error) {
	b, err := domain.NewBox(lo, hi)
	if err != nil {
		return nil, nil, fieldErr("space", err)
	}
	l.Domain = agent.DomainBox
	if typed {
		b.Vars = space.Vars(l.Def.Space.Parameters) // ints, steps and categoricals searched as such
		if err := b.CheckVars(); err != nil {
			return nil, nil, fieldErr("parameters", err)
		}
		if b.Mixed() {
			l.Domain = agent.DomainTyped
		}
	}
	var safe *bandit.Action
	if x0 != nil {
		safe = &bandit.Action{Arm: -1, X: x0}
	}
	return b, safe, nil
}

// finite is the domain of l.Points, the safe point one of them.
func (l *Learner) finite(x0 []float64) (domain.Domain, *bandit.Action, error) {
	dom, err := domain.NewFinite(l.Points)
	if err != nil {
		return nil, nil, fieldErr("space", err)
	}
	l.Domain = agent.DomainFinite
	if x0 == nil {
		return dom, nil, nil
	}
	i := pointIndex(l.Points, x0)
	if i < 0 {
		return nil, nil, fieldErr("prior.safe", fmt.Errorf("= %v is not one of the points", x0))
	}
	return dom, &bandit.Action{Arm: i, X: l.Points[i]}, nil
}

// prior fills the defaults of Def.Prior.
func (l *Learner) prior(dom domain.Domain) (Prior, error) {
	p := l.Def.Prior
	if p.Kernel == "" {
		p.Kernel = DefaultKernel
	}
	if p.Lengthscale == 0 {
		lo, hi := Bounds(l.Def.Space, l.Points)
		p.Lengthscale = DefaultLengthscale(lo, hi)
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&p.Variance, DefaultVariance)
	def(&p.NoiseVar, DefaultNoiseVar)
	def(&p.B, DefaultB)
	def(&p.G, DefaultG)
	def(&p.S, DefaultS)
	if !p.RSet {
		p.R = math.Sqrt(p.NoiseVar)
	}
	if !p.RGSet {
		p.RG = p.R
	}
	if p.L == 0 {
		p.L = DefaultL(l.Def.Space, l.Def.Safe)
	}
	return p, nil
}

// stage is what stage-wise algorithms are told (Pacchiano et al. §2):
// thresholds τ, the safe action x₀ and, when given, its values r₀, c₀;
// bounds S and L; function classes. Constraint values reach agents as g =
// c − τ (the Info.Stage convention); r₀ and the reward class carry the
// goal's sign.
func (l *Learner) stage(p Prior, safe *bandit.Action) *bandit.Stage {
	st := &bandit.Stage{Tau: slices.Clone(l.Thresh), X0: slices.Clone(safe.X),
		SafeArm: safe.Arm, S: p.S, L: p.L, StarConvex: l.Def.Space.StarConvex}
	if p.SafeReward != nil {
		st.Known, st.R0, st.C0 = true, l.Sign**p.SafeReward, slices.Clone(p.SafeCosts)
	}
	for _, row := range p.RewardClass {
		r := make([]float64, len(row))
		for i, v := range row {
			r[i] = l.Sign * v
		}
		st.RewardClass = append(st.RewardClass, r)
	}
	st.CostClass = p.CostClass
	return st
}

// DefaultLengthscale is DefaultLengthscaleFraction × the mean side of the
// bounding box [lo, hi] (of a side 1 when that is not positive and finite).
func DefaultLengthscale(lo, hi []float64) float64 {
	side := 0.0
	for i := range lo {
		side += hi[i] - lo[i]
	}
	side /= float64(len(lo))
	if !(side > 0) || math.IsInf(side, 0) {
		side = 1
	}
	return DefaultLengthscaleFraction * side
}

// Bounds is the bounding box of a space: the box, the unit cube of a
// contextual space or of typed parameters' encoding, or the points'
// (points, when given, are the arms the learner chooses among).
func Bounds(s Space, points [][]float64) (lo, hi []float64) {
	if len(s.Lo) > 0 {
		return s.Lo, s.Hi
	}
	if points == nil {
		points = s.Points
	}
	if len(points) == 0 {
		d := s.Dim
		if len(s.Parameters) > 0 {
			d = space.Dim(s.Parameters)
		}
		lo, hi = make([]float64, d), make([]float64, d)
		for i := range hi {
			hi[i] = 1
		}
		return lo, hi
	}
	lo, hi = slices.Clone(points[0]), slices.Clone(points[0])
	for _, p := range points {
		for i := range lo {
			lo[i] = math.Min(lo[i], p[i])
			hi[i] = math.Max(hi[i], p[i])
		}
	}
	return lo, hi
}

// DefaultL is the largest norm of an action (Pacchiano et al. Ass. 3): over
// the points, over the box's corners, or, for a contextual space, max(1,
// ‖x₀‖); 1 when that is not positive.
func DefaultL(s Space, safe []float64) float64 {
	norm := func(x []float64) float64 {
		v := 0.0
		for _, c := range x {
			v += c * c
		}
		return math.Sqrt(v)
	}
	L := 0.0
	switch {
	case len(s.Points) > 0:
		for _, x := range s.Points {
			L = math.Max(L, norm(x))
		}
	case len(s.Lo) > 0 || len(s.Parameters) > 0:
		lo, hi := Bounds(s, nil)
		c := make([]float64, len(lo))
		for i := range c {
			c[i] = math.Max(math.Abs(lo[i]), math.Abs(hi[i]))
		}
		L = norm(c)
	default:
		L = math.Max(1, norm(safe))
	}
	if !(L > 0) {
		L = 1
	}
	return L
}

// BoxCandidates is the deterministic candidate set of a box: a regular
// grid in one and two dimensions (k points per side, k = round(n^(1/d)),
// one point on a side of zero width), a Halton sequence (bases 2, 3, 5, …,
// from index 1) in three and more (domain.GridPoints, domain.HaltonPoints).
func BoxCandidates(lo, hi []float64, n int) [][]float64 {
	d := len(lo)
	if d > 2 {
		return domain.HaltonPoints(lo, hi, n, nil)
	}
	k := max(int(math.Round(math.Pow(float64(n), 1/float64(d)))), 1)
	sides := make([]int, d)
	for i := range sides {
		sides[i] = k
		if hi[i] == lo[i] {
			sides[i] = 1
		}
	}
	return domain.GridPoints(lo, hi, sides)
}

// TypedCandidates are n exact encodings of the parameters' values
// (space.Candidates: every combination of the discrete ones when few, else
// a deduplicated Halton set).
func TypedCandidates(ps []space.Param, n int) [][]float64 { return space.Candidates(ps, n) }

// Point is the action's coordinates: its own, or its arm's point.
func (l *Learner) Point(a bandit.Action) []float64 {
	if a.X == nil && a.Arm >= 0 && a.Arm < len(l.Points) {
		return l.Points[a.Arm]
	}
	return a.X
}

// Values decodes a point into the parameters' values (nil without
// Parameters).
func (l *Learner) Values(x []float64) (map[string]any, error) {
	if len(l.Def.Space.Parameters) == 0 {
		return nil, nil
	}
	return space.Decode(l.Def.Space.Parameters, x)
}

func pointIndex(pts [][]float64, x []float64) int {
	return slices.IndexFunc(pts, func(p []float64) bool { return slices.Equal(p, x) })
}

// RecommendLevel is the probability that every limit holds which a
// recommended configuration reaches (DESIGN.md, "what is recommended").
const RecommendLevel = 0.95

// Recommendation is the agent's recommendation (bandit.Recommendation) in
// the definition's terms: the objective in its own direction and units,
// each constraint's metric in its units (g + threshold).
type Recommendation struct {
	// Decision is the agent's ID of a decision that evaluated it.
	Decision int64
	// X is the configuration in the learner's coordinates; Values its
	// parameters' values (with Parameters).
	X      []float64
	Values map[string]any
	// Objective and Constraints are posterior means and standard
	// deviations; Feasible is P(every limit holds).
	Objective   bandit.Moments
	Constraints []bandit.Moments
	Feasible    float64
}

// Recommend asks the agent for its recommendation at RecommendLevel; nil
// when the agent names none (it does not implement bandit.Recommender, or
// no evaluated configuration reaches the level).
func (l *Learner) Recommend(a bandit.Agent) *Recommendation {
	r, ok := a.(bandit.Recommender)
	if !ok {
		return nil
	}
	rec, ok := r.Recommend(RecommendLevel)
	if !ok {
		return nil
	}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	ok = fin(rec.Objective.Mean) && fin(rec.Objective.Std) && fin(rec.Feasible)
	for _, m := range rec.Constraints {
		ok = ok && fin(m.Mean) && fin(m.Std)
	}
	if !ok {
		return nil // a model that cannot say: nothing recommended
	}
	out := &Recommendation{Decision: int64(rec.Decision), X: slices.Clone(l.Point(rec.Action)), Feasible: rec.Feasible,
		Objective: bandit.Moments{Mean: l.Sign * rec.Objective.Mean, Std: rec.Objective.Std}}
	if len(out.X) == 0 {
		return nil
	}
	for j, m := range rec.Constraints {
		if j < len(l.Thresh) {
			m.Mean += l.Thresh[j]
		}
		out.Constraints = append(out.Constraints, m)
	}
	out.Values, _ = l.Values(out.X)
	return out
}
