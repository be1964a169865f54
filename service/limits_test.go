package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service/api"
)

// peakRSS samples a process's RSS every 50 ms until stop is closed, and
// returns the largest value seen.
func peakRSS(t *testing.T, pid int, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		peak := int64(0)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if r := rssBytes(t, pid); r > peak {
				peak = r
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// TestStudyLimits: count:100 asks, without tells, on an
// open-ended study of a real `cbandit serve` (SQLite, default limits) until
// refused (≈ 10 s on an idle 2-core machine; up to 90 s, so a loaded CI
// machine does not fail it for being slow): the study is refused at the decision limit with a JSON 409
// naming the limit and the value, the process stays under 300 MB; a restart
// at the limit answers within 2 s and stays under 500 MB.
func TestStudyLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real server")
	}
	if raceEnabled {
		t.Skip("memory and time bounds: not under the race detector (the plain go test run checks them)")
	}
	bin := cbanditBinary(t)
	dbPath := filepath.Join(t.TempDir(), "limits.db")
	p := startServe(t, bin, "--db", "sqlite:"+dbPath)
	stop := make(chan struct{})
	peak := peakRSS(t, p.cmd.Process.Pid, stop)
	ctx := context.Background()
	spec := toySpec("abuse")
	spec.Horizon = 0 // open-ended
	st, err := client.New(p.url).CreateStudy(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var decided, refused atomic.Int64
	var refusal atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Timeout: 2 * time.Minute}
			// The time is a guard against a hang, not a figure: a loaded machine
			// takes longer to reach the limit.
			for time.Since(start) < 10*time.Minute && refused.Load() < 10 {
				req, _ := http.NewRequest("POST", p.url+"/studies/"+st.ID+"/suggestions", strings.NewReader(`{"count":100}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					decided.Add(100)
				case 409:
					refused.Add(1)
					refusal.Store(raw)
				default:
					t.Errorf("ask: %d %s", resp.StatusCode, raw)
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	close(stop)
	rss := <-peak
	t.Logf("%d decisions in %v, then %d refusals; peak RSS %.0f MB; cbandit_cached_bytes %.0f MB", decided.Load(), took.Round(time.Millisecond),
		refused.Load(), float64(rss)/1e6, float64(metricValue(t, p.url, "cbandit_cached_bytes"))/1e6)
	raw, _ := refusal.Load().([]byte)
	var e api.Error
	if json.Unmarshal(raw, &e) != nil || e.Err.Code != "decision_limit" || e.Err.Field != "count" ||
		!strings.Contains(e.Err.Message, fmt.Sprint(DefaultMaxDecisions)) || !strings.Contains(e.Err.Message, "--max-decisions") {
		t.Fatalf("refusal %s: want a 409 decision_limit naming the limit", raw)
	}
	if decided.Load() != DefaultMaxDecisions {
		t.Fatalf("%d decisions made, want the limit %d", decided.Load(), DefaultMaxDecisions)
	}
	if rss >= 300<<20 {
		t.Errorf("peak RSS %.0f MB, want < 300 MB", float64(rss)/1e6)
	}
	if n := metricValue(t, p.url, `cbandit_refused_total{reason="decision_limit"}`); n != int(refused.Load()) {
		t.Errorf("cbandit_refused_total{reason=\"decision_limit\"} = %d, want %d", n, refused.Load())
	}
	p.kill9(t)

	// Restart at the limit.
	restart := time.Now()
	p = startServe(t, bin, "--db", "sqlite:"+dbPath)
	stop = make(chan struct{})
	peak = peakRSS(t, p.cmd.Process.Pid, stop)
	c := client.New(p.url)
	sum, err := c.Summary(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Suggest(ctx, st.ID, 1)
	took = time.Since(restart)
	close(stop)
	rss = <-peak
	var ae *api.Error
	if !asAPIError(err, &ae) || ae.Err.Status != 409 || ae.Err.Code != "decision_limit" {
		t.Fatalf("ask after the restart: %v, want 409 decision_limit", err)
	}
	t.Logf("restart at the limit (%d decisions): summary and a refused ask %v after the restart; peak RSS %.0f MB; restores from a snapshot %d",
		sum.Rounds, took.Round(time.Millisecond), float64(rss)/1e6, metricValue(t, p.url, "cbandit_snapshot_restores_total"))
	if sum.Rounds != DefaultMaxDecisions || sum.Pending != DefaultMaxDecisions {
		t.Fatalf("summary after the restart: %+v", sum)
	}
	if rss >= 500<<20 {
		t.Errorf("restart at the limit: peak RSS %.0f MB, want < 500 MB", float64(rss)/1e6)
	}
}

func asAPIError(err error, out **api.Error) bool {
	e, ok := err.(*api.Error)
	if ok {
		*out = e
	}
	return ok
}
