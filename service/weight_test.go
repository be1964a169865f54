package service

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// heapNow is the live heap after a collection.
func heapNow() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestCacheAccounting: the cache's byte count
// (cbandit_cached_bytes) is within 30 % of the heap the live studies hold,
// for studies of pending decisions, of observed rounds, and of a model that
// grows with its data.
func TestCacheAccounting(t *testing.T) {
	if raceEnabled {
		t.Skip("heap figures: not under the race detector")
	}
	for _, tc := range []struct {
		name  string
		spec  func() api.StudySpec
		asks  int // asks of count 100, no tells
		plays int // rounds with tells
	}{
		{"pending decisions", func() api.StudySpec {
			s := toySpec("pending")
			s.Horizon = 0
			return s
		}, 300, 0},
		{"observed rounds", func() api.StudySpec { return toySpec("observed") }, 0, 200},
		{"native box", func() api.StudySpec {
			s := toySpec("native")
			s.Algorithm, s.Space.Native, s.Horizon = "rpol-ucb", true, 0
			return s
		}, 0, 700}, // not between a deferred refit's start (512) and its swap (640): its new GP is held off the graph
		{"many small studies", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No snapshots in the store (memory): the measure is the
			// study's, not the store's copy of its log.
			srv := New(store.NewMemory(), Options{})
			defer srv.Close()
			s := startServer(t, srv, nil)
			// The store's memory (the log) is not the cache's: measure the
			// heap with the log, then with the studies dropped.
			var ids []string
			if tc.spec == nil {
				for i := 0; i < 40; i++ {
					st := s.create(toySpec(fmt.Sprint("small-", i)))
					play(s, st.ID, 20)
					ids = append(ids, st.ID)
				}
			} else {
				st := s.create(tc.spec())
				for i := 0; i < tc.asks; i++ {
					s.ask(st.ID, 100)
				}
				play(s, st.ID, tc.plays)
				ids = append(ids, st.ID)
			}
			with := heapNow()
			counted := srv.cache.size()
			for _, id := range ids {
				if l := srv.cache.get(id); l != nil {
					srv.cache.remove(l)
				}
			}
			without := heapNow()
			held := with - without
			ratio := float64(counted) / float64(held)
			t.Logf("%s: cache counts %.2f MB, the live studies hold %.2f MB (ratio %.2f)", tc.name, float64(counted)/1e6, float64(held)/1e6, ratio)
			if ratio < 0.7 || ratio > 1.3 {
				t.Errorf("cache counts %.2f MB for %.2f MB held: off by more than 30 %%", float64(counted)/1e6, float64(held)/1e6)
			}
		})
	}
}

// TestModelLimit: a study whose algorithm's state outgrows
// the server's memory limit per study is refused further asks with a 409
// naming the limit and the measured size; tells and reads go on.
func TestModelLimit(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{MaxStudyBytes: 3 << 20})
	spec := toySpec("model-limit")
	spec.Algorithm, spec.Space.Native, spec.Horizon = "rpol-ucb", true, 0
	st := s.create(spec)
	var code int
	var raw []byte
	rounds := 0
	for ; rounds < 1000; rounds++ {
		var r api.SuggestResponse
		code, raw = s.do("POST", "/studies/"+st.ID+"/suggestions", api.SuggestRequest{}, &r)
		if code != 200 {
			break
		}
		x := r.Suggestions[0].X
		s.tell(st.ID, api.Observation{DecisionID: r.Suggestions[0].DecisionID, Reward: f64(toyF(x)), Costs: []float64{toyG(x)}})
	}
	wantError(t, code, raw, 409, "count")
	var e api.Error
	json.Unmarshal(raw, &e)
	if e.Err.Code != "model_limit" || !strings.Contains(e.Err.Message, "limit of 3 MiB") || !strings.Contains(e.Err.Message, "--max-study-mib") {
		t.Fatalf("refusal %s", raw)
	}
	t.Logf("refused after %d rounds: %s", rounds, e.Err.Message)
	if rounds < 50 {
		t.Fatalf("refused after %d rounds only", rounds)
	}
	if sum := s.do2(t, "GET", "/studies/"+st.ID+"/summary"); sum.Rounds != rounds {
		t.Fatalf("summary %+v", sum)
	}
	if n := metricValue(t, s.url, `cbandit_refused_total{reason="model_limit"}`); n != 1 {
		t.Fatalf("model_limit refusals: %d", n)
	}
}
