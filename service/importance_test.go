package service

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// GET /studies/{id}/importance on a typed study whose objective ignores one
// parameter: that parameter ranks last with a negligible share, the
// importances sum to 1, the same numbers come back on a second call, and
// failed evaluations are left out of the count. Before enough observations
// the answer is a 409 that names them.
func TestImportance(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := api.StudySpec{Name: "knobs", Objective: api.Objective{Name: "score"}, Seed: 3, Horizon: 200,
		Parameters: []api.Parameter{
			{Name: "lr", Type: ParamFloat, Low: f64(1e-4), High: f64(1), Log: true},
			{Name: "layers", Type: ParamInt, Low: f64(1), High: f64(8)},
			{Name: "opt", Type: ParamCategorical, Choices: []any{"sgd", "adam"}},
			{Name: "unused", Type: ParamFloat, Low: f64(0), High: f64(10)},
		}}
	st := s.create(spec)
	score := func(p map[string]any) float64 {
		v := -math.Pow(math.Log10(p["lr"].(float64))+2, 2) + 0.2*p["layers"].(float64)
		if p["opt"] == "adam" {
			v += 1
		}
		return v
	}
	trial := func(p map[string]any, reward float64) {
		t.Helper()
		if code, raw := s.do("POST", "/studies/"+st.ID+"/trials", api.TrialRequest{Params: p, Reward: &reward}, nil); code/100 != 2 {
			t.Fatalf("trial %v: %d %s", p, code, raw)
		}
	}
	pts := domain.Halton(30, 4)
	params := func(u []float64) map[string]any {
		return map[string]any{"lr": math.Pow(10, -4+4*u[0]), "layers": 1 + math.Floor(u[1]*8),
			"opt": []string{"sgd", "adam"}[int(u[2]*2)], "unused": 10 * u[3]}
	}
	for _, u := range pts[:10] {
		p := params(u)
		trial(p, score(p))
	}
	code, raw := s.do("GET", "/studies/"+st.ID+"/importance", nil, nil)
	wantError(t, code, raw, 409, "observations")
	for _, u := range pts[10:] {
		p := params(u)
		trial(p, score(p))
	}
	for range 3 { // failures: no value, not counted
		sg := s.ask(st.ID, 1)[0]
		s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Failed: true, Reason: "OOM"})
	}
	var a, b api.Importance
	if code, raw := s.do("GET", "/studies/"+st.ID+"/importance", nil, &a); code != 200 {
		t.Fatalf("importance: %d %s", code, raw)
	}
	s.do("GET", "/studies/"+st.ID+"/importance", nil, &b)
	t.Logf("%+v", a)
	if a.Method != "fanova-gp" || a.Observations != 30 || len(a.Parameters) != 4 {
		t.Fatalf("method %q, observations %d, %d parameters; want fanova-gp, 30, 4", a.Method, a.Observations, len(a.Parameters))
	}
	var sum float64
	for _, p := range a.Parameters {
		sum += p.Importance
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("importances sum to %v", sum)
	}
	if last := a.Parameters[3]; last.Parameter != "unused" || last.Importance > 0.05 {
		t.Errorf("last: %+v, want unused with importance ≤ 0.05", last)
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		t.Errorf("two calls differ:\n%s\n%s", ja, jb)
	}
}

// A box study's coordinates are ranked as x1..xd, scaled by the box; an
// unknown study is a 404.
func TestImportanceBox(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("box")
	spec.Space = api.Space{Type: api.SpaceBox, Lo: []float64{0, -5, 100}, Hi: []float64{1, 5, 200}}
	spec.Constraints = nil
	spec.Algorithm = ""
	st := s.create(spec)
	for _, u := range domain.Halton(25, 3) {
		x := []float64{u[0], -5 + 10*u[1], 100 + 100*u[2]}
		r := math.Sin(5*u[0]) + 0.01*x[2]
		if code, raw := s.do("POST", "/studies/"+st.ID+"/trials", api.TrialRequest{X: x, Reward: &r}, nil); code/100 != 2 {
			t.Fatalf("trial: %d %s", code, raw)
		}
	}
	var a api.Importance
	if code, raw := s.do("GET", "/studies/"+st.ID+"/importance", nil, &a); code != 200 {
		t.Fatalf("importance: %d %s", code, raw)
	}
	if len(a.Parameters) != 3 || a.Parameters[2].Parameter != "x2" {
		t.Errorf("box importance %+v: want x2 (unused) last of 3", a.Parameters)
	}
	code, raw := s.do("GET", "/studies/none/importance", nil, nil)
	wantError(t, code, raw, 404, "id")
}
