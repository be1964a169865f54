package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cbandit/cbandit/service/api"
)

func init() {
	register(command{
		name:    "study",
		usage:   "(--url URL [--token TOKEN] | --db sqlite:FILE|postgres://...) --study NAME|ID [--format text|json]",
		summary: "show a service study's result (GET /studies/{id}/summary): the best observation and the recommendation — the evaluated configuration the model believes best with P(every limit holds) ≥ 0.95, its posterior mean ± std of the objective and each constraint",
		run:     runStudy,
	})
}

const studyHelp = `
best is the best single feasible observation: a lucky draw of the noise can
make it. The recommendation is what to deploy: among the evaluated
configurations, the one whose posterior mean of the objective is best among
those the model believes hold every limit with probability ≥ 0.95
(docs/evaluations.md, "What is recommended"). It is absent while the model
names none: an algorithm without a model of the evaluated configurations, or
none reaching 0.95. --format json prints the API's summary as it is.
`

func runStudy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := commands["study"]
	fset := newFlagSet(c, stderr)
	flagsUsage := fset.Usage
	fset.Usage = func() {
		flagsUsage()
		fmt.Fprint(stderr, studyHelp)
	}
	url := fset.String("url", "", "a running cbandit serve: its `URL` (http://host:port)")
	token := fset.String("token", "", "with --url: the server's bearer token (default $CBANDIT_TOKEN)")
	db := fset.String("db", "", "instead of --url, the `STORE` of cbandit serve: sqlite:FILE or postgres://… (with SQLite, stop the server first); the log is replayed, nothing written")
	name := fset.String("study", "", "the study's name or ID (required)")
	format := fset.String("format", "text", "text (the study, best and recommendation) or json (the API's summary)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "cbandit study: unexpected argument %q\n", fset.Arg(0))
		fset.Usage()
		return errUsage
	}
	if *name == "" || (*url == "") == (*db == "") {
		fmt.Fprintln(stderr, "cbandit study: --study and one of --url, --db are required")
		fset.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("study: --format = %q: accepted are text, json", *format)
	}
	cl, done, err := studyClient(ctx, *url, *token, *db)
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	defer done()
	st, err := findStudy(ctx, cl, *name)
	if err != nil {
		return fmt.Errorf("study: --study %s: %w", *name, err)
	}
	sum, err := cl.Summary(ctx, st.ID)
	if err != nil {
		return fmt.Errorf("study: --study %s: summary: %w", *name, err)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return printStudy(stdout, st, sum)
}

// printStudy prints what the study is, then best and the recommendation side
// by side: the objective and each constraint metric (in their units, as
// measured; the recommendation's as posterior mean ± std), P(every limit
// holds), and the configuration's parameters.
func printStudy(w io.Writer, st api.Study, s api.Summary) error {
	sp := st.Spec
	goal := sp.Objective.Goal
	if goal == "" {
		goal = "maximize"
	}
	evals := sp.Evaluations
	if evals == "" {
		evals = "live"
	}
	fmt.Fprintf(w, "study %s (%s): algorithm %s, evaluations %s; %d decisions, %d observed, %d failed\n",
		sp.Name, st.ID, sp.Algorithm, evals, s.Rounds, s.RewardObserved, s.Failed)
	objName := sp.Objective.Name
	if objName == "" {
		objName = "objective"
	}
	fmt.Fprintf(w, "objective %s (%s)", objName, goal)
	for _, c := range s.Constraints {
		fmt.Fprintf(w, "; %s ≤ %.6g (%s)", c.Name, c.Threshold, c.Kind)
	}
	fmt.Fprintln(w)
	b, r := s.Best, s.Recommendation
	if b == nil && r == nil {
		fmt.Fprintln(w, "no feasible observation yet, and no recommendation")
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := []string{"", "decision", objName}
	for _, c := range s.Constraints {
		head = append(head, c.Name)
	}
	head = append(head, "P(every limit holds)")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	if b != nil {
		row := []string{"best observation", fmt.Sprint(b.DecisionID), fmt.Sprintf("%.6g", b.Reward)}
		for j := range s.Constraints {
			v := "–"
			if j < len(b.Costs) {
				v = fmt.Sprintf("%.6g", b.Costs[j])
			}
			row = append(row, v)
		}
		row = append(row, "–")
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if r != nil {
		row := []string{"recommendation", fmt.Sprint(r.DecisionID), fmt.Sprintf("%.6g ± %.2g", r.Objective.Mean, r.Objective.Std)}
		for j := range s.Constraints {
			v := "–"
			if j < len(r.Constraints) {
				v = fmt.Sprintf("%.6g ± %.2g", r.Constraints[j].Mean, r.Constraints[j].Std)
			}
			row = append(row, v)
		}
		row = append(row, fmt.Sprintf("%.3f", r.Feasible))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r == nil {
		fmt.Fprintln(w, "recommendation: none (the algorithm names none, or no evaluated configuration holds every limit with probability ≥ 0.95)")
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "parameter\tbest observation\trecommendation\n")
	for _, p := range configRows(sp, b, r) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p[0], p[1], p[2])
	}
	return tw.Flush()
}

// configRows are the configurations of best and the recommendation, one row
// per parameter in the study's order (a box study's coordinates x1, x2, …;
// an arm's index): name, best's value, the recommendation's ("–" where
// either is absent).
func configRows(sp api.StudySpec, b *api.Best, r *api.Recommendation) [][3]string {
	var bp, rp map[string]any
	var bx, rx []float64
	if b != nil {
		bp, bx = b.Params, b.X
	}
	if r != nil {
		rp, rx = r.Params, r.X
	}
	val := func(v any) string {
		if f, ok := v.(float64); ok {
			return fmt.Sprintf("%.6g", f)
		}
		return fmt.Sprint(v)
	}
	var rows [][3]string
	if bp != nil || rp != nil {
		names := make([]string, 0, len(sp.Parameters))
		for _, p := range sp.Parameters {
			names = append(names, p.Name)
		}
		for _, m := range []map[string]any{bp, rp} {
			var extra []string
			for k := range m {
				if !slices.Contains(names, k) {
					extra = append(extra, k)
				}
			}
			sort.Strings(extra)
			names = append(names, extra...)
		}
		for _, n := range names {
			row := [3]string{n, "–", "–"}
			if v, ok := bp[n]; ok {
				row[1] = val(v)
			}
			if v, ok := rp[n]; ok {
				row[2] = val(v)
			}
			rows = append(rows, row)
		}
		return rows
	}
	for i := range max(len(bx), len(rx)) {
		row := [3]string{fmt.Sprintf("x%d", i+1), "–", "–"}
		if i < len(bx) {
			row[1] = val(bx[i])
		}
		if i < len(rx) {
			row[2] = val(rx[i])
		}
		rows = append(rows, row)
	}
	return rows
}
