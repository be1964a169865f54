package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Defaults evolve by migration (as Optuna's storage versions and Alembic
// migrate schemas): a study of an earlier defaults generation is rewritten
// once, when it is first opened, to the current generation with what its
// own generation resolved made explicit — the parameters' earlier values
// (their declarations' bandit.Change, generations.go) and, for a native space of typed parameters before
// api.DefaultsMixed, space.rounded. After it the request path builds the
// agent from the stored definition alone.

// migrateSpec migrates s to api.DefaultsPractical and reports whether it
// changed it.
func migrateSpec(s *api.StudySpec) bool { return defaultGenerations.migrateSpec(s) }

// migrateSpec migrates s to generation g.current.
func (g generations) migrateSpec(s *api.StudySpec) bool {
	if s.Defaults >= g.current {
		return false
	}
	ps, e := params(s.Params)
	if e != nil {
		return false // refused when built, naming the parameter
	}
	set := make(map[string]bool, len(ps))
	for k := range ps {
		set[k] = true
	}
	g.pin(s.Defaults, s.Algorithm, ps)
	keys := make([]string, 0, len(ps))
	for k := range ps {
		if !set[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 0 && s.Params == nil {
		s.Params = map[string]any{}
	}
	for _, k := range keys {
		s.Params[k] = ps[k]
	}
	if len(s.Parameters) > 0 && s.Space.Native && max(s.Defaults, 1) < api.DefaultsMixed {
		s.Space.Rounded = true
	}
	s.Defaults = g.current
	return true
}

// migrateStored migrates a stored definition: migrateSpec, and the
// parameters of a fit (agent.FitParams) dropped where the study fits
// none — earlier builds accepted them there, and pinned them by migration,
// without effect; now they are refused.
func migrateStored(s *api.StudySpec) bool {
	changed := migrateSpec(s)
	if ps, e := params(s.Params); e != nil || fitsHyper(ps) {
		return changed
	}
	for _, k := range agent.FitParams {
		if _, ok := s.Params[k]; ok {
			delete(s.Params, k)
			changed = true
		}
	}
	return changed
}

// migrated returns rec with its definition migrated (migrateStored) and
// stored: the store's compare-and-set makes one replica's migration the
// one every replica reads.
func (s *Server) migrated(ctx context.Context, rec store.Study) (store.Study, error) {
	for range 3 {
		var spec api.StudySpec
		if err := json.Unmarshal(rec.Spec, &spec); err != nil {
			return rec, fmt.Errorf("study %s: stored definition: %w", rec.ID, err)
		}
		if !migrateStored(&spec) {
			return rec, nil
		}
		raw, err := json.Marshal(spec)
		if err != nil {
			return rec, err
		}
		err = s.st.SetSpec(ctx, rec.ID, rec.Spec, raw)
		if err == nil {
			s.log.Info("study definition migrated", "study", rec.ID, "generation", api.DefaultsPractical)
			rec.Spec = raw
			return rec, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return rec, err
		}
		if rec, err = s.st.Get(ctx, rec.ID); err != nil { // another replica migrated it, or changed it
			return rec, err
		}
	}
	return rec, fmt.Errorf("study %s: the definition kept changing during its migration", rec.ID)
}
