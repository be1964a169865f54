package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cbandit/cbandit/report"
)

func init() {
	c := command{
		name:  "diff",
		usage: "OLD_DIR NEW_DIR",
		summary: `Compare two output trees (e.g. 'cbandit reproduce all' before and after a change): for
every summary.json found under both, a Markdown table of each algorithm's final regret,
hard violation and violation count, old beside new (mean ± stderr).`,
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() != 2 {
			fs.Usage()
			return errUsage
		}
		return diffTrees(fs.Arg(0), fs.Arg(1), stdout)
	}
	register(c)
}

func diffTrees(oldDir, newDir string, w io.Writer) error {
	var rels []string
	err := filepath.WalkDir(newDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == report.SummaryFile {
			rel, _ := filepath.Rel(newDir, path)
			if _, err := os.Stat(filepath.Join(oldDir, rel)); err == nil {
				rels = append(rels, rel)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	if len(rels) == 0 {
		return fmt.Errorf("diff: no summary.json found under both %s and %s", oldDir, newDir)
	}
	sort.Strings(rels)
	fmt.Fprintln(w, "| experiment | algorithm | T | trials | regret old | regret new | Σ[g]⁺ old | Σ[g]⁺ new | N old | N new |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, rel := range rels {
		a, err := report.ReadSummary(filepath.Join(oldDir, rel))
		if err != nil {
			return err
		}
		b, err := report.ReadSummary(filepath.Join(newDir, rel))
		if err != nil {
			return err
		}
		exp := filepath.ToSlash(filepath.Dir(rel))
		for _, name := range b.Order() {
			o, ok := a.Algorithms[name]
			if !ok {
				continue
			}
			n := b.Algorithms[name]
			cell := func(s report.Stat) string { return strings.ReplaceAll(report.FormatStat(s), "|", `\|`) }
			fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", exp, name, b.Horizon, b.Trials,
				cell(o.Regret), cell(n.Regret), cell(o.ViolationHard), cell(n.ViolationHard), cell(o.ViolationCount), cell(n.ViolationCount))
		}
	}
	return nil
}
