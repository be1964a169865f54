package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/store"
)

func init() {
	register(command{
		name:    "export",
		usage:   "--db sqlite:FILE|postgres://... --study NAME|ID [--format csv|json]",
		summary: "write a service study's decisions, with what was observed of them, to stdout (CSV: a header and one row per decision)",
		run:     runExport,
	})
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := commands["export"]
	fset := newFlagSet(c, stderr)
	db := fset.String("db", "sqlite:cbandit.db", "the store of `cbandit serve`: sqlite:FILE or postgres://…")
	study := fset.String("study", "", "the study's name or ID (required)")
	format := fset.String("format", service.FormatCSV, "csv (columns as GET /studies/{id}/decisions.csv) or json (as GET /studies/{id}/decisions, every decision)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "cbandit export: unexpected argument %q\n", fset.Arg(0))
		fset.Usage()
		return errUsage
	}
	if *study == "" {
		fmt.Fprintln(stderr, "cbandit export: --study is required")
		fset.Usage()
		return errUsage
	}
	if *format != service.FormatCSV && *format != service.FormatJSON {
		return fmt.Errorf("export: --format = %q: accepted are csv, json", *format)
	}
	if file, ok := strings.CutPrefix(*db, "sqlite:"); ok {
		if _, err := os.Stat(strings.SplitN(file, "?", 2)[0]); err != nil {
			return fmt.Errorf("export: --db %s: %w", *db, err)
		}
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return fmt.Errorf("export: --db %s: %w", *db, err)
	}
	defer st.Close()
	// No snapshots: exporting reads the log and writes nothing.
	srv := service.New(st, service.Options{SnapshotEvery: -1, SnapshotCost: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close()
	s, err := srv.Lookup(ctx, *study)
	if err != nil {
		return fmt.Errorf("export: --study %s: %w", *study, err)
	}
	if err := srv.Export(ctx, s.ID, *format, stdout); err != nil {
		return fmt.Errorf("export: study %s: %w", *study, err)
	}
	return nil
}
