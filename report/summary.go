package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
)

// MarshalSummary returns s as summary.json content: indented JSON in the
// DESIGN.md shape, ending with a newline. A nil Params or Algorithms map is
// written as an empty object. NaN and infinite values cannot be represented
// in JSON; they give an error naming the algorithm and the field.
func MarshalSummary(s *Summary) ([]byte, error) {
	if s == nil {
		return nil, errors.New("nil summary")
	}
	if err := checkSummaryFinite(s); err != nil {
		return nil, err
	}
	out := *s
	if out.Params == nil {
		out.Params = map[string]string{}
	}
	if out.Algorithms == nil {
		out.Algorithms = map[string]Algorithm{}
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func checkSummaryFinite(s *Summary) error {
	names := make([]string, 0, len(s.Algorithms))
	for name := range s.Algorithms {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := s.Algorithms[name]
		for _, key := range metricOrder {
			if st, ok := a.Metric(key); ok {
				if err := checkStatFinite(name, key, st); err != nil {
					return err
				}
			}
		}
		keys := make([]string, 0, len(a.Diagnostics))
		for k := range a.Diagnostics {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := checkStatFinite(name, "diagnostic "+k, a.Diagnostics[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkStatFinite(name, key string, st Stat) error {
	if bad(st.Mean) {
		return fmt.Errorf("algorithm %q: %s mean is %v (JSON needs finite numbers)", name, key, st.Mean)
	}
	if bad(st.Stderr) {
		return fmt.Errorf("algorithm %q: %s stderr is %v (JSON needs finite numbers)", name, key, st.Stderr)
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"median", st.Median}, {"q1", st.Q1}, {"q3", st.Q3}} {
		if bad(f.v) {
			return fmt.Errorf("algorithm %q: %s %s is %v (JSON needs finite numbers)", name, key, f.field, f.v)
		}
	}
	for i, v := range st.PerTrial {
		if bad(v) {
			return fmt.Errorf("algorithm %q: %s per_trial[%d] is %v (JSON needs finite numbers)", name, key, i, v)
		}
	}
	return nil
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

// WriteSummary writes s to path as summary.json (see [MarshalSummary]).
// Errors name the file.
func WriteSummary(path string, s *Summary) error {
	b, err := MarshalSummary(s)
	if err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// summaryFile is Summary as found on disk: params may be given as JSON
// numbers or booleans (DESIGN.md's example writes "h": 0.5); they are kept as
// their JSON text. The outer Params field shadows Summary.Params.
type summaryFile struct {
	Summary
	Params map[string]json.RawMessage `json:"params"`
}

// ReadSummary reads a summary.json written by [Write] or [WriteSummary].
// Parameter values that are JSON numbers or booleans rather than strings are
// accepted and kept as their JSON text ("0.5", "true"). Errors name the file
// and, for malformed JSON, the line and column.
func ReadSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: reading summary: %w", err)
	}
	var f summaryFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("report: %s: %s", path, describeJSONError(data, err))
	}
	s := f.Summary
	if f.Params != nil {
		s.Params = make(map[string]string, len(f.Params))
		for k, raw := range f.Params {
			v, err := paramString(raw)
			if err != nil {
				return nil, fmt.Errorf("report: %s: params[%q]: %v", path, k, err)
			}
			s.Params[k] = v
		}
	}
	switch {
	case s.Problem == "":
		return nil, fmt.Errorf("report: %s: missing \"problem\"", path)
	case s.Horizon <= 0:
		return nil, fmt.Errorf("report: %s: \"horizon\" is %d, want a positive round count", path, s.Horizon)
	case s.Trials <= 0:
		return nil, fmt.Errorf("report: %s: \"trials\" is %d, want a positive count", path, s.Trials)
	case s.Algorithms == nil:
		return nil, fmt.Errorf("report: %s: missing \"algorithms\"", path)
	}
	return &s, nil
}

// paramString converts one params value to its string form.
func paramString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", errors.New("empty value")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case '{', '[':
		return "", fmt.Errorf("value %s is not a string, number or boolean", raw)
	case 'n':
		return "", nil
	}
	return string(raw), nil
}

// describeJSONError adds a line:column position to JSON decoding errors.
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ": " + err.Error()
}
