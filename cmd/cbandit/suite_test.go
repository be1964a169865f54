package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/learner"
	"github.com/cbandit/cbandit/suite"
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

// cbandit suite --seeds a-b: bad values are named; seeds 2-3 repeat the
// numbers of seeds 2 and 3 of a run of 1-3, and summary.json says where
// they start.
func TestCLISuiteSeedRange(t *testing.T) {
	for _, bad := range []string{"0", "5-3", "x", "0-2", "2-"} {
		code, _, stderr := runCLI("suite", "--seeds", bad)
		if code == 0 || !strings.Contains(stderr, `--seeds = "`+bad+`"`) {
			t.Errorf("--seeds %s: exit %d, stderr %q", bad, code, stderr)
		}
	}
	var report string
	run := func(seeds string) suite.Summary {
		dir := t.TempDir()
		code, out, stderr := runCLI("suite", "--set", "systems", "--problems", "three-bar-truss", "--algos", "config", "--horizon", "6", "--seeds", seeds,
			"--units", "natural", "--noise", "0.05", "--quiet", "--workers", "1", "--out", dir)
		if code != 0 {
			t.Fatalf("--seeds %s: exit %d\n%s", seeds, code, stderr)
		}
		report = out
		raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s suite.Summary
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	all, part := run("3"), run("2-3")
	if !strings.Contains(report, "mean over seeds 2–3") {
		t.Errorf("the report of seeds 2-3 does not say which seeds it averages:\n%s", report)
	}
	if part.Seeds != 2 || part.FirstSeed != 2 || all.FirstSeed != 0 {
		t.Fatalf("seeds %d from %d (want 2 from 2); a run of 1-3 says first_seed %d (want it omitted)", part.Seeds, part.FirstSeed, all.FirstSeed)
	}
	got := part.Cells[0].Runs
	want := all.Cells[0].Runs[1:]
	if len(got) != 2 {
		t.Fatalf("%d runs, want 2", len(got))
	}
	for i := range got {
		if got[i].Seed != want[i].Seed || got[i].Regret != want[i].Regret || got[i].Violation != want[i].Violation {
			t.Errorf("seed %d: (%v, %v); in a run of 1-3, seed %d: (%v, %v)", got[i].Seed, got[i].Regret, got[i].Violation, want[i].Seed, want[i].Regret, want[i].Violation)
		}
	}
}
