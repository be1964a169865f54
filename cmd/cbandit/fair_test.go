package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// shellWords splits a command line printed by report.ShellQuote: words
// separated by spaces, single-quoted parts taken literally, a backslash
// escaping the next character (how a quote inside a quoted word is written).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in, started := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			cur.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			started = true
		case c == ' ':
			if started {
				words = append(words, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %q", line)
	}
	if started {
		words = append(words, cur.String())
	}
	return words
}

var commandBlock = regexp.MustCompile("(?s)re-creates the run.*?```\n(cbandit [^\n]*)\n```")

// reportCommand returns the arguments of the command report.md prints, with
// DIR replaced by out.
func reportCommand(t *testing.T, dir, out string) []string {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := commandBlock.FindSubmatch(md)
	if m == nil {
		t.Fatalf("report.md prints no command line:\n%s", md)
	}
	words := shellWords(t, string(m[1]))
	if words[0] != "cbandit" || words[len(words)-1] != "DIR" {
		t.Fatalf("unexpected command %q", m[1])
	}
	words[len(words)-1] = out
	return words[1:]
}

// summaryWithoutTimings reads summary.json with seconds_per_round zeroed.
func summaryWithoutTimings(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, a := range v["algorithms"].(map[string]any) {
		a.(map[string]any)["seconds_per_round"] = 0
	}
	out, _ := json.Marshal(v)
	return out
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return out
}

// report.md's command line, run as printed, gives the same summary.json:
// algorithm order, labels and per-algorithm parameters kept.
func TestReportCommandReproducesTheRun(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	mustRun(t, "run", "--problem", "rkhs-synthetic", "--param", "n=25", "--param", "h=0.5",
		"--algos", "ckb-rand,ckb-ucb:beta-scale=0.5;alpha=0.1,wide=ckb-ucb:beta-scale=2,ckb-ts",
		"--trials", "3", "--horizon", "60", "--seed", "11", "--quiet", "--out", a)
	args := reportCommand(t, a, b)
	mustRun(t, append(args, "--quiet")...)
	if x, y := summaryWithoutTimings(t, a), summaryWithoutTimings(t, b); !bytes.Equal(x, y) {
		t.Fatalf("report.md's command %q gives another summary.json:\n%s\n%s", args, x, y)
	}
	var s struct {
		Specs []struct{ Label, ID string } `json:"algorithm_specs"`
	}
	raw, _ := os.ReadFile(filepath.Join(b, "summary.json"))
	json.Unmarshal(raw, &s)
	want := []string{"ckb-rand", "ckb-ucb:beta-scale=0.5;alpha=0.1", "wide", "ckb-ts"}
	if len(s.Specs) != len(want) {
		t.Fatalf("algorithm_specs = %+v", s.Specs)
	}
	for i, w := range want {
		if s.Specs[i].Label != w {
			t.Fatalf("algorithm %d: label %q, want %q (order and labels kept)", i, s.Specs[i].Label, w)
		}
	}
}

// A run from an experiment file prints the file and its --set overrides.
func TestReportCommandOfAConfigRun(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "exp.yaml")
	os.WriteFile(cfg, []byte(`title: "test"
problem: rkhs-synthetic
params: {h: 0.5, n: 20}
algorithms:
  - {id: ckb-ucb, label: plain}
  - {id: ckb-ucb, label: "narrow β", params: {beta-scale: "0.3"}}
horizon: 500
trials: 10
seed: 4
quick: {horizon: 40, trials: 2}
delay: {reward_mean: 2, cost_mean: 3}
`), 0o644)
	mustRun(t, "run", "--config", cfg, "--set", "params.n=22", "--set", "algorithms.plain.alpha=0.2", "--quick", "--quiet", "--out", a)
	args := reportCommand(t, a, b)
	joined := strings.Join(args, " ")
	for _, want := range []string{"--config " + cfg, "--set params.n=22", "--set algorithms.plain.alpha=0.2", "--quick"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("command %q lacks %q", joined, want)
		}
	}
	mustRun(t, append(args, "--quiet")...)
	if x, y := summaryWithoutTimings(t, a), summaryWithoutTimings(t, b); !bytes.Equal(x, y) {
		t.Fatalf("report.md's command gives another summary.json")
	}
	md, _ := os.ReadFile(filepath.Join(a, "report.md"))
	if !strings.Contains(string(md), "Quick run (--quick)") {
		t.Fatal("a --quick report has no banner")
	}
}

// Three shards merged give the unsharded summary.json and curves.csv exactly;
// merge refuses shards of another run, a shard twice, and a missing shard.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	root := t.TempDir()
	common := []string{"run", "--problem", "rkhs-synthetic", "--param", "n=20", "--algos", "ckb-ucb,ckb-ts,ckb-rand",
		"--trials", "4", "--horizon", "50", "--seed", "3", "--quiet"}
	full := filepath.Join(root, "full")
	mustRun(t, append(common, "--out", full)...)
	var shards []string
	for _, i := range []string{"0", "1", "2"} {
		d := filepath.Join(root, "shard"+i)
		out := mustRun(t, append(common, "--shard", i+"/3", "--out", d)...)
		if !strings.Contains(out, "cbandit merge") {
			t.Fatalf("shard run does not point at merge: %s", out)
		}
		if _, err := os.Stat(filepath.Join(d, "summary.json")); err == nil {
			t.Fatal("a shard wrote a (partial) summary.json")
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(root, "merged")
	mustRun(t, "merge", "--out", merged, shards[2], shards[0], shards[1])
	if x, y := summaryWithoutTimings(t, full), summaryWithoutTimings(t, merged); !bytes.Equal(x, y) {
		t.Fatalf("merged summary.json differs from the unsharded run:\n%s\n%s", x, y)
	}
	c1, _ := os.ReadFile(filepath.Join(full, "curves.csv"))
	c2, _ := os.ReadFile(filepath.Join(merged, "curves.csv"))
	if !bytes.Equal(c1, c2) {
		t.Fatal("merged curves.csv differs from the unsharded run")
	}
	fromParent := filepath.Join(root, "from")
	shardsOnly := filepath.Join(root, "shards")
	os.Mkdir(shardsOnly, 0o755)
	for i, d := range shards {
		os.Rename(d, filepath.Join(shardsOnly, "shard-"+string(rune('0'+i))))
		shards[i] = filepath.Join(shardsOnly, "shard-"+string(rune('0'+i)))
	}
	mustRun(t, "merge", "--out", fromParent, "--from", shardsOnly)
	if x, y := summaryWithoutTimings(t, full), summaryWithoutTimings(t, fromParent); !bytes.Equal(x, y) {
		t.Fatal("merge --from differs from the unsharded run")
	}
	other := filepath.Join(root, "other")
	otherArgs := append([]string(nil), common...)
	otherArgs[len(otherArgs)-2] = "4" // --seed 4
	mustRun(t, append(otherArgs, "--shard", "1/3", "--out", other)...)
	two := filepath.Join(root, "two")
	mustRun(t, append(common, "--shard", "1/2", "--out", two)...)
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{shards[0], other, shards[2]}, "different runs (config differs in Seed)"},
		{[]string{shards[0], shards[1], shards[1]}, "given twice"},
		{[]string{shards[0], shards[2]}, "missing shard(s) 1/3"},
		{[]string{shards[0], two}, "different splits"},
		{[]string{shards[0], full}, "trials.json"},
	} {
		code, _, stderr := runCLI(append([]string{"merge", "--out", filepath.Join(root, "bad")}, c.dirs...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, stderr %q, want %q", c.dirs, code, stderr, c.want)
		}
	}
}

// The Kubernetes array-job example stays consistent: completions, parallelism
// and the shard count agree, and the shard and merge arguments are accepted
// by this binary's flag parser.
func TestK8sIndexedJobExample(t *testing.T) {
	b, err := os.ReadFile("../../deploy/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var job struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					Containers []struct{ Args []string }
				}
			}
		}
	}
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc["kind"] == "Job" {
			raw, _ := yaml.Marshal(doc)
			yaml.Unmarshal(raw, &job)
		}
	}
	if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions < 2 || job.Spec.Parallelism != job.Spec.Completions {
		t.Fatalf("shard job: %+v", job.Spec)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	joined := strings.Join(args, " ")
	if !strings.Contains(joined, "--shard $(INDEX)/"+strconv.Itoa(job.Spec.Completions)) {
		t.Fatalf("shard argument does not match completions = %d: %s", job.Spec.Completions, joined)
	}
	// The arguments parse: run them for shard 0 at a tiny size.
	dir := t.TempDir()
	for i, a := range args {
		args[i] = strings.NewReplacer("$(INDEX)", "0", "/runs/ckb-synthetic", dir).Replace(a)
	}
	mustRun(t, append(args, "--quick", "--set", "trials=1", "--set", "horizon=20")...)
	m, err := os.ReadFile("../../deploy/k8s-merge-job.yaml")
	if err != nil || !strings.Contains(string(m), `"--from", "/runs/ckb-synthetic"`) {
		t.Fatalf("merge job does not merge the shard directory: %v", err)
	}
}

// diff sets two runs' numbers side by side.
func TestDiffTrees(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	common := []string{"run", "--problem", "rkhs-synthetic", "--param", "n=20", "--algos", "ckb-ucb", "--trials", "2", "--horizon", "30", "--quiet"}
	mustRun(t, append(common, "--seed", "1", "--out", filepath.Join(a, "x"))...)
	mustRun(t, append(common, "--seed", "2", "--out", filepath.Join(b, "x"))...)
	out := mustRun(t, "diff", a, b)
	if !strings.Contains(out, "| x | ckb-ucb | 30 | 2 |") {
		t.Fatalf("diff output:\n%s", out)
	}
	if code, _, stderr := runCLI("diff", a, t.TempDir()); code == 0 || !strings.Contains(stderr, "no summary.json") {
		t.Fatalf("diff with nothing in common: %d %s", code, stderr)
	}
}

// list --fits shows the pairs that run and why the others are refused; a
// refused pair names both the algorithm and the problem.
func TestListFits(t *testing.T) {
	out := mustRun(t, "list", "--fits")
	for _, want := range []string{"rkhs-synthetic (", "✓ ", "ckb-ucb", "\noplb ", "W needs the stage-wise facts"} {
		if !strings.Contains(out, want) {
			t.Fatalf("list --fits lacks %q:\n%s", want, out[:min(len(out), 2000)])
		}
	}
	code, _, stderr := runCLI("run", "--problem", "bernoulli-4arm", "--algos", "ckb-ucb", "--trials", "1", "--horizon", "10", "--quiet", "--out", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "algorithm ckb-ucb does not run on problem bernoulli-4arm") || !strings.Contains(stderr, "GP prior") {
		t.Fatalf("mismatched pair: exit %d, %s", code, stderr)
	}
}
