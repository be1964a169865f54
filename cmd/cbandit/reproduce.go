package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/cbandit/cbandit/experiment"
)

func init() {
	c := command{
		name:    "reproduce",
		usage:   "<paper|all> [--quick] --out DIR",
		summary: "Run every experiment of a paper (see 'cbandit list') with the paper's settings and write\none output directory per experiment below DIR, each with report.md beside the paper's numbers.",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		quick := fs.Bool("quick", false, "reduced sizes (each paper under a minute)")
		out := fs.String("out", "", "output directory (required)")
		workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel (trial, algorithm) jobs")
		quiet := fs.Bool("quiet", false, "no progress bar")
		// Accept the paper name before or after the flags.
		var name string
		if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
			name, args = args[0], args[1:]
		}
		if err := fs.Parse(args); err != nil {
			return err
		}
		if name == "" && fs.NArg() > 0 {
			name = fs.Arg(0)
		}
		if name == "" {
			fs.Usage()
			return errUsage
		}
		if *out == "" {
			return fmt.Errorf("reproduce: --out DIR is required")
		}
		if err := checkWorkers(*workers); err != nil {
			return fmt.Errorf("reproduce: %w", err)
		}
		var papers []experiment.Paper
		if name == "all" {
			papers = experiment.Papers()
		} else {
			p, err := experiment.LookupPaper(name)
			if err != nil {
				return err
			}
			papers = []experiment.Paper{p}
		}
		for _, p := range papers {
			o := experiment.Options{Out: filepath.Join(*out, p.Name), Quick: *quick, Quiet: *quiet, Workers: *workers, Stderr: stderr}
			if name != "all" {
				o.Out = *out
			}
			fmt.Fprintf(stdout, "reproducing %s (%s) into %s\n", p.Name, p.Source, o.Out)
			if err := p.Run(ctx, o); err != nil {
				return fmt.Errorf("reproduce %s: %w", p.Name, err)
			}
		}
		return nil
	}
	register(c)
}
