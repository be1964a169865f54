// Validating a study's definition: names, vectors and magnitudes, the space, the prior, stages and parameters (normalize).

package service

import (
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
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/service/api"
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
	switch s.Evaluations {
	case "":
		s.Evaluations = learner.Live // stored explicitly; a study stored without it is live
	case learner.Live, learner.Offline:
	default:
		return invalid("evaluations", "= %q: accepted are %q, %q", s.Evaluations, learner.Live, learner.Offline)
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
	if p.Kernel == "" {
		p.Kernel = learner.DefaultKernel
	}
	if !slices.Contains(gp.KernelNames, p.Kernel) {
		return invalid("prior.kernel", "= %q: accepted are %s", p.Kernel, quoteAll(gp.KernelNames))
	}
	if p.Lengthscale == nil {
		p.Lengthscale = ptr(learner.DefaultLengthscale(bounds(&s.Space)))
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
// box's corners, or, for a contextual study, max(1, ‖x₀‖) (learner.DefaultL).
func defaultL(s *api.StudySpec) float64 { return learner.DefaultL(definition(s).Space, s.Prior.Safe) }

// quoteAll lists names quoted, comma-separated.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
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

// equalVec compares with ==: NaN differs from itself, −0 equals 0.
var equalVec = slices.Equal[[]float64]

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
