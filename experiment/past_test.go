package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Past measurements: values, a failed row with its reason, and the errors
// that name line and column.
func TestReadPast(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "past.csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ps, err := ReadPast(write("x1,x2,reward,g1,failed,reason\n0.1,0.2,3,-1,,\n0.9,0.9,,,true,OOM\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Failed || ps[0].Reward != 3 || !ps[1].Failed || ps[1].Reason != "OOM" || ps[1].G != nil {
		t.Fatalf("read %+v", ps)
	}
	for _, c := range []struct{ body, want string }{
		{"x1,reward,g1,failed\n0.1,3,-1,yes\n", "line 2, column failed"},
		{"x1,reward,g1,failed\n0.1,3,,true\n", "line 2, column reward"},
		{"x1,reward,g1,failed,reason\n0.1,3,-1,,OOM\n", "column reason"},
		{"x1,reward,g1\n0.1,,-1\n", "line 2, column reward"},
	} {
		if _, err := ReadPast(write(c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %q", c.body, err, c.want)
		}
	}
}
