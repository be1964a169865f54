// Study CRUD: create, list (paged), get, patch, delete, and a study's decisions and summary.

package service

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

func newStudyID() string {
	var b [8]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// decodeStudy decodes and validates a study definition (also the fuzz
// target's entry point).
func decodeStudy(body []byte) (api.StudySpec, *built, *apiError) {
	var spec api.StudySpec
	if body == nil {
		return spec, nil, invalid("body", "a study definition is required")
	}
	if e := decodeJSON(body, &spec); e != nil {
		return spec, nil, e
	}
	if spec.Defaults == 0 {
		spec.Defaults = api.DefaultsPractical
	}
	if spec.Defaults < 1 || spec.Defaults > api.DefaultsPractical {
		return spec, nil, invalid("defaults", "= %d: must be from 1 (the papers' settings) to %d (the current practical defaults), or absent", spec.Defaults, api.DefaultsPractical)
	}
	if e := resolveAlgorithm(&spec); e != nil {
		return spec, nil, e
	}
	// A box with neither native nor candidates given is optimised as a box
	// by an algorithm whose declaration takes one (nativeByDefault); the
	// others get the candidate set.
	if as, err := agent.Lookup(spec.Algorithm); err == nil && as.Can.Takes(agent.DomainBox) &&
		!spec.Space.Native && nativeByDefault(&spec) && (len(spec.Parameters) == 0 || spec.Space.Type == "") {
		spec.Space.Native = true
	}
	if e := normalize(&spec); e != nil {
		return spec, nil, e
	}
	migrateSpec(&spec) // an earlier generation asked for: its choices explicit
	b, e := build(&spec)
	if e != nil {
		return spec, nil, e
	}
	if _, e := b.newAgent(&spec, firstEpoch(&spec), spec.Seed); e != nil {
		return spec, nil, e
	}
	return spec, b, nil
}

func (s *Server) createStudy(w http.ResponseWriter, r *http.Request) error {
	resume, e := wantsResume(r)
	if e != nil {
		return e
	}
	body, e := readBody(r)
	if e != nil {
		return e
	}
	spec, _, e := decodeStudy(body)
	if e != nil {
		return e
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	rec := store.Study{ID: newStudyID(), Name: spec.Name, Spec: raw, Created: time.Now().UTC().Truncate(time.Microsecond)}
	if err := s.st.Create(r.Context(), rec); err != nil {
		if errors.Is(err, store.ErrDuplicate) && resume {
			return s.resumeStudy(w, r, spec)
		}
		if errors.Is(err, store.ErrDuplicate) {
			return conflict("duplicate_name", "name", "a study named %q exists", spec.Name)
		}
		return err
	}
	w.Header().Set("Location", "/studies/"+rec.ID)
	return writeJSON(w, http.StatusCreated, api.Study{ID: rec.ID, Created: rec.Created, Spec: spec})
}

func studyOf(rec store.Study) (api.Study, error) {
	st := api.Study{ID: rec.ID, Created: rec.Created, Rounds: int(rec.Asks)}
	if err := json.Unmarshal(rec.Spec, &st.Spec); err != nil {
		return st, fmt.Errorf("study %s: stored definition: %w", rec.ID, err)
	}
	return st, nil
}

// DefaultStudyPage is the default page size of GET /studies.
const DefaultStudyPage = 50

// listStudies answers GET /studies a page at a time (?limit=, default
// DefaultStudyPage, at most MaxPageSize; ?after= the "next" of the previous
// page), oldest first; "next" and a Link header (RFC 8288, rel="next") name
// the following page.
func (s *Server) listStudies(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	name, byName := q.Get("name"), q.Has("name")
	if byName {
		if e := checkName("name", name); e != nil {
			return e
		}
	}
	limit := DefaultStudyPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return invalid("limit", "= %q: must be an integer in [1, %d]", clip(v, 40), MaxPageSize)
		}
		limit = n
	}
	var after store.Cursor
	if v := q.Get("after"); v != "" {
		c, ok := parseCursor(v)
		if !ok {
			return invalid("after", "= %q: not a cursor of this API (use the \"next\" of the previous page)", clip(v, 80))
		}
		after = c
	}
	// One more than the page: whether there is a next page.
	recs, err := s.st.ListPage(r.Context(), store.ListQuery{After: after, Limit: limit + 1, Name: name})
	if err != nil {
		return err
	}
	out := api.StudyList{Studies: make([]api.Study, 0, min(len(recs), limit))}
	for i, rec := range recs {
		if i == limit {
			last := recs[limit-1]
			out.Next = formatCursor(store.Cursor{Created: last.Created, ID: last.ID})
			break
		}
		st, err := studyOf(rec)
		if err != nil {
			return err
		}
		out.Studies = append(out.Studies, st)
	}
	if out.Next != "" {
		nq := url.Values{"limit": {strconv.Itoa(limit)}, "after": {out.Next}}
		if byName {
			nq.Set("name", name)
		}
		w.Header().Set("Link", "</studies?"+nq.Encode()+`>; rel="next"`)
	}
	return writeJSON(w, http.StatusOK, out)
}

// formatCursor encodes a position in the list of studies: opaque to
// clients.
func formatCursor(c store.Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.Created.UnixNano(), 10) + "." + c.ID))
}

func parseCursor(v string) (store.Cursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return store.Cursor{}, false
	}
	ns, id, ok := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return store.Cursor{}, false
	}
	return store.Cursor{Created: time.Unix(0, n).UTC(), ID: id}, true
}

func studyNotFound(id string) *apiError {
	return notFound("id", "no study %q", id)
}

func (s *Server) getStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	rec, err := s.st.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return studyNotFound(id)
	}
	if err != nil {
		return err
	}
	if rec, err = s.migrated(r.Context(), rec); err != nil {
		return err
	}
	st, err := studyOf(rec)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

func (s *Server) deleteStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if l := s.cache.get(id); l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.stale = true
		s.cache.remove(l)
	}
	err := s.st.Delete(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return studyNotFound(id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// patchStudy answers PATCH /studies/{id}: it raises the horizon of a study
// that has one. The algorithm's run up to the old horizon is untouched; the
// rounds after it are served by a new run planned for the difference (its
// schedules see that horizon).
func (s *Server) patchStudy(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	body, e := readBody(r)
	if e != nil {
		return e
	}
	if body == nil {
		return invalid("body", "a patch {\"horizon\": N} is required")
	}
	var p api.StudyPatch
	if e := decodeJSON(body, &p); e != nil {
		return e
	}
	var out api.Study
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		rec, err := s.st.Get(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			return studyNotFound(id)
		}
		if err != nil {
			return err
		}
		var sp api.StudySpec
		if err := json.Unmarshal(rec.Spec, &sp); err != nil {
			return fmt.Errorf("study %s: stored definition: %w", id, err)
		}
		switch {
		case sp.Horizon == 0:
			return conflict("open_ended", "horizon", "the study is open-ended (no horizon): there is nothing to raise")
		case p.Horizon <= sp.Horizon || p.Horizon > MaxHorizon:
			return invalid("horizon", "= %d: must be above the current horizon %d and at most %d", p.Horizon, sp.Horizon, MaxHorizon)
		}
		sp.RaisedFrom = append(sp.RaisedFrom, sp.Horizon)
		sp.Horizon = p.Horizon
		raw, err := json.Marshal(sp)
		if err != nil {
			return err
		}
		if err := s.st.SetSpec(r.Context(), id, rec.Spec, raw); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return conflict("concurrent_update", "horizon", "the study's definition changed meanwhile: read it again and retry")
			}
			if errors.Is(err, store.ErrNotFound) {
				return studyNotFound(id)
			}
			return err
		}
		l.spec.Horizon, l.spec.RaisedFrom = sp.Horizon, sp.RaisedFrom
		out = api.Study{ID: id, Created: rec.Created, Spec: sp, Rounds: len(l.decs)}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) decisions(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	q := r.URL.Query()
	after, limit := int64(0), 100
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return invalid("after", "= %q: must be a decision ID ≥ 0", v)
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return invalid("limit", "= %q: must be an integer in [1, %d]", v, MaxPageSize)
		}
		limit = n
	}
	var out api.DecisionList
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		out.Decisions = []api.DecisionRecord{}
		for i := after; i < int64(len(l.decs)) && len(out.Decisions) < limit; i++ {
			out.Decisions = append(out.Decisions, l.recordOf(int(i)))
		}
		if n := len(out.Decisions); n > 0 && out.Decisions[n-1].DecisionID < int64(len(l.decs)) {
			out.Next = out.Decisions[n-1].DecisionID
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) summary(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var out api.Summary
	err := s.withStudy(r.Context(), id, true, func(l *live) error {
		out = l.summary()
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
