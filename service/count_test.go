package service

import (
	"context"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// An ask's count: left out means 1; an explicit 0 is refused like −1 (400
// naming count) and commits nothing; the Go client refuses a count below 1
// before sending it rather than letting the service read it as 1.
func TestAskCountZeroRefused(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(toySpec("count"))
	path := "/studies/" + st.ID + "/suggestions"
	for _, body := range []string{`{"count": 0}`, `{"count": -1}`} {
		code, raw := s.do("POST", path, body, nil)
		wantError(t, code, raw, 400, "count")
		if !strings.Contains(string(raw), "must be in [1,") {
			t.Errorf("%s: message %s does not say the range", body, raw)
		}
	}
	asked := 0
	for _, c := range []struct {
		body any
		want int
	}{{nil, 1}, {`{}`, 1}, {`{"count": null}`, 1}, {`{"count": 3}`, 3}, {api.SuggestRequest{}, 1}} {
		var r api.SuggestResponse
		if code, raw := s.do("POST", path, c.body, &r); code != 200 || len(r.Suggestions) != c.want {
			t.Fatalf("ask %v: %d, %d suggestions, want %d: %s", c.body, code, len(r.Suggestions), c.want, raw)
		}
		asked += c.want
		if got := r.Suggestions[len(r.Suggestions)-1].DecisionID; got != int64(asked) {
			t.Fatalf("ask %v: last decision %d, want %d (the refused asks committed something)", c.body, got, asked)
		}
	}

	ctx := context.Background()
	c := client.New(s.url)
	for _, n := range []int{0, -1} {
		if sg, err := c.Suggest(ctx, st.ID, n); err == nil || !strings.Contains(err.Error(), "count") {
			t.Errorf("client Suggest(%d): %d suggestions, error %v; want an error naming count", n, len(sg), err)
		}
		if sg, err := c.SuggestOnce(ctx, st.ID, n, "k"); err == nil || !strings.Contains(err.Error(), "count") {
			t.Errorf("client SuggestOnce(%d): %d suggestions, error %v; want an error naming count", n, len(sg), err)
		}
	}
	list, err := c.Decisions(ctx, st.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Decisions) != asked {
		t.Errorf("%d decisions in the study, want %d", len(list.Decisions), asked)
	}
}
