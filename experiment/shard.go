package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

// TrialsFile is the file a shard writes: its per-trial results, with the
// configuration they came from.
const TrialsFile = "trials.json"

// shardFormat versions TrialsFile.
const shardFormat = "cbandit-shard/1"

// shardFile is the content of TrialsFile. Floats are written by
// encoding/json, which round-trips float64 exactly, so merged shards
// aggregate to the same bits as the unsharded run.
type shardFile struct {
	Format  string       `json:"format"`
	Config  *Config      `json:"config"`
	Quick   bool         `json:"quick"`
	Shard   int          `json:"shard"`
	Shards  int          `json:"shards"`
	Rounds  []int        `json:"rounds"`
	Metrics []string     `json:"metrics"`
	Jobs    []runner.Job `json:"jobs"`
}

func writeShard(dir string, c *Config, quick bool, i, n int, out *runner.Output) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shard output: %w", err)
	}
	f := shardFile{Format: shardFormat, Config: c, Quick: quick, Shard: i, Shards: n,
		Rounds: out.Rounds, Metrics: out.Metrics, Jobs: out.Jobs}
	b, err := json.Marshal(&f)
	if err != nil {
		return fmt.Errorf("shard output: %w", err)
	}
	path := filepath.Join(dir, TrialsFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("shard output: %w", err)
	}
	return nil
}

func readShard(dir string) (*shardFile, error) {
	path := filepath.Join(dir, TrialsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("merge: %s: %w (was it written by 'cbandit run --shard i/n'?)", dir, err)
	}
	var f shardFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("merge: %s: %v", path, err)
	}
	if f.Format != shardFormat {
		return nil, fmt.Errorf("merge: %s: format = %q, want %q", path, f.Format, shardFormat)
	}
	if f.Config == nil || f.Shards < 1 || f.Shard < 0 || f.Shard >= f.Shards {
		return nil, fmt.Errorf("merge: %s: not a shard (config missing or shard %d/%d)", path, f.Shard, f.Shards)
	}
	return &f, nil
}

// differences names the top-level fields in which two JSON objects differ.
func differences(a, b any) []string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if !bytes.Equal(ma[k], mb[k]) {
			out = append(out, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(mb)) {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// Merge combines the shards written by `cbandit run --shard i/n` (one
// directory each, in any order) and writes into out what the unsharded run
// writes: summary.json, curves.csv, figures and report.md, with the same
// numbers. It refuses shards of different runs, a shard given twice,
// missing shards, and jobs that overlap or are missing.
func Merge(dirs []string, out string) (*runner.Output, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: no shard directories given")
	}
	var first *shardFile
	from := map[int]string{}
	var jobs []runner.Job
	for _, d := range dirs {
		f, err := readShard(d)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = f
		} else {
			if diff := differences(first.Config, f.Config); len(diff) > 0 {
				return nil, fmt.Errorf("merge: %s and %s are shards of different runs (config differs in %s)", from[first.Shard], d, strings.Join(diff, ", "))
			}
			switch {
			case f.Quick != first.Quick:
				return nil, fmt.Errorf("merge: %s and %s are shards of different runs (one ran --quick)", from[first.Shard], d)
			case f.Shards != first.Shards:
				return nil, fmt.Errorf("merge: %s is shard %d/%d but %s is shard %d/%d: different splits", d, f.Shard, f.Shards, from[first.Shard], first.Shard, first.Shards)
			case !slices.Equal(f.Rounds, first.Rounds) || !slices.Equal(f.Metrics, first.Metrics):
				return nil, fmt.Errorf("merge: %s and %s recorded different rounds or metrics", from[first.Shard], d)
			}
		}
		if prev, dup := from[f.Shard]; dup {
			return nil, fmt.Errorf("merge: shard %d/%d given twice (%s and %s)", f.Shard, f.Shards, prev, d)
		}
		from[f.Shard] = d
		jobs = append(jobs, f.Jobs...)
	}
	var missing []string
	for i := 0; i < first.Shards; i++ {
		if _, ok := from[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Shards))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: missing shard(s) %s", strings.Join(missing, ", "))
	}
	c := first.Config
	spec, err := c.Spec(first.Quick)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	res, err := runner.Collect(&spec, first.Rounds, first.Metrics, jobs)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := finish(c, first.Quick, res); err != nil {
		return nil, err
	}
	if err := report.Write(out, &res.Results); err != nil {
		return nil, err
	}
	return res, nil
}
