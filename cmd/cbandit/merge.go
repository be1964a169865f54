package main

import (
	"context"
	"fmt"
	"io"

	"github.com/cbandit/cbandit/experiment"
)

func init() {
	c := command{
		name:  "merge",
		usage: "--out DIR SHARD_DIR...",
		summary: `Combine the shards of an array job ('cbandit run ... --shard i/n --out SHARD_DIR', one
per i in 0..n-1) into the outputs the unsharded run writes: DIR/summary.json, curves.csv,
figures and report.md, with the same numbers. Refuses shards of different runs, a shard
given twice, and missing shards.`,
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		out := fs.String("out", "", "output directory (required)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if *out == "" {
			return fmt.Errorf("merge: --out DIR is required")
		}
		if fs.NArg() == 0 {
			return fmt.Errorf("merge: give the shard directories after the flags: cbandit merge --out DIR SHARD_DIR...")
		}
		res, err := experiment.Merge(fs.Args(), *out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %d shards into %s (summary.json, curves.csv, report.md, figures)\n", fs.NArg(), *out)
		printSummary(stdout, res.Results.Summary)
		return nil
	}
	register(c)
}
