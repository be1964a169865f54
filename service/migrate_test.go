package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// A definition of an earlier generation is migrated once: its
// generation's values become explicit parameters (and space.rounded for a
// native typed space before generation 8), its generation the current one;
// the migrated study decides as the unmigrated one did (the release
// databases, TestStudiesOfEarlierReleases), and a second open changes
// nothing.
func TestMigrateDefinitions(t *testing.T) {
	s := &api.StudySpec{Algorithm: "ckb-ts", Defaults: 4, Params: map[string]any{"pending": "bucb"}}
	if !migrateSpec(s) {
		t.Fatal("generation 4: not migrated")
	}
	want := map[string]any{"pending": "bucb", "constraint-fit": "threshold", "dual": "optimistic", "refine": "step", "refit": "inline",
		"region": "global", "region-pending": "global", "draw": "dense"}
	for k, v := range want {
		if s.Params[k] != v {
			t.Errorf("migrated params %v: %s = %v, want %v", s.Params, k, s.Params[k], v)
		}
	}
	if _, ok := s.Params["standardise"]; ok || s.Defaults != api.DefaultsPractical {
		t.Errorf("migrated %+v: standardise pinned (a generation-2 change) or generation %d", s.Params, s.Defaults)
	}
	if migrateSpec(s) {
		t.Error("a migrated definition migrated again")
	}
	lo, hi := 1.0, 8.0
	typed := &api.StudySpec{Algorithm: "rpol-ucb", Defaults: 7, Parameters: []api.Parameter{{Name: "n", Type: "int", Low: &lo, High: &hi}},
		Space: api.Space{Type: api.SpaceBox, Lo: []float64{0}, Hi: []float64{1}, Native: true}}
	if migrateSpec(typed); !typed.Space.Rounded {
		t.Error("a native typed space of generation 7 not kept rounded")
	}

	// Through the service: a stored generation-1 definition is rewritten
	// once, at its first open.
	mem := store.NewMemory()
	srv := newTestServer(t, mem, Options{})
	spec := toySpec("old")
	spec.Algorithm = "igp-ucb"
	created := srv.create(spec)
	rec, _ := mem.Get(context.Background(), created.ID)
	var old api.StudySpec
	json.Unmarshal(rec.Spec, &old)
	old.Defaults = 1 // as the release before the practical defaults stored it
	raw, _ := json.Marshal(old)
	if err := mem.SetSpec(context.Background(), created.ID, rec.Spec, raw); err != nil {
		t.Fatal(err)
	}
	var st api.Study
	srv.do("GET", "/studies/"+created.ID, nil, &st)
	if st.Spec.Defaults != api.DefaultsPractical || st.Spec.Params["standardise"] != "off" {
		t.Fatalf("GET after the migration: defaults %d, params %v", st.Spec.Defaults, st.Spec.Params)
	}
	rec, _ = mem.Get(context.Background(), created.ID)
	var stored api.StudySpec
	json.Unmarshal(rec.Spec, &stored)
	if stored.Defaults != api.DefaultsPractical || stored.Params["standardise"] != "off" {
		t.Fatalf("stored after the migration: %+v", stored)
	}
	srv.ask(created.ID, 1)
}

// The parameters of a fit (agent.FitParams) are pinned by a migration only
// where the study fits hyperparameters, refused in a new study that fits
// none, and dropped from a stored definition that holds them without a fit
// (earlier builds accepted them there and pinned them by migration, to no
// effect): that study decides as one created without them.
func TestFitParamsOnlyWithAFit(t *testing.T) {
	for _, c := range []struct {
		gen  int
		ps   map[string]any
		want bool // constraint-fit and refit pinned
	}{{1, nil, false}, {4, nil, true}, {4, map[string]any{"hyper": "fixed"}, false}, {3, map[string]any{"hyper": "fit"}, true}} {
		s := &api.StudySpec{Algorithm: "rpol-ucb", Defaults: c.gen, Params: c.ps}
		migrateSpec(s)
		for _, k := range agent.FitParams {
			if _, pinned := s.Params[k]; pinned != c.want {
				t.Errorf("generation %d, params %v: %s pinned %v, want %v (migrated %v)", c.gen, c.ps, k, pinned, c.want, s.Params)
			}
		}
	}

	mem := store.NewMemory()
	srv := newTestServer(t, mem, Options{})
	for _, k := range agent.FitParams {
		spec := toySpec("refused-" + k)
		spec.Params = map[string]any{"hyper": "fixed", k: "inline"}
		if k == "constraint-fit" {
			spec.Params[k] = "threshold"
		}
		code, raw := srv.do("POST", "/studies", spec, nil)
		wantError(t, code, raw, 400, "params."+k)
	}

	// A definition stored by an earlier build: generation 1 migrated with
	// its pins, or hyper = fixed set with them.
	clean := toySpec("clean")
	clean.Params = map[string]any{"hyper": "fixed"}
	want := play(srv, srv.create(clean).ID, 30)
	clean.Name = "old-build"
	old := srv.create(clean)
	rec, _ := mem.Get(context.Background(), old.ID)
	var spec api.StudySpec
	json.Unmarshal(rec.Spec, &spec)
	spec.Params["constraint-fit"], spec.Params["refit"] = "threshold", "inline"
	raw, _ := json.Marshal(spec)
	if err := mem.SetSpec(context.Background(), old.ID, rec.Spec, raw); err != nil {
		t.Fatal(err)
	}
	srv2 := newTestServer(t, mem, Options{}) // a restart: the study is opened from the store
	got := play(srv2, old.ID, 30)
	for i := range want {
		if !slices.Equal(got[i].X, want[i].X) {
			t.Fatalf("decision %d: %v, the study without the pins made %v", i, got[i].X, want[i].X)
		}
	}
	rec, _ = mem.Get(context.Background(), old.ID)
	var stored api.StudySpec
	json.Unmarshal(rec.Spec, &stored)
	if _, ok := stored.Params["constraint-fit"]; ok || stored.Params["refit"] != nil || stored.Params["hyper"] != "fixed" {
		t.Fatalf("stored after the migration: %v", stored.Params)
	}
}

// The API's description of defaults names the current generation.
func TestOpenAPINamesTheCurrentGeneration(t *testing.T) {
	if want := fmt.Sprintf("absent on creation = %d, the current practical defaults", api.DefaultsPractical); !strings.Contains(string(openapiDoc), want) {
		t.Errorf("openapi.json does not say %q", want)
	}
}
