package main

import (
	"bytes"
	"os"
	"testing"
)

// docs/parameters-table.md is what `cbandit list --markdown` prints from
// the declarations: one declaration per parameter, documented from it.
// After changing a declaration: go run ./cmd/cbandit list --markdown > docs/parameters-table.md
func TestParametersTableIsGenerated(t *testing.T) {
	var b bytes.Buffer
	if err := listMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/parameters-table.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatal("docs/parameters-table.md differs from `cbandit list --markdown`: regenerate it (go run ./cmd/cbandit list --markdown > docs/parameters-table.md)")
	}
}
