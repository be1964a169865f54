package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/store"
)

// testServer is a service on a fresh SQLite store, for the commands that
// read a study from the server (--url) or from the store (--db).
type testServer struct {
	DB  string // the store's address, for --db
	URL string // the server's address, for --url
	t   *testing.T
	st  store.Store
	srv *service.Server
	hs  *httptest.Server
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	db := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	srv := service.New(st, service.Options{})
	hs := httptest.NewServer(srv)
	return &testServer{DB: db, URL: hs.URL, t: t, st: st, srv: srv, hs: hs}
}

// post sends a JSON body and returns the decoded answer; a status ≥ 300 fails the test.
func (s *testServer) post(path, body string) map[string]any {
	s.t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
	}
	return out
}

// Close stops the server and closes the store, so the commands open it alone.
func (s *testServer) Close() {
	s.hs.Close()
	s.srv.Close()
	s.st.Close()
}

// sameViaURLAndDB runs `cbandit cmd --format json` on the running server
// (the study by name), closes it, runs it on the store (the study by id),
// and returns the decoded answer after checking that both agree.
func sameViaURLAndDB[T any](s *testServer, cmd, name, id string) T {
	s.t.Helper()
	code, viaURL, errb := runCLI(cmd, "--url", s.URL, "--study", name, "--format", "json")
	s.Close()
	if code != 0 {
		s.t.Fatalf("%s --url: exit %d: %s", cmd, code, errb)
	}
	code, viaDB, errb := runCLI(cmd, "--db", s.DB, "--study", id, "--format", "json")
	if code != 0 {
		s.t.Fatalf("%s --db: exit %d: %s", cmd, code, errb)
	}
	var a, b T
	if err := json.Unmarshal([]byte(viaURL), &a); err != nil {
		s.t.Fatalf("%s --url --format json: %v: %s", cmd, err, viaURL)
	}
	if err := json.Unmarshal([]byte(viaDB), &b); err != nil {
		s.t.Fatalf("%s --db --format json: %v: %s", cmd, err, viaDB)
	}
	if !reflect.DeepEqual(a, b) {
		s.t.Errorf("%s: --url and --db differ:\n%s\n%s", cmd, viaURL, viaDB)
	}
	return a
}
