package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
)

// cbandit study shows the best observation and the recommendation of an
// offline study: noise-free, x = k/16 evaluated, f = −(x − 0.3)² maximised
// under the limit x ≤ 0.6, so both are x = 0.3125 (the nearest to 0.3, far
// inside the limit); the same summary from the store (--db) as from the
// running server (--url, the study found by name).
func TestStudyCLI(t *testing.T) {
	ts := newTestServer(t)
	db, post := ts.DB, ts.post
	s := post("/studies", `{"name":"knob","evaluations":"offline","parameters":[{"name":"x","type":"float","low":0,"high":1}],
		"objective":{"name":"f"},"constraints":[{"name":"load","threshold":0.6}]}`)
	id := s["id"].(string)
	for k := range 16 {
		x := float64(k) / 16
		post("/studies/"+id+"/trials", fmt.Sprintf(`{"params":{"x":%v},"reward":%v,"costs":[%v]}`, x, -(x-0.3)*(x-0.3), x))
	}
	a := sameViaURLAndDB[api.Summary](ts, "study", "knob", id)
	if a.Best == nil || a.Best.Params["x"] != 0.3125 {
		t.Fatalf("best %+v: want x = 0.3125", a.Best)
	}
	r := a.Recommendation
	if r == nil || r.Params["x"] != 0.3125 || r.DecisionID != a.Best.DecisionID || r.Feasible < 0.95 ||
		len(r.Constraints) != 1 || r.Constraints[0].Name != "load" {
		t.Fatalf("recommendation %+v: want x = 0.3125 (decision %d), load's posterior, P ≥ 0.95", r, a.Best.DecisionID)
	}
	code, text, errb := runCLI("study", "--db", db, "--study", "knob")
	if code != 0 {
		t.Fatalf("study (text): exit %d: %s", code, errb)
	}
	for _, want := range []string{
		"study knob (" + id + "): algorithm lognei, evaluations offline; 16 decisions, 16 observed, 0 failed\n",
		"objective f (maximize); load ≤ 0.6 (stage-wise)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		for _, label := range []string{"best observation", "recommendation", "x"} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), label+" "); ok {
				rows[label] = strings.Join(strings.Fields(rest), " ")
			}
		}
	}
	wantRows := map[string]string{
		"best observation": fmt.Sprintf("%d -0.00015625 0.3125 –", a.Best.DecisionID),
		"recommendation": fmt.Sprintf("%d %.6g ± %.2g %.6g ± %.2g %.3f", r.DecisionID, r.Objective.Mean, r.Objective.Std,
			r.Constraints[0].Mean, r.Constraints[0].Std, r.Feasible),
		"x": "0.3125 0.3125",
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("text output's rows %q, want %q:\n%s", rows, wantRows, text)
	}
	if code, _, errb := runCLI("study", "--study", "knob"); code == 0 || !strings.Contains(errb, "one of --url, --db") {
		t.Errorf("without --url or --db: exit %d, %q", code, errb)
	}
	if code, _, errb := runCLI("study", "--db", db, "--study", "nope"); code == 0 || !strings.Contains(errb, "--study nope") {
		t.Errorf("an unknown study: exit %d, %q", code, errb)
	}
}

// Without a recommendation the text says so; a box study's configuration is
// shown by coordinate, each column where it has a value.
func TestPrintStudyWithoutRecommendation(t *testing.T) {
	st := api.Study{ID: "s1", Spec: api.StudySpec{Name: "box", Algorithm: "ckb-ucb", Objective: api.Objective{Name: "lat", Goal: "minimize"}}}
	sum := api.Summary{Rounds: 5, RewardObserved: 4, Failed: 1,
		Constraints: []api.ConstraintSummary{{Name: "mem", Kind: bandit.KindLongTerm, Threshold: 2}},
		Best:        &api.Best{DecisionID: 3, X: []float64{0.5, 0.25}, Reward: 12, Costs: []float64{1.5}}}
	var out strings.Builder
	if err := printStudy(&out, st, sum); err != nil {
		t.Fatal(err)
	}
	want := `study box (s1): algorithm ckb-ucb, evaluations live; 5 decisions, 4 observed, 1 failed
objective lat (minimize); mem ≤ 2 (long-term)

                    decision  lat  mem  P(every limit holds)
  best observation         3   12  1.5                     –
recommendation: none (the algorithm names none, or no evaluated configuration holds every limit with probability ≥ 0.95)

parameter  best observation  recommendation
x1         0.5               –
x2         0.25              –
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
