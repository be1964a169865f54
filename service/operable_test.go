package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// doKey sends a request with an Idempotency-Key header.
func (s *tserver) doKey(method, path, key string, body any, out any) (int, http.Header, []byte) {
	s.t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(raw))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b.Bytes(), out); err != nil {
			s.t.Fatal(err)
		}
	}
	return resp.StatusCode, resp.Header, b.Bytes()
}

func TestIdempotencyKey(t *testing.T) {
	mem := store.NewMemory()
	s := newTestServer(t, mem, Options{})
	st := s.create(toySpec("idem"))
	path := "/studies/" + st.ID + "/suggestions"
	var r1, r2 api.SuggestResponse
	code, h1, raw := s.doKey("POST", path, `"ask-1"`, api.SuggestRequest{Count: 2}, &r1)
	if code != 200 || h1.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first ask: %d %s %v", code, raw, h1)
	}
	code, h2, raw := s.doKey("POST", path, `"ask-1"`, api.SuggestRequest{Count: 2}, &r2)
	if code != 200 || h2.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retried ask: %d %s %v", code, raw, h2)
	}
	if len(r2.Suggestions) != 2 || r2.Suggestions[0].DecisionID != 1 || r2.Suggestions[1].DecisionID != 2 ||
		!equalVec(r1.Suggestions[1].X, r2.Suggestions[1].X) {
		t.Fatalf("retry answered %+v, the first ask %+v", r2.Suggestions, r1.Suggestions)
	}
	// The same key with another body, or on another endpoint: 422.
	code, _, raw = s.doKey("POST", path, `"ask-1"`, api.SuggestRequest{Count: 3}, nil)
	wantError(t, code, raw, 422, "Idempotency-Key")
	code, _, raw = s.doKey("POST", "/studies/"+st.ID+"/observations", `"ask-1"`, api.Observation{DecisionID: 1, Reward: f64(1)}, nil)
	wantError(t, code, raw, 422, "Idempotency-Key")
	if sg := s.ask(st.ID, 1); sg[0].DecisionID != 3 {
		t.Fatalf("an ask without key after the retries made decision %d, want 3", sg[0].DecisionID)
	}
	// Tell: the retry gets the first answer (applied), not "duplicate".
	obs := api.Observation{DecisionID: 1, Reward: f64(0.5), Costs: []float64{0.2}}
	opath := "/studies/" + st.ID + "/observations"
	var o1, o2 api.ObserveResponse
	if code, _, raw := s.doKey("POST", opath, "tell-1", obs, &o1); code != 200 || len(o1.Applied) != 2 {
		t.Fatalf("tell: %d %s", code, raw)
	}
	if code, h, raw := s.doKey("POST", opath, "tell-1", obs, &o2); code != 200 || h.Get("Idempotent-Replayed") != "true" ||
		fmt.Sprint(o2.Applied, o2.Duplicate) != "[reward costs] []" {
		t.Fatalf("retried tell: %d %s %+v", code, raw, o2)
	}
	obs.Reward = f64(0.6)
	code, _, raw = s.doKey("POST", opath, "tell-1", obs, nil)
	wantError(t, code, raw, 422, "Idempotency-Key")
	// Malformed keys.
	for _, k := range []string{`""`, strings.Repeat("k", MaxIdempotencyKey+1), "clé", `"a"b"`} {
		code, _, raw := s.doKey("POST", path, k, api.SuggestRequest{}, nil)
		wantError(t, code, raw, 400, "Idempotency-Key")
	}
	// Keys survive a restart (they are in the log).
	s2 := newTestServer(t, mem, Options{})
	var r3 api.SuggestResponse
	if code, _, raw := s2.doKey("POST", path, `"ask-1"`, api.SuggestRequest{Count: 2}, &r3); code != 200 || r3.Suggestions[0].DecisionID != 1 {
		t.Fatalf("retry after a restart: %d %s", code, raw)
	}
	evs, _ := mem.Events(context.Background(), st.ID, 0)
	if len(evs) != 4 { // 3 decisions, 1 tell
		t.Fatalf("log has %d events, want 4", len(evs))
	}
}

// TestIdempotentAskConcurrent: concurrent retries with one key make one
// decision.
func TestIdempotentAskConcurrent(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("idem-conc"))
	var wg sync.WaitGroup
	ids := make([]int64, 6)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r api.SuggestResponse
			if code, _, raw := s.doKey("POST", "/studies/"+st.ID+"/suggestions", "same", api.SuggestRequest{}, &r); code != 200 {
				t.Errorf("ask: %d %s", code, raw)
				return
			}
			ids[i] = r.Suggestions[0].DecisionID
		}(i)
	}
	wg.Wait()
	for _, id := range ids {
		if id != 1 {
			t.Fatalf("decisions %v, want all 1", ids)
		}
	}
}

func TestAbandon(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("abandon"))
	s.ask(st.ID, 3)
	var ar api.AbandonResponse
	if code, raw := s.do("DELETE", "/studies/"+st.ID+"/decisions/2", nil, &ar); code != 200 || !ar.Abandoned || ar.DecisionID != 2 {
		t.Fatalf("abandon: %d %s", code, raw)
	}
	if code, raw := s.do("DELETE", "/studies/"+st.ID+"/decisions/2", nil, nil); code != 200 {
		t.Fatalf("abandon again: %d %s", code, raw)
	}
	code, raw := s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 2, Reward: f64(1)}, nil)
	wantError(t, code, raw, 409, "decision_id")
	s.tell(st.ID, api.Observation{DecisionID: 1, Reward: f64(1), Costs: []float64{0}})
	code, raw = s.do("DELETE", "/studies/"+st.ID+"/decisions/1", nil, nil)
	wantError(t, code, raw, 409, "decision_id")
	code, raw = s.do("DELETE", "/studies/"+st.ID+"/decisions/9", nil, nil)
	wantError(t, code, raw, 404, "decision_id")
	code, raw = s.do("DELETE", "/studies/"+st.ID+"/decisions/x", nil, nil)
	wantError(t, code, raw, 400, "decision_id")
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Abandoned != 1 || sum.Pending != 1 || sum.Rounds != 3 {
		t.Fatalf("summary %+v: want 1 abandoned, 1 pending of 3", sum)
	}
	var page api.DecisionList
	s.do("GET", "/studies/"+st.ID+"/decisions", nil, &page)
	if !page.Decisions[1].Abandoned || page.Decisions[0].Abandoned || page.Decisions[2].Abandoned {
		t.Fatalf("decisions %+v", page.Decisions)
	}
}

func TestPendingTTL(t *testing.T) {
	mem := store.NewMemory()
	s := newTestServer(t, mem, Options{PendingTTL: 100 * time.Millisecond})
	st := s.create(toySpec("ttl"))
	s.ask(st.ID, 2)
	s.tell(st.ID, api.Observation{DecisionID: 1, Reward: f64(1), Costs: []float64{0}})
	time.Sleep(150 * time.Millisecond)
	s.ask(st.ID, 1) // expires decision 2 (decision 1 is complete)
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Abandoned != 1 || sum.Pending != 1 {
		t.Fatalf("summary %+v: want decision 2 abandoned, 3 pending", sum)
	}
	code, raw := s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 2, Reward: f64(1)}, nil)
	wantError(t, code, raw, 409, "decision_id")
	// The abandonment is in the log: a server without a TTL sees it.
	s2 := newTestServer(t, mem, Options{})
	s2.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Abandoned != 1 {
		t.Fatalf("after a restart: %+v", sum)
	}
}

// TestOpenEndedDoubling: an open-ended study runs its algorithm under the
// doubling trick: epoch k is a fresh run planned for Epoch·2^k rounds with
// its own seed, so its decisions are those of a fixed-horizon study of that
// length and seed fed the same observations.
func TestOpenEndedDoubling(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("open")
	spec.Horizon = 0
	spec.Epoch = 4
	st := s.create(spec)
	if st.Spec.Horizon != 0 || st.Spec.Epoch != 4 {
		t.Fatalf("stored %+v", st.Spec)
	}
	got := play(s, st.ID, 13)
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Epoch != 2 || sum.Horizon != 0 || sum.Rounds != 13 {
		t.Fatalf("summary %+v: want epoch 2 after 13 rounds (epochs of 4, 8, 16)", sum)
	}
	for _, ep := range []struct{ k, from, n int }{{0, 0, 4}, {1, 4, 8}, {2, 12, 1}} {
		ref := toySpec(fmt.Sprintf("epoch-%d", ep.k))
		ref.Horizon = 4 << ep.k
		if ep.k > 0 {
			ref.Seed = seed.Derive(spec.Seed, "epoch", ep.k)
		}
		want := play(s, s.create(ref).ID, ep.n)
		for i := 0; i < ep.n; i++ {
			g := got[ep.from+i]
			if !equalVec(g.X, want[i].X) || g.DecisionID != int64(ep.from+i+1) {
				t.Fatalf("epoch %d round %d: open-ended study chose %v (decision %d), a fresh %d-round run %v",
					ep.k, i+1, g.X, g.DecisionID, ref.Horizon, want[i].X)
			}
		}
	}
	code, raw := s.do("PATCH", "/studies/"+st.ID, api.StudyPatch{Horizon: 100}, nil)
	wantError(t, code, raw, 409, "horizon")
	bad := toySpec("bad-epoch")
	bad.Epoch = 5
	code, raw = s.do("POST", "/studies", bad, nil)
	wantError(t, code, raw, 400, "epoch")
}

// TestRaiseHorizon: PATCH raises a horizon; the rounds after the old one
// are a fresh run planned for the difference.
func TestRaiseHorizon(t *testing.T) {
	mem := store.NewMemory()
	s := newTestServer(t, mem, Options{})
	spec := toySpec("raise")
	spec.Horizon = 5
	st := s.create(spec)
	first := play(s, st.ID, 5)
	code, raw := s.do("POST", "/studies/"+st.ID+"/suggestions", nil, nil)
	wantError(t, code, raw, 409, "count")
	code, raw = s.do("PATCH", "/studies/"+st.ID, api.StudyPatch{Horizon: 5}, nil)
	wantError(t, code, raw, 400, "horizon")
	code, raw = s.do("PATCH", "/studies/"+st.ID, `{"horizon": 12, "x": 1}`, nil)
	wantError(t, code, raw, 400, "x")
	var up api.Study
	if code, raw := s.do("PATCH", "/studies/"+st.ID, api.StudyPatch{Horizon: 12}, &up); code != 200 || up.Spec.Horizon != 12 || fmt.Sprint(up.Spec.RaisedFrom) != "[5]" {
		t.Fatalf("patch: %d %s", code, raw)
	}
	second := play(s, st.ID, 7)
	code, raw = s.do("POST", "/studies/"+st.ID+"/suggestions", nil, nil)
	wantError(t, code, raw, 409, "count")
	ref := toySpec("raise-ref")
	ref.Horizon = 7
	ref.Seed = seed.Derive(spec.Seed, "epoch", 1)
	want := play(s, s.create(ref).ID, 7)
	for i := range want {
		if !equalVec(second[i].X, want[i].X) {
			t.Fatalf("round %d after the raise: %v, a fresh 7-round run %v", 6+i, second[i].X, want[i].X)
		}
	}
	// A restarted server replays both runs from the log.
	s2 := newTestServer(t, mem, Options{SnapshotEvery: -1})
	var page api.DecisionList
	s2.do("GET", "/studies/"+st.ID+"/decisions", nil, &page)
	all := append(first, second...)
	if len(page.Decisions) != 12 || !equalVec(page.Decisions[11].X, all[11].X) {
		t.Fatalf("after a restart: %d decisions", len(page.Decisions))
	}
	var got api.Study
	s2.do("GET", "/studies/"+st.ID, nil, &got)
	if got.Spec.Horizon != 12 {
		t.Fatalf("stored horizon %d", got.Spec.Horizon)
	}
	// A second replica with the old definition cached sees the raise.
	s3 := newTestServer(t, mem, Options{})
	s3.do("GET", "/studies/"+st.ID+"/summary", nil, nil) // cached at horizon 12
	if code, raw := s.do("PATCH", "/studies/"+st.ID, api.StudyPatch{Horizon: 13}, nil); code != 200 {
		t.Fatalf("patch: %d %s", code, raw)
	}
	if sg := s3.ask(st.ID, 1); sg[0].DecisionID != 13 {
		t.Fatalf("replica made decision %d", sg[0].DecisionID)
	}
}

// TestHostileStudies: the cases that reached a 500 or poisoned a
// study are 400s naming the field; extreme values that are accepted keep
// every algorithm computable and every summary finite.
func TestHostileStudies(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	for _, tc := range []struct {
		name  string
		mod   func(sp *api.StudySpec)
		field string
	}{
		{"prior variance 1e300", func(sp *api.StudySpec) { sp.Prior.Variance = f64(1e300) }, "prior.variance"},
		{"box bound -1e200", func(sp *api.StudySpec) { sp.Space.Lo[0] = -1e200 }, "space.lo[0]"},
		{"box bound 1e200", func(sp *api.StudySpec) { sp.Space.Hi[1] = 1e200 }, "space.hi[1]"},
		{"threshold -1.7e308", func(sp *api.StudySpec) { sp.Constraints[0].Threshold = -1.7e308 }, "constraints[0].threshold"},
		{"lengthscale 1e-300", func(sp *api.StudySpec) { sp.Prior.Lengthscale = f64(1e-300) }, "prior.lengthscale"},
		{"noise 1e-300", func(sp *api.StudySpec) { sp.Prior.NoiseVar = f64(1e-300) }, "prior.noise_var"},
		{"B 1e300", func(sp *api.StudySpec) { sp.Prior.B = f64(1e300) }, "prior.B"},
		{"safe 1e300", func(sp *api.StudySpec) { sp.Prior.Safe = []float64{1e300, 0} }, "prior.safe[0]"},
		{"horizon", func(sp *api.StudySpec) { sp.Horizon = -1 }, "horizon"},
		{"raised_from beyond the horizon", func(sp *api.StudySpec) { sp.RaisedFrom = []int{3, 300} }, "raised_from[1]"},
		{"raised_from decreasing", func(sp *api.StudySpec) { sp.RaisedFrom = []int{30, 3} }, "raised_from[1]"},
		{"raised_from open-ended", func(sp *api.StudySpec) { sp.Horizon, sp.RaisedFrom = 0, []int{3} }, "raised_from[0]"},
	} {
		spec := toySpec("hostile")
		tc.mod(&spec)
		code, raw := s.do("POST", "/studies", spec, nil)
		if code != 400 {
			t.Errorf("%s: %d %s", tc.name, code, raw)
			continue
		}
		wantError(t, code, raw, 400, tc.field)
	}
	st := s.create(toySpec("poison"))
	sg := s.ask(st.ID, 1)[0]
	for _, body := range []string{
		fmt.Sprintf(`{"decision_id":%d,"reward":1e308}`, sg.DecisionID),
		fmt.Sprintf(`{"decision_id":%d,"costs":[-1.7e308]}`, sg.DecisionID),
		fmt.Sprintf(`{"decision_id":%d,"reward":1e999}`, sg.DecisionID),
	} {
		code, raw := s.do("POST", "/studies/"+st.ID+"/observations", body, nil)
		if code != 400 {
			t.Fatalf("%s: %d %s", body, code, raw)
		}
	}

	// Extreme accepted values, then used, for every algorithm that serves
	// the toy shapes: no 5xx, no 2xx carrying an error, finite summaries.
	big := MaxMagnitude
	for _, sp := range agent.All() {
		for _, cand := range shapesFor(sp.Name) {
			spec := cand
			spec.Name = "extreme-" + cand.Name
			if spec.Space.Type == api.SpaceBox {
				spec.Space.Lo, spec.Space.Hi = []float64{-big, -big}, []float64{big, big}
				if spec.Prior.Safe != nil {
					spec.Prior.Safe = []float64{-big, -big}
				}
			}
			spec.Constraints[0].Threshold = -big
			spec.Prior.Variance, spec.Prior.B, spec.Prior.G = f64(big), f64(big), f64(big)
			if code, _ := s.do("POST", "/studies", spec, nil); code >= 500 {
				t.Fatalf("%s: create answered %d", spec.Name, code)
			}
		}
	}
	var list api.StudyList
	s.do("GET", "/studies", nil, &list)
	played, failed := 0, 0
	for _, st := range list.Studies {
		if !strings.HasPrefix(st.Spec.Name, "extreme-") {
			continue
		}
		played++
		for i := 0; i < 6; i++ {
			var r api.SuggestResponse
			code, raw := s.do("POST", "/studies/"+st.ID+"/suggestions", askFor(st.Spec, i+1), &r)
			if code >= 500 || (code == 200 && len(r.Suggestions) != 1) {
				t.Fatalf("%s ask: %d %s", st.Spec.Name, code, raw)
			}
			if code != 200 {
				wantError(t, code, raw, 422, "algorithm")
				t.Logf("%s: %s", st.Spec.Name, raw)
				failed++
				break
			}
			sgn := []float64{1, -1}[i%2]
			o := api.Observation{DecisionID: r.Suggestions[0].DecisionID, Reward: f64(sgn * big), Costs: []float64{big}}
			if code, raw := s.do("POST", "/studies/"+st.ID+"/observations", o, nil); code >= 500 {
				t.Fatalf("%s tell: %d %s", st.Spec.Name, code, raw)
			}
		}
		var sum api.Summary
		code, raw := s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
		if code != 200 {
			t.Fatalf("%s summary: %d %s", st.Spec.Name, code, raw)
		}
		for _, v := range []float64{sum.RewardSum, sum.Constraints[0].CumulativeCost, sum.Constraints[0].ViolationHard} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s summary not finite: %s", st.Spec.Name, raw)
			}
		}
	}
	if played < 16 {
		t.Fatalf("only %d extreme studies played", played)
	}
	t.Logf("%d extreme studies played, %d refused by their algorithm (422)", played, failed)
}

// TestConcurrentDeletes: asks, tells and reads racing with deletes of the
// study answer 2xx or 404, never 5xx.
func TestConcurrentDeletes(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	for round := 0; round < 5; round++ {
		st := s.create(toySpec(fmt.Sprintf("del-%d", round)))
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					var code int
					var raw []byte
					switch (w + i) % 4 {
					case 0:
						code, raw = s.do("POST", "/studies/"+st.ID+"/suggestions", nil, nil)
					case 1:
						code, raw = s.do("POST", "/studies/"+st.ID+"/observations", api.Observation{DecisionID: 1, Reward: f64(1)}, nil)
					case 2:
						code, raw = s.do("GET", "/studies/"+st.ID+"/summary", nil, nil)
					default:
						code, raw = s.do("DELETE", "/studies/"+st.ID+"/decisions/1", nil, nil)
					}
					if code >= 500 {
						t.Errorf("%d %s", code, raw)
					}
				}
			}(w)
		}
		time.Sleep(time.Duration(round) * time.Millisecond)
		if code, raw := s.do("DELETE", "/studies/"+st.ID, nil, nil); code != 204 {
			t.Errorf("delete: %d %s", code, raw)
		}
		wg.Wait()
	}
}
