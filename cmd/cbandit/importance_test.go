package main

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/service/api"
)

// cbandit importance ranks the parameter the objective ignores last, in
// its table and its JSON, and gives the same numbers from the store (--db)
// as from the running server (--url, the study found by name).
func TestImportanceCLI(t *testing.T) {
	ts := newTestServer(t)
	db, post := ts.DB, ts.post
	s := post("/studies", `{"name":"knobs","parameters":[{"name":"depth","type":"int","low":1,"high":10},
		{"name":"rate","type":"float","low":0,"high":1},{"name":"ignored","type":"float","low":0,"high":1}],"objective":{"name":"f"}}`)
	id := s["id"].(string)
	for _, u := range domain.Halton(24, 3) {
		depth := 1 + math.Floor(10*u[0])
		post("/studies/"+id+"/trials", fmt.Sprintf(`{"params":{"depth":%v,"rate":%v,"ignored":%v},"reward":%v}`,
			depth, u[1], u[2], math.Sin(3*u[1])+0.1*depth))
	}
	a := sameViaURLAndDB[api.Importance](ts, "importance", "knobs", id)
	if len(a.Parameters) != 3 || a.Parameters[2].Parameter != "ignored" || a.Observations != 24 {
		t.Errorf("importance %+v: want 3 parameters, ignored last, 24 observations", a)
	}
	code, text, errb := runCLI("importance", "--db", db, "--study", "knobs")
	if code != 0 {
		t.Fatalf("importance (text): exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "importance") || !strings.HasPrefix(strings.TrimSpace(lines[3]), "ignored ") ||
		!strings.Contains(lines[4], "fanova-gp on 24 evaluated configurations") {
		t.Errorf("text output:\n%s\nwant a header, 3 rows with ignored last, and the method's line", text)
	}
	if code, _, errb := runCLI("importance", "--study", "knobs"); code == 0 || !strings.Contains(errb, "one of --url, --db") {
		t.Errorf("without --url or --db: exit %d, %q", code, errb)
	}
}
