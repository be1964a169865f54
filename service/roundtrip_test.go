package service

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A study's definition as GET /studies/{id} returns it can be posted back:
// a typed study (parameters) whose space holds its derived candidates or its
// native cube, a study whose algorithm the service chose, and studies
// defined by a space (a box's candidates, a native box, points). The copy is
// stored with the same definition and decides identically for the same
// seed and the same observations.
func TestDefinitionRoundTrip(t *testing.T) {
	lo, hi := f64, f64
	typed := []api.Parameter{
		{Name: "lr", Type: ParamFloat, Low: lo(1e-4), High: hi(1e-1), Log: true},
		{Name: "layers", Type: ParamInt, Low: lo(1), High: hi(6)},
		{Name: "opt", Type: ParamCategorical, Choices: []any{"adam", "sgd", 0.5, true}},
	}
	floats := []api.Parameter{
		{Name: "x", Type: ParamFloat, Low: lo(-2), High: hi(3)},
		{Name: "y", Type: ParamFloat, Low: lo(1), High: hi(100), Log: true},
	}
	discrete := []api.Parameter{
		{Name: "threads", Type: ParamInt, Low: lo(1), High: hi(8)},
		{Name: "mode", Type: ParamCategorical, Choices: []any{"a", "b", "c"}},
	}
	cons := []api.Constraint{{Name: "cost", Threshold: 0.6}}
	for _, c := range []struct {
		name string
		spec api.StudySpec
		want string // the derived space's type
	}{
		{"candidates", api.StudySpec{Parameters: typed, Space: api.Space{Candidates: 64}, Objective: api.Objective{Name: "acc"}, Constraints: cons, Algorithm: "ckb-ucb", Seed: 5, Horizon: 50}, api.SpacePoints},
		{"mixed", api.StudySpec{Parameters: typed, Objective: api.Objective{Name: "acc"}, Constraints: cons, Algorithm: "ckb-ucb", Seed: 5, Horizon: 50}, api.SpaceBox},
		{"native", api.StudySpec{Parameters: floats, Objective: api.Objective{Name: "acc"}, Constraints: cons, Algorithm: "rpol-ucb", Seed: 5, Horizon: 50}, api.SpaceBox},
		{"enumerated, chosen", api.StudySpec{Parameters: discrete, Objective: api.Objective{Name: "acc", Goal: api.Minimize},
			Constraints: []api.Constraint{{Name: "cost", Threshold: 0.6, Kind: api.KindStageWise}}, Seed: 5, Horizon: 50}, api.SpaceBox},
		// Studies defined by a space round-trip too.
		{"box candidates", toySpec(""), api.SpaceBox},
		{"box native, open-ended", api.StudySpec{Space: api.Space{Type: api.SpaceBox, Lo: []float64{-1, 0}, Hi: []float64{1, 5}},
			Objective: api.Objective{Name: "acc"}, Constraints: cons, Seed: 5}, api.SpaceBox},
		{"points", api.StudySpec{Space: api.Space{Type: api.SpacePoints, Points: [][]float64{{0, 0}, {0.5, 1}, {1, 0.25}, {0.3, 0.3}}},
			Objective: api.Objective{Name: "acc"}, Constraints: cons, Algorithm: "ckb-ts", Seed: 5, Horizon: 50}, api.SpacePoints},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestServer(t, store.NewMemory(), Options{})
			c.spec.Name = "original"
			orig := s.create(c.spec)
			var got api.Study
			if code, raw := s.do("GET", "/studies/"+orig.ID, nil, &got); code != 200 {
				t.Fatalf("GET: %d %s", code, raw)
			}
			if got.Spec.Space.Type != c.want {
				t.Fatalf("derived space %q, want %q", got.Spec.Space.Type, c.want)
			}
			again := got.Spec
			again.Name = "copy"
			var cp api.Study
			if code, raw := s.do("POST", "/studies", again, &cp); code != 201 {
				t.Fatalf("POST the definition GET returned: %d %s", code, raw)
			}
			// The same definition, but for its name (and the reason for a
			// choice the copy no longer needed: it names its algorithm).
			want, have := got.Spec, cp.Spec
			want.Name, have.Name = "", ""
			want.AlgorithmChoice = ""
			if a, b := mustJSON(t, want), mustJSON(t, have); string(a) != string(b) {
				t.Fatalf("stored definitions differ:\n original %s\n copy     %s", a, b)
			}
			for k := 0; k < 6; k++ {
				a, b := s.ask(orig.ID, 1)[0], s.ask(cp.ID, 1)[0]
				if a.DecisionID != b.DecisionID || !equalVec(a.X, b.X) || !reflect.DeepEqual(a.Params, b.Params) {
					t.Fatalf("decision %d: original %v %v, copy %v %v", k+1, a.X, a.Params, b.X, b.Params)
				}
				r, g := 0.0, 0.0
				for i, v := range a.X {
					r += math.Sin(float64(i+1) * v)
					g += v / float64(len(a.X))
				}
				for _, id := range []string{orig.ID, cp.ID} {
					s.tell(id, api.Observation{DecisionID: a.DecisionID, Reward: f64(r), Costs: []float64{g}})
				}
			}
		})
	}
}

// A space given with parameters that is not one they derive is refused,
// naming the field.
func TestDerivedSpaceChecked(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	base := func(space string) string {
		return fmt.Sprintf(`{"name":"bad","algorithm":"ckb-ucb","seed":1,"objective":{"name":"y"},"constraints":[{"name":"c","threshold":1}],
			"parameters":[{"name":"n","type":"int","low":1,"high":3},{"name":"k","type":"categorical","choices":["a","b"]}],"space":%s}`, space)
	}
	for _, c := range []struct{ space, field string }{
		{`{"type":"points","points":[[0.5,1,0],[0.25,0,1]]}`, "space.points[1]"},           // 0.25 is no integer of [1, 3]
		{`{"type":"points","points":[[0,1,1]]}`, "space.points[0]"},                        // not one-hot
		{`{"type":"points","points":[[0,0.5,0.5]]}`, "space.points[0]"},                    // not one-hot
		{`{"type":"points","points":[[0,1]]}`, "space.points[0]"},                          // width
		{`{"type":"points","points":[[1.5,1,0]]}`, "space.points[0]"},                      // outside
		{`{"type":"box","lo":[0,0,0],"hi":[1,1,1],"native":true,"candidates":9}`, "space"}, // not derived
		{`{"type":"box","lo":[0,0,0],"hi":[1,2,1],"native":true}`, "space.lo[1]"},
		{`{"type":"box","lo":[0,0],"hi":[1,1],"native":true}`, "space.lo"},
		{`{"type":"box","lo":[0,0,0],"hi":[1,1,1]}`, "space"},
		{`{"type":"points","points":[[0,1,0]],"star_convex":true}`, "space"},
	} {
		code, raw := s.do("POST", "/studies", base(c.space), nil)
		if code != 400 {
			t.Errorf("%s: %d %s, want 400", c.space, code, raw)
			continue
		}
		var e api.Error
		if json.Unmarshal(raw, &e) != nil || e.Err.Field != c.field {
			t.Errorf("%s: %s, want field %q", c.space, raw, c.field)
		}
	}
	// The encodings themselves are accepted: int 1 → 0, 2 → 0.5, 3 → 1.
	if code, raw := s.do("POST", "/studies", base(`{"type":"points","points":[[0,1,0],[0.5,0,1],[1,1,0]]}`), nil); code != 201 {
		t.Fatalf("exact encodings: %d %s", code, raw)
	}
}

// A study whose horizon was raised posts back with its raised_from: the copy
// restarts its algorithm at the same horizons, so it makes the original's
// decisions, before the raise and after.
func TestDefinitionRoundTripRaised(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	spec := toySpec("raised")
	spec.Horizon = 4
	orig := s.create(spec)
	obs := func(x []float64) api.Observation {
		return api.Observation{Reward: f64(toyF(x)), Costs: []float64{toyG(x)}}
	}
	var first []api.Suggestion
	for k := 0; k < 4; k++ {
		sg := s.ask(orig.ID, 1)[0]
		o := obs(sg.X)
		o.DecisionID = sg.DecisionID
		s.tell(orig.ID, o)
		first = append(first, sg)
	}
	var got api.Study
	if code, raw := s.do("PATCH", "/studies/"+orig.ID, api.StudyPatch{Horizon: 9}, &got); code != 200 || len(got.Spec.RaisedFrom) != 1 {
		t.Fatalf("PATCH: %d %s", code, raw)
	}
	again := got.Spec
	again.Name = "raised copy"
	var cp api.Study
	if code, raw := s.do("POST", "/studies", again, &cp); code != 201 {
		t.Fatalf("POST the definition of a raised study: %d %s", code, raw)
	}
	for k := 0; k < 9; k++ {
		b := s.ask(cp.ID, 1)[0]
		var a api.Suggestion
		if k < len(first) {
			a = first[k]
		} else {
			a = s.ask(orig.ID, 1)[0]
		}
		if a.DecisionID != b.DecisionID || !equalVec(a.X, b.X) {
			t.Fatalf("decision %d: original %v, copy %v", k+1, a.X, b.X)
		}
		o := obs(a.X)
		o.DecisionID = a.DecisionID
		if k >= len(first) {
			s.tell(orig.ID, o)
		}
		s.tell(cp.ID, o)
	}
}
