package optimize_test

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestREADMELibraryExample: the README's "Library" program compiles and
// runs as printed (in a directory of this module, so it builds against
// this tree), chooses config for its latency limit, and finds a best
// throughput within 2 % of the optimum with the latency within its limit.
func TestREADMELibraryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	i := strings.Index(md, "\n## Library\n")
	if i < 0 {
		t.Fatal(`README.md has no "## Library" section`)
	}
	m := regexp.MustCompile("(?s)```go\n(package main\n.*?)```").FindStringSubmatch(md[i:])
	if m == nil {
		t.Fatal("the Library section has no Go program (a ```go block starting with package main)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir); os.Remove("testdata") })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(m[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "run", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's program: %v\n%s", err, out)
	}
	t.Logf("the README's program prints:\n%s", out)
	if !strings.HasPrefix(string(out), "lognei, the offline default for stage-wise limits") {
		t.Errorf("the program's algorithm line: %q", out)
	}
	got := regexp.MustCompile(`throughput (\S+), latency (\S+) ms`).FindStringSubmatch(string(out))
	if got == nil {
		t.Fatalf("no best throughput in %q", out)
	}
	th, _ := strconv.ParseFloat(got[1], 64)
	lat, _ := strconv.ParseFloat(got[2], 64)
	// The optimum of the README's system over a fine grid.
	opt := math.Inf(-1)
	for i := 0; i <= 2000; i++ {
		for j := 0; j <= 200; j++ {
			u, frac := float64(i)/2000, float64(j)/200
			if 10+54*math.Pow(u, 1.5)+20*(frac-0.3)*(frac-0.3) <= 50 {
				opt = math.Max(opt, 1200*(0.45+0.55*u)*(1-0.5*(frac-0.6)*(frac-0.6)))
			}
		}
	}
	t.Logf("best %.0f, optimum %.1f: %.2f %% below", th, opt, 100*(opt-th)/opt)
	if lat > 50 || (opt-th)/opt > 0.02 {
		t.Errorf("best throughput %v at latency %v ms; the optimum is %.1f", th, lat, opt)
	}
}
