package service

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Export formats of Server.Export and GET /studies/{id}/decisions.csv.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// Lookup finds a study by ID or, failing that, by name.
func (s *Server) Lookup(ctx context.Context, nameOrID string) (api.Study, error) {
	rec, err := s.st.Get(ctx, nameOrID)
	if err == nil {
		return studyOf(rec)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return api.Study{}, err
	}
	recs, err := s.st.ListPage(ctx, store.ListQuery{Name: nameOrID, Limit: 1})
	if err != nil {
		return api.Study{}, err
	}
	for _, rec := range recs {
		return studyOf(rec)
	}
	return api.Study{}, notFound("study", "no study with ID or name %q", nameOrID)
}

// exportChunk is the number of decisions Export copies under the study's
// lock at a time: between chunks the lock is free for asks and tells, and
// the export holds one chunk in memory, not the study's history.
const exportChunk = 1000

// Export writes every decision of the study with ID id to w: as CSV (a
// header, then one row per decision; see GET /studies/{id}/decisions.csv)
// or as JSON (an api.DecisionList holding every decision). It streams: the
// decisions made when it starts are copied and written a chunk at a time.
func (s *Server) Export(ctx context.Context, id, format string, w io.Writer) error {
	if format != FormatCSV && format != FormatJSON {
		return invalid("format", "= %q: accepted are %q, %q", format, FormatCSV, FormatJSON)
	}
	var st api.StudySpec
	total := 0
	recs := make([]api.DecisionRecord, 0, exportChunk)
	chunk := func(from int, first bool) error {
		recs = recs[:0]
		return s.withStudy(ctx, id, first, func(l *live) error {
			if first {
				st, total = l.spec, len(l.decs)
			}
			for i := from; i < min(from+exportChunk, total, len(l.decs)); i++ {
				recs = append(recs, l.recordOf(i))
			}
			return nil
		})
	}
	if err := chunk(0, true); err != nil {
		return err
	}
	var cw *csv.Writer
	if format == FormatCSV {
		cw = csv.NewWriter(w)
		if err := cw.Write(CSVHeader(&st)); err != nil {
			return err
		}
	} else if total == 0 {
		_, err := io.WriteString(w, "{\n  \"decisions\": []\n}\n")
		return err
	} else if _, err := io.WriteString(w, "{\n  \"decisions\": [\n    "); err != nil {
		return err
	}
	for from := 0; from < total; from += exportChunk {
		if from > 0 {
			if err := chunk(from, false); err != nil {
				return err
			}
		}
		if len(recs) == 0 {
			break // the study changed under us (deleted and restored shorter)
		}
		if cw != nil {
			if err := writeCSVRows(cw, &st, recs); err != nil {
				return err
			}
			continue
		}
		for i := range recs {
			// The layout of json.Encoder with SetIndent("", "  ") of an
			// api.DecisionList, one record at a time.
			b, err := json.MarshalIndent(&recs[i], "    ", "  ")
			if err != nil {
				return err
			}
			if from+i > 0 {
				if _, err := io.WriteString(w, ",\n    "); err != nil {
					return err
				}
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	if cw != nil {
		cw.Flush()
		return cw.Error()
	}
	_, err := io.WriteString(w, "\n  ]\n}\n")
	return err
}

// CSVHeader is the header of a study's decisions.csv: decision_id, round,
// arm, status (pending, observed, failed or abandoned), created and observed (RFC
// 3339, UTC), then the parameters by name (params.NAME) or the point's
// coordinates (x[i]), the objective metric (reward), and each constraint
// metric (costs.NAME), as measured, and a failed evaluation's reason.
func CSVHeader(s *api.StudySpec) []string {
	h := []string{"decision_id", "round", "arm", "status", "created", "observed"}
	if len(s.Parameters) > 0 {
		for _, p := range s.Parameters {
			h = append(h, "params."+p.Name)
		}
	} else {
		for i := 0; i < spaceDim(&s.Space); i++ {
			h = append(h, fmt.Sprintf("x[%d]", i))
		}
	}
	h = append(h, "reward")
	for _, c := range s.Constraints {
		h = append(h, "costs."+c.Name)
	}
	return append(h, "reason")
}

// writeCSVRows writes one row per decision and flushes them.
func writeCSVRows(cw *csv.Writer, s *api.StudySpec, recs []api.DecisionRecord) error {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := spaceDim(&s.Space)
	for _, r := range recs {
		status := "pending"
		switch {
		case r.Abandoned:
			status = "abandoned"
		case r.Failed:
			status = "failed"
		case r.Reward != nil && (len(s.Constraints) == 0 || r.Costs != nil):
			status = "observed"
		}
		obs := ""
		if r.Observed != nil {
			obs = r.Observed.UTC().Format(time.RFC3339Nano)
		}
		row := []string{strconv.FormatInt(r.DecisionID, 10), strconv.Itoa(r.Round), strconv.Itoa(r.Arm), status,
			r.Created.UTC().Format(time.RFC3339Nano), obs}
		if len(s.Parameters) > 0 {
			for _, p := range s.Parameters {
				v := r.Params[p.Name]
				if str, ok := v.(string); ok {
					row = append(row, csvText(str))
				} else {
					row = append(row, fmt.Sprint(v))
				}
			}
		} else {
			for i := 0; i < d; i++ {
				v := ""
				if i < len(r.X) { // a contextual study's points have space.dim coordinates
					v = num(r.X[i])
				}
				row = append(row, v)
			}
		}
		if r.Reward != nil {
			row = append(row, num(*r.Reward))
		} else {
			row = append(row, "")
		}
		for j := range s.Constraints {
			if j < len(r.Costs) {
				row = append(row, num(r.Costs[j]))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, csvText(r.Reason))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvText guards a text cell against formula injection: a cell that a
// spreadsheet would read as a formula (starting with =, +, -, @, tab or
// carriage return) gets a leading apostrophe (OWASP, "CSV Injection"). A
// plain number such as "-1" or "+2.5e3" is not a formula and is written
// as it is, so a categorical value reads back unchanged.
func csvText(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && plainNumber(s) {
		return s
	}
	return "'" + s
}

// plainNumber reports whether s is a decimal number with an optional sign,
// fraction and exponent (what ParseFloat accepts, without "Inf", "NaN",
// hexadecimal or underscores).
func plainNumber(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789+-.eE", c) {
			return false
		}
	}
	return true
}

func (s *Server) decisionsCSV(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	// The CSV streams: the headers go with the first bytes, so an error
	// before them (no such study) is still an error answer; an error after
	// them aborts the answer (the client sees a truncated transfer, never
	// a file that looks complete).
	sw := &startWriter{w: w, start: func() {
		h := w.Header()
		h.Set("Content-Type", "text/csv; charset=utf-8")
		h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", id+"-decisions.csv"))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
	}}
	err := s.Export(r.Context(), id, FormatCSV, sw)
	if err != nil && sw.started {
		s.log.Warn("decisions.csv aborted", "study", id, "err", err)
		panic(http.ErrAbortHandler)
	}
	return err
}

// startWriter calls start before the first write.
type startWriter struct {
	w       io.Writer
	start   func()
	started bool
}

func (s *startWriter) Write(b []byte) (int, error) {
	if !s.started {
		s.started = true
		s.start()
	}
	return s.w.Write(b)
}
