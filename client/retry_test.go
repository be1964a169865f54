package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
)

// fake answers 503 with the given Retry-After values, in turn, then 200;
// it records each attempt's Idempotency-Key.
type fake struct {
	mu    sync.Mutex
	after []string
	keys  []string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
	if n := len(f.keys); n <= len(f.after) {
		if ra := f.after[n-1]; ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"status":503,"code":"unavailable","message":"the study store is unavailable"}}`))
		return
	}
	w.Write([]byte(`{"suggestions":[{"decision_id":7,"x":[0.5]}]}`))
}

// recorded returns a client of f whose waits are recorded, not slept.
func recorded(t *testing.T, f *fake, opts ...Option) (*Client, *[]time.Duration) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := New(srv.URL, opts...)
	var waits []time.Duration
	c.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	return c, &waits
}

// TestRetry503: a keyed ask answered 503 is sent again with its key after
// the waits the answers' Retry-After ask for, and its answer returned.
func TestRetry503(t *testing.T) {
	f := &fake{after: []string{"1", "3"}}
	c, waits := recorded(t, f)
	s, err := c.SuggestOnce(context.Background(), "s", 1, "job-1")
	if err != nil || len(s) != 1 || s[0].DecisionID != 7 {
		t.Fatalf("SuggestOnce: %v, %v", s, err)
	}
	if len(f.keys) != 3 || f.keys[0] != `"job-1"` || f.keys[1] != f.keys[0] || f.keys[2] != f.keys[0] {
		t.Errorf("keys of the attempts %q, want %q three times", f.keys, `"job-1"`)
	}
	if len(*waits) != 2 || (*waits)[0] != time.Second || (*waits)[1] != 3*time.Second {
		t.Errorf("waits %v, want [1s 3s] (Retry-After)", *waits)
	}
}

// TestRetry503Suggest: Suggest sends a key of its own, the same on every
// attempt; without Retry-After the waits grow.
func TestRetry503Suggest(t *testing.T) {
	f := &fake{after: []string{"", ""}}
	c, waits := recorded(t, f)
	if _, err := c.Suggest(context.Background(), "s", 1); err != nil {
		t.Fatal(err)
	}
	if len(f.keys) != 3 || f.keys[0] == "" || f.keys[1] != f.keys[0] || f.keys[2] != f.keys[0] {
		t.Errorf("keys of the attempts %q, want one key, on each", f.keys)
	}
	if len(*waits) != 2 || (*waits)[0] <= 0 || (*waits)[1] <= (*waits)[0] {
		t.Errorf("waits %v, want growing backoff", *waits)
	}
}

// TestRetryBudget: waits beyond the budget end the retries with the 503.
func TestRetryBudget(t *testing.T) {
	f := &fake{after: []string{"20", "20", "20"}}
	c, waits := recorded(t, f)
	_, err := c.SuggestOnce(context.Background(), "s", 1, "k")
	var e *api.Error
	if !errors.As(err, &e) || e.Err.Status != 503 || e.Err.Code != "unavailable" {
		t.Fatalf("err %v, want the 503", err)
	}
	if len(*waits) != 1 || len(f.keys) != 2 {
		t.Errorf("waits %v over %d attempts, want one wait of 20 s (a second would pass the %v budget)", *waits, len(f.keys), DefaultRetryBudget)
	}
}

// TestNoRetry: a request that is not safe to repeat (an unkeyed create)
// and a client without a budget are not sent again.
func TestNoRetry(t *testing.T) {
	f := &fake{after: []string{"1"}}
	c, waits := recorded(t, f)
	if _, err := c.CreateStudy(context.Background(), api.StudySpec{Name: "x"}); err == nil {
		t.Fatal("create answered 503: no error")
	}
	f2 := &fake{after: []string{"1"}}
	c2, waits2 := recorded(t, f2, WithRetryBudget(0))
	if _, err := c2.SuggestOnce(context.Background(), "s", 1, "k"); err == nil {
		t.Fatal("ask answered 503 without retries: no error")
	}
	if len(f.keys)+len(f2.keys) != 2 || len(*waits)+len(*waits2) != 0 {
		t.Errorf("attempts %d and %d, waits %v %v: want one attempt each, no wait", len(f.keys), len(f2.keys), *waits, *waits2)
	}
}
