package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cbandit/cbandit/experiment"
)

func init() {
	c := command{
		name:  "merge",
		usage: "--out DIR SHARD_DIR... | --out DIR --from PARENT",
		summary: `Combine the shards of an array job ('cbandit run ... --shard i/n --out SHARD_DIR', one
per i in 0..n-1) into the outputs the unsharded run writes: DIR/summary.json, curves.csv,
figures and report.md, with the same numbers. Refuses shards of different runs, a shard
given twice, and missing shards. --from PARENT takes every subdirectory of PARENT that holds
a shard's trials.json (no shell glob needed, e.g. in a container without a shell).`,
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		out := fs.String("out", "", "output directory (required)")
		from := fs.String("from", "", "take the shards from every subdirectory of this directory that holds "+experiment.TrialsFile)
		if err := fs.Parse(args); err != nil {
			return err
		}
		if *out == "" {
			return fmt.Errorf("merge: --out DIR is required")
		}
		dirs := fs.Args()
		if *from != "" {
			entries, err := os.ReadDir(*from)
			if err != nil {
				return fmt.Errorf("merge: --from: %w", err)
			}
			for _, e := range entries {
				d := filepath.Join(*from, e.Name())
				if _, err := os.Stat(filepath.Join(d, experiment.TrialsFile)); e.IsDir() && err == nil {
					dirs = append(dirs, d)
				}
			}
			if len(dirs) == 0 {
				return fmt.Errorf("merge: --from %s: no subdirectory holds %s", *from, experiment.TrialsFile)
			}
		}
		if len(dirs) == 0 {
			return fmt.Errorf("merge: give the shard directories after the flags: cbandit merge --out DIR SHARD_DIR...")
		}
		res, err := experiment.Merge(dirs, *out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %d shards into %s (summary.json, curves.csv, report.md, figures)\n", len(dirs), *out)
		printSummary(stdout, res.Results.Summary)
		return nil
	}
	register(c)
}
