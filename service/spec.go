package service

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/optimize"
	"github.com/cbandit/cbandit/service/api"
)

// Limits and defaults of a study definition (documented in doc.go and the
// OpenAPI document).
const (
	DefaultCandidates = 256
	MaxCandidates     = 2048
	MaxPoints         = 2048
	MaxDim            = 32
	MaxConstraints    = 16
	// DefaultEpoch is the first epoch of an open-ended study's doubling
	// trick (the former default horizon).
	DefaultEpoch = 1000
	MaxEpoch     = 1_000_000
	MaxHorizon   = 1_000_000_000
	// MaxMagnitude bounds every metric value, threshold, box bound and
	// prior scale a study accepts: squares and sums over a billion rounds
	// stay far below math.MaxFloat64 (1e12² · 1e9 = 1e33), so kernels,
	// standardisation and summaries stay finite.
	MaxMagnitude = 1e12
	// MinScale bounds prior lengthscales and noise variances from below
	// (relative to the space for lengthscales): below it kernel matrices
	// are numerically singular or identity.
	MinScale        = 1e-9
	DefaultNoiseVar = 0.01
	DefaultB        = 1.0
	DefaultG        = 1.0
	DefaultVariance = 1.0
	// DefaultLengthscaleFraction × the mean side of the space's bounding box
	// is the default kernel lengthscale.
	DefaultLengthscaleFraction = 0.2
	maxNameLen                 = 200
	// MaxModelEntries bounds (m+1)·N², the size of the prior covariances
	// over N candidates of the m+1 posteriors a study keeps (32 MiB each at
	// the bound): N = 2048 with no constraint, 1448 with one, 1024 with
	// three, 512 with fifteen.
	MaxModelEntries = 1 << 22
	// DefaultS bounds the norms of the unknown linear parameters (Pacchiano et al. Ass.
	// 2); Pacchiano et al.'s linear experiments use S = 1 (problem/stagewise.go).
	DefaultS = 1.0
	// MaxClass bounds the size of a function class (prior.reward_class,
	// prior.cost_class).
	MaxClass = 256
)

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func checkName(field, s string) *apiError {
	if strings.TrimSpace(s) == "" {
		return invalid(field, "must not be empty")
	}
	if len(s) > maxNameLen {
		return invalid(field, "is %d bytes long, at most %d allowed", len(s), maxNameLen)
	}
	if !utf8.ValidString(s) {
		return invalid(field, "%q is not valid UTF-8", s)
	}
	for i, r := range s {
		if invisible(r) {
			return invalid(field, "%q holds the invisible or control character %U at byte %d: names may not hold control (Cc), format (Cf: bidirectional overrides such as U+202E, U+FEFF, zero-width characters) or line and paragraph separator characters", s, r, i)
		}
	}
	return nil
}

// invisible reports the characters a name may not hold: controls (Cc),
// format characters (Cf: bidirectional controls such as U+202E, zero-width
// characters, U+FEFF) and the line and paragraph separators (Zl, Zp), which
// can make a name display as another one (Unicode Technical Report #36,
// "Unicode Security Considerations"; CVE-2021-42574, "Trojan Source").
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

func checkVector(field string, v []float64) *apiError {
	for i, x := range v {
		if e := checkMagnitude(fmt.Sprintf("%s[%d]", field, i), x); e != nil {
			return e
		}
	}
	return nil
}

// checkMagnitude accepts finite numbers of magnitude at most MaxMagnitude.
func checkMagnitude(field string, x float64) *apiError {
	if !finite(x) || math.Abs(x) > MaxMagnitude {
		return invalid(field, "= %v: must be a finite number in [-%g, %g]", x, MaxMagnitude, MaxMagnitude)
	}
	return nil
}

// normalize validates a study definition and fills in every default, so that
// the stored definition is explicit and later changes of defaults never change
// a stored study's replay.
func normalize(s *api.StudySpec) *apiError {
	if e := checkName("name", s.Name); e != nil {
		return e
	}
	if s.Parameters != nil {
		if len(s.Parameters) == 0 {
			return invalid("parameters", "must hold at least one parameter (or be absent, with a space)")
		}
		if e := normalizeParameters(s); e != nil {
			return e
		}
	} else if e := normalizeSpace(&s.Space); e != nil {
		return e
	}
	if e := checkName("objective.name", s.Objective.Name); e != nil {
		return e
	}
	switch s.Objective.Goal {
	case "":
		s.Objective.Goal = api.Maximize
	case api.Maximize, api.Minimize:
	default:
		return invalid("objective.goal", "= %q: accepted are %q, %q", s.Objective.Goal, api.Maximize, api.Minimize)
	}
	if len(s.Constraints) > MaxConstraints {
		return invalid("constraints", "has %d entries, at most %d allowed", len(s.Constraints), MaxConstraints)
	}
	seen := map[string]bool{s.Objective.Name: true}
	for j := range s.Constraints {
		c := &s.Constraints[j]
		f := fmt.Sprintf("constraints[%d]", j)
		if e := checkName(f+".name", c.Name); e != nil {
			return e
		}
		if seen[c.Name] {
			return invalid(f+".name", "= %q: metric names must be distinct (objective and constraints)", c.Name)
		}
		seen[c.Name] = true
		if e := checkMagnitude(f+".threshold", c.Threshold); e != nil {
			return e
		}
		switch c.Kind {
		case api.KindCumulative, api.KindLongTerm, api.KindStageWise:
		default: // resolveAlgorithm filled in an absent kind
			return invalid(f+".kind", "= %q: accepted are %q, %q, %q", c.Kind, api.KindCumulative, api.KindLongTerm, api.KindStageWise)
		}
	}
	if s.Constraints == nil {
		s.Constraints = []api.Constraint{}
	}
	if _, err := agent.Lookup(s.Algorithm); err != nil {
		return invalid("algorithm", "%v", err)
	}
	if _, e := params(s.Params); e != nil {
		return e
	}
	switch {
	case s.Horizon < 0 || s.Horizon > MaxHorizon:
		return invalid("horizon", "= %d: must be in [1, %d], or absent for an open-ended study", s.Horizon, MaxHorizon)
	case s.Horizon == 0 && s.Epoch == 0:
		s.Epoch = DefaultEpoch
	case s.Horizon == 0 && (s.Epoch < 0 || s.Epoch > MaxEpoch):
		return invalid("epoch", "= %d: must be in [1, %d]", s.Epoch, MaxEpoch)
	case s.Horizon > 0 && s.Epoch != 0:
		return invalid("epoch", "= %d: applies to open-ended studies only (no horizon)", s.Epoch)
	}
	// Set by PATCH /studies/{id}; given on creation (a definition read
	// back), the new study restarts its algorithm at the same horizons.
	for i, h := range s.RaisedFrom {
		prev := 0
		if i > 0 {
			prev = s.RaisedFrom[i-1]
		}
		if s.Horizon == 0 || h <= prev || h >= s.Horizon {
			return invalid(fmt.Sprintf("raised_from[%d]", i), "= %d: the earlier horizons of a study with a horizon (%d) increase and are below it", h, s.Horizon)
		}
	}
	n := len(s.Space.Points)
	field := "space.points"
	if s.Space.Type == api.SpaceBox {
		n, field = s.Space.Candidates, "space.candidates"
	}
	if len(s.Parameters) > 0 && s.Space.Type == api.SpacePoints {
		field = "space.candidates" // the set the parameters' candidates derive from: the field the user sets
	}
	if spec, _ := agent.Lookup(s.Algorithm); s.Space.Type == api.SpaceContextual && !spec.Can.Takes(agent.DomainContextual) {
		return invalid("algorithm", "= %q: contextual studies are served by %s (per-round action sets, Pacchiano et al. §4); use a points space for other algorithms", s.Algorithm, contextualList())
	}
	if s.FullInfo && (s.Space.Type == api.SpaceContextual || s.Space.Native) {
		return invalid("full_info", "needs a finite space (points, or a box's candidates): the constraint sample is given at every point")
	}
	if m := len(s.Constraints); (m+1)*n*n > MaxModelEntries {
		return invalid(field, "%d points with %d constraints: the study's %d posteriors over N points need (m+1)·N² = %d entries, at most %d allowed: at most %d points with %d constraints (or leave it out: typed parameters are then searched as a mixed space)",
			n, m, m+1, (m+1)*n*n, MaxModelEntries, int(math.Sqrt(float64(MaxModelEntries)/float64(m+1))), m)
	}
	return normalizePrior(s)
}

func normalizeSpace(sp *api.Space) *apiError {
	if sp.Rounded {
		return invalid("space.rounded", "applies to a native space of typed parameters only")
	}
	if sp.Type != api.SpaceContextual && sp.Dim != 0 {
		return invalid("space.dim", "applies to contextual spaces only (a %s space's dimension is that of its points)", sp.Type)
	}
	if sp.Type == api.SpaceBox && sp.StarConvex {
		return invalid("space.star_convex", "applies to points and contextual spaces only")
	}
	switch sp.Type {
	case api.SpaceContextual:
		if sp.Native || len(sp.Lo) > 0 || len(sp.Hi) > 0 || len(sp.Points) > 0 || sp.Candidates != 0 {
			return invalid("space", "a contextual space has only dim (and star_convex): its actions come with each ask")
		}
		if sp.Dim < 1 || sp.Dim > MaxDim {
			return invalid("space.dim", "= %d: must be in [1, %d]", sp.Dim, MaxDim)
		}
	case api.SpaceBox:
		if len(sp.Points) > 0 {
			return invalid("space.points", "must be absent for a box space")
		}
		d := len(sp.Lo)
		if d == 0 {
			return invalid("space.lo", "must have at least one coordinate")
		}
		if d > MaxDim {
			return invalid("space.lo", "has %d coordinates, at most %d allowed", d, MaxDim)
		}
		if len(sp.Hi) != d {
			return invalid("space.hi", "has %d coordinates, space.lo has %d", len(sp.Hi), d)
		}
		if e := checkVector("space.lo", sp.Lo); e != nil {
			return e
		}
		if e := checkVector("space.hi", sp.Hi); e != nil {
			return e
		}
		for i := range sp.Lo {
			if sp.Lo[i] > sp.Hi[i] {
				return invalid(fmt.Sprintf("space.hi[%d]", i), "= %v is below space.lo[%d] = %v", sp.Hi[i], i, sp.Lo[i])
			}
		}
		if sp.Candidates == 0 {
			sp.Candidates = DefaultCandidates
		}
		if sp.Candidates < 1 || sp.Candidates > MaxCandidates {
			return invalid("space.candidates", "= %d: must be in [1, %d]", sp.Candidates, MaxCandidates)
		}
		// Store the count actually used (a grid rounds it).
		sp.Candidates = len(boxCandidates(sp.Lo, sp.Hi, sp.Candidates))
	case api.SpacePoints:
		if sp.Native {
			return invalid("space.native", "applies to box spaces only")
		}
		if len(sp.Lo) > 0 || len(sp.Hi) > 0 {
			return invalid("space.lo", "must be absent for a points space")
		}
		if sp.Candidates != 0 {
			return invalid("space.candidates", "must be absent for a points space")
		}
		if len(sp.Points) == 0 {
			return invalid("space.points", "must hold at least one point")
		}
		if len(sp.Points) > MaxPoints {
			return invalid("space.points", "has %d points, at most %d allowed", len(sp.Points), MaxPoints)
		}
		d := len(sp.Points[0])
		if d == 0 || d > MaxDim {
			return invalid("space.points[0]", "has %d coordinates, want 1 to %d", d, MaxDim)
		}
		for i, p := range sp.Points {
			f := fmt.Sprintf("space.points[%d]", i)
			if len(p) != d {
				return invalid(f, "has %d coordinates, space.points[0] has %d", len(p), d)
			}
			if e := checkVector(f, p); e != nil {
				return e
			}
		}
	case "":
		return invalid("space.type", "is missing: accepted are %q, %q, %q", api.SpaceBox, api.SpacePoints, api.SpaceContextual)
	default:
		return invalid("space.type", "= %q: accepted are %q, %q, %q", sp.Type, api.SpaceBox, api.SpacePoints, api.SpaceContextual)
	}
	return nil
}

func spaceDim(sp *api.Space) int {
	switch sp.Type {
	case api.SpaceBox:
		return len(sp.Lo)
	case api.SpaceContextual:
		return sp.Dim
	}
	return len(sp.Points[0])
}

// bounds returns the bounding box of the space.
func bounds(sp *api.Space) (lo, hi []float64) {
	switch sp.Type {
	case api.SpaceBox:
		return sp.Lo, sp.Hi
	case api.SpaceContextual: // unknown: the unit cube
		lo, hi = make([]float64, sp.Dim), make([]float64, sp.Dim)
		for i := range hi {
			hi[i] = 1
		}
		return lo, hi
	}
	d := len(sp.Points[0])
	lo = append([]float64(nil), sp.Points[0]...)
	hi = append([]float64(nil), sp.Points[0]...)
	for _, p := range sp.Points {
		for i := 0; i < d; i++ {
			lo[i] = math.Min(lo[i], p[i])
			hi[i] = math.Max(hi[i], p[i])
		}
	}
	return lo, hi
}

func ptr(v float64) *float64 { return &v }

func normalizePrior(s *api.StudySpec) *apiError {
	p := &s.Prior
	switch p.Kernel {
	case "":
		p.Kernel = "se"
	case "se", "matern12", "matern32", "matern52":
	default:
		return invalid("prior.kernel", "= %q: accepted are \"se\", \"matern12\", \"matern32\", \"matern52\"", p.Kernel)
	}
	if p.Lengthscale == nil {
		lo, hi := bounds(&s.Space)
		side := 0.0
		for i := range lo {
			side += hi[i] - lo[i]
		}
		side /= float64(len(lo))
		if !(side > 0) || !finite(side) {
			side = 1
		}
		p.Lengthscale = ptr(DefaultLengthscaleFraction * side)
	}
	if p.Variance == nil {
		p.Variance = ptr(DefaultVariance)
	}
	if p.NoiseVar == nil {
		p.NoiseVar = ptr(DefaultNoiseVar)
	}
	if p.B == nil {
		p.B = ptr(DefaultB)
	}
	if p.G == nil {
		p.G = ptr(DefaultG)
	}
	if p.R == nil {
		p.R = ptr(math.Sqrt(*p.NoiseVar))
	}
	if p.RG == nil {
		p.RG = ptr(*p.R)
	}
	if p.Slater == nil {
		p.Slater = ptr(0)
	}
	for _, c := range []struct {
		name     string
		v        float64
		positive bool
	}{
		{"prior.lengthscale", *p.Lengthscale, true}, {"prior.variance", *p.Variance, true},
		{"prior.noise_var", *p.NoiseVar, true}, {"prior.B", *p.B, true}, {"prior.G", *p.G, true},
		{"prior.R", *p.R, false}, {"prior.RG", *p.RG, false}, {"prior.slater", *p.Slater, false},
	} {
		if !finite(c.v) || c.v < 0 || (c.positive && c.v == 0) || c.v > MaxMagnitude {
			want := "≥ 0"
			if c.positive {
				want = "> 0"
			}
			return invalid(c.name, "= %v: must be a finite number %s and at most %g", c.v, want, MaxMagnitude)
		}
	}
	if *p.NoiseVar < MinScale {
		return invalid("prior.noise_var", "= %v: must be at least %g (a smaller noise makes the kernel matrix numerically singular)", *p.NoiseVar, MinScale)
	}
	lo, hi := bounds(&s.Space)
	side := 0.0
	for i := range lo {
		side = math.Max(side, hi[i]-lo[i])
	}
	if min := MinScale * math.Max(side, 1); *p.Lengthscale < min {
		return invalid("prior.lengthscale", "= %v: must be at least %g (%g × the largest side of the space, or of 1)", *p.Lengthscale, min, MinScale)
	}
	if p.S == nil {
		p.S = ptr(DefaultS)
	}
	if !(*p.S > 0) || *p.S > MaxMagnitude {
		return invalid("prior.S", "= %v: must be a finite number > 0 and at most %g", *p.S, MaxMagnitude)
	}
	if p.L != nil && (!(*p.L > 0) || *p.L > MaxMagnitude) {
		return invalid("prior.L", "= %v: must be a finite number > 0 and at most %g", *p.L, MaxMagnitude)
	}
	if e := normalizeStage(s); e != nil {
		return e
	}
	if p.Safe != nil {
		if len(p.Safe) != spaceDim(&s.Space) {
			return invalid("prior.safe", "has %d coordinates, the space has %d", len(p.Safe), spaceDim(&s.Space))
		}
		if e := checkVector("prior.safe", p.Safe); e != nil {
			return e
		}
		if s.Space.Type == api.SpaceBox {
			for i, v := range p.Safe {
				if v < s.Space.Lo[i] || v > s.Space.Hi[i] {
					return invalid(fmt.Sprintf("prior.safe[%d]", i), "= %v is outside the box [%v, %v]", v, s.Space.Lo[i], s.Space.Hi[i])
				}
			}
		} else if s.Space.Type == api.SpacePoints && pointIndex(s.Space.Points, p.Safe) < 0 {
			return invalid("prior.safe", "= %v is not one of space.points", p.Safe)
		}
	}
	if p.L == nil {
		p.L = ptr(defaultL(s))
	}
	return nil
}

// defaultL is the largest norm of an action: over the points, over the
// box's corners, or, for a contextual study, max(1, ‖x₀‖).
func defaultL(s *api.StudySpec) float64 {
	norm := func(x []float64) float64 {
		v := 0.0
		for _, c := range x {
			v += c * c
		}
		return math.Sqrt(v)
	}
	L := 0.0
	switch s.Space.Type {
	case api.SpacePoints:
		for _, x := range s.Space.Points {
			L = math.Max(L, norm(x))
		}
	case api.SpaceBox:
		c := make([]float64, len(s.Space.Lo))
		for i := range c {
			c[i] = math.Max(math.Abs(s.Space.Lo[i]), math.Abs(s.Space.Hi[i]))
		}
		L = norm(c)
	default:
		L = math.Max(1, norm(s.Prior.Safe))
	}
	if !(L > 0) {
		L = 1
	}
	return L
}

// contextualList names the algorithms that serve contextual studies (the
// stage-wise linear algorithms of Pacchiano et al. §4, which take each round's action
// set), from their declarations.
func contextualList() string {
	var names []string
	for _, s := range agent.All() {
		if s.Can.Takes(agent.DomainContextual) {
			names = append(names, strconv.Quote(s.Name))
		}
	}
	return strings.Join(names, ", ")
}

// resolveAlgorithm settles the algorithm and the constraints' kinds of a
// definition before it is normalized: a definition that names no algorithm
// gets one chosen from its constraints (optimize.Choose: the default the
// registry declares for the strictest kind, on the study's domain, with or
// without a safe point), recorded with the reason in algorithm_choice; a
// constraint without a kind gets the strictest kind the algorithm keeps
// (stage-wise when the algorithm was chosen); a kind the named algorithm
// does not keep is refused, naming both.
func resolveAlgorithm(s *api.StudySpec) *apiError {
	if s.AlgorithmChoice != "" {
		if s.Algorithm == "" {
			return invalid("algorithm_choice", "is set by the service when it chooses the algorithm, not on creation")
		}
		// A definition read back from the service: it names the algorithm
		// chosen then, and the reason no longer applies.
		s.AlgorithmChoice = ""
	}
	kinds := make([]optimize.Kind, len(s.Constraints))
	for j, c := range s.Constraints {
		if optimize.ValidKind(c.Kind) != nil {
			return invalid(fmt.Sprintf("constraints[%d].kind", j), "= %q: accepted are %q, %q, %q", c.Kind, api.KindStageWise, api.KindCumulative, api.KindLongTerm)
		}
		kinds[j] = c.Kind
	}
	if s.Algorithm == "" {
		ch, err := optimize.Choose(kinds, s.Prior.Safe != nil, requestDomain(s))
		if err != nil {
			return invalid("algorithm", "is absent and none is chosen: %v; name one (cbandit list)", err)
		}
		s.Algorithm, s.AlgorithmChoice = ch.Algorithm, "no algorithm named; "+ch.Reason
		for j := range s.Constraints {
			s.Constraints[j].Kind = ch.Kinds[j]
		}
		return nil
	}
	spec, err := agent.Lookup(s.Algorithm)
	if err != nil {
		return invalid("algorithm", "%v", err)
	}
	for j := range s.Constraints {
		c := &s.Constraints[j]
		if c.Kind == "" {
			c.Kind = optimize.DefaultKind(&spec)
			continue
		}
		if err := optimize.CheckKeeps(spec, c.Kind); err != nil {
			return invalid(fmt.Sprintf("constraints[%d].kind", j), "= %q: %v", c.Kind, err)
		}
	}
	return nil
}

// requestDomain is the kind of domain (agent.Domain*) a definition gives
// its learner, read before normalization (decodeStudy's rule): a box
// (boxSpace) that is native or nativeByDefault; points; contextual.
func requestDomain(s *api.StudySpec) string {
	switch {
	case s.Space.Type == api.SpaceContextual:
		return agent.DomainContextual
	case boxSpace(s) && (s.Space.Native || nativeByDefault(s)):
		if slices.ContainsFunc(s.Parameters, func(p api.Parameter) bool { return p.Type != ParamFloat || p.Step != nil }) {
			return agent.DomainTyped // searched as a mixed space
		}
		return agent.DomainBox
	}
	return agent.DomainFinite
}

// boxSpace reports whether a definition, before normalization, describes a
// box: a box space, or typed parameters (only floats before
// api.DefaultsMixed).
func boxSpace(s *api.StudySpec) bool {
	if len(s.Parameters) == 0 {
		return s.Space.Type == api.SpaceBox
	}
	for _, p := range s.Parameters {
		if p.Type != ParamFloat && s.Defaults < api.DefaultsMixed {
			return false
		}
	}
	return true
}

// nativeByDefault reports whether a definition's box is searched as a box
// by an algorithm that takes one, space.native unsaid: unless a candidate
// set, full information or a generation before api.DefaultsNativeBox make
// it finite.
func nativeByDefault(s *api.StudySpec) bool {
	return boxSpace(s) && s.Space.Candidates == 0 && !s.FullInfo && s.Defaults >= api.DefaultsNativeBox
}

// normalizeStage checks what stage-wise algorithms are told (Pacchiano et al. §2): the
// safe point's known values, the function classes, a contextual study's
// safe point.
func normalizeStage(s *api.StudySpec) *apiError {
	p := &s.Prior
	m := len(s.Constraints)
	if s.Space.Type == api.SpaceContextual && p.Safe == nil {
		return invalid("prior.safe", "is required for a contextual study: the safe action x₀ that every round's arms contain (Pacchiano et al. Ass. 5)")
	}
	if s.Space.StarConvex && p.Safe == nil {
		return invalid("prior.safe", "is required with space.star_convex: the segments start at the safe point x₀")
	}
	if (p.SafeReward != nil || p.SafeCosts != nil) && p.Safe == nil {
		return invalid("prior.safe", "is required with prior.safe_reward and prior.safe_costs: they are the safe point's values")
	}
	if (p.SafeReward == nil) != (p.SafeCosts == nil) {
		return invalid("prior.safe_costs", "and prior.safe_reward come together (r₀ and c₀ of Pacchiano et al. Ass. 5)")
	}
	if p.SafeReward != nil {
		if e := checkMagnitude("prior.safe_reward", *p.SafeReward); e != nil {
			return e
		}
		if len(p.SafeCosts) != m {
			return invalid("prior.safe_costs", "has %d values, the study has %d constraints", len(p.SafeCosts), m)
		}
		if e := checkVector("prior.safe_costs", p.SafeCosts); e != nil {
			return e
		}
	}
	for _, c := range []struct {
		field string
		cl    [][]float64
	}{{"prior.reward_class", p.RewardClass}, {"prior.cost_class", p.CostClass}} {
		if c.cl == nil {
			continue
		}
		if s.Space.Type != api.SpacePoints {
			return invalid(c.field, "applies to points spaces only (a class gives a value at each point)")
		}
		if len(c.cl) > MaxClass {
			return invalid(c.field, "has %d functions, at most %d allowed", len(c.cl), MaxClass)
		}
		for k, row := range c.cl {
			f := fmt.Sprintf("%s[%d]", c.field, k)
			if len(row) != len(s.Space.Points) {
				return invalid(f, "has %d values, the space has %d points", len(row), len(s.Space.Points))
			}
			if e := checkVector(f, row); e != nil {
				return e
			}
		}
	}
	return nil
}

func pointIndex(pts [][]float64, x []float64) int {
	for i, p := range pts {
		if equalVec(p, x) {
			return i
		}
	}
	return -1
}

func equalVec(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// params converts JSON parameter values (strings, numbers, booleans) to
// bandit.Params.
func params(in map[string]any) (bandit.Params, *apiError) {
	out := bandit.Params{}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := "params." + k
		if strings.TrimSpace(k) == "" {
			return nil, invalid("params", "has an empty parameter name")
		}
		switch v := in[k].(type) {
		case string:
			out[k] = v
		case float64:
			out[k] = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(v)
		default:
			return nil, invalid(f, "= %v: must be a string, a number or a boolean", v)
		}
	}
	return out, nil
}

// built is what a study definition turns into: the learner's Info and the
// points its arms stand for.
type built struct {
	info   bandit.Info
	points [][]float64 // arm → point
	params bandit.Params
	sign   float64 // +1 maximize, −1 minimize
	thresh []float64
}

// build turns a normalized definition into the learner's view. Box spaces
// are given to the learner as a finite candidate set inside the box (see
// boxCandidates); a safe point, when given, is added to the candidates.
func build(s *api.StudySpec) (*built, *apiError) {
	b := &built{sign: 1}
	if s.Objective.Goal == api.Minimize {
		b.sign = -1
	}
	for _, c := range s.Constraints {
		b.thresh = append(b.thresh, c.Threshold)
	}
	var safe *bandit.Action
	var dom domain.Domain
	var err error
	switch {
	case s.Space.Type == api.SpaceContextual:
		// The learner's fixed domain is the safe point alone: its actions
		// come with each round (Round.Arms).
		x0 := append([]float64(nil), s.Prior.Safe...)
		if dom, err = domain.NewFinite([][]float64{x0}); err != nil {
			return nil, invalid("space", "%v", err)
		}
		safe = &bandit.Action{Arm: -1, X: x0}
	case s.Space.Type == api.SpaceBox && s.Space.Native:
		box, err := domain.NewBox(s.Space.Lo, s.Space.Hi)
		if err != nil {
			return nil, invalid("space", "%v", err)
		}
		if len(s.Parameters) > 0 && !s.Space.Rounded {
			box.Vars = paramVars(s.Parameters)
			if err := box.CheckVars(); err != nil {
				return nil, invalid("parameters", "%v", err)
			}
		}
		dom = box
		if s.Prior.Safe != nil {
			safe = &bandit.Action{Arm: -1, X: append([]float64(nil), s.Prior.Safe...)}
		}
	case s.Space.Type == api.SpaceBox:
		b.points = boxCandidates(s.Space.Lo, s.Space.Hi, s.Space.Candidates)
		if s.Prior.Safe != nil {
			i := pointIndex(b.points, s.Prior.Safe)
			if i < 0 {
				b.points = append(b.points, append([]float64(nil), s.Prior.Safe...))
				i = len(b.points) - 1
			}
			safe = &bandit.Action{Arm: i, X: b.points[i]}
		}
	default:
		b.points = s.Space.Points
		if s.Prior.Safe != nil {
			i := pointIndex(b.points, s.Prior.Safe)
			safe = &bandit.Action{Arm: i, X: b.points[i]}
		}
	}
	if dom == nil {
		if dom, err = domain.NewFinite(b.points); err != nil {
			return nil, invalid("space", "%v", err)
		}
	}
	p := s.Prior
	var k gp.Kernel
	switch p.Kernel {
	case "se":
		k, err = gp.NewSE(*p.Lengthscale, *p.Variance)
	case "matern12":
		k, err = gp.NewMatern(0.5, *p.Lengthscale, *p.Variance)
	case "matern32":
		k, err = gp.NewMatern(1.5, *p.Lengthscale, *p.Variance)
	case "matern52":
		k, err = gp.NewMatern(2.5, *p.Lengthscale, *p.Variance)
	}
	if err != nil {
		return nil, invalid("prior", "%v", err)
	}
	b.info = bandit.Info{
		Domain: dom, M: len(s.Constraints), Kernel: k, NoiseVar: *p.NoiseVar,
		B: *p.B, G: *p.G, R: *p.R, RG: *p.RG, Slater: *p.Slater, Safe: safe,
		Horizon: s.Horizon, FullInfo: s.FullInfo,
	}
	if safe != nil && len(s.Constraints) > 0 {
		b.info.Stage = b.stage(s, safe)
	}
	b.params, _ = params(s.Params)
	return b, nil
}

// ---- Generations of the algorithm defaults --------------------------------
//
// A study runs under the defaults of the generation it was created in
// (api.StudySpec.Defaults; absent in a stored study = 1). laterDefaults[g]
// lists what generation g+1 changed: the values the parameters had in g,
// which a study of generation ≤ g keeps (for each algorithm that documents
// the parameter, where the study did not set it). They are applied once,
// by the migration of a stored definition (migrate.go) or of an earlier
// generation asked for on creation — never when a study is built. A new
// generation adds one entry here and bumps api.DefaultsPractical; a test
// replays the studies of every earlier release (TestStudiesOfEarlierReleases).
var laterDefaults = map[int][]defaultsPin{
	// 1 → 2: the practical defaults, for every algorithm that
	// takes them.
	1: {{params: map[string]string{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid"}}},
	// 2 → 3: standardise=on for the GP agents that take it without the
	// other practical defaults (their declarations have no widths),
	// standardised after the first ones.
	2: {{unless: "widths", params: map[string]string{"standardise": "off"}}},
	// 3 → 4 (docs/parallel.md): pending decisions hallucinated (GP-BUCB) by every
	// algorithm that takes the parameter.
	3: {{params: map[string]string{"pending": "ignore"}}},
	// 4 → 5 (docs/defaults.md, "Generation 5"): constraint hyperparameters fitted about the
	// values' mean (no stuck runs); CKB's dual step on the posterior mean
	// less one σ; a multi-step box refinement in 3+ dims; GP-BUCB's wider
	// bound for f while decisions are pending (pending=bucb).
	4: {{params: map[string]string{"dual": "optimistic", "refine": "step", "pending": "hallucinate"}},
		{fitted: true, params: map[string]string{"constraint-fit": "threshold", "refit": "inline"}}},
	// 5 → 6 (docs/defaults.md, "Generation 6"): rpol-ucb and config decide in SCBO's trust region
	// in 3+ dims.
	5: {{params: map[string]string{"region": "global"}}},
	// 6 → 7 (docs/defaults.md, "Generation 7"): the trust region also for a decision asked while
	// others are pending (batches, asynchronous workers).
	6: {{params: map[string]string{"region-pending": "global"}}},
	// 7 → 8: Thompson draws pathwise over every model that can (ckb-ts);
	// typed parameters searched as a mixed space (normalization:
	// api.DefaultsMixed).
	7: {{params: map[string]string{"draw": "dense", "region-candidates": "fixed"}}},
	// 8 → 9 (docs/typed.md): the typed-space search also changes two
	// discrete coordinates at once.
	// … and in 7+ dims a batch's decisions do not widen f's bound.
	8: {{params: map[string]string{"mixed-moves": "1", "pending": "bucb"}}},
}

// defaultsPin is one change of defaults between generations: params are
// the earlier values, for every algorithm that takes them except those
// whose declaration has the parameter unless (the registry, not names,
// says which algorithms a change concerned), and with fitted only for a
// study that fits hyperparameters (fitsHyper).
type defaultsPin struct {
	unless string
	fitted bool
	params map[string]string
}

// fitsHyper reports whether an agent with parameters ps fits
// hyperparameters: unless hyper = fixed, since every study's domain has
// coordinates (agent.FitParams apply only then).
func fitsHyper(ps bandit.Params) bool { return ps["hyper"] != "fixed" }

// pinEarlierDefaults sets on ps, for a study of generation gen, the values
// of every later generation's change (laterDefaults) where the algorithm
// takes the parameter and the study did not set it.
func pinEarlierDefaults(gen int, algorithm string, ps bandit.Params) {
	gen = max(gen, 1)
	if gen >= api.DefaultsPractical {
		return
	}
	spec, err := agent.Lookup(algorithm)
	if err != nil {
		return // refused later, naming the algorithm
	}
	for g := gen; g < api.DefaultsPractical; g++ {
		for _, pin := range laterDefaults[g] {
			if pin.unless != "" && bandit.Declares(spec.Params, pin.unless) || pin.fitted && !fitsHyper(ps) {
				continue
			}
			for _, d := range spec.Params {
				name := d.Describe().Name
				if v, ok := pin.params[name]; ok {
					if _, set := ps[name]; !set {
						ps[name] = v
					}
				}
			}
		}
	}
}

// ---- end of the generations of the algorithm defaults ---------------------

// firstEpoch is the horizon of a study's first run of its algorithm.
func firstEpoch(s *api.StudySpec) int {
	if s.Horizon > 0 {
		if len(s.RaisedFrom) > 0 {
			return s.RaisedFrom[0]
		}
		return s.Horizon
	}
	if s.Epoch > 0 {
		return s.Epoch
	}
	return DefaultEpoch
}

// stage is what stage-wise algorithms are told (Pacchiano et al. §2): thresholds τ, the
// safe action x₀ and, when given, its values r₀, c₀; bounds S and L;
// function classes. Constraint values reach agents as g = c − τ (the
// Info.Stage convention); r₀ and the reward class carry the goal's sign.
func (b *built) stage(s *api.StudySpec, safe *bandit.Action) *bandit.Stage {
	p := s.Prior
	S, L := DefaultS, 0.0 // studies stored before S and L existed
	if p.S != nil {
		S = *p.S
	}
	if p.L != nil {
		L = *p.L
	} else {
		L = defaultL(s)
	}
	st := &bandit.Stage{Tau: append([]float64(nil), b.thresh...), X0: append([]float64(nil), safe.X...),
		SafeArm: safe.Arm, S: S, L: L, StarConvex: s.Space.StarConvex}
	if s.Space.Type == api.SpaceContextual {
		st.SafeArm = -1
	}
	if p.SafeReward != nil {
		st.Known, st.R0, st.C0 = true, b.sign**p.SafeReward, append([]float64(nil), p.SafeCosts...)
	}
	if p.RewardClass != nil {
		for _, row := range p.RewardClass {
			r := make([]float64, len(row))
			for i, v := range row {
				r[i] = b.sign * v
			}
			st.RewardClass = append(st.RewardClass, r)
		}
	}
	st.CostClass = p.CostClass
	return st
}

// newAgent builds a fresh run of the study's algorithm for horizon rounds.
func (b *built) newAgent(s *api.StudySpec, horizon int, seed uint64) (bandit.Agent, *apiError) {
	info := b.info
	info.Horizon = horizon
	a, err := agent.New(s.Algorithm, agent.Config{Info: info, Horizon: horizon, Params: b.params, Seed: seed})
	if err != nil {
		field := "algorithm"
		if pe := (*bandit.ParamError)(nil); errors.As(err, &pe) {
			field = "params." + pe.Name
		}
		return nil, invalid(field, "%v", err)
	}
	return a, nil
}

// boxCandidates is the deterministic candidate set of a box: a regular grid
// in one and two dimensions (k points per side, k = round(n^(1/d)), one
// point on a side of zero width), a Halton sequence (bases 2, 3, 5, …, from
// index 1) in three and more (domain.GridPoints, domain.HaltonPoints).
func boxCandidates(lo, hi []float64, n int) [][]float64 {
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
