package learner_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/gp"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/space"
)

// fakeOffline is an algorithm declared as the offline default for
// cumulative limits, so the chooser's offline branch always has a
// declaration to find; it picks the first registered (agent.All order).
const fakeOffline = "test-offline-cumulative"

func init() {
	agent.Register(agent.Spec{Name: fakeOffline, Summary: "a test algorithm", Source: "test",
		Can: agent.Caps{Domains: []string{agent.DomainBox, agent.DomainFinite}, Kinds: []bandit.ConstraintKind{bandit.KindCumulative},
			DefaultFor: []string{"cumulative+offline"}},
		New: func(cfg agent.Config) (bandit.Agent, error) { return &recommender{}, nil }})
}

// recommender is a fake agent naming a fixed recommendation.
type recommender struct {
	rec bandit.Recommendation
	ok  bool
}

func (r *recommender) Decide(*bandit.Round) (bandit.Decision, error) { return bandit.Decision{}, nil }
func (r *recommender) Observe(bandit.Feedback) error                 { return nil }
func (r *recommender) Recommend(level float64) (bandit.Recommendation, bool) {
	if level != learner.RecommendLevel {
		return bandit.Recommendation{}, false
	}
	return r.rec, r.ok
}

// declared reports whether a registered algorithm declares the situation.
func declared(key string) bool {
	return slices.ContainsFunc(agent.All(), func(s agent.Spec) bool { return slices.Contains(s.Can.DefaultFor, key) })
}

func TestChooseOffline(t *testing.T) {
	c, err := learner.Choose([]learner.Kind{learner.Cumulative}, false, agent.DomainBox, learner.Offline)
	want := ""
	for _, s := range agent.All() {
		if want == "" && slices.Contains(s.Can.DefaultFor, "cumulative+offline") && s.Can.Takes(agent.DomainBox) {
			want = s.Name
		}
	}
	if err != nil || c.Algorithm != want || !strings.Contains(c.Reason, "cumulative+offline") {
		t.Fatalf("offline cumulative: %+v, %v; want %s, declared for cumulative+offline", c, err, want)
	}
	live, err := learner.Choose([]learner.Kind{learner.Cumulative}, false, agent.DomainBox, learner.Live)
	if err != nil || live.Algorithm == want {
		t.Fatalf("live cumulative: %+v, %v: the offline declaration must not be chosen", live, err)
	}
	if _, err := learner.Choose(nil, false, agent.DomainBox, "sometimes"); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Fatalf("evaluations sometimes: %v, want an error naming the value", err)
	}
}

// Without a declaration for the offline situation, the choice is the live
// default, and the reason says so.
func TestChooseOfflineFallsBack(t *testing.T) {
	for _, kinds := range [][]learner.Kind{{learner.StageWise}, {learner.LongTerm}, nil} {
		strict := "offline"
		if len(kinds) > 0 {
			strict = string(kinds[0]) + "+offline"
		}
		if declared(strict) {
			continue // an offline algorithm is registered for it
		}
		live, err := learner.Choose(kinds, false, agent.DomainBox, learner.Live)
		if err != nil {
			t.Fatal(err)
		}
		off, err := learner.Choose(kinds, false, agent.DomainBox, learner.Offline)
		if err != nil || off.Algorithm != live.Algorithm || !strings.Contains(off.Reason, "no algorithm is declared for them") {
			t.Errorf("%v offline: %+v, %v; want the live default %s, saying why", kinds, off, err, live.Algorithm)
		}
	}
}

// The default prior is the one the service documents: SE, lengthscale 0.2 ×
// the mean side, variance 1, noise variance 0.01, R = RG = √0.01.
func TestDefaultPrior(t *testing.T) {
	l, err := learner.Build(learner.Definition{Space: learner.Space{Lo: []float64{0, 0}, Hi: []float64{1, 3}, Native: true},
		Algorithm: "config", Horizon: 10})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := gp.NewSE(0.2*2, 1)
	if l.Info.Kernel != gp.Kernel(want) || l.Info.NoiseVar != 0.01 || l.Info.R != 0.1 || l.Info.RG != 0.1 || l.Info.B != 1 || l.Info.G != 1 {
		t.Fatalf("info %+v", l.Info)
	}
	if _, ok := l.Info.Domain.(*domain.Box); !ok || l.Domain != agent.DomainBox {
		t.Fatalf("domain %T %s, want a box", l.Info.Domain, l.Domain)
	}
}

// A box not searched as such is its candidate set, the safe point added;
// the stage facts carry the thresholds and the goal's sign.
func TestCandidatesAndStage(t *testing.T) {
	r0 := 2.0
	def := learner.Definition{Space: learner.Space{Lo: []float64{0}, Hi: []float64{1}, Candidates: 5},
		Minimize: true, Constraints: []learner.Constraint{{Name: "c", Threshold: 3, Kind: learner.StageWise}},
		Algorithm: "safeopt", Safe: []float64{0.3}, Horizon: 10,
		Prior: learner.Prior{SafeReward: &r0, SafeCosts: []float64{1}}}
	l, err := learner.Build(def)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Points) != 6 || !slices.Equal(l.Points[5], []float64{0.3}) || l.Info.Safe.Arm != 5 {
		t.Fatalf("points %v, safe %+v: want 5 grid points and the safe point", l.Points, l.Info.Safe)
	}
	st := l.Info.Stage
	if st == nil || st.R0 != -2 || !slices.Equal(st.Tau, []float64{3}) || st.S != learner.DefaultS || st.L != 1 {
		t.Fatalf("stage %+v", st)
	}
	if _, err := l.NewAgent(10, 1); err != nil {
		t.Fatal(err)
	}
}

// Typed parameters: the encoded cube with its discrete coordinates when the
// algorithm takes a box, else a candidate set of exact encodings.
func TestTypedParameters(t *testing.T) {
	ps := []space.Param{space.Int("n", 1, 4), space.Categorical("opt", "a", "b")}
	l, err := learner.Build(learner.Definition{Space: learner.Space{Parameters: ps}, Horizon: 5})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := l.Info.Domain.(*domain.Box); !ok || !b.Mixed() || l.Domain != agent.DomainTyped {
		t.Fatalf("domain %T %s: want the mixed cube", l.Info.Domain, l.Domain)
	}
	l, err = learner.Build(learner.Definition{Space: learner.Space{Parameters: ps, Candidates: 3}, Algorithm: "config", Horizon: 5})
	if err != nil {
		t.Fatal(err)
	}
	if l.Domain != agent.DomainFinite || len(l.Points) == 0 {
		t.Fatalf("domain %s, %d points: want a candidate set", l.Domain, len(l.Points))
	}
	v, err := l.Values(l.Points[0])
	if err != nil || v["opt"] == nil {
		t.Fatalf("values %v, %v", v, err)
	}
}

func TestErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		def   learner.Definition
		field string
	}{
		{learner.Definition{Space: learner.Space{Lo: []float64{0}, Hi: []float64{1}}, Horizon: 5, Evaluations: "later"}, "evaluations"},
		{learner.Definition{Space: learner.Space{Lo: []float64{0}, Hi: []float64{1}}, Horizon: 5, Algorithm: "nope"}, "algorithm"},
		{learner.Definition{Space: learner.Space{Lo: []float64{0}, Hi: []float64{1}}, Horizon: 5, Prior: learner.Prior{Kernel: "rbf"}}, "prior"},
		{learner.Definition{Space: learner.Space{Lo: []float64{0}, Hi: []float64{1}}, Horizon: 5, Algorithm: "ckb-ucb",
			Constraints: []learner.Constraint{{Threshold: 1, Kind: learner.StageWise}}}, "constraints[0].kind"},
		{learner.Definition{Space: learner.Space{Points: [][]float64{{0}, {1}}}, Horizon: 5, Safe: []float64{0.5}, Algorithm: "safeopt",
			Constraints: []learner.Constraint{{Threshold: 1}}}, "prior.safe"},
	} {
		_, _, err := learner.New(c.def)
		var le *learner.Error
		if !errors.As(err, &le) || le.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", c.def, err, c.field)
		}
	}
}

// A recommendation comes back in the definition's units: the objective's
// sign flipped back for a minimised one, thresholds added to the
// constraints, the arm's point and its parameters' values.
func TestRecommend(t *testing.T) {
	ps := []space.Param{space.Int("n", 1, 4)}
	l, err := learner.Build(learner.Definition{Space: learner.Space{Parameters: ps, Candidates: 4}, Minimize: true,
		Constraints: []learner.Constraint{{Name: "c", Threshold: 10}}, Algorithm: "config", Horizon: 5})
	if err != nil {
		t.Fatal(err)
	}
	a := &recommender{ok: true, rec: bandit.Recommendation{Decision: 3, Action: bandit.Action{Arm: 1},
		Objective: bandit.Moments{Mean: -5, Std: 0.5}, Constraints: []bandit.Moments{{Mean: -1, Std: 0.25}}, Feasible: 0.97}}
	r := l.Recommend(a)
	if r == nil || r.Decision != 3 || !slices.Equal(r.X, l.Points[1]) || r.Objective != (bandit.Moments{Mean: 5, Std: 0.5}) ||
		r.Constraints[0] != (bandit.Moments{Mean: 9, Std: 0.25}) || r.Feasible != 0.97 || r.Values["n"] == nil {
		t.Fatalf("recommendation %+v", r)
	}
	a.ok = false
	if r := l.Recommend(a); r != nil {
		t.Fatalf("no recommendation named, got %+v", r)
	}
	a.ok, a.rec.Objective.Std = true, math.NaN()
	if r := l.Recommend(a); r != nil {
		t.Fatalf("a NaN moment: got %+v, want none", r)
	}
	if r := l.Recommend(&struct{ bandit.Agent }{}); r != nil {
		t.Fatalf("an agent without Recommend: got %+v", r)
	}
}
