package main

import (
	"strings"
	"testing"
	"time"
)

func TestRunSmall(t *testing.T) {
	if err := run("", "", "memory:", "ckb-ucb", nil, 3, 20, 64, false, 20*time.Second, true); err != nil {
		t.Fatal(err)
	}
}

// --param reaches the studies: a bad value is the service's refusal naming
// it; name=value is required.
func TestParam(t *testing.T) {
	var p paramFlag
	if err := p.Set("hyper=fixed"); err != nil || p.m["hyper"] != "fixed" {
		t.Fatalf("hyper=fixed: %v, %v", p.m, err)
	}
	if err := run("", "", "memory:", "ckb-ucb", p.m, 2, 5, 64, false, 20*time.Second, true); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("novalue"); err == nil {
		t.Error("novalue accepted")
	}
	err := run("", "", "memory:", "ckb-ucb", map[string]any{"hyper": "guess"}, 1, 5, 64, false, 20*time.Second, true)
	if err == nil || !strings.Contains(err.Error(), "hyper") {
		t.Errorf("hyper=guess: %v, want an error naming hyper", err)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:80", "http://127.3.4.5"} {
		if err := loopback(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://10.0.0.1:8080", "http://example.com", "http://192.168.1.1", "nonsense"} {
		if err := loopback(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	if err := run("http://10.1.2.3", "", "", "ckb-ucb", nil, 1, 1, 64, false, time.Second, false); err == nil {
		t.Error("a non-loopback target was accepted")
	}
}
