package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/cbandit/cbandit/experiments"
	"github.com/cbandit/cbandit/internal/registry"
	"github.com/cbandit/cbandit/progress"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

// Options control how an experiment runs and reports.
type Options struct {
	// Out is the output directory.
	Out string
	// Quick runs the reduced size of each experiment file.
	Quick bool
	// Quiet silences the progress bar.
	Quiet bool
	// Workers is the number of parallel jobs (0: all cores).
	Workers int
	// Shard/Shards select a deterministic slice of the (trial, agent) grid.
	Shard, Shards int
	// Stderr receives the progress bar (default os.Stderr).
	Stderr io.Writer
}

// Execute runs one configuration and writes its outputs into o.Out: the
// full set of outputs (report.Write), or for a shard (o.Shards > 0) the
// shard's per-trial results in trials.json, which [Merge] combines.
func Execute(ctx context.Context, c *Config, o Options) (*runner.Output, error) {
	spec, err := c.Spec(o.Quick)
	if err != nil {
		return nil, err
	}
	spec.Workers = o.Workers
	spec.Shard, spec.Shards = o.Shard, o.Shards
	w := o.Stderr
	if w == nil {
		w = os.Stderr
	}
	enabled := !o.Quiet
	if f, ok := w.(*os.File); ok {
		enabled = enabled && progress.IsTerminal(f)
	}
	title := c.Title
	if title == "" {
		title = spec.Problem
	}
	if spec.Shards > 0 {
		title = fmt.Sprintf("%s (shard %d/%d)", title, spec.Shard, spec.Shards)
	}
	jobs := spec.Trials * len(spec.Algos)
	if spec.Shards > 0 {
		jobs = (jobs - spec.Shard + spec.Shards - 1) / spec.Shards
	}
	bar := progress.New(w, jobs*spec.Horizon, title, enabled)
	spec.Progress = bar.Add
	out, err := runner.Run(ctx, spec)
	bar.Done()
	if err != nil {
		return nil, err
	}
	if spec.Shards > 0 {
		if err := writeShard(o.Out, c, o.Quick, spec.Shard, spec.Shards, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := finish(c, o.Quick, out); err != nil {
		return nil, err
	}
	if err := report.Write(o.Out, &out.Results); err != nil {
		return nil, err
	}
	return out, nil
}

// finish adds to an aggregated run what report.md shows besides the numbers.
func finish(c *Config, quick bool, out *runner.Output) error {
	r := &out.Results
	r.Title = c.Title
	if r.Title == "" {
		r.Title = c.Problem
	}
	r.Paper, r.PaperSource = c.PaperValues()
	r.Notes = c.Notes
	if c.Figures != nil {
		r.Band, r.PaperBand = c.Figures.Band, c.Figures.PaperBand
	}
	r.Quick = quick && c.Quick != nil && (c.Quick.Horizon > 0 || c.Quick.Trials > 0)
	cmd, err := c.Command(quick)
	if err != nil {
		cmd = "(no command line re-creates this run: " + err.Error() + ")"
	}
	r.Command = cmd
	return nil
}

// Paper is one reproducible paper: `cbandit reproduce <Name>`.
type Paper struct {
	Name    string
	Summary string
	// Source names the paper file and sections.
	Source string
	// Run runs every experiment of the paper into subdirectories of o.Out.
	Run func(ctx context.Context, o Options) error
}

var papers = registry.New[Paper]("paper")

// Register adds a paper reproduction.
func Register(p Paper) { papers.Register(p.Name, p) }

// Papers returns the registered reproductions sorted by name.
func Papers() []Paper { return papers.All() }

// LookupPaper returns the named reproduction; the error lists the accepted
// names (and "all").
func LookupPaper(name string) (Paper, error) { return papers.Lookup(name, "all") }

// Embedded returns the embedded experiment file experiments/<name>
// (e.g. "ckb/synthetic.yaml").
func Embedded(name string) (*Config, error) {
	data, err := experiments.Files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("experiment file %s: %w", name, err)
	}
	return Parse("experiments/"+name, data)
}

// EmbeddedNames lists the embedded experiment files of one paper directory.
func EmbeddedNames(dir string) []string {
	entries, err := experiments.Files.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// FileRun is one experiment file run by [RunFiles].
type FileRun struct {
	// Base is the file's base name without .yaml; the outputs are in o.Out/Base.
	Base string
	Out  *runner.Output
}

// RunFiles runs the given embedded experiment files, each into
// o.Out/<file base name>, and returns their outputs in order; a helper for
// Paper.Run.
func RunFiles(ctx context.Context, o Options, files []string) ([]FileRun, error) {
	var runs []FileRun
	for _, f := range files {
		c, err := Embedded(f)
		if err != nil {
			return nil, err
		}
		sub := o
		base := strings.TrimSuffix(path.Base(f), ".yaml")
		sub.Out = path.Join(o.Out, base)
		out, err := Execute(ctx, c, sub)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		runs = append(runs, FileRun{Base: base, Out: out})
	}
	return runs, nil
}

func embeddedDirs() ([]string, error) {
	entries, err := experiments.Files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs, nil
}
