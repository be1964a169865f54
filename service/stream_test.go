package service

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestExportStreams: Export writes a study of more decisions
// than a chunk a chunk at a time; its JSON is byte for byte what encoding
// the whole list gave, its CSV one row per decision, and decisions.csv
// answers the same.
func TestExportStreams(t *testing.T) {
	srv := New(store.NewMemory(), Options{})
	defer srv.Close()
	s := startServer(t, srv, nil)
	spec := toySpec("stream")
	spec.Horizon = 0
	st := s.create(spec)
	n := 0
	for n < exportChunk*2+50 {
		n += len(s.ask(st.ID, 100))
	}
	for id := int64(1); id <= int64(n); id += 7 {
		s.tell(st.ID, api.Observation{DecisionID: id, Reward: f64(float64(id) / 10), Costs: []float64{-1}})
	}
	s.do("DELETE", fmt.Sprintf("/studies/%s/decisions/%d", st.ID, 3), nil, nil)
	ctx := context.Background()
	var got bytes.Buffer
	if err := srv.Export(ctx, st.ID, FormatJSON, &got); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	err := srv.withStudy(ctx, st.ID, true, func(l *live) error {
		recs := make([]api.DecisionRecord, len(l.decs))
		for i := range l.decs {
			recs[i] = l.recordOf(i)
		}
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		return enc.Encode(api.DecisionList{Decisions: recs})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("streamed JSON differs from the encoded list (%d vs %d bytes)", got.Len(), want.Len())
	}
	code, raw := s.do("GET", "/studies/"+st.ID+"/decisions.csv", nil, nil)
	if code != 200 {
		t.Fatalf("decisions.csv: %d %s", code, raw)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil || len(rows) != n+1 {
		t.Fatalf("decisions.csv: %d rows, want %d (%v)", len(rows), n+1, err)
	}
	for i, r := range rows[1:] {
		if r[0] != fmt.Sprint(i+1) {
			t.Fatalf("row %d is decision %s", i+1, r[0])
		}
	}
	if rows[3][3] != "abandoned" || rows[8][3] != "observed" || rows[8][8] != "0.8" {
		t.Fatalf("rows 3 and 8: %v %v", rows[3], rows[8])
	}
	// An empty study, and a missing one (still an error answer).
	empty := s.create(toySpec("stream-empty"))
	got.Reset()
	if err := srv.Export(ctx, empty.ID, FormatJSON, &got); err != nil || got.String() != "{\n  \"decisions\": []\n}\n" {
		t.Fatalf("empty export: %q %v", got.String(), err)
	}
	code, raw = s.do("GET", "/studies/nope/decisions.csv", nil, nil)
	wantError(t, code, raw, 404, "id")
	if strings.Contains(string(raw), "decision_id") {
		t.Fatal("an error answer carries CSV")
	}
}

// TestStudyPages: GET /studies answers a page at a time
// (default 50, ?limit= up to 1000), oldest first, with "next" and a Link
// header to the next page; the Go client's Studies follows them.
func TestStudyPages(t *testing.T) {
	mem := store.NewMemory()
	srv := New(mem, Options{})
	defer srv.Close()
	s := startServer(t, srv, mem)
	var ids []string
	for i := 0; i < 2*DefaultStudyPage+7; i++ {
		ids = append(ids, s.create(toySpec(fmt.Sprintf("page-%03d", i))).ID)
	}
	var got []string
	after, pages := "", 0
	for {
		path := "/studies"
		if after != "" {
			path += "?after=" + after
		}
		code, h, raw := send(t, s.url, "GET", path, "")
		var l api.StudyList
		if code != 200 || json.Unmarshal(raw, &l) != nil {
			t.Fatalf("%s: %d %s", path, code, raw)
		}
		pages++
		for _, st := range l.Studies {
			got = append(got, st.ID)
		}
		if l.Next == "" {
			if h.Get("Link") != "" || len(l.Studies) != 7 {
				t.Fatalf("last page: %d studies, Link %q", len(l.Studies), h.Get("Link"))
			}
			break
		}
		if len(l.Studies) != DefaultStudyPage || !strings.Contains(h.Get("Link"), "after="+l.Next) || !strings.Contains(h.Get("Link"), `rel="next"`) {
			t.Fatalf("page %d: %d studies, Link %q", pages, len(l.Studies), h.Get("Link"))
		}
		after = l.Next
	}
	if pages != 3 || fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Fatalf("%d pages gave %d studies, want 3 pages of the %d in creation order", pages, len(got), len(ids))
	}
	var l api.StudyList
	if code, raw := s.do("GET", "/studies?limit=1000", nil, &l); code != 200 || len(l.Studies) != len(ids) || l.Next != "" {
		t.Fatalf("limit=1000: %d %d studies, next %q %s", code, len(l.Studies), l.Next, raw[:min(len(raw), 200)])
	}
	if code, _ := s.do("GET", "/studies?name=page-042", nil, &l); code != 200 || len(l.Studies) != 1 || l.Studies[0].ID != ids[42] {
		t.Fatalf("by name: %d %+v", code, l)
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "limit=x": "limit", "after=%21%21": "after", "after=YWJj": "after"} {
		code, raw := s.do("GET", "/studies?"+q, nil, nil)
		wantError(t, code, raw, 400, field)
	}
	all, err := client.New(s.url).Studies(context.Background())
	if err != nil || len(all) != len(ids) {
		t.Fatalf("client.Studies: %d studies, %v", len(all), err)
	}
	// A page stays valid when a study before its cursor is deleted.
	var first api.StudyList
	s.do("GET", "/studies?limit=10", nil, &first)
	s.do("DELETE", "/studies/"+ids[3], nil, nil)
	var second api.StudyList
	s.do("GET", "/studies?limit=10&after="+first.Next, nil, &second)
	if second.Studies[0].ID != ids[10] {
		t.Fatalf("after a delete the next page starts at %s, want %s", second.Studies[0].ID, ids[10])
	}
}
