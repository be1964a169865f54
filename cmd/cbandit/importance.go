package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

func init() {
	register(command{
		name:    "importance",
		usage:   "(--url URL [--token TOKEN] | --db sqlite:FILE|postgres://...) --study NAME|ID [--format text|json]",
		summary: "which parameters of a service study matter (GET /studies/{id}/importance): functional ANOVA of a GP fitted to its evaluated configurations (Hutter et al. 2014), most important first",
		run:     runImportance,
	})
}

func runImportance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := commands["importance"]
	fset := newFlagSet(c, stderr)
	url := fset.String("url", "", "a running cbandit serve: its `URL` (http://host:port)")
	token := fset.String("token", "", "with --url: the server's bearer token (default $CBANDIT_TOKEN)")
	db := fset.String("db", "", "instead of --url, the `STORE` of cbandit serve: sqlite:FILE or postgres://… (with SQLite, stop the server first)")
	study := fset.String("study", "", "the study's name or ID (required)")
	format := fset.String("format", "text", "text (a table) or json (the API's answer)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "cbandit importance: unexpected argument %q\n", fset.Arg(0))
		fset.Usage()
		return errUsage
	}
	if *study == "" || (*url == "") == (*db == "") {
		fmt.Fprintln(stderr, "cbandit importance: --study and one of --url, --db are required")
		fset.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("importance: --format = %q: accepted are text, json", *format)
	}
	cl, done, err := studyClient(ctx, *url, *token, *db)
	if err != nil {
		return fmt.Errorf("importance: %w", err)
	}
	defer done()
	st, err := findStudy(ctx, cl, *study)
	if err != nil {
		return fmt.Errorf("importance: --study %s: %w", *study, err)
	}
	imp, err := cl.Importance(ctx, st.ID)
	if err != nil {
		return fmt.Errorf("importance: --study %s: %w", *study, err)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(imp)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "parameter\timportance\tfirst order\t")
	for _, p := range imp.Parameters {
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t\n", p.Parameter, p.Importance, p.FirstOrder)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s on %d evaluated configurations: alone, the parameters explain %.1f %% of the fitted model's variance (the rest: interactions)\n",
		imp.Method, imp.Observations, 100*imp.Explained)
	return err
}
