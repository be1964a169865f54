package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Resuming a study by name: POST /studies?load_if_exists=true answers the
// stored study (200) when one of that name exists with the same definition
// (Optuna's create_study(load_if_exists=True)), so a script re-run finds its
// study again; a different definition is a 409 naming the first field that
// differs, with both values.

// wantsResume reads the load_if_exists query parameter of POST /studies.
func wantsResume(r *http.Request) (bool, *apiError) {
	q := r.URL.Query()
	if !q.Has("load_if_exists") {
		return false, nil
	}
	v := q.Get("load_if_exists")
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalid("load_if_exists", "= %q: want true or false", clip(v, 40))
	}
	return b, nil
}

// resumeStudy answers a create whose name is taken, asked with
// load_if_exists: spec is the request's definition, decoded and completed
// as a new study's would be.
func (s *Server) resumeStudy(w http.ResponseWriter, r *http.Request, spec api.StudySpec) error {
	recs, err := s.st.ListPage(r.Context(), store.ListQuery{Name: spec.Name, Limit: 1})
	if err != nil {
		return err
	}
	if len(recs) == 0 { // deleted since the create found it
		return conflict("duplicate_name", "name", "a study named %q existed a moment ago and is gone: create it again", spec.Name)
	}
	rec, err := s.migrated(r.Context(), recs[0])
	if err != nil {
		return err
	}
	st, err := studyOf(rec)
	if err != nil {
		return err
	}
	if hs := st.Spec.RaisedFrom; len(hs) > 0 && spec.Horizon == hs[0] {
		// The horizon was raised since the study was created with this one.
		spec.Horizon, spec.RaisedFrom = st.Spec.Horizon, st.Spec.RaisedFrom
	}
	if st.Spec.Evaluations == "" {
		st.Spec.Evaluations = learner.Live // stored before the field existed: live
	}
	if st.Spec.Evaluations != spec.Evaluations {
		// Named first: the algorithm the service chose follows from it.
		return conflict("definition_differs", "load_if_exists", "study %q exists with a different evaluations (%q vs %q)",
			spec.Name, st.Spec.Evaluations, spec.Evaluations)
	}
	have, err := json.Marshal(st.Spec)
	if err != nil {
		return err
	}
	want, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	if path, a, b, differ := firstDiff(have, want); differ {
		return conflict("definition_differs", "load_if_exists", "study %q exists with a different %s (%s vs %s)",
			spec.Name, path, clip(a, 200), clip(b, 200))
	}
	w.Header().Set("Location", "/studies/"+rec.ID)
	return writeJSON(w, http.StatusOK, st)
}

// jsonNode is a JSON value with its objects' keys in document order.
type jsonNode struct {
	keys []string
	vals map[string]*jsonNode // object
	elts []*jsonNode          // array
	raw  string               // anything else, as written
	kind byte                 // '{', '[' or 0
}

func parseNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &jsonNode{kind: '{', vals: map[string]*jsonNode{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.vals[k] = v
		}
		_, err = dec.Token()
		return n, err
	case json.Delim('['):
		n := &jsonNode{kind: '['}
		for dec.More() {
			v, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.elts = append(n.elts, v)
		}
		_, err = dec.Token()
		return n, err
	}
	b, _ := json.Marshal(tok)
	return &jsonNode{raw: string(b)}, nil
}

// String is the node as compact JSON.
func (n *jsonNode) String() string {
	if n == nil {
		return "absent"
	}
	var buf bytes.Buffer
	switch n.kind {
	case '{':
		buf.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			buf.WriteString(n.vals[k].String())
		}
		buf.WriteByte('}')
	case '[':
		buf.WriteByte('[')
		for i, e := range n.elts {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(e.String())
		}
		buf.WriteByte(']')
	default:
		buf.WriteString(n.raw)
	}
	return buf.String()
}

// firstDiff finds the first place, in document order, where the JSON
// values a and b differ: its path ("parameters[1].high") and both values
// ("absent" for a missing key).
func firstDiff(a, b []byte) (path, va, vb string, differ bool) {
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	na, err1 := parseNode(da)
	nb, err2 := parseNode(db)
	if err1 != nil || err2 != nil {
		if bytes.Equal(a, b) {
			return "", "", "", false
		}
		return "definition", string(a), string(b), true
	}
	return diffNodes(na, nb, "")
}

func diffNodes(a, b *jsonNode, path string) (string, string, string, bool) {
	at := func(sub string) string {
		if path == "" {
			return sub
		}
		return path + "." + sub
	}
	switch {
	case a == nil || b == nil || a.kind != b.kind:
		if a.String() == b.String() {
			return "", "", "", false
		}
	case a.kind == '{':
		for _, k := range a.keys {
			if p, x, y, d := diffNodes(a.vals[k], b.vals[k], at(k)); d {
				return p, x, y, d
			}
		}
		for _, k := range b.keys {
			if _, ok := a.vals[k]; !ok {
				return at(k), "absent", b.vals[k].String(), true
			}
		}
		return "", "", "", false
	case a.kind == '[':
		for i := range min(len(a.elts), len(b.elts)) {
			if p, x, y, d := diffNodes(a.elts[i], b.elts[i], fmt.Sprintf("%s[%d]", path, i)); d {
				return p, x, y, d
			}
		}
		if len(a.elts) != len(b.elts) {
			return path, a.String(), b.String(), true
		}
		return "", "", "", false
	case a.raw == b.raw:
		return "", "", "", false
	}
	if path == "" {
		path = "definition"
	}
	return path, a.String(), b.String(), true
}
