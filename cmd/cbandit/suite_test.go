package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/learner"
)

// cbandit suite --noise and --evaluations: bad values are named; an offline
// run at 5 % noise records the mode and the level in summary.json and
// prints the offline table.
func TestCLISuiteOffline(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"suite", "--noise", "-0.1"}, "--noise = -0.1"},
		{[]string{"suite", "--evaluations", "sometimes"}, `--evaluations = "sometimes"`},
	} {
		code, _, stderr := runCLI(c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to contain %q", c.args, code, stderr, c.want)
		}
	}
	dir := t.TempDir()
	code, out, stderr := runCLI("suite", "--set", "systems", "--problems", "three-bar-truss", "--algos", "config", "--horizon", "10", "--seeds", "1",
		"--units", "natural", "--noise", "0.05", "--evaluations", "offline", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("suite offline: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(out, "Offline scores") || !strings.Contains(out, "| three-bar-truss | config | natural |") {
		t.Errorf("offline output lacks its table:\n%s", out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"evaluations": "offline"`, `"noise": 0.05`, `"recommendation": {`, `"break_late":`, `"gap_worst":`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("summary.json lacks %s", want)
		}
	}
	// Offline without --algos: the default a study gets, labelled with the
	// algorithm the service chose for it.
	code, out, stderr = runCLI("suite", "--set", "systems", "--problems", "three-bar-truss", "--horizon", "6", "--seeds", "1",
		"--units", "natural", "--noise-free", "--evaluations", "offline", "--quiet")
	if code != 0 {
		t.Fatalf("suite offline, no --algos: exit %d\n%s", code, stderr)
	}
	want, err := learner.Choose([]learner.Kind{"", "", ""}, false, agent.DomainBox, "offline") // lognei today
	if err != nil {
		t.Fatal(err)
	}
	if row := "| three-bar-truss | default (" + want.Algorithm + ") | natural |"; !strings.Contains(out, row) {
		t.Errorf("offline without --algos does not run the default (%s):\n%s", row, out)
	}
	if code, _, stderr := runCLI("suite", "--algos", "default:beta-f=2"); code == 0 || !strings.Contains(stderr, "takes no parameters") {
		t.Errorf("--algos default:beta-f=2: exit %d, %q", code, stderr)
	}
}
