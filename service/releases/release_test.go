package releases

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Studies written by an earlier release restore and decide exactly as
// before: testdata/release-<commit>/studies.db holds its studies (0e4da94:
// 27 — seven GP algorithms on a box and on points, 3-D boxes, typed
// parameters, generations 1, 4 and 6, the default stage-wise choice;
// 96e52f3: 35, adding generation 8's typed spaces of 3 and 7 parameters,
// 7-D boxes and failed evaluations; 4fec3d4: 43, adding generation 10's
// offline studies — lognei on boxes of 2, 3 and 10 dims and typed spaces,
// the offline default — and config's safe stage in 3 and 7 dims;
// 7ab38bb: 46, adding generation 11's noisy offline studies asked in their
// confirmation rounds and lognei's trust region in 12 dims; 58bc36e: 48,
// adding generation 12's noise-free offline 4-dim box and config's safe
// stage asked in batches of 4; 6955ddb: 49, adding config's safe stage in
// 7 dims with a noisy constraint; 1f1309c: 50, adding config's safe stage
// in 20 dims with a noisy constraint; 87a86a4: 51, adding lognei on a
// 12-dim box whose limit no evaluation meets; 0c61b77: 52, adding config's
// first stage asked in batches of 4 on a 3-dim box whose limit no
// evaluation meets; 1ad8904: 53, adding lognei on a deterministic 7-dim
// box; 489e55c: 54, adding config's safe stage in 20 dims with a noisy
// constraint asked for 50 rounds; 81dc461: 55, adding config's safe stage
// in 3 dims in batches of 4 with a noise far below the constraint's spread,
// asked for 44 rounds; dd0d5e0: 56, adding lognei offline in 3 dims
// with a noise far below its metrics' spread, asked for 56 rounds (the
// confirmation from round 55); 198219f: 57, adding config's safe stage in
// 3 dims on a constraint whose values span four decades, asked for 44
// rounds; 791865b: the same 57 by generation 22's binary (the wide
// constraint on the bilog scale; the 20-dim safe stage of 50 rounds
// reaches a decision with no candidate in the safe set); 91cf6de: the
// same 57 by generation 23's binary; 5d9117e: the same 57 by generation
// 24's binary; 8743883: the same 57 by generation 25's binary; c30e2f7:
// 58 by generation 26's binary, adding lognei offline in 3 dims with a
// noise of 0.05, asked for 50 rounds (every fit noisy from the 41st);
// bcbea1d: 59 by generation 27's binary, adding lognei offline in 7 dims
// with a noise of 0.1, asked for 40 rounds (every metric found noisy by
// the trial fit at 18 observations); 1d2ccf6: the same 59 by generation
// 28's binary (lognei-typed8 without the startup design); 8ec23d6: the
// same 59 by generation 29's (config-box20-safe-noisy's safe stage from the
// first observation meeting the limit); b311a93: the same 59 by generation
// 30's; d5a9e01: the same 59 by generation 31's; 4b544f9: the same 59 by
// generation 32's; 4c2d75e: the same 59 by generation 33's; d5aa61e:
// the same 59 by generation 34's; 9b9c416: the same 59 by generation
// 35's (with generation 36's pin moved config-box20-safe-refit decides
// otherwise from its 45th decision: first-fit);
// 25 rounds (unless said) with a partial
// observation and two pending decisions each, no
// snapshots, so the whole log replays),
// written by that release's `cbandit serve` with testdata/gen_release.py;
// next.json holds the two decisions each study made next there. A copy of
// the database, opened by this release, must make the same ones.
func TestStudiesOfEarlierReleases(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/release-*")
	if len(dirs) == 0 {
		t.Fatal("no testdata/release-* database")
	}
	if raceEnabled {
		// Under the race detector a replay is several times slower: the
		// newest release only (the one with the most studies, each release
		// adding to the last's); the plain go test run replays them all.
		newest, most := dirs[0], -1
		for _, dir := range dirs {
			if fi, err := os.Stat(filepath.Join(dir, "next.json")); err == nil && int(fi.Size()) > most {
				newest, most = dir, int(fi.Size())
			}
		}
		dirs = []string{newest}
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel() // each its own copy of the database and its own server
			db := filepath.Join(t.TempDir(), "studies.db")
			copyFile(t, filepath.Join(dir, "studies.db"), db)
			raw, err := os.ReadFile(filepath.Join(dir, "next.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]struct {
				ID   string      `json:"id"`
				Next [][]float64 `json:"next"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			st, err := store.OpenSQLite(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			srv := httptest.NewServer(service.New(st, service.Options{}))
			defer srv.Close()
			names := make([]string, 0, len(want))
			for name := range want {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				w := want[name]
				got := ask(t, srv.URL, w.ID, 2)
				for k := range got {
					if !slices.Equal(got[k].X, w.Next[k]) {
						t.Errorf("%s: decision %d after restore is %v, the release made %v", name, got[k].DecisionID, got[k].X, w.Next[k])
					}
				}
			}
		})
	}
}

// ask asks study id for n decisions.
func ask(t *testing.T, url, id string, n int) []api.Suggestion {
	t.Helper()
	body, err := json.Marshal(api.SuggestRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/studies/"+id+"/suggestions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var r api.SuggestResponse
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &r) != nil {
		t.Fatalf("ask %s: %d %s", id, resp.StatusCode, raw)
	}
	return r.Suggestions
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
