package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
)

func TestExport(t *testing.T) {
	ts := newTestServer(t)
	db, post := ts.DB, ts.post
	s := post("/studies", `{"name":"exp","parameters":[{"name":"k","type":"int","low":1,"high":4}],
		"objective":{"name":"f"},"constraints":[{"name":"g","threshold":1}],"algorithm":"ckb-ucb","seed":1}`)
	id := s["id"].(string)
	for i := 1; i <= 3; i++ {
		post("/studies/"+id+"/suggestions", "")
	}
	post("/studies/"+id+"/observations", `{"decision_id":1,"reward":0.5,"costs":[0.25]}`)
	ts.Close()

	out, errb, code := exportCLI("export", "--db", db, "--study", "exp")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || strings.Join(rows[0], ",") != "decision_id,round,arm,status,created,observed,params.k,reward,costs.g,reason" ||
		rows[1][7] != "0.5" || rows[1][8] != "0.25" || rows[2][3] != "pending" {
		t.Fatalf("export csv:\n%s", out)
	}
	out, errb, code = exportCLI("export", "--db", db, "--study", id, "--format", "json")
	var l api.DecisionList
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Decisions) != 3 || l.Decisions[0].Params["k"] == nil {
		t.Fatalf("export json: exit %d %s %s", code, out, errb)
	}
	for _, bad := range [][]string{
		{"export", "--db", db, "--study", "nope"},
		{"export", "--db", db, "--study", "exp", "--format", "xml"},
		{"export", "--db", db},
		{"export", "--db", "sqlite:" + filepath.Join(t.TempDir(), "missing.db"), "--study", "exp"},
	} {
		if _, errb, code := exportCLI(bad...); code == 0 || errb == "" {
			t.Errorf("%v: exit %d, stderr %q: want a failure with a message", bad, code, errb)
		}
	}
}

func exportCLI(args ...string) (string, string, int) {
	code, out, errb := runCLI(args...)
	return out, errb, code
}
