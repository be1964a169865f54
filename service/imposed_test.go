package service

import (
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestEnqueueAndTrials: an enqueued point is the next suggestion; a study
// given 20 past measurements decides next as a study that chose those
// points itself and was told the same values (its models hold them as if
// it had chosen them); both survive a replay of the log; bad requests are
// refused naming the field.
func TestEnqueueAndTrials(t *testing.T) {
	spec := toySpec("told")
	spec.Space.Native = true
	spec.Algorithm = "rpol-ucb"
	spec.Constraints[0].Kind = api.KindCumulative
	ref := newTestServer(t, store.NewMemory(), Options{})
	chooser := ref.create(spec)
	s := newTestServer(t, store.NewMemory(), Options{CacheSize: 1})
	told := s.create(spec)
	other := s.create(toySpec("other"))
	for i := 0; i < 20; i++ {
		sug := ref.ask(chooser.ID, 1)[0]
		r, c := toyF(sug.X), toyG(sug.X)
		ref.tell(chooser.ID, api.Observation{DecisionID: sug.DecisionID, Reward: &r, Costs: []float64{c}})
		var got api.Suggestion
		code, raw := s.do("POST", "/studies/"+told.ID+"/trials", api.TrialRequest{X: sug.X, Reward: &r, Costs: []float64{c}}, &got)
		if code != 201 {
			t.Fatalf("trial %d: %d %s", i+1, code, raw)
		}
		if got.DecisionID != sug.DecisionID || !equalVec(got.X, sug.X) {
			t.Fatalf("trial %d recorded as %+v", i+1, got)
		}
		play(s, other.ID, 1) // evicts told: the next use replays its log
	}
	a := ref.ask(chooser.ID, 1)[0]
	b := s.ask(told.ID, 1)[0]
	if !equalVec(a.X, b.X) {
		t.Fatalf("after 20 past measurements the study suggests %v, the study that chose them %v", b.X, a.X)
	}
	// An enqueued point comes next, then the algorithm again.
	x := []float64{0.25, 0.75}
	var eq api.EnqueueResponse
	if code, raw := s.do("POST", "/studies/"+told.ID+"/enqueue", api.TrialRequest{X: x}, &eq); code != 201 || eq.Queued != 1 {
		t.Fatalf("enqueue: %d %s", code, raw)
	}
	play(s, other.ID, 1)
	sug := s.ask(told.ID, 2)
	if !equalVec(sug[0].X, x) || equalVec(sug[1].X, x) {
		t.Fatalf("after enqueueing %v: suggestions %v, %v", x, sug[0].X, sug[1].X)
	}
	// Errors name the field.
	code, raw := s.do("POST", "/studies/"+told.ID+"/enqueue", api.TrialRequest{X: []float64{2, 0}}, nil)
	wantError(t, code, raw, 400, "x[0]")
	code, raw = s.do("POST", "/studies/"+told.ID+"/trials", api.TrialRequest{X: x}, nil)
	wantError(t, code, raw, 400, "reward")
	r := 1.0
	code, raw = s.do("POST", "/studies/"+told.ID+"/trials", api.TrialRequest{X: x, Reward: &r}, nil)
	wantError(t, code, raw, 400, "costs")
}

// TestEnqueueParams: a study defined by parameters takes a person's point
// as parameter values, and refuses unknown or out-of-range ones.
func TestEnqueueParams(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	lo, hi := 1.0, 100.0
	st := s.create(api.StudySpec{Name: "p", Parameters: []api.Parameter{
		{Name: "rate", Type: ParamFloat, Low: &lo, High: &hi, Log: true},
		{Name: "mode", Type: ParamCategorical, Choices: []any{"a", "b"}}},
		Objective: api.Objective{Name: "tput"}, Constraints: []api.Constraint{{Name: "lat", Threshold: 50, Kind: api.KindCumulative}},
		Algorithm: "rpol-ucb", Seed: 1, Horizon: 50})
	want := map[string]any{"rate": 10.0, "mode": "b"}
	var eq api.EnqueueResponse
	if code, raw := s.do("POST", "/studies/"+st.ID+"/enqueue", api.TrialRequest{Params: want}, &eq); code != 201 {
		t.Fatalf("enqueue: %d %s", code, raw)
	}
	got := s.ask(st.ID, 1)[0]
	// the learner picks among candidates here: the nearest one, as the answer said
	if !equalVec(got.X, eq.X) || got.Params["mode"] != "b" || got.Params["rate"].(float64) < 9.5 || got.Params["rate"].(float64) > 10.5 {
		t.Fatalf("suggested %v after enqueueing %v (answer %v)", got.Params, want, eq.Params)
	}
	code, raw := s.do("POST", "/studies/"+st.ID+"/enqueue", api.TrialRequest{Params: map[string]any{"rate": 1000.0, "mode": "a"}}, nil)
	wantError(t, code, raw, 400, "params.rate")
	code, raw = s.do("POST", "/studies/"+st.ID+"/enqueue", api.TrialRequest{Params: map[string]any{"rate": 10.0, "mode": "c"}}, nil)
	wantError(t, code, raw, 400, "params.mode")
	code, raw = s.do("POST", "/studies/"+st.ID+"/enqueue", api.TrialRequest{Params: map[string]any{"rate": 10.0, "mode": "a", "x": 1.0}}, nil)
	wantError(t, code, raw, 400, "params.x")
}
