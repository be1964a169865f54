package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cbandit/cbandit/report"
)

func printSummary(w io.Writer, s report.Summary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%s, T = %d, %d trials, seed %d", s.Problem, s.Horizon, s.Trials, s.Seed)
	if s.Defaults != "" {
		fmt.Fprintf(w, ", %s defaults", s.Defaults)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(tw, "algorithm\tregret\tviolation_soft\tviolation_hard\tviolation_count\tµs/round\t")
	names := s.Order()
	pm := func(st report.Stat) string { return fmt.Sprintf("%.4g ± %.2g", st.Mean, st.Stderr) }
	for _, n := range names {
		a := s.Algorithms[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t\n", n, pm(a.Regret), pm(a.ViolationSoft), pm(a.ViolationHard), pm(a.ViolationCount), a.SecondsPerRound*1e6)
	}
	tw.Flush()
}
