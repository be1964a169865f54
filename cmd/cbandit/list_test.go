package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/problem"
)

// TestListFitsTheTerminal: `cbandit list` (and --verbose, which wraps)
// has no line over 100 columns; `list --fits` is a matrix of at most 80
// lines with a row per algorithm, a column per problem and its legend.
func TestListFitsTheTerminal(t *testing.T) {
	for _, args := range [][]string{{"list"}, {"list", "--verbose"}, {"list", "--fits"}, {"list", "--fits", "no-data"}} {
		if args[len(args)-1] == "no-data" { // real-data problems that cannot be built here
			args = args[:2]
			t.Setenv("CBANDIT_DATA", t.TempDir())
		}
		code, out, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		longest := 0
		for i, l := range lines {
			n := utf8.RuneCountInString(l)
			longest = max(longest, n)
			if n > 100 {
				t.Errorf("%v: line %d has %d characters: %q", args, i+1, n, l)
			}
		}
		t.Logf("%v: %d lines, the longest %d characters", args, len(lines), longest)
		if args[len(args)-1] != "--fits" {
			continue
		}
		if len(lines) > 80 {
			t.Errorf("list --fits: %d lines, want at most 80", len(lines))
		}
		for _, a := range agent.All() {
			if !strings.Contains(out, "\n"+a.Name+" ") {
				t.Errorf("list --fits: no row for %s", a.Name)
			}
		}
		for _, p := range problem.All() {
			if !strings.Contains(out, " "+p.Name+" (") {
				t.Errorf("list --fits: %s is not in the key", p.Name)
			}
		}
		for _, want := range []string{"✓ runs", "D its domains exclude", "S needs a known safe action", "Refused by the factory"} {
			if !strings.Contains(out, want) {
				t.Errorf("list --fits: the legend lacks %q", want)
			}
		}
	}
	// Without --verbose, one line per entry: no parameter docs.
	if _, out, _ := runCLI("list"); strings.Contains(out, "alpha=") {
		t.Error("list prints parameters without --verbose")
	}
	if _, out, _ := runCLI("list", "--verbose"); !strings.Contains(out, "alpha=0.05") {
		t.Error("list --verbose does not print the parameters")
	}
}
