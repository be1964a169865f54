package service

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// rssBytes reads a process's resident set size from /proc.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// rawRequest sends one HTTP/1.1 request on a new connection and returns
// the status code.
func rawRequest(addr, method, path, host string, hdr ...string) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, path, host)
	for i := 0; i+1 < len(hdr); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", hdr[i], hdr[i+1])
	}
	b.WriteString("Content-Length: 0\r\n\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestMadeUpMethods: 1,500 requests with made-up methods of
// 40 KB each and no token, to a real `cbandit serve` with a token (401
// answers) and to one without (the default: 404 answers). The request
// metric keeps a bounded label set: RSS grows less than 10 MB and /metrics
// stays under 100 KB. The token comes from $CBANDIT_TOKEN.
func TestMadeUpMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real server")
	}
	bin := cbanditBinary(t)
	for _, token := range []string{"s3cret", ""} {
		args := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "methods.db")}
		// The token from the environment: it does not show in ps.
		t.Setenv("CBANDIT_TOKEN", token)
		p := startServe(t, bin, args...)
		addr := strings.TrimPrefix(p.url, "http://")
		rng := rand.New(rand.NewPCG(1, 2))
		letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		method := func() string {
			b := make([]byte, 40<<10)
			for i := range b {
				b[i] = letters[rng.IntN(len(letters))]
			}
			return string(b)
		}
		// Warm up (first allocations of the server), then measure.
		for i := 0; i < 20; i++ {
			rawRequest(addr, method(), "/studies", addr)
		}
		before := rssBytes(t, p.cmd.Process.Pid)
		codes := map[int]int{}
		for i := 0; i < 1500; i++ {
			code, err := rawRequest(addr, method(), "/studies", addr)
			if err != nil {
				t.Fatal(err)
			}
			codes[code]++
		}
		after := rssBytes(t, p.cmd.Process.Pid)
		resp, err := http.Get(p.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if token != "" {
			if resp.StatusCode != 401 {
				t.Fatalf("/metrics without the token of $CBANDIT_TOKEN: %d", resp.StatusCode)
			}
			req, _ := http.NewRequest("GET", p.url+"/metrics", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			m, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		grow := after - before
		t.Logf("token %q: answers %v; RSS %.1f → %.1f MB (%+.1f MB); /metrics %d bytes", token, codes, float64(before)/1e6, float64(after)/1e6, float64(grow)/1e6, len(m))
		if grow >= 10<<20 {
			t.Errorf("RSS grew %.1f MB, want < 10 MB", float64(grow)/1e6)
		}
		if len(m) >= 100<<10 {
			t.Errorf("/metrics is %d bytes, want < 100 KB", len(m))
		}
		if !bytes.Contains(m, []byte(`method="other"`)) {
			t.Errorf("/metrics does not count the made-up methods as \"other\"")
		}
		p.kill9(t)
	}
}

// TestMetricLabels: made-up methods and codes out of range are "other".
func TestMetricLabels(t *testing.T) {
	m := newMetrics()
	for i := 0; i < 100; i++ {
		m.request("other", fmt.Sprintf("M%d", i), 404, 0.001)
	}
	m.request("GET /studies", "GET", 0, 0.001)
	m.request("GET /studies", "GET", 1000, 0.001)
	if len(m.requests) != 2 {
		t.Fatalf("%d label sets: %v", len(m.requests), m.requests)
	}
	var b bytes.Buffer
	m.write(&b)
	if !strings.Contains(b.String(), `cbandit_http_requests_total{route="other",method="other",code="404"} 100`) {
		t.Fatalf("metrics:\n%s", b.String())
	}
}

// send is one request to an in-process server with the given headers.
func send(t *testing.T, url, method, path, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// TestBrowserGuards: without a token, a text/plain write from
// a foreign Origin, a read with Host: attacker.example, a JSON write from a
// foreign origin and a cross-site write are refused with a 4xx naming the
// header; the same-host JSON client (the Go client, the dashboard's
// same-origin fetches) keeps working; --allowed-hosts and
// --allowed-origins let the rest in.
func TestBrowserGuards(t *testing.T) {
	mem := store.NewMemory()
	s := newTestServer(t, mem, Options{})
	spec, _ := json.Marshal(toySpec("guard"))
	host := strings.TrimPrefix(s.url, "http://")
	_, port, _ := net.SplitHostPort(host)
	for _, c := range []struct {
		name, method, path, body string
		hdr                      []string
		code                     int
		field                    string
	}{
		{"text/plain write from a foreign origin", "POST", "/studies", string(spec),
			[]string{"Content-Type", "text/plain", "Origin", "http://attacker.example"}, 403, "Origin"},
		{"text/plain write, no origin", "POST", "/studies", string(spec), []string{"Content-Type", "text/plain"}, 415, "Content-Type"},
		{"form write", "POST", "/studies", "a=b", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "Content-Type"},
		{"untyped write", "POST", "/studies", string(spec), nil, 415, "Content-Type"},
		{"JSON write from a foreign origin", "POST", "/studies", string(spec),
			[]string{"Content-Type", "application/json", "Origin", "http://attacker.example"}, 403, "Origin"},
		{"cross-site write", "POST", "/studies", string(spec),
			[]string{"Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"}, 403, "Sec-Fetch-Site"},
		{"null origin", "GET", "/studies", "", []string{"Origin", "null"}, 403, "Origin"},
		{"rebound read", "GET", "/studies", "", []string{"Host", "attacker.example"}, 403, "Host"},
		{"rebound read with port", "GET", "/studies", "", []string{"Host", "attacker.example:" + port}, 403, "Host"},
		{"rebound read of the dashboard", "GET", "/ui/", "", []string{"Host", "attacker.example"}, 403, "Host"},
		{"rebound read, same-origin", "GET", "/studies", "", []string{"Host", "attacker.example", "Origin", "http://attacker.example"}, 403, "Host"},
		{"a 127.x name in a domain", "GET", "/studies", "", []string{"Host", "127.0.0.1.attacker.example"}, 403, "Host"},
		{"private address", "GET", "/studies", "", []string{"Host", "192.168.1.2:" + port}, 403, "Host"},
	} {
		code, _, raw := send(t, s.url, c.method, c.path, c.body, c.hdr...)
		if code != c.code {
			t.Errorf("%s: %d %s, want %d", c.name, code, raw, c.code)
			continue
		}
		wantError(t, code, raw, c.code, c.field)
	}
	if l, _ := mem.List(t.Context()); len(l) != 0 {
		t.Fatalf("a refused write created %d studies", len(l))
	}
	// Allowed: the loopback names, the same origin, JSON, bodyless writes.
	for _, c := range []struct {
		name, method, path, body string
		hdr                      []string
		code                     int
	}{
		{"same-host JSON write", "POST", "/studies", string(spec), []string{"Content-Type", "application/json; charset=utf-8"}, 201},
		{"localhost", "GET", "/studies", "", []string{"Host", "localhost:" + port}, 200},
		{"LOCALHOST.", "GET", "/studies", "", []string{"Host", "LOCALHOST.:" + port}, 200},
		{"127.1.2.3", "GET", "/studies", "", []string{"Host", "127.1.2.3:" + port}, 200},
		{"[::1]", "GET", "/studies", "", []string{"Host", "[::1]:" + port}, 200},
		{"same origin", "GET", "/studies", "", []string{"Origin", "http://" + host}, 200},
		{"same-origin fetch", "GET", "/studies", "", []string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"healthz by any name", "GET", "/healthz", "", []string{"Host", "10.1.2.3:" + port}, 200},
		{"dashboard", "GET", "/ui/", "", nil, 200},
	} {
		if code, _, raw := send(t, s.url, c.method, c.path, c.body, c.hdr...); code != c.code {
			t.Errorf("%s: %d %s, want %d", c.name, code, raw, c.code)
		}
	}
	var st api.Study
	_, _, raw := send(t, s.url, "POST", "/studies", strings.Replace(string(spec), `"guard"`, `"guard-2"`, 1), "Content-Type", "application/json")
	json.Unmarshal(raw, &st)
	if code, _, raw := send(t, s.url, "POST", "/studies/"+st.ID+"/suggestions", ""); code != 200 {
		t.Errorf("bodyless ask: %d %s", code, raw)
	}
	if code, _, raw := send(t, s.url, "DELETE", "/studies/"+st.ID+"/decisions/1", ""); code != 200 {
		t.Errorf("bodyless abandon: %d %s", code, raw)
	}

	// The operator's lists.
	s2 := newTestServer(t, store.NewMemory(), Options{AllowedHosts: []string{"cbandit.internal", ".example.org"},
		AllowedOrigins: []string{"https://app.example.org"}})
	for _, c := range []struct {
		hdr  []string
		code int
	}{
		{[]string{"Host", "cbandit.internal:8080"}, 200},
		{[]string{"Host", "example.org"}, 200},
		{[]string{"Host", "a.b.example.org"}, 200},
		{[]string{"Host", "badexample.org"}, 403},
		{[]string{"Host", "cbandit.internal", "Origin", "https://app.example.org"}, 200},
		{[]string{"Host", "cbandit.internal", "Origin", "https://evil.example.org"}, 403},
	} {
		code, h, raw := send(t, s2.url, "GET", "/studies", "", c.hdr...)
		if code != c.code {
			t.Errorf("%v: %d %s, want %d", c.hdr, code, raw, c.code)
		}
		if code == 200 && len(c.hdr) > 2 && h.Get("Access-Control-Allow-Origin") != "https://app.example.org" {
			t.Errorf("%v: no CORS header for an allowed origin: %v", c.hdr, h)
		}
	}
	code, h, raw := send(t, s2.url, "OPTIONS", "/studies", "", "Origin", "https://app.example.org", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type")
	if code != 204 || h.Get("Access-Control-Allow-Origin") != "https://app.example.org" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Errorf("preflight: %d %v %s", code, h, raw)
	}
	code, _, raw = send(t, s2.url, "POST", "/studies", string(spec), "Origin", "https://app.example.org", "Content-Type", "application/json",
		"Sec-Fetch-Site", "cross-site")
	if code != 201 {
		t.Errorf("write from an allowed origin: %d %s", code, raw)
	}
	// With a token the guards are off (the bearer header is the defence).
	s3 := newTestServer(t, store.NewMemory(), Options{Token: "t0k"})
	if code, _, raw := send(t, s3.url, "GET", "/studies", "", "Host", "cbandit.example.com", "Authorization", "Bearer t0k"); code != 200 {
		t.Errorf("token server by another name: %d %s", code, raw)
	}
	if n := metricValue(t, s.url, `cbandit_refused_total{reason="forbidden_host"}`); n != 6 {
		t.Errorf("forbidden_host refusals: %d, want 6", n)
	}
}

// TestSmallHardening.
func TestSmallHardening(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{Token: "t0k"})
	// The bearer scheme is case-insensitive (RFC 7235 §2.1).
	for _, h := range []string{"Bearer t0k", "bearer t0k", "BEARER t0k", "Bearer   t0k"} {
		if code, _, raw := send(t, s.url, "GET", "/studies", "", "Authorization", h); code != 200 {
			t.Errorf("Authorization %q: %d %s", h, code, raw)
		}
	}
	for _, h := range []string{"Basic t0k", "Bearer t0", "Bearert0k", "t0k", "Bearer t0k x"} {
		if code, _, _ := send(t, s.url, "GET", "/studies", "", "Authorization", h); code != 401 {
			t.Errorf("Authorization %q: %d, want 401", h, code)
		}
	}

	st := s.create(toySpec("hardening"))
	// JSON answers are not sniffed nor cached.
	code, h, _ := send(t, s.url, "GET", "/studies/"+st.ID, "", "Authorization", "Bearer t0k")
	if code != 200 || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("answer headers: %d %v", code, h)
	}
	code, h, _ = send(t, s.url, "GET", "/studies/nope", "", "Authorization", "Bearer t0k")
	if code != 404 || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("error headers: %d %v", code, h)
	}
	// Keys are case-sensitive; a key given twice is refused.
	sg := s.ask(st.ID, 1)
	for body, field := range map[string]string{
		fmt.Sprintf(`{"decision_id":%d,"Reward":7}`, sg[0].DecisionID):            "Reward",
		fmt.Sprintf(`{"Decision_ID":%d,"reward":7}`, sg[0].DecisionID):            "Decision_ID",
		fmt.Sprintf(`{"decision_id":%d,"reward":7,"reward":8}`, sg[0].DecisionID): "reward",
		`{"COUNT":2}`: "COUNT",
	} {
		path := "/studies/" + st.ID + "/observations"
		if strings.Contains(body, "COUNT") {
			path = "/studies/" + st.ID + "/suggestions"
		}
		code, raw := s.do("POST", path, body, nil)
		wantError(t, code, raw, 400, field)
	}
	bad := toySpec("x")
	raw, _ := json.Marshal(bad)
	nested := strings.Replace(string(raw), `"threshold":0.5`, `"Threshold":0.5`, 1)
	code, body := s.do("POST", "/studies", nested, nil)
	wantError(t, code, body, 400, "constraints[0].Threshold")
	if sum := s.do2(t, "GET", "/studies/"+st.ID+"/summary"); sum.Rounds != 1 {
		t.Fatalf("summary after refused tells: %+v", sum)
	}
	// Names may not hold invisible or bidirectional control characters.
	for _, name := range []string{"abc\u202Edef", "a\u2028b", "\uFEFFname", "zero\u200Bwidth", "tab\there", "a\u2066b", "p\u2029q"} {
		sp := toySpec(name)
		code, raw := s.do("POST", "/studies", sp, nil)
		wantError(t, code, raw, 400, "name")
		sp = toySpec("ok-" + fmt.Sprint(len(name)))
		sp.Constraints[0].Name = name
		code, raw = s.do("POST", "/studies", sp, nil)
		wantError(t, code, raw, 400, "constraints[0].name")
	}
	if code, raw := s.do("GET", "/studies?name=a%E2%80%AEb", nil, nil); code != 400 {
		t.Errorf("?name= with U+202E: %d %s", code, raw)
	}
	// Accented and non-Latin names stay accepted.
	s.create(toySpec("débit — 流量 ✓"))
}

// do2 reads a study summary.
func (s *tserver) do2(t *testing.T, method, path string) api.Summary {
	var sum api.Summary
	if code, raw := s.do(method, path, nil, &sum); code != 200 {
		t.Fatalf("%s %s: %d %s", method, path, code, raw)
	}
	return sum
}

// TestCSVNumbersUnguarded: the CSV formula guard leaves plain
// numbers alone and guards formulas.
func TestCSVNumbersUnguarded(t *testing.T) {
	for in, want := range map[string]string{
		"-1": "-1", "+2.5": "+2.5", "-1e3": "-1e3", "-0": "-0", "adam": "adam", "": "",
		"=1+2": "'=1+2", "-1+2": "'-1+2", "+cmd|' /C calc'!A0": "'+cmd|' /C calc'!A0", "@SUM(A1)": "'@SUM(A1)",
		"-Inf": "'-Inf", "-0x1p3": "'-0x1p3", "-1_000": "'-1_000", "\t1": "'\t1", "-": "'-",
	} {
		if got := csvText(in); got != want {
			t.Errorf("csvText(%q) = %q, want %q", in, got, want)
		}
	}
}
