package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/service/api"
)

// This file is the part that knows the program being tuned: its knobs, how
// a configuration becomes its command line and environment, and how its
// output becomes the study's metrics. To tune your own program, change this
// file (docs/tune_program.md, "Your own program").

// Config is one configuration: the parameters' values as the service sends
// them (JSON numbers for ints, strings for categoricals).
type Config map[string]any

func ptr(v float64) *float64 { return &v }

// knobs are the study's parameters: typed, log-scaled where a factor matters
// more than a difference (service/params.go encodes them).
var knobs = []api.Parameter{
	{Name: "workers", Type: "int", Low: ptr(1), High: ptr(16), Log: true},    // -workers: indexing goroutines
	{Name: "batch", Type: "int", Low: ptr(256), High: ptr(32768), Log: true}, // -batch: records per batch
	{Name: "queue", Type: "int", Low: ptr(1), High: ptr(64), Log: true},      // -queue: batches generated ahead
	{Name: "gogc", Type: "int", Low: ptr(25), High: ptr(1600), Log: true},    // GOGC: heap growth before a collection, %
	// GOMEMLIMIT in MiB: the runtime's soft memory limit (Go 1.19). 512 is
	// as good as off here: under the memory limit the child dies long
	// before its heap reaches it.
	{Name: "gomemlimit_mib", Type: "int", Low: ptr(16), High: ptr(512), Log: true},
	{Name: "index", Type: "categorical", Choices: []any{"map", "sort"}}, // -index: hash map or sort
}

// defaults is the program as shipped: its flags' defaults on this machine
// (workers = GOMAXPROCS) and the Go runtime's (GOGC = 100, no GOMEMLIMIT:
// Config "gomemlimit_mib" absent).
func defaults(cpus int) Config {
	return Config{"workers": cpus, "batch": 1024, "queue": 16, "gogc": 100, "index": "map"}
}

// commandFor turns a configuration into the program's arguments and the
// environment variables to set (the rest of the environment is inherited,
// without GOGC and GOMEMLIMIT). Parameters absent from c keep the
// program's defaults, so a study over fewer knobs needs no change here.
func commandFor(c Config, records int) (args, env []string, err error) {
	args = []string{"-records", strconv.Itoa(records)}
	for _, flag := range []string{"workers", "batch", "queue", "level"} {
		if v, ok := c[flag]; ok {
			n, err := intOf(flag, v)
			if err != nil {
				return nil, nil, err
			}
			args = append(args, "-"+flag, strconv.Itoa(n))
		}
	}
	if v, ok := c["index"]; ok {
		s, isStr := v.(string)
		if !isStr || (s != "map" && s != "sort") {
			return nil, nil, fmt.Errorf("parameter index = %v: want map or sort", v)
		}
		args = append(args, "-index", s)
	}
	if v, ok := c["gogc"]; ok {
		n, err := intOf("gogc", v)
		if err != nil {
			return nil, nil, err
		}
		env = append(env, "GOGC="+strconv.Itoa(n))
	}
	if v, ok := c["gomemlimit_mib"]; ok {
		n, err := intOf("gomemlimit_mib", v)
		if err != nil {
			return nil, nil, err
		}
		env = append(env, "GOMEMLIMIT="+strconv.Itoa(n)+"MiB")
	}
	return args, env, nil
}

// metrics reads the program's output (its last JSON line) into the
// objective (throughput, MB/s, maximised) and the constraint metrics
// (p95 per-batch latency, ms), in the order of the study's constraints.
func metrics(stdout []byte) (objective float64, costs []float64, err error) {
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	var r struct {
		Throughput *float64 `json:"throughput_mb_s"`
		P95        *float64 `json:"p95_ms"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return 0, nil, fmt.Errorf("reading the program's output %q: %w", lines[len(lines)-1], err)
	}
	if r.Throughput == nil || r.P95 == nil {
		return 0, nil, fmt.Errorf("the program's output %q lacks throughput_mb_s or p95_ms", lines[len(lines)-1])
	}
	return *r.Throughput, []float64{*r.P95}, nil
}

// study is the study's definition: maximise throughput, p95 latency within
// the limit in every evaluation (stage-wise).
func study(name string, p95Limit float64, seed uint64, horizon int, algorithm string) api.StudySpec {
	return api.StudySpec{
		Name: name,
		// Searched as a mixed space (defaults generation 8): every suggestion
		// an exact encoding (ints integers, one choice per categorical), so
		// distinct decisions are distinct configurations.
		Parameters:  knobs,
		Objective:   api.Objective{Name: "throughput_mb_s", Goal: api.Maximize},
		Constraints: []api.Constraint{{Name: "p95_ms", Threshold: p95Limit, Kind: api.KindStageWise}},
		Algorithm:   algorithm, // "" lets the service choose (cei, for a stage-wise limit on typed knobs)
		Seed:        seed,
		Horizon:     horizon,
	}
}

// intOf reads an int parameter (a JSON number, or an int from defaults).
func intOf(name string, v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<31 {
			return int(x), nil
		}
	}
	return 0, fmt.Errorf("parameter %s = %v: want an integer", name, v)
}
