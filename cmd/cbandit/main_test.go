package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("problem: [oops"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"run", "--problem", "rkhs-synthetic", "--algos", "ckb-ucb"}, "--out DIR is required"},
		{[]string{"run", "--problem", "nope", "--algos", "ckb-ucb", "--out", dir}, `unknown problem "nope": accepted are`},
		{[]string{"run", "--problem", "rkhs-synthetic", "--algos", "nope", "--out", dir}, `unknown algorithm "nope": accepted are`},
		{[]string{"run", "--problem", "rkhs-synthetic", "--algos", "ckb-ucb", "--horizon", "0", "--out", dir}, "horizon = 0"},
		{[]string{"run", "--problem", "rkhs-synthetic", "--param", "x=1", "--algos", "ckb-ucb", "--out", dir}, `unknown parameter "x"`},
		{[]string{"run", "--problem", "rkhs-synthetic", "--param", "h", "--algos", "ckb-ucb", "--out", dir}, `parameter "h": want key=value`},
		{[]string{"run", "--config", bad, "--out", dir}, "bad.yaml: yaml:"},
		{[]string{"run", "--config", filepath.Join(dir, "missing.yaml"), "--out", dir}, "no such file"},
		{[]string{"run", "--problem", "rkhs-synthetic", "--algos", "ckb-ucb", "--shard", "2/2", "--out", dir}, "--shard"},
		{[]string{"reproduce", "nope", "--out", dir}, `unknown paper "nope"`},
		{[]string{"run", "--problem", "gardner", "--algos", "ckb-ucb", "--workers", "0", "--out", dir}, "--workers = 0: must be at least 1"},
		{[]string{"reproduce", "ckb", "--workers", "0", "--out", dir}, "--workers = 0: must be at least 1"},
		{[]string{"run", "--problem", "gardner", "--param", "noise_f=1e400", "--algos", "ckb-ucb", "--out", dir}, `noise_f = "1e400": out of range`},
		{[]string{"run", "--problem", "gardner", "--algos", "ckb-ucb:alpha=-5", "--out", dir}, "cbandit: ckb-ucb: parameter alpha = -5: must be in (0, 1) (algorithm ckb-ucb:alpha=-5 on problem gardner)"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to contain %q", c.args, code, stderr, c.want)
		}
	}
}

func TestCLIHelpAndList(t *testing.T) {
	for _, cmd := range []string{"run", "list", "reproduce", "check", "study"} {
		for _, h := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			code, stdout, stderr := runCLI(h...)
			if code != 0 || !strings.Contains(stdout, "Usage: cbandit "+cmd) || stderr != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want the usage on stdout, exit 0", h, code, stdout, stderr)
			}
		}
	}
	code, out, _ := runCLI("list")
	if code != 0 || !strings.Contains(out, "ckb-ucb") || !strings.Contains(out, "rkhs-synthetic") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
}

func TestCLIRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCLI("run", "--problem", "rkhs-synthetic", "--param", "n=30", "--algos", "ckb-ucb,ckb-ucb:alpha=0.1",
		"--trials", "2", "--horizon", "50", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "ckb-ucb:alpha=0.1") {
		t.Fatalf("summary does not list the parameterised entry:\n%s", out)
	}
	if code, _, stderr := runCLI("check", dir); code != 0 {
		t.Fatalf("check: %s", stderr)
	}
}

// cbandit suite: bad flag values are named; a short run prints the table
// and writes suite.md and summary.json.
func TestCLISuite(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"suite", "--units", "imperial"}, `--units = "imperial"`},
		{[]string{"suite", "--horizon", "1"}, "--horizon = 1"},
		{[]string{"suite", "--seeds", "0"}, `--seeds = "0"`},
		{[]string{"suite", "--workers", "-1"}, "--workers = -1"},
		{[]string{"suite", "--problems", "nope"}, `--problems: problem: unknown suite problem "nope"`},
		{[]string{"suite", "--algos", "nope-ucb"}, `--algos: unknown algorithm "nope-ucb"`},
		{[]string{"suite", "--algos", ","}, `--algos = ","`},
		{[]string{"suite", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := runCLI(c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to contain %q", c.args, code, stderr, c.want)
		}
	}
	if code, stdout, _ := runCLI("suite", "--help"); code != 0 || !strings.Contains(stdout, "Usage: cbandit suite") || !strings.Contains(stdout, "long-term (ckb-*)") {
		t.Fatalf("suite --help: exit %d, %q", code, stdout)
	}
	code, out, stderr := runCLI("suite", "--problems", "suite-gardner", "--horizon", "20", "--seeds", "1", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("suite: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"| gardner | ckb-ucb |", "| gardner | rpol-ucb |", "| gardner | config |", "Δ regret"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"suite.md", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
