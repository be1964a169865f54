package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// toySpec is a 2-D box study with one constraint, served by ckb-ucb.
func toySpec(name string) api.StudySpec {
	return api.StudySpec{
		Name:        name,
		Space:       api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Candidates: 64},
		Objective:   api.Objective{Name: "yield"},
		Constraints: []api.Constraint{{Name: "power", Threshold: 0.5}},
		Algorithm:   "ckb-ucb",
		Seed:        7,
		Horizon:     200,
	}
}

// toyF and toyG are the toy system's reward and constraint metric.
func toyF(x []float64) float64 {
	return math.Exp(-((x[0]-0.7)*(x[0]-0.7) + (x[1]-0.3)*(x[1]-0.3)) / 0.1)
}
func toyG(x []float64) float64 { return x[0] }

type tserver struct {
	t   *testing.T
	url string
	tok string
}

func newTestServer(t *testing.T, st store.Store, opt Options) *tserver {
	t.Helper()
	srv := httptest.NewServer(New(st, opt))
	t.Cleanup(srv.Close)
	stores.Store(srv.URL, st)
	return &tserver{t: t, url: srv.URL, tok: opt.Token}
}

// do sends a request and decodes the JSON answer into out (when not nil);
// it returns the status code and the raw body.
func (s *tserver) do(method, path string, body any, out any) (int, []byte) {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if s.tok != "" {
		req.Header.Set("Authorization", "Bearer "+s.tok)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: decoding %s: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, raw
}

func (s *tserver) create(spec api.StudySpec) api.Study {
	s.t.Helper()
	var st api.Study
	if code, raw := s.do("POST", "/studies", spec, &st); code != http.StatusCreated {
		s.t.Fatalf("create: %d %s", code, raw)
	}
	return st
}

func (s *tserver) ask(id string, n int) []api.Suggestion {
	s.t.Helper()
	var r api.SuggestResponse
	if code, raw := s.do("POST", "/studies/"+id+"/suggestions", api.SuggestRequest{Count: n}, &r); code != 200 {
		s.t.Fatalf("ask: %d %s", code, raw)
	}
	return r.Suggestions
}

func (s *tserver) tell(id string, o api.Observation) api.ObserveResponse {
	s.t.Helper()
	var r api.ObserveResponse
	if code, raw := s.do("POST", "/studies/"+id+"/observations", o, &r); code != 200 {
		s.t.Fatalf("tell %+v: %d %s", o, code, raw)
	}
	return r
}

func f64(v float64) *float64 { return &v }

func wantError(t *testing.T, code int, raw []byte, wantCode int, wantField string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("status %d, want %d: %s", code, wantCode, raw)
	}
	var e api.Error
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("error body %s: %v", raw, err)
	}
	if e.Err.Field != wantField || e.Err.Status != wantCode || e.Err.Message == "" {
		t.Fatalf("error %+v, want field %q", e.Err, wantField)
	}
}

func TestAskTellRoundTrip(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("toy"))
	if st.Spec.Prior.Lengthscale == nil || *st.Spec.Prior.Lengthscale != 0.2 || st.Spec.Space.Candidates != 64 || st.Spec.Constraints[0].Kind != api.KindLongTerm {
		t.Fatalf("defaults not filled in: %+v", st.Spec)
	}
	for round := 0; round < 30; round++ {
		sg := s.ask(st.ID, 1)[0]
		if sg.DecisionID != int64(round+1) || len(sg.X) != 2 {
			t.Fatalf("suggestion %+v", sg)
		}
		r := s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
		if len(r.Applied) != 2 {
			t.Fatalf("applied %v", r.Applied)
		}
	}
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Rounds != 30 || sum.RewardObserved != 30 || sum.CostsObserved != 30 || sum.Pending != 0 || sum.Best == nil {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Best.X[0] > 0.5 {
		t.Fatalf("best point %v violates the constraint", sum.Best.X)
	}
	var got api.Study
	s.do("GET", "/studies/"+st.ID, nil, &got)
	if got.Rounds != 30 || got.Spec.Name != "toy" {
		t.Fatalf("get: %+v", got)
	}
	var list api.StudyList
	s.do("GET", "/studies", nil, &list)
	if len(list.Studies) != 1 {
		t.Fatalf("list: %+v", list)
	}
	var page api.DecisionList
	s.do("GET", "/studies/"+st.ID+"/decisions?after=10&limit=5", nil, &page)
	if len(page.Decisions) != 5 || page.Decisions[0].DecisionID != 11 || page.Next != 15 || page.Decisions[0].Reward == nil {
		t.Fatalf("page: %+v", page)
	}
	if code, _ := s.do("DELETE", "/studies/"+st.ID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	code, raw := s.do("GET", "/studies/"+st.ID+"/summary", nil, nil)
	wantError(t, code, raw, 404, "id")
}

// TestLatePartialIdempotent: several pending suggestions, feedback in parts,
// out of order, re-sent; conflicts are 409s naming the field.
func TestLatePartialIdempotent(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("late"))
	sg := s.ask(st.ID, 5)
	if len(sg) != 5 || sg[4].DecisionID != 5 {
		t.Fatalf("%+v", sg)
	}
	// Costs of 3 first, reward of 5, then reward of 3, and so on.
	s.tell(st.ID, api.Observation{DecisionID: 3, Costs: []float64{0.1}})
	s.tell(st.ID, api.Observation{DecisionID: 5, Reward: f64(0.5)})
	r := s.tell(st.ID, api.Observation{DecisionID: 3, Reward: f64(0.2), Costs: []float64{0.1}})
	if fmt.Sprint(r.Applied, r.Duplicate) != "[reward] [costs]" {
		t.Fatalf("applied %v duplicate %v", r.Applied, r.Duplicate)
	}
	r = s.tell(st.ID, api.Observation{DecisionID: 3, Reward: f64(0.2), Costs: []float64{0.1}})
	if len(r.Applied) != 0 || len(r.Duplicate) != 2 {
		t.Fatalf("re-send: %+v", r)
	}
	code, raw := s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 3, Reward: f64(0.3)}, nil)
	wantError(t, code, raw, 409, "reward")
	code, raw = s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 3, Costs: []float64{0.2}}, nil)
	wantError(t, code, raw, 409, "costs")
	code, raw = s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 6, Reward: f64(1)}, nil)
	wantError(t, code, raw, 404, "decision_id")
	// More suggestions while 1, 2, 4 are pending.
	if sg := s.ask(st.ID, 2); sg[0].DecisionID != 6 {
		t.Fatalf("%+v", sg)
	}
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Rounds != 7 || sum.RewardObserved != 2 || sum.CostsObserved != 1 || sum.Pending != 6 {
		t.Fatalf("summary %+v", sum)
	}
	// Nothing idempotent was logged twice: 7 decisions + 3 tells.
	ev, _ := storeOf(t, s).Events(context.Background(), st.ID, 0)
	if len(ev) != 10 {
		t.Fatalf("log has %d events, want 10", len(ev))
	}
}

var stores sync.Map // url → store, for storeOf

func storeOf(t *testing.T, s *tserver) store.Store {
	v, ok := stores.Load(s.url)
	if !ok {
		t.Fatal("store not registered")
	}
	return v.(store.Store)
}

func TestValidation(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{MaxBodyBytes: 4096})
	st := s.create(toySpec("v"))
	s.ask(st.ID, 1)
	mod := func(f func(m map[string]any)) string {
		raw, _ := json.Marshal(toySpec("v2"))
		var m map[string]any
		json.Unmarshal(raw, &m)
		f(m)
		out, _ := json.Marshal(m)
		return string(out)
	}
	sp := func(m map[string]any) map[string]any { return m["space"].(map[string]any) }
	cases := []struct {
		name, method, path, body string
		code                     int
		field                    string
	}{
		{"syntax", "POST", "/studies", `{"name":`, 400, "body"},
		{"empty", "POST", "/studies", ``, 400, "body"},
		{"unknown field", "POST", "/studies", mod(func(m map[string]any) { m["colour"] = 1 }), 400, "colour"},
		{"type", "POST", "/studies", mod(func(m map[string]any) { m["seed"] = "x" }), 400, "seed"},
		{"no name", "POST", "/studies", mod(func(m map[string]any) { m["name"] = "" }), 400, "name"},
		{"duplicate name", "POST", "/studies", mod(func(m map[string]any) { m["name"] = "v" }), 409, "name"},
		{"space type", "POST", "/studies", mod(func(m map[string]any) { sp(m)["type"] = "ball" }), 400, "space.type"},
		{"hi dim", "POST", "/studies", mod(func(m map[string]any) { sp(m)["hi"] = []float64{1} }), 400, "space.hi"},
		{"empty box", "POST", "/studies", mod(func(m map[string]any) { sp(m)["lo"] = []float64{0, 2} }), 400, "space.hi[1]"},
		{"overflow", "POST", "/studies", strings.Replace(mod(func(map[string]any) {}), `"lo":[0,0]`, `"lo":[0,1e999]`, 1), 400, "space.lo[1]"},
		{"candidates", "POST", "/studies", mod(func(m map[string]any) { sp(m)["candidates"] = 1e6 }), 400, "space.candidates"},
		{"points ragged", "POST", "/studies", mod(func(m map[string]any) {
			m["space"] = map[string]any{"type": "points", "points": [][]float64{{0, 1}, {1}}}
		}), 400, "space.points[1]"},
		{"goal", "POST", "/studies", mod(func(m map[string]any) { m["objective"] = map[string]any{"name": "y", "goal": "up"} }), 400, "objective.goal"},
		{"kind", "POST", "/studies", mod(func(m map[string]any) {
			m["constraints"] = []any{map[string]any{"name": "c", "threshold": 1, "kind": "sometimes"}}
		}), 400, "constraints[0].kind"},
		{"same metric", "POST", "/studies", mod(func(m map[string]any) {
			m["constraints"] = []any{map[string]any{"name": "yield", "threshold": 1}}
		}), 400, "constraints[0].name"},
		{"algorithm", "POST", "/studies", mod(func(m map[string]any) { m["algorithm"] = "magic" }), 400, "algorithm"},
		{"param name", "POST", "/studies", mod(func(m map[string]any) { m["params"] = map[string]any{"nope": 1} }), 400, "params.nope"},
		{"param value", "POST", "/studies", mod(func(m map[string]any) { m["params"] = map[string]any{"alpha": 2} }), 400, "params.alpha"},
		{"param type", "POST", "/studies", mod(func(m map[string]any) { m["params"] = map[string]any{"alpha": []int{1}} }), 400, "params.alpha"},
		{"no constraints for ckb", "POST", "/studies", mod(func(m map[string]any) { m["constraints"] = []any{} }), 400, "algorithm"},
		{"horizon", "POST", "/studies", mod(func(m map[string]any) { m["horizon"] = -3 }), 400, "horizon"},
		{"model size", "POST", "/studies", mod(func(m map[string]any) { sp(m)["candidates"] = 2048 }), 400, "space.candidates"},
		{"noise", "POST", "/studies", mod(func(m map[string]any) { m["prior"] = map[string]any{"noise_var": 0} }), 400, "prior.noise_var"},
		{"kernel", "POST", "/studies", mod(func(m map[string]any) { m["prior"] = map[string]any{"kernel": "rbf"} }), 400, "prior.kernel"},
		{"safe outside", "POST", "/studies", mod(func(m map[string]any) { m["prior"] = map[string]any{"safe": []float64{0.5, 3}} }), 400, "prior.safe[1]"},
		{"safe dim", "POST", "/studies", mod(func(m map[string]any) { m["prior"] = map[string]any{"safe": []float64{0.5}} }), 400, "prior.safe"},
		{"too large", "POST", "/studies", `{"name":"` + strings.Repeat("a", 5000) + `"}`, 413, "body"},
		{"trailing", "POST", "/studies/" + st.ID + "/suggestions", `{} {}`, 400, "body"},
		{"count", "POST", "/studies/" + st.ID + "/suggestions", `{"count": 101}`, 400, "count"},
		{"horizon reached", "POST", "/studies/" + st.ID + "/suggestions", `{"count": 100}`, 200, ""},
		{"horizon reached 2", "POST", "/studies/" + st.ID + "/suggestions", `{"count": 100}`, 409, "count"},
		{"unknown study", "POST", "/studies/nope/suggestions", ``, 404, "id"},
		{"no decision id", "POST", "/studies/" + st.ID + "/observations", `{"reward": 1}`, 400, "decision_id"},
		{"neither", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1}`, 400, "reward"},
		{"costs dim", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1, "costs": [1, 2]}`, 400, "costs"},
		{"reward type", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1, "reward": "NaN"}`, 400, "reward"},
		{"reward overflow", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1, "reward": -1e400}`, 400, "reward"},
		{"wrong x", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1, "reward": 1, "x": [9, 9]}`, 400, "x"},
		{"unknown decision", "POST", "/studies/" + st.ID + "/observations", `{"decision_id": 1000, "reward": 1}`, 404, "decision_id"},
		{"after", "GET", "/studies/" + st.ID + "/decisions?after=-1", ``, 400, "after"},
		{"limit", "GET", "/studies/" + st.ID + "/decisions?limit=0", ``, 400, "limit"},
		{"no route", "GET", "/nowhere", ``, 404, "path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, raw := s.do(c.method, c.path, c.body, nil)
			if c.code == 200 {
				if code != 200 {
					t.Fatalf("status %d: %s", code, raw)
				}
				return
			}
			wantError(t, code, raw, c.code, c.field)
		})
	}
}

func TestToken(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{Token: "sesame"})
	st := s.create(toySpec("tok"))
	anon := &tserver{t: t, url: s.url}
	code, raw := anon.do("GET", "/studies/"+st.ID, nil, nil)
	wantError(t, code, raw, 401, "Authorization")
	code, raw = (&tserver{t: t, url: s.url, tok: "wrong"}).do("GET", "/metrics", nil, nil)
	wantError(t, code, raw, 401, "Authorization")
	if code, _ := anon.do("GET", "/healthz", nil, nil); code != 200 {
		t.Fatalf("healthz without token: %d", code)
	}
	if code, _ := s.do("GET", "/studies/"+st.ID, nil, nil); code != 200 {
		t.Fatalf("with token: %d", code)
	}
}

func TestOpenAPIAndMetrics(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if code, raw := s.do("GET", "/openapi.json", nil, &doc); code != 200 || doc.OpenAPI == "" {
		t.Fatalf("openapi: %d %s", code, raw)
	}
	// Every route of the server is documented.
	for _, r := range []string{"POST /studies", "GET /studies", "GET /studies/{id}", "DELETE /studies/{id}",
		"POST /studies/{id}/suggestions", "POST /studies/{id}/observations", "GET /studies/{id}/decisions",
		"GET /studies/{id}/summary", "GET /studies/{id}/importance", "GET /healthz", "GET /metrics", "GET /openapi.json",
		"POST /studies/{id}/enqueue", "POST /studies/{id}/trials",
		"PATCH /studies/{id}", "DELETE /studies/{id}/decisions/{did}", "GET /studies/{id}/decisions.csv", "GET /ui/"} {
		m, p, _ := strings.Cut(r, " ")
		if _, ok := doc.Paths[p][strings.ToLower(m)]; !ok {
			t.Errorf("openapi.json does not document %s", r)
		}
	}
	st := s.create(toySpec("m"))
	sg := s.ask(st.ID, 1)[0]
	s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: f64(1)})
	_, raw := s.do("GET", "/metrics", nil, nil)
	for _, want := range []string{
		`cbandit_http_requests_total{route="POST /studies/{id}/suggestions",method="POST",code="200"} 1`,
		`cbandit_http_request_duration_seconds_bucket{route="POST /studies",le="+Inf"} 1`,
		`cbandit_decide_duration_seconds_count 1`,
		`cbandit_observe_duration_seconds_count 1`,
		`cbandit_cached_studies 1`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("metrics lack %q:\n%s", want, raw)
		}
	}
}

// play runs n rounds of the toy system against a study: ask one, tell both.
func play(s *tserver, id string, n int) []api.Suggestion {
	var out []api.Suggestion
	for i := 0; i < n; i++ {
		sg := s.ask(id, 1)[0]
		s.tell(id, api.Observation{DecisionID: sg.DecisionID, Reward: f64(toyF(sg.X)), Costs: []float64{toyG(sg.X)}})
		out = append(out, sg)
	}
	return out
}

// TestReplayEqualsLive: a server restarted on the same SQLite file, and a
// server whose cache holds one study (so every other study is replayed on
// each use), make the same decisions as an uninterrupted one.
func TestReplayEqualsLive(t *testing.T) {
	ctx := context.Background()
	ref := newTestServer(t, store.NewMemory(), Options{})
	rs := ref.create(toySpec("r"))
	want := play(ref, rs.ID, 40)

	path := filepath.Join(t.TempDir(), "r.db")
	db, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestServer(t, db, Options{})
	st := a.create(toySpec("r"))
	got := play(a, st.ID, 25)
	db.Close()
	db2, err := store.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	b := newTestServer(t, db2, Options{CacheSize: 1})
	other := b.create(toySpec("other"))
	for i := 0; i < 15; i++ {
		got = append(got, play(b, st.ID, 1)...)
		play(b, other.ID, 1) // evicts st: the next use replays it
	}
	for i := range want {
		if want[i].DecisionID != got[i].DecisionID || !equalVec(want[i].X, got[i].X) {
			t.Fatalf("decision %d: restarted/replayed %v, uninterrupted %v", i+1, got[i].X, want[i].X)
		}
	}
}

// TestConcurrentStudies hammers several studies from many goroutines (run
// with -race).
func TestConcurrentStudies(t *testing.T) {
	db, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newTestServer(t, db, Options{CacheSize: 2})
	ids := make([]string, 3)
	for i := range ids {
		ids[i] = s.create(toySpec(fmt.Sprint("c", i))).ID
	}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < 10; k++ {
				play(s, ids[(w+k)%3], 1)
				s.do("GET", "/studies/"+ids[k%3]+"/summary", nil, nil)
			}
		}(w)
	}
	wg.Wait()
	total := 0
	for _, id := range ids {
		var sum api.Summary
		s.do("GET", "/studies/"+id+"/summary", nil, &sum)
		if sum.Pending != 0 || sum.Rounds != sum.RewardObserved {
			t.Fatalf("summary %+v", sum)
		}
		total += sum.Rounds
	}
	if total != 60 {
		t.Fatalf("rounds %d, want 60", total)
	}
}

// TestNativeBox: a box handed to the learner as a box (rpol-ucb's
// continuous model); replay after eviction gives the same points.
func TestNativeBox(t *testing.T) {
	spec := toySpec("native")
	spec.Space.Native = true
	spec.Algorithm = "rpol-ucb"
	ref := newTestServer(t, store.NewMemory(), Options{})
	rs := ref.create(spec)
	want := play(ref, rs.ID, 15)
	s := newTestServer(t, store.NewMemory(), Options{CacheSize: 1})
	st := s.create(spec)
	other := s.create(toySpec("other"))
	for i := 0; i < 15; i++ {
		got := play(s, st.ID, 1)[0]
		if got.Arm != -1 || !equalVec(got.X, want[i].X) {
			t.Fatalf("round %d: %+v, uninterrupted %+v", i+1, got, want[i])
		}
		if got.X[0] < 0 || got.X[0] > 1 || got.X[1] < 0 || got.X[1] > 1 {
			t.Fatalf("point %v outside the box", got.X)
		}
		play(s, other.ID, 1)
	}
	bad := toySpec("native-points")
	bad.Space = api.Space{Type: api.SpacePoints, Points: [][]float64{{0}}, Native: true}
	code, raw := s.do("POST", "/studies", bad, nil)
	wantError(t, code, raw, 400, "space.native")
}
