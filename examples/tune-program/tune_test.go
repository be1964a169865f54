package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestMain lets the test binary be the launcher that sets the memory limit
// and execs the workload, as the tuner's own binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == rlimitArg {
		err := limitedExec(os.Args[2:])
		fmt.Fprintln(os.Stderr, "launcher:", err)
		os.Exit(127)
	}
	os.Exit(m.Run())
}

// workloadBinary builds the workload once per test binary.
func workloadBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the workload")
	}
	dir := t.TempDir()
	bin, err := buildWorkload(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A child under a memory limit the Go runtime cannot even start in dies,
// and the runner says OOM; with room, it reports its metrics. At 48 MiB of
// RLIMIT_DATA the Go 1.26 runtime fails to allocate its heap arena map
// (measured: "out of memory" from 40 to 64 MiB; below 32 MiB a silent
// segmentation fault).
func TestRunnerMemoryLimit(t *testing.T) {
	bin := workloadBinary(t)
	c := Config{"batch": 1024, "workers": 2}
	tight := &Runner{Program: bin, Records: 5000, LimitBytes: 48 << 20, LimitKind: "data", Timeout: time.Minute}
	if o := tight.Run(context.Background(), c); !o.Failed || o.Reason != "OOM" {
		t.Errorf("under a 48 MiB data limit: %+v, want a failure with reason OOM", o)
	}
	roomy := *tight
	roomy.LimitBytes = 1 << 30
	o := roomy.Run(context.Background(), c)
	if o.Failed || o.Objective <= 0 || len(o.Costs) != 1 || o.Costs[0] <= 0 {
		t.Errorf("under a 1 GiB data limit: %+v, want throughput and p95 latency", o)
	}
}

// Eight evaluations by four workers against a server in this process, over
// two knobs of which one reaches values the program refuses (-level > 9):
// the configurations running at once are distinct, the crash is told as a
// failed evaluation with the program's reason, and the study has a best
// configuration.
func TestTuneShape(t *testing.T) {
	bin := workloadBinary(t)
	srv := httptest.NewServer(service.New(store.NewMemory(), service.Options{}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL)
	spec := study("shape", 1e6, 1, 8, "")
	spec.Parameters = []api.Parameter{
		{Name: "batch", Type: "int", Low: ptr(256), High: ptr(4096), Log: true},
		{Name: "level", Type: "int", Low: ptr(1), High: ptr(12)},
	}
	st, err := c.CreateStudy(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	// A configuration the program refuses comes first, so a failure is
	// certain whatever the algorithm suggests.
	if err := enqueue(ctx, srv.URL, "", st.ID, Config{"batch": 1024, "level": 12}); err != nil {
		t.Fatal(err)
	}
	runner := &Runner{Program: bin, Records: 20_000, LimitBytes: 1 << 30, LimitKind: "data", Timeout: time.Minute}
	var log strings.Builder
	tu := &Tuner{Client: c, Study: st.ID, Workers: 4, Evals: 8, Eval: runner.Run, Log: &log}
	res, err := tu.Run(ctx)
	t.Log("\n" + log.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 8 {
		t.Fatalf("%d evaluations, want 8", len(res.Records))
	}
	if res.Duplicates != 0 {
		t.Errorf("%d evaluations started while the same configuration ran", res.Duplicates)
	}
	// The same, from the records' intervals: no two overlapping evaluations
	// share a configuration.
	for i, a := range res.Records {
		for _, b := range res.Records[i+1:] {
			if a.Key == b.Key && a.Start.Before(b.End) && b.Start.Before(a.End) {
				t.Errorf("decisions %d and %d ran %s at the same time", a.Decision, b.Decision, a.Key)
			}
		}
	}
	if res.MaxRunning < 2 {
		t.Errorf("at most %d evaluation ran at once, want several", res.MaxRunning)
	}
	var crashed *Record
	for i, r := range res.Records {
		if r.Outcome.Failed && crashed == nil {
			crashed = &res.Records[i]
		}
		if !r.Outcome.Failed && (r.Told != "observed" || r.Outcome.Objective <= 0) {
			t.Errorf("decision %d: %+v told as %q", r.Decision, r.Outcome, r.Told)
		}
	}
	switch {
	case crashed == nil:
		t.Fatal("no evaluation failed; the enqueued level = 12 should have")
	case crashed.Decision != 1 || crashed.Key != "batch=1024 level=12" || !strings.Contains(crashed.Outcome.Reason, "level = 12: must be in [-1, 9]"):
		t.Errorf("first failed decision %d: %s, reason %q: want decision 1, the enqueued batch=1024 level=12, refused by the program",
			crashed.Decision, crashed.Key, crashed.Outcome.Reason)
	case crashed.Told != "failed":
		t.Errorf("failed decision %d told as %q (server's answer: %s), want failed", crashed.Decision, crashed.Told, res.FailedRefusal)
	}
	sum, err := c.Summary(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pending != 0 || sum.Abandoned != 0 {
		t.Errorf("%d decisions pending, %d abandoned after the run, want none", sum.Pending, sum.Abandoned)
	}
	if sum.Failed != res.FailedTold || sum.Failed < 1 {
		t.Errorf("the server counts %d failed evaluations, the tuner told %d", sum.Failed, res.FailedTold)
	}
	decs, err := c.AllDecisions(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := decs[crashed.Decision-1]; !d.Failed || d.Reason != crashed.Outcome.Reason {
		t.Errorf("the server's record of decision %d: failed %v, reason %q; want failed, %q", d.DecisionID, d.Failed, d.Reason, crashed.Outcome.Reason)
	}
	if sum.Best == nil {
		t.Fatal("no best configuration")
	}
	if lv := sum.Best.Params["level"].(float64); lv > 9 {
		t.Errorf("best configuration has level %v, which the program refuses", lv)
	}
}

// failureReason says OOM for the Go runtime's messages and keeps the last
// line of stderr otherwise.
func TestFailureReason(t *testing.T) {
	err := exec.Command("false").Run()
	for _, c := range []struct{ stderr, want string }{
		{"fatal error: runtime: out of memory\n\ngoroutine 1 …", "OOM"},
		{"runtime: cannot allocate memory", "OOM"},
		{"workload: level = 12: must be in [-1, 9]\n", "exit status 1: workload: level = 12: must be in [-1, 9]"},
		{"", "exit status 1"},
		{"unexpected fault address 0x7f3a\nfatal error: fault\n[signal SIGSEGV: segmentation violation]\n\ngoroutine 7 …\nrip    0x46e1a3\ngs     0x0\n",
			"exit status 1: unexpected fault address 0x7f3a"},
		{"panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n", "exit status 1: panic: runtime error: index out of range"},
	} {
		if got := failureReason(err, c.stderr); got != c.want {
			t.Errorf("failureReason(%q) = %q, want %q", c.stderr, got, c.want)
		}
	}
	if got := failureReason(err, strings.Repeat("é", 300)); len(got) > 200 {
		t.Errorf("reason of %d bytes, want at most 200", len(got))
	}
}

// enqueue puts a configuration first in line: the next ask answers it
// (POST /studies/{id}/enqueue; Optuna's enqueue_trial).
func enqueue(ctx context.Context, base, token, id string, c Config) error {
	body, _ := json.Marshal(map[string]any{"params": c})
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/studies/"+url.PathEscape(id)+"/enqueue", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// Against a server that refuses failed observations (one from before they
// existed), a crash is abandoned instead, and the refusal is kept.
func TestTellFallsBackToAbandon(t *testing.T) {
	svc := service.New(store.NewMemory(), service.Options{})
	refusing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/observations") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var o api.Observation
			if json.Unmarshal(body, &o) == nil && o.Failed {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":{"status":400,"code":"invalid_argument","field":"reward","message":"an observation carries a reward, costs, or both"}}`))
				return
			}
		}
		svc.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(refusing)
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL)
	spec := study("fallback", 1e6, 1, 6, "")
	spec.Parameters = []api.Parameter{{Name: "batch", Type: "int", Low: ptr(256), High: ptr(4096), Log: true}}
	st, err := c.CreateStudy(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	// Configurations with batch above 2048 crash: a program's behaviour, no
	// child needed to test how the result is told.
	eval := func(_ context.Context, cf Config) Outcome {
		if cf["batch"].(float64) > 2048 {
			return Outcome{Failed: true, Reason: "OOM"}
		}
		return Outcome{Objective: cf["batch"].(float64), Costs: []float64{1}}
	}
	if err := enqueue(ctx, srv.URL, "", st.ID, Config{"batch": 4096}); err != nil {
		t.Fatal(err)
	}
	tu := &Tuner{Client: c, Study: st.ID, Workers: 2, Evals: 6, Eval: eval, Log: io.Discard}
	res, err := tu.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Abandoned < 1 || res.FailedTold != 0 || !strings.Contains(res.FailedRefusal, "400") {
		t.Errorf("abandoned %d, told as failed %d, refusal %q; want the crash abandoned after a 400", res.Abandoned, res.FailedTold, res.FailedRefusal)
	}
	for _, r := range res.Records {
		if want := map[bool]string{true: "abandoned", false: "observed"}[r.Outcome.Failed]; r.Told != want {
			t.Errorf("decision %d (%s): told as %q, want %q", r.Decision, r.Key, r.Told, want)
		}
	}
	sum, err := c.Summary(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Abandoned != res.Abandoned || sum.Pending != 0 || sum.Failed != 0 {
		t.Errorf("summary: abandoned %d, pending %d, failed %d; want %d, 0, 0", sum.Abandoned, sum.Pending, sum.Failed, res.Abandoned)
	}
}
