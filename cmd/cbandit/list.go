package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
)

func init() {
	c := command{name: "list", usage: "[--verbose] [--fits]", summary: "list problems, algorithms and reproducible papers; --fits: which algorithm runs on which problem"}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		verbose := fs.Bool("verbose", false, "also list every parameter with its default and source")
		fits := fs.Bool("fits", false, "a table of which algorithm runs on which problem (with default parameters), and why not")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("list: unexpected argument %q", fs.Arg(0))
		}
		if *fits {
			return listFits(stdout)
		}
		return list(stdout, *verbose)
	}
	register(c)
}

func list(w io.Writer, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	params := func(ps []bandit.ParamDoc) {
		if !verbose {
			return
		}
		for _, p := range ps {
			fmt.Fprintf(tw, "\t  %s=%s\t%s\n", p.Name, p.Default, p.Doc)
		}
	}
	fmt.Fprintln(tw, "PROBLEMS")
	for _, s := range problem.All() {
		fmt.Fprintf(tw, "  %s\t%s\t[%s]\n", s.Name, s.Summary, s.Source)
		params(s.Params)
	}
	fmt.Fprintln(tw, "\nALGORITHMS")
	for _, s := range agent.All() {
		fmt.Fprintf(tw, "  %s\t%s\t[%s]\n", s.Name, s.Summary, s.Source)
		params(s.Params)
	}
	fmt.Fprintln(tw, "\nEXPERIMENTS (cbandit reproduce <paper>; cbandit run --config experiments/<file>)")
	for _, p := range experiment.Papers() {
		fmt.Fprintf(tw, "  %s\t%s\t[%s]\n", p.Name, p.Summary, p.Source)
		if files := experiment.EmbeddedNames(p.Name); len(files) > 0 {
			fmt.Fprintf(tw, "\t  files: %s\n", strings.Join(files, ", "))
		}
	}
	return tw.Flush()
}

// listFits builds every problem with its default parameters (seed 1) and
// every algorithm on it, and prints which pairs fit: the same check the
// runner makes before a run, so a pair marked ✗ is refused with the reason
// shown. A problem that cannot be built (e.g. real data not found) is
// listed with its error.
func listFits(w io.Writer) error {
	const horizon = 100
	algos := agent.All()
	fmt.Fprintln(w, "Which algorithm runs on which problem (default parameters; ✗ gives the reason the run is refused):")
	for _, ps := range problem.All() {
		p, err := problem.New(ps.Name, nil, 1)
		if err != nil {
			fmt.Fprintf(w, "\n%s: cannot be built here: %v\n", ps.Name, err)
			continue
		}
		info := p.Info()
		info.Horizon = horizon
		var ok []string
		var no []string
		for _, as := range algos {
			if _, err := agent.New(as.Name, agent.Config{Info: info, Horizon: horizon, Seed: 1}); err != nil {
				no = append(no, fmt.Sprintf("  ✗ %s: %v", as.Name, err))
			} else {
				ok = append(ok, as.Name)
			}
		}
		fmt.Fprintf(w, "\n%s (%s, %d constraint(s)", ps.Name, info.Domain, info.M)
		if info.Safe != nil {
			fmt.Fprint(w, ", known safe action")
		}
		if info.FullInfo {
			fmt.Fprint(w, ", full information")
		}
		if info.Stage != nil {
			fmt.Fprint(w, ", stage-wise")
		}
		fmt.Fprintf(w, ")\n  ✓ %s\n", strings.Join(ok, ", "))
		for _, l := range no {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}
