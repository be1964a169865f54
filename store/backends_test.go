package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cbandit/cbandit/store"
	"github.com/cbandit/cbandit/store/storetest"
)

// Each backend passes the contract test through Open, as a user's URL
// reaches it.
func open(t *testing.T, url string) store.Store {
	s, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, "memory:") })
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, "sqlite:"+filepath.Join(t.TempDir(), "s.db"))
	})
}

// TestPostgres runs when CBANDIT_TEST_POSTGRES names a server
// (.ci/postgres.sh starts one).
func TestPostgres(t *testing.T) {
	dsn := os.Getenv("CBANDIT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("CBANDIT_TEST_POSTGRES is not set: no PostgreSQL server to test against (.ci/postgres.sh starts one)")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, dsn) })
}

// TestSchemes: the three backends register themselves.
func TestSchemes(t *testing.T) {
	got := store.Schemes()
	for _, want := range []string{"memory", "postgres", "postgresql", "sqlite"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("scheme %q is not registered (registered: %v)", want, got)
		}
	}
}
