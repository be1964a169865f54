package service

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

func resumeSpec(high float64) api.StudySpec {
	lo, hi, one := 0.0, 1.0, 1.0
	return api.StudySpec{Name: "resumed", Parameters: []api.Parameter{
		{Name: "a", Type: "float", Low: &lo, High: &hi},
		{Name: "b", Type: "int", Low: &one, High: &high},
	}, Objective: api.Objective{Name: "y"}, Constraints: []api.Constraint{}, Seed: 3, Horizon: 20}
}

// POST /studies?load_if_exists=true answers the study of that name when
// its definition is the same (200, same ID, its decisions kept), and a 409
// naming the first differing field with both values when it is not.
func TestCreateLoadIfExists(t *testing.T) {
	s := newTestServer(t, store.NewMemory(), Options{})
	first := s.create(resumeSpec(2))
	s.ask(first.ID, 2)
	var again api.Study
	code, raw := s.do("POST", "/studies?load_if_exists=true", resumeSpec(2), &again)
	if code != http.StatusOK || again.ID != first.ID || again.Rounds != 2 {
		t.Fatalf("resume: %d %s; want 200 with study %s at 2 rounds", code, raw, first.ID)
	}
	code, raw = s.do("POST", "/studies?load_if_exists=true", resumeSpec(3), nil)
	wantError(t, code, raw, http.StatusConflict, "load_if_exists")
	if !strings.Contains(string(raw), `a different parameters[1].high (2 vs 3)`) {
		t.Fatalf("%s: want the first differing field with both values", raw)
	}
	other := resumeSpec(2)
	other.Constraints = []api.Constraint{{Name: "c", Threshold: 1}}
	code, raw = s.do("POST", "/studies?load_if_exists=true", other, nil)
	wantError(t, code, raw, http.StatusConflict, "load_if_exists")
	if !strings.Contains(string(raw), "constraints ([] vs [{") {
		t.Fatalf("%s: want the constraints named", raw)
	}
	// Without the flag the name is taken; a bad flag is named.
	code, raw = s.do("POST", "/studies", resumeSpec(2), nil)
	wantError(t, code, raw, http.StatusConflict, "name")
	code, raw = s.do("POST", "/studies?load_if_exists=maybe", resumeSpec(2), nil)
	wantError(t, code, raw, http.StatusBadRequest, "load_if_exists")
	// A horizon raised since is the same study.
	if code, raw := s.do("PATCH", "/studies/"+first.ID, api.StudyPatch{Horizon: 40}, nil); code != 200 {
		t.Fatalf("raise: %d %s", code, raw)
	}
	code, raw = s.do("POST", "/studies?load_if_exists=true", resumeSpec(2), &again)
	if code != http.StatusOK || again.ID != first.ID || again.Spec.Horizon != 40 {
		t.Fatalf("resume after a raise: %d %s", code, raw)
	}
	// A new name is created as without the flag.
	fresh := resumeSpec(2)
	fresh.Name = "fresh"
	code, raw = s.do("POST", "/studies?load_if_exists=true", fresh, nil)
	if code != http.StatusCreated {
		t.Fatalf("a new study with load_if_exists: %d %s", code, raw)
	}
}

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{`{"x":1,"y":[1,2]}`, `{"x":1,"y":[1,2]}`, ""},
		{`{"x":1,"y":[1,2]}`, `{"x":1,"y":[1,3]}`, "y[1] 2 3"},
		{`{"x":1}`, `{"x":1,"z":"a"}`, `z absent "a"`},
		{`{"x":{"p":1},"y":2}`, `{"x":{"p":"1"},"y":3}`, `x.p 1 "1"`},
		{`{"x":[1]}`, `{"x":[1,2]}`, "x [1] [1,2]"},
	} {
		p, va, vb, d := firstDiff([]byte(c.a), []byte(c.b))
		got := ""
		if d {
			got = p + " " + va + " " + vb
		}
		if got != c.want {
			t.Errorf("%s vs %s: %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
