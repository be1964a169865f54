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
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/ui"
	"github.com/cbandit/cbandit/store"
)

const token = "s3cret"

// env is a server with a token and two studies: "throughput-demo", tuned
// with config under a per-round latency limit and a cumulative error-rate
// and temperature budget, whose told values include 1029.58, 999.96,
// 1199.7, 0.00123 and −48.5; "long-term-demo", ckb-ucb under a
// long-term limit; and "plain-demo", a box without constraints.
type env struct {
	t       *testing.T
	url     string
	id      string // throughput-demo
	ltID    string // long-term-demo
	plainID string // plain-demo: a box, no constraint, a failed and a pending decision
	n       int
	pages   *pager
}

func (e *env) call(method, path, body string, out any) int {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
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

// special are the values told at given rounds of throughput-demo (metric
// index 0: throughput, 1: latency_ms, 2: error_rate, 3: temp_margin), the
// numbers the dashboard once showed wrong; the others come from system.
var special = map[int]map[int]float64{
	3: {0: 1029.58},
	4: {2: 0.00123},
	5: {0: 999.96},
	6: {3: -48.5},
	7: {0: 1199.7, 1: 20, 2: 0.0011, 3: -30},
}

// system is a made-up server: throughput peaks at batch 16 and grows with
// threads; latency grows with batch × threads; the error rate and the
// temperature with threads. It stays below 1199.7.
func system(p map[string]any) [4]float64 {
	batch, threads := p["batch"].(float64), p["threads"].(float64)
	tp := 400 + 650*math.Exp(-math.Pow(math.Log2(batch)-4, 2)/8)*math.Pow(threads/16, 0.3)
	if p["compression"] == "zstd" {
		tp *= 0.9
	}
	return [4]float64{tp, 5 + batch*threads/12, 0.001 + 0.0001*threads, 4*threads - 40}
}

// rounds plays n rounds of throughput-demo.
func (e *env) rounds(n int) {
	e.t.Helper()
	for i := 0; i < n; i++ {
		var r struct {
			Suggestions []struct {
				DecisionID int64          `json:"decision_id"`
				Round      int            `json:"round"`
				Params     map[string]any `json:"params"`
			} `json:"suggestions"`
		}
		if code := e.call("POST", "/studies/"+e.id+"/suggestions", "", &r); code != 200 {
			e.t.Fatalf("ask: %d", code)
		}
		s := r.Suggestions[0]
		v := system(s.Params)
		for k, x := range special[s.Round] {
			v[k] = x
		}
		body := fmt.Sprintf(`{"decision_id":%d,"reward":%v,"costs":[%v,%v,%v]}`, s.DecisionID, v[0], v[1], v[2], v[3])
		if code := e.call("POST", "/studies/"+e.id+"/observations", body, nil); code != 200 {
			e.t.Fatalf("tell: %d", code)
		}
		e.n++
	}
}

type decision struct {
	DecisionID int64          `json:"decision_id"`
	Round      int            `json:"round"`
	Params     map[string]any `json:"params"`
	Reward     *float64       `json:"reward"`
	Costs      []float64      `json:"costs"`
	Failed     bool           `json:"failed"`
	Reason     string         `json:"reason"`
}

func (e *env) decisions(id string) []decision {
	e.t.Helper()
	var l struct {
		Decisions []decision `json:"decisions"`
	}
	e.call("GET", "/studies/"+id+"/decisions?limit=1000", "", &l)
	return l.Decisions
}

type summary struct {
	Failed int `json:"failed"`
	// Recommendation is the model's choice (absent until one reaches
	// P(every limit holds) ≥ 0.95).
	Recommendation *struct {
		DecisionID int64 `json:"decision_id"`
		Objective  struct {
			Mean float64 `json:"mean"`
		} `json:"objective"`
	} `json:"recommendation"`
	Best *struct {
		DecisionID int64   `json:"decision_id"`
		Reward     float64 `json:"reward"`
	} `json:"best"`
	Constraints []struct {
		Name           string  `json:"name"`
		Kind           string  `json:"kind"`
		Threshold      float64 `json:"threshold"`
		ViolationHard  float64 `json:"violation_hard"`
		ViolationSoft  float64 `json:"violation_soft"`
		ViolationCount int     `json:"violation_count"`
		Violation      float64 `json:"violation"`
	} `json:"constraints"`
}

func (e *env) summary(id string) summary {
	e.t.Helper()
	var s summary
	e.call("GET", "/studies/"+id+"/summary", "", &s)
	return s
}

// objectivePoints is what the objective chart should plot: every reward,
// and the best feasible value from the first feasible round on.
func (e *env) objectivePoints(thresholds []float64) string {
	e.t.Helper()
	decs := e.decisions(e.id)
	for i, d := range decs {
		if feasible(d, thresholds) {
			return strconv.Itoa(len(decs) + len(decs) - i)
		}
	}
	return strconv.Itoa(len(decs))
}

func feasible(d decision, thresholds []float64) bool {
	for j, c := range d.Costs {
		if c > thresholds[j] {
			return false
		}
	}
	return len(d.Costs) == len(thresholds)
}

// pager stands in front of the server and, when asked to, answers GET
// /studies a page of one study at a time, the way a paginated list may:
// mode 1 with a cursor ("next": "c<k>", sent back as ?after=), mode 2 as a
// bare array with a Link header (rel="next", ?page=k). Mode 0 passes
// through (today's answer).
type pager struct {
	next  http.Handler
	mode  atomic.Int32
	pages atomic.Int32 // paginated answers served
}

func (p *pager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mode := p.mode.Load()
	if mode == 0 || r.Method != "GET" || r.URL.Path != "/studies" || r.URL.Query().Has("name") {
		p.next.ServeHTTP(w, r)
		return
	}
	k := 0
	if c := r.URL.Query().Get("after"); c != "" {
		k, _ = strconv.Atoi(strings.TrimPrefix(c, "c"))
	}
	if c := r.URL.Query().Get("page"); c != "" {
		k, _ = strconv.Atoi(c)
	}
	rec := httptest.NewRecorder()
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = ""
	p.next.ServeHTTP(rec, r2)
	var all struct {
		Studies []json.RawMessage `json:"studies"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &all) != nil {
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	p.pages.Add(1)
	page := all.Studies[min(k, len(all.Studies)):min(k+1, len(all.Studies))]
	w.Header().Set("Content-Type", "application/json")
	more := k+1 < len(all.Studies)
	if mode == 1 {
		out := map[string]any{"studies": page}
		if more {
			out["next"] = "c" + strconv.Itoa(k+1)
		}
		json.NewEncoder(w).Encode(out)
		return
	}
	if more {
		w.Header().Set("Link", fmt.Sprintf(`</studies?page=%d>; rel="next"`, k+1))
	}
	json.NewEncoder(w).Encode(page)
}

// crashStudy creates "crash-demo": a typed study whose evaluations crash
// (OOM) at batch ≥ 24, and whose loss does not depend on noise_knob. It
// plays n Halton configurations, each enqueued and then asked, and returns
// the study's ID.
func (e *env) crashStudy(n int) string {
	e.t.Helper()
	var st struct {
		ID string `json:"id"`
	}
	if code := e.call("POST", "/studies", `{"name":"crash-demo","parameters":[
		{"name":"batch","type":"int","low":1,"high":64,"log":true},
		{"name":"lr","type":"float","low":0.0001,"high":1,"log":true},
		{"name":"opt","type":"categorical","choices":["sgd","adam"]},
		{"name":"noise_knob","type":"float","low":0,"high":1}],
		"objective":{"name":"loss","goal":"minimize"},"seed":3,"horizon":100}`, &st); code != 201 {
		e.t.Fatalf("create crash-demo: %d", code)
	}
	for _, u := range domain.Halton(n, 4) {
		p := map[string]any{"batch": math.Round(math.Pow(2, 6*u[0])), "lr": math.Pow(10, -4+4*u[1]),
			"opt": []string{"sgd", "adam"}[int(u[2]*2)], "noise_knob": u[3]}
		body, _ := json.Marshal(map[string]any{"params": p})
		if code := e.call("POST", "/studies/"+st.ID+"/enqueue", string(body), nil); code != 201 {
			e.t.Fatalf("enqueue %v: %d", p, code)
		}
		var r struct {
			Suggestions []struct {
				DecisionID int64          `json:"decision_id"`
				Params     map[string]any `json:"params"`
			} `json:"suggestions"`
		}
		if code := e.call("POST", "/studies/"+st.ID+"/suggestions", "", &r); code != 200 {
			e.t.Fatalf("ask crash-demo: %d", code)
		}
		s := r.Suggestions[0]
		batch, lr := s.Params["batch"].(float64), s.Params["lr"].(float64)
		obs := fmt.Sprintf(`{"decision_id":%d,"failed":true,"reason":"OOM at batch %v"}`, s.DecisionID, batch)
		if batch < 24 {
			loss := math.Pow(math.Log10(lr)+2.5, 2) + 0.3*math.Abs(math.Log2(batch)-3)
			if s.Params["opt"] == "sgd" {
				loss += 0.8
			}
			obs = fmt.Sprintf(`{"decision_id":%d,"reward":%v}`, s.DecisionID, loss)
		}
		if code := e.call("POST", "/studies/"+st.ID+"/observations", obs, nil); code != 200 {
			e.t.Fatalf("tell crash-demo: %d", code)
		}
	}
	return st.ID
}

func newEnv(t *testing.T) *env {
	srv := service.New(store.NewMemory(), service.Options{Token: token})
	pg := &pager{next: srv}
	hs := httptest.NewServer(pg)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	e := &env{t: t, url: hs.URL, pages: pg}
	var st struct {
		ID string `json:"id"`
	}
	code := e.call("POST", "/studies", `{"name":"throughput-demo","parameters":[
		{"name":"batch","type":"int","low":1,"high":64,"log":true},
		{"name":"threads","type":"int","low":1,"high":16},
		{"name":"compression","type":"categorical","choices":["none","lz4","zstd"]}],
		"objective":{"name":"throughput","goal":"maximize"},
		"constraints":[{"name":"latency_ms","threshold":50,"kind":"stage-wise"},
			{"name":"error_rate","threshold":0.002,"kind":"cumulative"},
			{"name":"temp_margin","threshold":0,"kind":"cumulative"}],
		"algorithm":"config","seed":5,"horizon":200}`, &st)
	if code != 201 {
		t.Fatalf("create throughput-demo: %d", code)
	}
	e.id = st.ID
	code = e.call("POST", "/studies", `{"name":"long-term-demo","space":{"type":"box","lo":[0],"hi":[1],"candidates":21},
		"objective":{"name":"yield"},"constraints":[{"name":"power","threshold":0.5,"kind":"long-term"}],
		"algorithm":"ckb-ucb","seed":2,"horizon":50}`, &st)
	if code != 201 {
		t.Fatalf("create long-term-demo: %d", code)
	}
	e.ltID = st.ID
	code = e.call("POST", "/studies", `{"name":"plain-demo","space":{"type":"box","lo":[0,-5],"hi":[1,5]},
		"objective":{"name":"loss","goal":"minimize"},"constraints":[],"algorithm":"igp-ucb","seed":4,"horizon":20}`, &st)
	if code != 201 {
		t.Fatalf("create plain-demo: %d", code)
	}
	e.plainID = st.ID
	for i := 0; i < 4; i++ { // two observed, one failed, one pending
		var r struct {
			Suggestions []struct {
				DecisionID int64     `json:"decision_id"`
				X          []float64 `json:"x"`
			} `json:"suggestions"`
		}
		e.call("POST", "/studies/"+e.plainID+"/suggestions", "", &r)
		if s := r.Suggestions[0]; i < 2 {
			e.call("POST", "/studies/"+e.plainID+"/observations", fmt.Sprintf(`{"decision_id":%d,"reward":%v}`, s.DecisionID, s.X[0]*s.X[1]), nil)
		} else if i == 2 {
			e.call("POST", "/studies/"+e.plainID+"/observations", fmt.Sprintf(`{"decision_id":%d,"failed":true,"reason":"OOM"}`, s.DecisionID), nil)
		}
	}
	for i := 0; i < 8; i++ {
		var r struct {
			Suggestions []struct {
				DecisionID int64     `json:"decision_id"`
				X          []float64 `json:"x"`
			} `json:"suggestions"`
		}
		e.call("POST", "/studies/"+e.ltID+"/suggestions", "", &r)
		s := r.Suggestions[0]
		e.call("POST", "/studies/"+e.ltID+"/observations",
			fmt.Sprintf(`{"decision_id":%d,"reward":%v,"costs":[%v]}`, s.DecisionID, s.X[0], 0.2+s.X[0]), nil)
	}
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

// pageJS are helpers the test evaluates in the page. readY reads a value
// off a chart the way a person does: the position of a mark against the
// tick labels (their text, parsed, and where they stand).
const pageJS = `
if (!window.cbtErrors) {
  window.cbtErrors = [];
  window.addEventListener("error", (ev) => cbtErrors.push(String(ev.message)));
  window.addEventListener("unhandledrejection", (ev) => cbtErrors.push(String(ev.reason)));
}
window.cbt = {
  num(s) { return parseFloat(String(s).replace(/\u2212/g, "-")); },
  ticks(svg) {
    return [...svg.querySelectorAll("text.ytick")].map((t) => [cbt.num(t.textContent), parseFloat(t.getAttribute("y")) - 4]);
  },
  readY(svg, py) {
    const tk = cbt.ticks(svg), a = tk[0], b = tk[tk.length - 1];
    return a[0] + (py - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
  },
  dot(chartID, did) {
    const svg = document.getElementById(chartID);
    const c = svg && svg.querySelector('circle[data-id="' + did + '"]');
    return c ? cbt.readY(svg, parseFloat(c.getAttribute("cy"))) : NaN;
  },
  lineEnd(chartID, cls) {
    const svg = document.getElementById(chartID);
    const p = svg && svg.querySelector("path." + cls);
    if (!p) return NaN;
    const m = /([-\d.]+),([-\d.]+)$/.exec(p.getAttribute("d"));
    return cbt.readY(svg, parseFloat(m[2]));
  },
  cell(did, col) {
    const head = [...document.querySelectorAll("#decisions thead th")].map((th) => th.textContent);
    const row = document.querySelector('#decisions tbody tr[data-id="' + did + '"]');
    return row ? row.children[head.indexOf(col)].textContent : "";
  },
  // problems lists what is wrong with the charts' looks: ticks that are not
  // round, a title that runs into the legend, legend entries that overlap
  // or leave the chart, swatches of one colour for different series.
  problems() {
    const out = [];
    const hit = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    for (const svg of document.querySelectorAll("svg.chart")) {
      const id = svg.id;
      const vals = cbt.ticks(svg).map((t) => t[0]);
      if (vals.length >= 2) {
        const step = vals[1] - vals[0];
        const mant = step / Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
        if (![1, 2, 5].some((m) => Math.abs(mant - m) < 1e-6)) out.push(id + ": tick step " + step + " is not 1, 2 or 5 × 10^k");
        vals.forEach((v) => { if (Math.abs(v / step - Math.round(v / step)) > 1e-6) out.push(id + ": tick " + v + " is not a multiple of " + step); });
      }
      const title = svg.querySelector("text.title").getBBox();
      const items = [...svg.querySelectorAll(".legend-item")].map((g) => g.getBBox());
      items.forEach((b, i) => {
        if (hit(title, b)) out.push(id + ": the title runs into legend entry " + i);
        if (b.x + b.width > svg.width.baseVal.value) out.push(id + ": legend entry " + i + " leaves the chart");
        items.slice(0, i).forEach((c, k) => { if (hit(b, c)) out.push(id + ": legend entries " + k + " and " + i + " overlap"); });
      });
      if (title.x + title.width > svg.width.baseVal.value) out.push(id + ": the title leaves the chart");
      const sw = [...svg.querySelectorAll(".legend-item .swatch")].map((s) => s.tagName === "line" ? getComputedStyle(s).stroke : s.tagName === "rect" ? getComputedStyle(s).fill : getComputedStyle(s).stroke);
      if (sw.length > 1 && new Set(sw).size < sw.length) out.push(id + ": legend swatches share a colour: " + sw.join(" "));
    }
    for (const err of window.cbtErrors || []) out.push("script error: " + err);
    const text = document.getElementById("main").textContent;
    for (const bad of ["NaN", "undefined", "Infinity"]) if (text.includes(bad)) out.push("the page shows " + bad);
    return out;
  },
};
"ok"`

// TestDashboardInChromium drives headless Chromium as a person would: the
// page asks for the token, lists the studies (also when the list comes in
// pages), and the study page shows every number as the API holds it, on
// charts with round ticks, coloured legends, infeasible rounds marked and
// each violation figure named; the parameters view shows slices and
// parallel coordinates; on a crash-prone study every failed evaluation the
// API lists is an × on the per-round chart (at its round) and on every slice
// and the parallel coordinates (at its parameter values), and the
// importance bars show the API's ranking, the ignored parameter last; the
// page refreshes as rounds arrive. Screenshots of the study page, the
// parameters view and the crash-prone study go to $CBANDIT_ARTIFACTS.
func TestDashboardInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		if os.Getenv("CBANDIT_REQUIRE_BROWSER") != "" {
			t.Fatal("CBANDIT_REQUIRE_BROWSER is set but no chromium was found (CBANDIT_CHROMIUM, chromium, chromium-browser, google-chrome)")
		}
		t.Skip("no chromium on this machine (apt-get install chromium, or set CBANDIT_CHROMIUM): the dashboard's browser test is skipped")
	}
	start := time.Now()
	e := newEnv(t)
	e.rounds(30)
	thresholds := []float64{50, 0.002, 0}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 1500),
		chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
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
	evalNum := func(js string) float64 {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](js))
		if err != nil {
			t.Fatalf("chromium: evaluating %s: %v", js, err)
		}
		return v
	}
	evalList := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		if err != nil {
			t.Fatalf("chromium: evaluating %s: %v", js, err)
		}
		return v
	}
	shoot := func(name string) string {
		t.Helper()
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifacts(t), name)
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(shot))
		if len(shot) < 10_000 {
			t.Fatalf("screenshot of %d bytes: a blank page?", len(shot))
		}
		return path
	}
	// open shows a page by its hash and waits until it is that study's page
	// in that view (a hash change keeps the old page until the new one is drawn).
	open := func(hash, name, ready string) {
		t.Helper()
		run(chromedp.Navigate(e.url + "/ui/" + hash))
		js := fmt.Sprintf(`String((document.getElementById("study-name") || {}).textContent === %q && !!document.querySelector(%q))`, name, ready)
		for deadline := time.Now().Add(10 * time.Second); eval(js) != "true"; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the page of %s (%s) did not appear", hash, name, ready)
			}
		}
	}
	within := func(what string, got, want, tol float64) {
		t.Helper()
		if math.IsNaN(got) || math.Abs(got-want) > tol {
			t.Errorf("%s: the page shows %v, the API holds %v (tolerance %.3g)", what, got, want, tol)
		}
	}

	// No token yet: the page asks for one.
	run(chromedp.Navigate(e.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	if v := eval(`String(!document.getElementById("login").hidden)`); v != "true" {
		t.Error("without a token the page did not show its login field")
	}
	run(chromedp.SendKeys(chromedp.CSS("#token"), token), chromedp.Click(chromedp.CSS("#login button")),
		chromedp.WaitVisible(chromedp.CSS("#studies a")))
	listed := func() string {
		return eval(`[...document.querySelectorAll("#studies tbody a")].map((a) => a.textContent).sort().join(",")`)
	}
	if l := listed(); l != "long-term-demo,plain-demo,throughput-demo" {
		t.Fatalf("the list shows %q, want the 3 studies", l)
	}
	// The same list when GET /studies answers in pages (one study a page, a
	// cursor in "next"): the dashboard shows one page at a time and a "next
	// page" button that follows the cursor.
	e.pages.mode.Store(1)
	run(chromedp.Navigate(e.url+"/ui/#/study/none"), chromedp.WaitVisible(chromedp.CSS("p.error")),
		chromedp.Navigate(e.url+"/ui/#/"), chromedp.WaitVisible(chromedp.CSS("#studies a")))
	var pages []string
	for page := 0; ; page++ {
		l := listed()
		if strings.Contains(l, ",") || l == "" {
			t.Fatalf("paginated list, page %d: shows %q, want one study", page+1, l)
		}
		pages = append(pages, l)
		if eval(`String(!!document.getElementById("next-page"))`) != "true" {
			break
		}
		if page > 5 {
			t.Fatalf("paginated list: more pages than studies (%v)", pages)
		}
		run(chromedp.Click(chromedp.CSS("#next-page")), chromedp.Poll[chromedp.Void](`document.querySelector("#studies tbody a") && document.querySelector("#studies tbody a").textContent !== `+strconv.Quote(l)))
	}
	if got := strings.Join(slices.Sorted(slices.Values(pages)), ","); got != "long-term-demo,plain-demo,throughput-demo" {
		t.Fatalf("paginated list: pages showed %q, want the 3 studies one page each", got)
	}
	e.pages.mode.Store(0)

	// The study page.
	open("#/study/"+e.id, "throughput-demo", "#chart-objective circle")
	eval(pageJS)
	if name := eval(`document.getElementById("study-name").textContent`); name != "throughput-demo" {
		t.Fatalf("study page shows %q, want throughput-demo", name)
	}
	if p, want := eval(`document.getElementById("chart-objective").getAttribute("data-points")`), e.objectivePoints(thresholds); p != want {
		t.Fatalf("objective chart has %s points, want %s (30 rewards and the best feasible value so far per round)", p, want)
	}

	// Every number as the API holds it: the five values in the table and
	// read off the charts, each within 1 %.
	decs := e.decisions(e.id)
	cols := []string{"throughput", "latency_ms", "error_rate", "temp_margin"}
	charts := []string{"chart-objective", "chart-constraint-0", "chart-constraint-1", "chart-constraint-2"}
	found := 0
	for _, d := range decs {
		for k, v := range special[d.Round] {
			api := *d.Reward
			if k > 0 {
				api = d.Costs[k-1]
			}
			if api != v {
				t.Fatalf("round %d: the API holds %v for %s, the test told %v", d.Round, api, cols[k], v)
			}
			cell := eval(fmt.Sprintf(`cbt.cell(%d, %q)`, d.DecisionID, cols[k]))
			got, err := strconv.ParseFloat(strings.ReplaceAll(cell, "−", "-"), 64)
			if err != nil {
				t.Errorf("decision %d, %s: table cell %q is not a number", d.DecisionID, cols[k], cell)
			}
			within(fmt.Sprintf("decision %d, %s, table", d.DecisionID, cols[k]), got, v, 0.01*math.Abs(v))
			within(fmt.Sprintf("decision %d, %s, read off %s", d.DecisionID, cols[k], charts[k]),
				evalNum(fmt.Sprintf(`cbt.dot(%q, %d)`, charts[k], d.DecisionID)), v, 0.01*math.Abs(v))
			found++
		}
	}
	if found != 8 {
		t.Fatalf("checked %d special values, want 8", found)
	}
	// Every other reward and cost too, read off the charts within 1 % of
	// the axis (a reading by eye).
	for _, d := range decs {
		for k := range cols {
			v := *d.Reward
			if k > 0 {
				v = d.Costs[k-1]
			}
			span := evalNum(fmt.Sprintf(`(() => { const t = cbt.ticks(document.getElementById(%q)); return t[t.length - 1][0] - t[0][0]; })()`, charts[k]))
			within(fmt.Sprintf("decision %d, %s, read off %s", d.DecisionID, cols[k], charts[k]),
				evalNum(fmt.Sprintf(`cbt.dot(%q, %d)`, charts[k], d.DecisionID)), v, 0.01*span)
		}
	}
	sum := e.summary(e.id)
	if sum.Best == nil || sum.Best.Reward != 1199.7 {
		t.Fatalf("summary's best: %+v, want 1199.7 (round 7)", sum.Best)
	}
	within("best feasible card", evalNum(`cbt.num(document.querySelector("#facts .fact.best b").textContent)`), sum.Best.Reward, 0.01*sum.Best.Reward)
	// The study's 30 evaluations give the model a recommendation; its card
	// shows the API's decision and posterior mean.
	if sum.Recommendation == nil {
		t.Fatal("the summary has no recommendation after 30 evaluations of config")
	}
	if card := eval(`String(!!document.getElementById("recommendation"))`); card != "true" {
		t.Errorf("no recommendation card, while the API's summary has one")
	} else if r := sum.Recommendation; r != nil {
		if got := eval(`document.getElementById("recommendation").getAttribute("data-decision")`); got != fmt.Sprint(r.DecisionID) {
			t.Errorf("recommendation card: decision %s, API %d", got, r.DecisionID)
		}
		within("recommendation card", evalNum(`cbt.num(document.querySelector("#recommendation b").textContent)`), r.Objective.Mean, 0.01*math.Abs(r.Objective.Mean)+1e-9)
	}

	// Infeasible rounds are marked on the objective chart.
	infeasible := 0
	for _, d := range decs {
		if !feasible(d, thresholds) {
			infeasible++
		}
	}
	if got := eval(`String(document.querySelectorAll("#chart-objective g.infeasible circle").length)`); infeasible == 0 || got != strconv.Itoa(infeasible) {
		t.Errorf("objective chart marks %s rounds infeasible, the API's decisions have %d", got, infeasible)
	}

	// Each violation figure named as its kind's, equal to the API's; the
	// violation charts end on the API's two sums.
	names := map[string]string{"stage-wise": "violating rounds", "cumulative": "cumulative violation Σ [g]⁺", "long-term": "long-term violation [Σ g]⁺"}
	for j, c := range sum.Constraints {
		card := fmt.Sprintf(`document.getElementById("violation-%d")`, j)
		label := eval(card + `.querySelector(".label").textContent`)
		if !strings.Contains(label, names[c.Kind]) || !strings.Contains(label, c.Kind) {
			t.Errorf("constraint %s (%s): card label %q does not name its figure %q", c.Name, c.Kind, label, names[c.Kind])
		}
		within(c.Name+" card", evalNum(`cbt.num(`+card+`.querySelector("b").textContent)`), c.Violation, 0.01*math.Abs(c.Violation)+1e-12)
		span := evalNum(fmt.Sprintf(`(() => { const t = cbt.ticks(document.getElementById("chart-violation-%d")); return t[t.length - 1][0] - t[0][0]; })()`, j))
		within(c.Name+" cumulative Σ[g]⁺ line", evalNum(fmt.Sprintf(`cbt.lineEnd("chart-violation-%d", "cumulative")`, j)), c.ViolationHard, 0.01*span)
		within(c.Name+" long-term [Σg]⁺ line", evalNum(fmt.Sprintf(`cbt.lineEnd("chart-violation-%d", "long-term")`, j)), c.ViolationSoft, 0.01*span)
	}
	if sum.Constraints[0].ViolationCount == 0 || sum.Constraints[2].ViolationHard == 0 {
		t.Errorf("the toy should break the latency and temperature limits sometimes: %+v", sum.Constraints)
	}
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("study page: " + p)
	}
	studyShot := shoot("dashboard-study.png")

	// The parameters view: each metric against each parameter, and
	// parallel coordinates, one line per observed decision.
	run(chromedp.Click(chromedp.CSS("#tab-parameters")))
	open("#/study/"+e.id+"/parameters", "throughput-demo", "#parallel polyline")
	eval(pageJS)
	if n := eval(`String(document.querySelectorAll("#slices svg.chart").length)`); n != "12" {
		t.Errorf("%s slice plots, want 12 (4 metrics × 3 parameters)", n)
	}
	if n := eval(`[...document.querySelectorAll("#slices svg.chart")].map((s) => s.getAttribute("data-points")).filter((p) => p !== "30").join(",")`); n != "" {
		t.Errorf("slice plots with other than 30 points: %s", n)
	}
	if n := eval(`String(document.querySelectorAll("#parallel polyline").length)`); n != "30" {
		t.Errorf("parallel coordinates: %s lines, want 30", n)
	}
	if n := eval(`String(document.querySelectorAll("#parallel polyline.best").length)`); n != "1" {
		t.Errorf("parallel coordinates: %s best lines, want 1", n)
	}
	// The slice of throughput against batch holds the API's values.
	for _, d := range decs[:10] {
		v := *d.Reward
		span := evalNum(`(() => { const t = cbt.ticks(document.getElementById("slice-0-0")); return t[t.length - 1][0] - t[0][0]; })()`)
		within(fmt.Sprintf("decision %d, throughput, read off the batch slice", d.DecisionID), evalNum(fmt.Sprintf(`cbt.dot("slice-0-0", %d)`, d.DecisionID)), v, 0.01*span)
	}
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("parameters view: " + p)
	}
	paramShot := shoot("dashboard-parameters.png")

	// A long-term constraint's card names [Σ g]⁺, as the API computes it.
	lt := e.summary(e.ltID)
	open("#/study/"+e.ltID, "long-term-demo", "#violation-0")
	eval(pageJS)
	if label := eval(`document.querySelector("#violation-0 .label").textContent`); !strings.Contains(label, names["long-term"]) {
		t.Errorf("long-term card: %q", label)
	}
	within("long-term card", evalNum(`cbt.num(document.querySelector("#violation-0 b").textContent)`), lt.Constraints[0].ViolationSoft, 0.01*lt.Constraints[0].ViolationSoft+1e-12)
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("long-term study page: " + p)
	}

	// A box without constraints, with a pending decision: both views draw
	// without a limit, a violation or a script error.
	open("#/study/"+e.plainID, "plain-demo", "#chart-objective circle")
	if n := eval(`String(document.querySelectorAll("#facts .violation, #chart-objective g.infeasible circle, svg .threshold").length)`); n != "0" {
		t.Errorf("plain-demo: %s violation cards, infeasible marks or limits, want none", n)
	}
	// The failed evaluation: counted with its reason, and its row says so.
	if got := eval(`document.querySelector("#facts .fact.failed b").textContent + " | " + document.querySelector("#facts .fact.failed .note").textContent + " | " + document.querySelector("#decisions tr.failed td:nth-last-child(2)").textContent`); got != "1 | OOM: 1 | failed: OOM" {
		t.Errorf("plain-demo: failed card and row read %q, want %q", got, "1 | OOM: 1 | failed: OOM")
	}
	if n := eval(`document.querySelectorAll("#chart-objective path.fail").length + " " + document.querySelector("#chart-objective path.fail title").textContent`); !strings.HasPrefix(n, "1 ") || !strings.Contains(n, "failed: OOM") {
		t.Errorf("plain-demo: the objective chart's failure marks read %q, want 1 with the reason OOM", n)
	}
	open("#/study/"+e.plainID+"/parameters", "plain-demo", "#parallel polyline")
	if n := eval(`document.querySelectorAll("#slices svg.chart").length + " " + document.querySelectorAll("#parallel polyline:not(.failed)").length + " " + document.querySelectorAll("#parallel polyline.failed").length`); n != "2 2 1" {
		t.Errorf("plain-demo: slices, lines and failed lines %q, want 2 slices (loss vs x1, x2), 2 lines (the observed decisions), 1 failed", n)
	}
	// Too few observations for the importance: the page says why.
	if n := eval(`document.getElementById("importance-note").textContent`); !strings.Contains(n, "too_few_observations") {
		t.Errorf("plain-demo: importance note %q, want the API's refusal (too few observations)", n)
	}
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("plain-demo: " + p)
	}

	// A crash-prone study: every failed evaluation is an × on the per-round
	// chart at its round, on each slice plot at its parameter value, and a
	// dashed line on the parallel coordinates, each with the reason on
	// hover; the same decisions the API lists as failed.
	crashID := e.crashStudy(40)
	crashSum := e.summary(crashID)
	var failedIDs []string
	var knob = map[string]float64{}
	for _, d := range e.decisions(crashID) {
		if d.Failed {
			failedIDs = append(failedIDs, strconv.FormatInt(d.DecisionID, 10))
			knob[strconv.FormatInt(d.DecisionID, 10)] = d.Params["noise_knob"].(float64)
		}
	}
	if crashSum.Failed < 5 || crashSum.Failed != len(failedIDs) {
		t.Fatalf("crash-demo: the summary counts %d failed, the decisions %d; want the same, at least 5", crashSum.Failed, len(failedIDs))
	}
	slices.Sort(failedIDs)
	marks := func(sel string) string {
		return eval(`[...document.querySelectorAll(` + strconv.Quote(sel) + `)].map((m) => m.getAttribute("data-id")).sort().join(",")`)
	}
	want := strings.Join(failedIDs, ",")
	open("#/study/"+crashID, "crash-demo", "#chart-objective path.fail")
	eval(pageJS)
	if got := marks("#chart-objective path.fail"); got != want {
		t.Errorf("crash-demo: the objective chart marks decisions %s failed, the API %s", got, want)
	}
	// Each × stands at its round, read against the round axis's ticks.
	if bad := eval(`(() => {
		const svg = document.getElementById("chart-objective");
		const tk = [...svg.querySelectorAll("text.xtick")].map((t) => [cbt.num(t.textContent), parseFloat(t.getAttribute("x"))]);
		const a = tk[0], b = tk[tk.length - 1];
		const rows = new Map([...document.querySelectorAll("#decisions tbody tr")].map((r) => [r.getAttribute("data-id"), cbt.num(r.children[1].textContent)]));
		return [...svg.querySelectorAll("path.fail")].filter((m) => {
			const x = parseFloat(/^M([-\d.]+)/.exec(m.getAttribute("d"))[1]) + 4;
			const round = a[0] + (x - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
			return Math.abs(round - rows.get(m.getAttribute("data-id"))) > 0.5 || !m.querySelector("title").textContent.includes("failed: OOM at batch");
		}).map((m) => m.getAttribute("data-id")).join(",");
	})()`); bad != "" {
		t.Errorf("crash-demo: failure marks off their round or without the reason: decisions %s", bad)
	}
	if legend := eval(`[...document.querySelectorAll("#chart-objective .legend-item text")].map((t) => t.textContent).join("|")`); !strings.Contains(legend, "failed (no value)") {
		t.Errorf("crash-demo: the objective chart's legend %q names no failure mark", legend)
	}
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("crash-demo: " + p)
	}
	shoot("dashboard-failures-rounds.png")
	run(chromedp.Click(chromedp.CSS("#tab-parameters")))
	open("#/study/"+crashID+"/parameters", "crash-demo", "#importance g.imp")
	eval(pageJS)
	if n := eval(`String(document.querySelectorAll("#slices svg.chart").length)`); n != "4" {
		t.Fatalf("crash-demo: %s slice plots, want 4", n)
	}
	for k := range 4 {
		if got := marks(fmt.Sprintf("#slice-0-%d path.fail", k)); got != want {
			t.Errorf("crash-demo: slice-0-%d marks decisions %s failed, the API %s", k, got, want)
		}
	}
	if got := marks("#parallel polyline.failed"); got != want {
		t.Errorf("crash-demo: parallel coordinates draw decisions %s as failed, the API %s", got, want)
	}
	// On the slice against noise_knob (a linear axis), each × stands at the
	// decision's value, read against the tick labels within 1 % of the axis.
	for id, v := range knob {
		got := evalNum(`(() => {
			const svg = document.getElementById("slice-0-3");
			const tk = [...svg.querySelectorAll("text.xtick")].map((t) => [cbt.num(t.textContent), parseFloat(t.getAttribute("x"))]);
			const a = tk[0], b = tk[tk.length - 1];
			const m = svg.querySelector('path.fail[data-id="` + id + `"]');
			const x = parseFloat(/^M([-\d.]+)/.exec(m.getAttribute("d"))[1]) + 4;
			return a[0] + (x - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
		})()`)
		within("crash-demo: decision "+id+"'s noise_knob read off its failure mark", got, v, 0.01)
	}
	// The importance bars: the API's parameters in its order, each bar's
	// label its importance; noise_knob, which the loss ignores, last.
	var imp struct {
		Method     string `json:"method"`
		Parameters []struct {
			Parameter  string  `json:"parameter"`
			Importance float64 `json:"importance"`
		} `json:"parameters"`
	}
	if code := e.call("GET", "/studies/"+crashID+"/importance", "", &imp); code != 200 || len(imp.Parameters) != 4 {
		t.Fatalf("crash-demo importance: %d, %+v", code, imp)
	}
	bars := evalList(`[...document.querySelectorAll("#importance g.imp")].map((g) => g.getAttribute("data-parameter") + "=" + g.querySelector("text.imp-value").textContent + "=" + g.querySelector("rect.bar").getAttribute("width"))`)
	if len(bars) != 4 {
		t.Fatalf("crash-demo: %d importance bars, want 4: %v", len(bars), bars)
	}
	widest := 0.0
	for i, b := range bars {
		f := strings.Split(b, "=")
		w, _ := strconv.ParseFloat(f[2], 64)
		widest = max(widest, w)
		if f[0] != imp.Parameters[i].Parameter {
			t.Errorf("crash-demo: importance bar %d is %s, the API ranks %s there", i, f[0], imp.Parameters[i].Parameter)
		}
		got, _ := strconv.ParseFloat(f[1], 64)
		within("crash-demo: importance of "+f[0], got, imp.Parameters[i].Importance, 0.0006)
	}
	if last := strings.Split(bars[3], "=")[0]; last != "noise_knob" {
		t.Errorf("crash-demo: the last importance bar is %s, want noise_knob (the loss ignores it): %v", last, bars)
	}
	if first := strings.Split(bars[0], "="); widest != mustFloat(first[2]) {
		t.Errorf("crash-demo: the first bar (%v) is not the widest (%v)", first[2], widest)
	}
	for _, p := range evalList(`cbt.problems()`) {
		t.Error("crash-demo parameters view: " + p)
	}
	shoot("dashboard-failures.png")

	// The study runs on: the page picks the new rounds up by itself.
	open("#/study/"+e.id, "throughput-demo", "#chart-objective circle")
	e.rounds(5)
	points := func() string { return eval(`document.getElementById("chart-objective").getAttribute("data-points")`) }
	want = e.objectivePoints(thresholds)
	got := points()
	for deadline := time.Now().Add(15 * time.Second); got != want && time.Now().Before(deadline); got = points() {
		time.Sleep(300 * time.Millisecond)
	}
	if got != want {
		t.Fatalf("after 5 more rounds the chart has %s points, want %s: the page did not refresh", got, want)
	}
	if rows := eval(`String(document.querySelectorAll("#decisions tbody tr").length)`); rows != "35" {
		t.Errorf("table rows %s, want 35", rows)
	}
	t.Logf("screenshots: %s, %s; %.1f s", studyShot, paramShot, time.Since(start).Seconds())
}

func mustFloat(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return v
}
