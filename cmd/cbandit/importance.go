package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
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
	var imp api.Importance
	var err error
	if *url != "" {
		imp, err = importanceOverHTTP(ctx, *url, *token, *study)
	} else {
		imp, err = importanceFromStore(ctx, *db, *study)
	}
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

// importanceOverHTTP asks a running server, finding the study by ID or,
// failing that, by name.
func importanceOverHTTP(ctx context.Context, url, token, study string) (api.Importance, error) {
	if token == "" {
		token = os.Getenv("CBANDIT_TOKEN")
	}
	cl := client.New(strings.TrimRight(url, "/"), client.WithToken(token))
	id := study
	if _, err := cl.Study(ctx, study); err != nil {
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Err.Status != http.StatusNotFound {
			return api.Importance{}, err
		}
		st, err := cl.StudyByName(ctx, study)
		if err != nil {
			return api.Importance{}, err
		}
		id = st.ID
	}
	return cl.Importance(ctx, id)
}

// importanceFromStore computes it from the store, as `cbandit export`
// reads it: the log replayed, nothing written.
func importanceFromStore(ctx context.Context, db, study string) (api.Importance, error) {
	if file, ok := strings.CutPrefix(db, "sqlite:"); ok {
		if _, err := os.Stat(strings.SplitN(file, "?", 2)[0]); err != nil {
			return api.Importance{}, fmt.Errorf("--db %s: %w", db, err)
		}
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return api.Importance{}, fmt.Errorf("--db %s: %w", db, err)
	}
	defer st.Close()
	srv := service.New(st, service.Options{SnapshotEvery: -1, SnapshotCost: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close()
	s, err := srv.Lookup(ctx, study)
	if err != nil {
		return api.Importance{}, err
	}
	return srv.Importance(ctx, s.ID)
}
