package experiment

import (
	"strings"
	"testing"
)

// An empty parameter in an --algos entry is refused with the entry named,
// never kept in the label the results carry.
func TestParseAlgoEntryRefusesEmptyParameter(t *testing.T) {
	for _, entry := range []string{
		"config:beta-scale=2;;",
		"config:beta-scale=2;",
		"config:;beta-scale=2",
		"config:beta-scale=2; ;pending=bucb",
		"x=config:beta-scale=2;;",
		"config:",
	} {
		a, err := ParseAlgoEntry(entry)
		if err == nil {
			t.Errorf("%q: accepted as %+v, want an error", entry, a)
			continue
		}
		if !strings.Contains(err.Error(), entry) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%q: error %q does not name the entry and the empty parameter", entry, err)
		}
	}
	// Well-formed entries still read, and format back to themselves.
	for _, entry := range []string{"config", "config:beta-scale=2", "config:beta-scale=2;pending=bucb", "x=config:beta-scale=2"} {
		a, err := ParseAlgoEntry(entry)
		if err != nil {
			t.Fatalf("%q: %v", entry, err)
		}
		back, err := FormatAlgoEntry(a)
		if err != nil {
			t.Fatalf("%q: format: %v", entry, err)
		}
		b, err := ParseAlgoEntry(back)
		if err != nil || b.ID != a.ID || b.Label != a.Label || len(b.Params) != len(a.Params) {
			t.Errorf("%q: formatted as %q, read back as %+v (%v), want %+v", entry, back, b, err, a)
		}
	}
}
