package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// LoadOrCreateStudy creates a study, resumes it with its decisions when run
// again with the same definition, and refuses another definition naming
// the first differing field with both values.
func TestLoadOrCreateStudy(t *testing.T) {
	srv := httptest.NewServer(service.New(store.NewMemory(), service.Options{}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL)
	spec := func(hi float64) api.StudySpec {
		return api.StudySpec{Name: "x", Space: api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, hi}, Candidates: 16},
			Objective: api.Objective{Name: "y"}, Constraints: []api.Constraint{{Name: "c", Threshold: 1}}, Algorithm: "config", Seed: 1, Horizon: 10}
	}
	first, err := c.LoadOrCreateStudy(ctx, spec(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Suggest(ctx, first.ID, 1); err != nil {
		t.Fatal(err)
	}
	again, err := c.LoadOrCreateStudy(ctx, spec(2))
	if err != nil || again.ID != first.ID || again.Rounds != 1 {
		t.Fatalf("resume: %+v, %v; want study %s with its 1 round", again, err, first.ID)
	}
	_, err = c.LoadOrCreateStudy(ctx, spec(3))
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Status != 409 || ae.Err.Code != "definition_differs" ||
		!strings.Contains(ae.Err.Message, "space.hi[1] (2 vs 3)") {
		t.Fatalf("another definition: %v; want a 409 naming space.hi[1] (2 vs 3)", err)
	}
	if _, err := c.CreateStudy(ctx, spec(2)); !errors.As(err, &ae) || ae.Err.Code != "duplicate_name" {
		t.Fatalf("CreateStudy of a taken name: %v, want duplicate_name", err)
	}
}
