// The service a client subcommand reads (study, importance): a running
// server (--url) or its store (--db), and a study found by ID or name.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// studyClient is a client of the running server at url, or of a service
// started in process on the store db (no snapshots written), whose requests
// reach its handler directly.
func studyClient(ctx context.Context, url, token, db string) (*client.Client, func(), error) {
	if url != "" {
		if token == "" {
			token = os.Getenv("CBANDIT_TOKEN")
		}
		return client.New(strings.TrimRight(url, "/"), client.WithToken(token)), func() {}, nil
	}
	if file, ok := strings.CutPrefix(db, "sqlite:"); ok {
		if _, err := os.Stat(strings.SplitN(file, "?", 2)[0]); err != nil {
			return nil, nil, fmt.Errorf("--db %s: %w", db, err)
		}
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return nil, nil, fmt.Errorf("--db %s: %w", db, err)
	}
	srv := service.New(st, service.Options{SnapshotEvery: -1, SnapshotCost: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hc := &http.Client{Transport: handlerTransport{srv}}
	return client.New("http://127.0.0.1", client.WithHTTPClient(hc)), func() { srv.Close(); st.Close() }, nil
}

// handlerTransport answers a request with an in-process handler.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// findStudy finds a study by ID or, failing that, by name.
func findStudy(ctx context.Context, cl *client.Client, study string) (api.Study, error) {
	st, err := cl.Study(ctx, study)
	if err == nil {
		return st, nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Err.Status != http.StatusNotFound {
		return api.Study{}, err
	}
	return cl.StudyByName(ctx, study)
}
