package service

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// paramSpec is the example: a log-scaled float, an int and a
// categorical.
func paramSpec(name string) api.StudySpec {
	return api.StudySpec{
		Name: name,
		Parameters: []api.Parameter{
			{Name: "lr", Type: "float", Low: f64(1e-4), High: f64(1), Log: true},
			{Name: "layers", Type: "int", Low: f64(1), High: f64(8)},
			{Name: "opt", Type: "categorical", Choices: []any{"adam", "sgd"}},
		},
		Objective:   api.Objective{Name: "accuracy"},
		Constraints: []api.Constraint{{Name: "latency", Threshold: 0.6}},
		Algorithm:   "ckb-ucb",
		Seed:        3,
		Horizon:     100,
	}
}

// paramToy is a toy system over the parameters: accuracy peaks at lr = 1e-2,
// 5 layers and adam; latency grows with layers.
func paramToy(p map[string]any) (reward, latency float64) {
	lr := p["lr"].(float64)
	layers := float64(p["layers"].(int64))
	reward = math.Exp(-math.Pow(math.Log10(lr)+2, 2)/2) - 0.02*(layers-5)*(layers-5)
	if p["opt"] == "sgd" {
		reward -= 0.2
	}
	return reward, layers / 8
}

// checkParams checks a raw suggestion's params: their JSON types and ranges.
func checkParams(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var s struct {
		X      []float64                  `json:"x"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Params) != 3 || len(s.X) != 4 {
		t.Fatalf("suggestion %s: want 3 params and an encoded x of 4 coordinates", raw)
	}
	out := map[string]any{}
	lrs := string(s.Params["lr"])
	lr, err := strconv.ParseFloat(lrs, 64)
	if err != nil || lr < 1e-4 || lr > 1 {
		t.Fatalf("lr = %s: want a number in [1e-4, 1]", lrs)
	}
	out["lr"] = lr
	ls := string(s.Params["layers"])
	layers, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || layers < 1 || layers > 8 {
		t.Fatalf("layers = %s: want a JSON integer in [1, 8]", ls)
	}
	out["layers"] = layers
	var opt any
	if err := json.Unmarshal(s.Params["opt"], &opt); err != nil || (opt != "adam" && opt != "sgd") {
		t.Fatalf("opt = %s: want \"adam\" or \"sgd\"", s.Params["opt"])
	}
	out["opt"] = opt
	// x is the encoding: log-scaled lr, layers, one-hot opt.
	if u := (math.Log(lr) - math.Log(1e-4)) / (math.Log(1) - math.Log(1e-4)); math.Abs(u-s.X[0]) > 1e-9 {
		t.Fatalf("x[0] = %v, want the log-scaled lr %v", s.X[0], u)
	}
	if u := float64(layers-1) / 7; math.Abs(u-s.X[1]) > 1e-9 {
		t.Fatalf("x[1] = %v, want %v for layers %d", s.X[1], u, layers)
	}
	if hot := (opt == "adam") == (s.X[2] == 1 && s.X[3] == 0) && (opt == "sgd") == (s.X[2] == 0 && s.X[3] == 1); !hot {
		t.Fatalf("x[2:] = %v is not the one-hot code of %v", s.X[2:], opt)
	}
	return out
}

func TestParameters25Rounds(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	typed := paramSpec("typed")
	typed.Defaults = api.DefaultsMixed - 1 // the candidate set of earlier generations
	st := s.create(typed)
	if len(st.Spec.Space.Points) == 0 || st.Spec.Space.Type != api.SpacePoints {
		t.Fatalf("derived space %+v: want the encoded candidates", st.Spec.Space)
	}
	seenOpt, seenLayers := map[any]bool{}, map[int64]bool{}
	for i := 0; i < 25; i++ {
		var r struct {
			Suggestions []json.RawMessage `json:"suggestions"`
		}
		if code, raw := s.do("POST", "/studies/"+st.ID+"/suggestions", nil, &r); code != 200 || len(r.Suggestions) != 1 {
			t.Fatalf("ask: %d %s", code, raw)
		}
		p := checkParams(t, r.Suggestions[0])
		seenOpt[p["opt"]], seenLayers[p["layers"].(int64)] = true, true
		var sg api.Suggestion
		json.Unmarshal(r.Suggestions[0], &sg)
		rew, lat := paramToy(p)
		s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: &rew, Costs: []float64{lat}})
	}
	if len(seenOpt) < 2 || len(seenLayers) < 3 {
		t.Errorf("25 rounds explored opt %v and layers %v: want both choices and several depths", seenOpt, seenLayers)
	}
	// The history and the best decision carry params too.
	var hist api.DecisionList
	s.do("GET", "/studies/"+st.ID+"/decisions?limit=5", nil, &hist)
	if len(hist.Decisions) != 5 || hist.Decisions[0].Params["opt"] == nil || hist.Decisions[0].Observed == nil {
		t.Fatalf("history %+v: want params and observed times", hist.Decisions)
	}
	var sum api.Summary
	s.do("GET", "/studies/"+st.ID+"/summary", nil, &sum)
	if sum.Best == nil || sum.Best.Params["layers"] == nil {
		t.Fatalf("summary best %+v: want params", sum.Best)
	}
}

func TestParametersNativeAndDiscrete(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := paramSpec("native")
	spec.Space = api.Space{Native: true}
	spec.Algorithm = "rpol-ucb"
	st := s.create(spec)
	if st.Spec.Space.Type != api.SpaceBox || len(st.Spec.Space.Lo) != 4 {
		t.Fatalf("native space %+v: want the unit cube of 4 coordinates", st.Spec.Space)
	}
	for i := 0; i < 8; i++ {
		var r struct {
			Suggestions []struct {
				DecisionID int64          `json:"decision_id"`
				Params     map[string]any `json:"params"`
			} `json:"suggestions"`
		}
		s.do("POST", "/studies/"+st.ID+"/suggestions", nil, &r)
		p := r.Suggestions[0].Params
		l, ok := p["layers"].(float64)
		if !ok || l != math.Trunc(l) || l < 1 || l > 8 || (p["opt"] != "adam" && p["opt"] != "sgd") {
			t.Fatalf("native round %d: params %v", i+1, p)
		}
		s.tell(st.ID, api.Observation{DecisionID: r.Suggestions[0].DecisionID, Reward: f64(l / 8), Costs: []float64{0}})
	}
	// Only ints and categoricals, with few combinations: every combination
	// is a candidate.
	d := paramSpec("discrete")
	d.Parameters = d.Parameters[1:]
	d.Space.Candidates = 256 // a candidate set asked for (else: the mixed space, DefaultsMixed)
	st = s.create(d)
	if n := len(st.Spec.Space.Points); n != 16 {
		t.Fatalf("8 depths × 2 optimisers: %d candidates, want 16", n)
	}
}

func TestParameterValidation(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	for _, c := range []struct {
		field string
		edit  func(*api.StudySpec)
	}{
		{"space", func(sp *api.StudySpec) { sp.Space = api.Space{Type: api.SpaceBox, Lo: []float64{0}, Hi: []float64{1}} }},
		{"parameters[1].name", func(sp *api.StudySpec) { sp.Parameters[1].Name = "lr" }},
		{"parameters[0].name", func(sp *api.StudySpec) { sp.Parameters[0].Name = " " }},
		{"parameters[0].type", func(sp *api.StudySpec) { sp.Parameters[0].Type = "double" }},
		{"parameters[0].type", func(sp *api.StudySpec) { sp.Parameters[0].Type = "" }},
		{"parameters[0].low", func(sp *api.StudySpec) { sp.Parameters[0].Low = f64(0) }},
		{"parameters[0].low", func(sp *api.StudySpec) { sp.Parameters[0].Low = nil }},
		{"parameters[0].high", func(sp *api.StudySpec) { sp.Parameters[0].High = f64(1e-5) }},
		{"parameters[0].high", func(sp *api.StudySpec) { sp.Parameters[0].High = f64(1e13) }},
		{"parameters[1].low", func(sp *api.StudySpec) { sp.Parameters[1].Low = f64(1.5) }},
		{"parameters[1].low", func(sp *api.StudySpec) { sp.Parameters[1].Low, sp.Parameters[1].Log = f64(0), true }},
		{"parameters[1].choices", func(sp *api.StudySpec) { sp.Parameters[1].Choices = []any{"a"} }},
		{"parameters[2].choices", func(sp *api.StudySpec) { sp.Parameters[2].Choices = nil }},
		{"parameters[2].choices[1]", func(sp *api.StudySpec) { sp.Parameters[2].Choices = []any{"adam", "adam"} }},
		{"parameters[2].choices[0]", func(sp *api.StudySpec) { sp.Parameters[2].Choices = []any{[]any{1}} }},
		{"parameters[2].low", func(sp *api.StudySpec) { sp.Parameters[2].Low = f64(1) }},
		{"space.candidates", func(sp *api.StudySpec) { sp.Space.Candidates = MaxCandidates + 1 }},
		{"prior.safe", func(sp *api.StudySpec) { sp.Prior.Safe = []float64{0, 0, 1, 0} }},
		{"algorithm", func(sp *api.StudySpec) { sp.Space.Native, sp.Algorithm = true, "opb" }},
	} {
		spec := paramSpec("bad")
		c.edit(&spec)
		code, raw := s.do("POST", "/studies", spec, nil)
		t.Run(c.field, func(t *testing.T) { wantError(t, code, raw, 400, c.field) })
	}
	code, raw := s.do("POST", "/studies", `{"name":"e","parameters":[],"objective":{"name":"f"},"algorithm":"ckb-ucb"}`, nil)
	wantError(t, code, raw, 400, "parameters")
}

func TestDecisionsCSVAndLookup(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	st := s.create(paramSpec("csv"))
	box := s.create(toySpec("box"))
	for i := 0; i < 6; i++ {
		sg := s.ask(st.ID, 1)[0]
		if i < 5 {
			rew, lat := paramToy(map[string]any{"lr": sg.Params["lr"], "layers": int64(sg.Params["layers"].(float64)), "opt": sg.Params["opt"]})
			s.tell(st.ID, api.Observation{DecisionID: sg.DecisionID, Reward: &rew, Costs: []float64{lat}})
		}
	}
	play(s, box.ID, 3)
	code, raw := s.do("GET", "/studies/"+st.ID+"/decisions.csv", nil, nil)
	if code != 200 {
		t.Fatalf("decisions.csv: %d %s", code, raw)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "decision_id,round,arm,status,created,observed,params.lr,params.layers,params.opt,reward,costs.latency,reason"
	if len(rows) != 7 || strings.Join(rows[0], ",") != want {
		t.Fatalf("decisions.csv: %d rows, header %v; want 1 + 6 rows, header %s", len(rows), rows[0], want)
	}
	if rows[6][3] != "pending" || rows[1][3] != "observed" || rows[6][9] != "" || rows[1][9] == "" {
		t.Fatalf("rows %v", rows)
	}
	if _, err := strconv.ParseInt(rows[1][7], 10, 64); err != nil {
		t.Fatalf("layers column %q is not an integer", rows[1][7])
	}
	_, raw = s.do("GET", "/studies/"+box.ID+"/decisions.csv", nil, nil)
	rows, _ = csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if len(rows) != 4 || strings.Join(rows[0], ",") != "decision_id,round,arm,status,created,observed,x[0],x[1],reward,costs.power,reason" {
		t.Fatalf("box decisions.csv: %v", rows)
	}
	// A choice that a spreadsheet would run as a formula is quoted.
	f := paramSpec("formula")
	f.Parameters = []api.Parameter{{Name: "cmd", Type: "categorical", Choices: []any{"=1+1", "@x"}}}
	fs := s.create(f)
	s.ask(fs.ID, 2)
	_, raw = s.do("GET", "/studies/"+fs.ID+"/decisions.csv", nil, nil)
	rows, _ = csv.NewReader(bytes.NewReader(raw)).ReadAll()
	for _, r := range rows[1:] {
		if v := r[6]; v != "'=1+1" && v != "'@x" {
			t.Fatalf("choice cell %q: want it quoted with an apostrophe", v)
		}
	}
	code, raw = s.do("GET", "/studies/s-nope/decisions.csv", nil, nil)
	wantError(t, code, raw, http.StatusNotFound, "id")

	var l api.StudyList
	s.do("GET", "/studies?name=csv", nil, &l)
	if len(l.Studies) != 1 || l.Studies[0].ID != st.ID || l.Studies[0].Rounds != 6 {
		t.Fatalf("?name=csv: %+v", l.Studies)
	}
	s.do("GET", "/studies?name=nope", nil, &l)
	if len(l.Studies) != 0 {
		t.Fatalf("?name=nope: %+v", l.Studies)
	}
	code, raw = s.do("GET", "/studies?name=", nil, nil)
	wantError(t, code, raw, 400, "name")
}

// A study with parameters replays from its log (the candidates are stored
// with the definition): evicted after every round, it makes the decisions
// of an uninterrupted run.
func TestParametersReplay(t *testing.T) {
	ref := newTestServer(t, store.NewMemory(), Options{})
	rs := ref.create(paramSpec("replay"))
	s := newTestServer(t, store.NewMemory(), Options{CacheSize: 1, SnapshotEvery: -1, SnapshotCost: -1})
	st := s.create(paramSpec("replay"))
	other := s.create(toySpec("other"))
	for i := 0; i < 12; i++ {
		want, got := ref.ask(rs.ID, 1)[0], s.ask(st.ID, 1)[0]
		if !equalVec(got.X, want.X) || fmt.Sprint(got.Params) != fmt.Sprint(want.Params) {
			t.Fatalf("round %d: %v %v, uninterrupted %v %v", i+1, got.X, got.Params, want.X, want.Params)
		}
		rew, lat := paramToy(map[string]any{"lr": got.Params["lr"], "layers": int64(got.Params["layers"].(float64)), "opt": got.Params["opt"]})
		o := api.Observation{DecisionID: got.DecisionID, Reward: &rew, Costs: []float64{lat}}
		ref.tell(rs.ID, o)
		s.tell(st.ID, o)
		play(s, other.ID, 1) // evicts the study
	}
}
