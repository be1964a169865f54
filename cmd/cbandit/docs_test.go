package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs start the service from a built binary, never with `go run`:
// stopping `go run` (Ctrl-C in some shells and tools) can leave its child
// serving and holding the SQLite file's lock.
func TestDocsServeFromBinary(t *testing.T) {
	goRunServe := regexp.MustCompile(`go run \S*cmd/cbandit\S*( \S+)* serve\b`)
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if goRunServe.MatchString(line) {
				t.Errorf("%s:%d starts the service with go run: %q (build it: go build -o cbandit ./cmd/cbandit && ./cbandit serve …)", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "go build -o cbandit ./cmd/cbandit && ./cbandit serve --db sqlite:studies.db") {
		t.Error("README.md: the service quickstart does not build the binary before serving")
	}
}
