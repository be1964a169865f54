package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/ui"
	"github.com/cbandit/cbandit/store"
)

const token = "s3cret"

// env is a server with a token and one study that has run some rounds.
type env struct {
	t   *testing.T
	url string
	id  string
	n   int
}

func (e *env) call(method, path, body string, out any) int {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// rounds plays n rounds of a toy system: accuracy peaks at lr = 1e-2 and 4
// layers; latency grows with the layers.
func (e *env) rounds(n int) {
	e.t.Helper()
	for i := 0; i < n; i++ {
		var r struct {
			Suggestions []struct {
				DecisionID int64          `json:"decision_id"`
				Params     map[string]any `json:"params"`
			} `json:"suggestions"`
		}
		if code := e.call("POST", "/studies/"+e.id+"/suggestions", "", &r); code != 200 {
			e.t.Fatalf("ask: %d", code)
		}
		p := r.Suggestions[0].Params
		lr, layers := p["lr"].(float64), p["layers"].(float64)
		acc := math.Exp(-math.Pow(math.Log10(lr)+2, 2)/2) - 0.03*(layers-4)*(layers-4)
		if p["opt"] == "sgd" {
			acc -= 0.1
		}
		body := fmt.Sprintf(`{"decision_id":%d,"reward":%g,"costs":[%g]}`, r.Suggestions[0].DecisionID, acc, layers/8)
		if code := e.call("POST", "/studies/"+e.id+"/observations", body, nil); code != 200 {
			e.t.Fatalf("tell: %d", code)
		}
		e.n++
	}
}

// objectivePoints is what the objective chart should plot: every reward,
// and the best feasible value from the first feasible round on.
func (e *env) objectivePoints() string {
	e.t.Helper()
	var l struct {
		Decisions []struct {
			Costs []float64 `json:"costs"`
		} `json:"decisions"`
	}
	e.call("GET", "/studies/"+e.id+"/decisions?limit=1000", "", &l)
	for i, d := range l.Decisions {
		if d.Costs[0] <= 0.6 {
			return strconv.Itoa(len(l.Decisions) + len(l.Decisions) - i)
		}
	}
	return strconv.Itoa(len(l.Decisions))
}

func newEnv(t *testing.T) *env {
	srv := service.New(store.NewMemory(), service.Options{Token: token})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	e := &env{t: t, url: hs.URL}
	var st struct {
		ID string `json:"id"`
	}
	code := e.call("POST", "/studies", `{"name":"tuning-demo","parameters":[
		{"name":"lr","type":"float","low":1e-4,"high":1,"log":true},
		{"name":"layers","type":"int","low":1,"high":8},
		{"name":"opt","type":"categorical","choices":["adam","sgd"]}],
		"objective":{"name":"accuracy"},"constraints":[{"name":"latency","threshold":0.6,"kind":"cumulative"}],
		"algorithm":"ckb-ucb","seed":5,"horizon":200}`, &st)
	if code != 201 {
		t.Fatalf("create: %d", code)
	}
	e.id = st.ID
	return e
}

// TestAssetsAndToken checks what needs no browser: the assets are embedded
// and public, with a strict content security policy; the data is not.
func TestAssetsAndToken(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/ui/", "/ui/app.js", "/ui/app.css"} {
		resp, err := http.Get(e.url + p)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || b.Len() == 0 || resp.Header.Get("Content-Security-Policy") != ui.ContentSecurityPolicy {
			t.Fatalf("GET %s without a token: %d, %d bytes, CSP %q", p, resp.StatusCode, b.Len(), resp.Header.Get("Content-Security-Policy"))
		}
		if strings.Contains(b.String(), "http://") && p != "/ui/app.js" || strings.Contains(b.String(), "https://") {
			t.Errorf("%s refers to another origin: the dashboard must work offline", p)
		}
	}
	resp, err := http.Get(e.url + "/studies")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /studies without a token: %d, want 401", resp.StatusCode)
	}
	resp, err = http.Get(e.url + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/ui/" {
		t.Fatalf("/ui redirected to %s, want /ui/", resp.Request.URL.Path)
	}
}

// chromium finds a Chromium binary: $CBANDIT_CHROMIUM, or chromium,
// chromium-browser, google-chrome on the PATH.
func chromium() string {
	if p := os.Getenv("CBANDIT_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// artifacts is where screenshots go: $CBANDIT_ARTIFACTS, else the test's
// temporary directory.
func artifacts(t *testing.T) string {
	if d := os.Getenv("CBANDIT_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestDashboardInChromium drives headless Chromium as a person would: the
// page asks for the token, lists the study, and its study page shows the
// study's name and charts with its data, then refreshes as rounds arrive.
func TestDashboardInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		if os.Getenv("CBANDIT_REQUIRE_BROWSER") != "" {
			t.Fatal("CBANDIT_REQUIRE_BROWSER is set but no chromium was found (CBANDIT_CHROMIUM, chromium, chromium-browser, google-chrome)")
		}
		t.Skip("no chromium on this machine (apt-get install chromium, or set CBANDIT_CHROMIUM): the dashboard's browser test is skipped")
	}
	e := newEnv(t)
	e.rounds(30)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 1500),
		chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	run := func(acts ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		for i, a := range acts {
			if err := chromedp.Do(ctx, a); err != nil {
				t.Fatalf("chromium: step %d: %v", i, err)
			}
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("chromium: evaluating %s: %v", js, err)
		}
		return v
	}
	// No token yet: the page asks for one.
	run(chromedp.Navigate(e.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	if v := eval(`String(!document.getElementById("login").hidden)`); v != "true" {
		t.Error("without a token the page did not show its login field")
	}
	run(chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#login button")),
		chromedp.WaitVisible(chromedp.CSS("#studies a")))
	listed := eval(`document.querySelector("#studies a").textContent`)
	run(chromedp.Click(chromedp.CSS("#studies a")), chromedp.WaitVisible(chromedp.CSS("#chart-objective circle")))
	name := eval(`document.getElementById("study-name").textContent`)
	if listed != "tuning-demo" || name != "tuning-demo" {
		t.Fatalf("studies list shows %q, study page shows %q: want the study's name tuning-demo", listed, name)
	}
	points := func() string { return eval(`document.getElementById("chart-objective").getAttribute("data-points")`) }
	if p, want := points(), e.objectivePoints(); p != want || e.n != 30 {
		t.Fatalf("objective chart has %s points, want %s (30 rewards and the best feasible value so far per round)", p, want)
	}
	if c := eval(`String(document.querySelectorAll("svg.chart circle").length)`); c != strconv.Itoa(2*e.n) { // objective and latency dots
		t.Fatalf("%s dots in the charts, want %d", c, 2*e.n)
	}
	thresholds := eval(`String(document.querySelectorAll("#chart-constraint-0 line.threshold").length)`)
	rows := eval(`String(document.querySelectorAll("#decisions tbody tr").length)`)
	lines := eval(`String(document.querySelectorAll("#chart-violation path.line, #chart-objective path.line").length)`)
	if thresholds != "1" || rows != strconv.Itoa(e.n) || lines != "2" {
		t.Fatalf("threshold lines %s (want 1), table rows %s (want %d), best-so-far and violation lines %s (want 2)", thresholds, rows, e.n, lines)
	}

	// The study runs on: the page picks the new rounds up by itself.
	e.rounds(5)
	want := e.objectivePoints()
	got := points()
	for deadline := time.Now().Add(20 * time.Second); got != want && time.Now().Before(deadline); got = points() {
		time.Sleep(500 * time.Millisecond)
	}
	if got != want {
		t.Fatalf("after 5 more rounds the chart has %s points, want %s: the page did not refresh", got, want)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifacts(t), "dashboard-study.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))
	if len(shot) < 10_000 {
		t.Fatalf("screenshot of %d bytes: a blank page?", len(shot))
	}
}
