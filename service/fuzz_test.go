package service

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// FuzzRequests sends arbitrary bodies to the endpoints that decode JSON: a
// 500 must never answer (bad input is a 4xx), and every error is the JSON
// error shape.
//
//	go test -run '^$' -fuzz FuzzRequests -fuzztime 30s ./service/
//
// fuzzOps: create, ask, tell, patch, ask with a fuzzed Idempotency-Key,
// ask with a fuzzed Host, Origin and Content-Type.
const fuzzOps = 6

func FuzzRequests(f *testing.F) {
	spec, _ := json.Marshal(toySpec("seed"))
	for _, s := range []string{
		string(spec), `{}`, `{"name":"x","space":{"type":"points","points":[[0],[1]]},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"ckb-ucb"}`,
		`{"count":3}`, `{"decision_id":1,"reward":0.5,"costs":[0.1]}`, `{"decision_id":1,"costs":[1e308]}`,
		`{"decision_id":-1}`, `[`, `null`, `{"space":{"type":"box","lo":[0],"hi":[-1]}}`,
		// values that reached a 500 or poisoned a study
		`{"name":"v","space":{"type":"box","lo":[0,0],"hi":[1,1]},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"ckb-ucb","prior":{"variance":1e300}}`,
		`{"name":"b","space":{"type":"box","lo":[-1e200,0],"hi":[1e200,1]},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"rpol-ucb"}`,
		`{"name":"t","space":{"type":"box","lo":[0],"hi":[1]},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":-1.7e308}],"algorithm":"ckb-ucb"}`,
		`{"name":"e","space":{"type":"box","lo":[-1e12,-1e12],"hi":[1e12,1e12]},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":-1e12}],"algorithm":"ckb-ucb","prior":{"variance":1e12,"B":1e12}}`,
		`{"name":"o","space":{"type":"points","points":[[0],[1]]},"objective":{"name":"y"},"constraints":[],"algorithm":"igp-ucb","epoch":1}`,
		`{"decision_id":1,"reward":1e308}`, `{"decision_id":1,"reward":1e12,"costs":[-1e12]}`,
		// named, typed parameters (docs/typed.md)
		`{"name":"p","parameters":[{"name":"lr","type":"float","low":1e-4,"high":1,"log":true},{"name":"n","type":"int","low":1,"high":8},{"name":"o","type":"categorical","choices":["a","b",3,true]}],"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"ckb-ucb"}`,
		`{"name":"q","parameters":[{"name":"n","type":"int","low":-1e12,"high":1e12,"log":false}],"space":{"native":true},"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"rpol-ucb"}`,
		`{"name":"r","parameters":[{"name":"o","type":"categorical","choices":[{"a":1},[1]]}],"objective":{"name":"y"},"constraints":[{"name":"c","threshold":0}],"algorithm":"ckb-ucb"}`,
		`{"horizon":1000000000}`, `{"horizon":-5}`, `{"horizon":1e400}`, `"k\u0000ey"`,
	} {
		for op := uint8(0); op < fuzzOps; op++ {
			f.Add(op, []byte(s))
		}
	}
	st := store.NewMemory()
	srv := New(st, Options{MaxBodyBytes: 64 << 10, CacheSize: 4})
	// A request of a local JSON client (httptest's default Host,
	// example.com, is not a loopback name).
	newReq := func(method, path, body string) *http.Request {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Host = "127.0.0.1:8080"
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, newReq("POST", "/studies", string(spec)))
	var study api.Study
	if err := json.Unmarshal(rec.Body.Bytes(), &study); err != nil || rec.Code != http.StatusCreated {
		f.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	srv.ServeHTTP(httptest.NewRecorder(), newReq("POST", "/studies/"+study.ID+"/suggestions", `{"count":2}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		path, method, key := "/studies", "POST", ""
		var hdrs []string
		switch op % fuzzOps {
		case 1:
			path = "/studies/" + study.ID + "/suggestions"
		case 2:
			path = "/studies/" + study.ID + "/observations"
		case 3:
			path, method = "/studies/"+study.ID, "PATCH"
		case 4: // the body is an Idempotency-Key
			path, key = "/studies/"+study.ID+"/suggestions", string(body[:min(len(body), 300)])
			body = nil
		case 5: // the body is a Host, an Origin and a Content-Type
			path, hdrs = "/studies/"+study.ID+"/suggestions", strings.SplitN(string(body[:min(len(body), 300)]), "\n", 3)
			body = nil
		}
		rec := httptest.NewRecorder()
		timer := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			panic(fmt.Sprintf("POST %s %q: still running after 10s\n%s", path, body, buf[:n]))
		})
		req := newReq(method, path, string(body))
		if key != "" {
			req.Header["Idempotency-Key"] = []string{key}
		}
		for i, h := range hdrs {
			switch i {
			case 0:
				req.Host = h
			case 1:
				req.Header["Origin"] = []string{h}
			case 2:
				req.Header["Content-Type"] = []string{h}
			}
		}
		srv.ServeHTTP(rec, req)
		timer.Stop()
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q (key %q): %d %s", method, path, body, key, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e api.Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Err.Status != rec.Code || e.Err.Message == "" || e.Err.Field == "" {
				t.Fatalf("%s %s %q: error body %s", method, path, body, rec.Body)
			}
		}
		if rec.Code == http.StatusCreated { // keep the store small
			var s api.Study
			json.Unmarshal(rec.Body.Bytes(), &s)
			srv.ServeHTTP(httptest.NewRecorder(), newReq("DELETE", "/studies/"+s.ID, ""))
		}
	})
}
