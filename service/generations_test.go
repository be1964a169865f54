package service

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
)

var update = flag.Bool("update", false, "rewrite the generated part of openapi.json (the list of generations)")

// table9 is the table of earlier defaults as generation 9 wrote it by
// hand, before the declarations carried it: for generation g, what
// generation g+1 changed, with the old conditions (unless: algorithms
// that declare the parameter are left out; fitted: only where
// hyperparameters are fitted). Kept to show that the declarations give
// the same migration.
var table9 = map[int][]struct {
	unless string
	fitted bool
	params map[string]string
}{
	1: {{params: map[string]string{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid"}}},
	2: {{unless: "widths", params: map[string]string{"standardise": "off"}}},
	3: {{params: map[string]string{"pending": "ignore"}}},
	4: {{params: map[string]string{"dual": "optimistic", "refine": "step", "pending": "hallucinate"}},
		{fitted: true, params: map[string]string{"constraint-fit": "threshold", "refit": "inline"}}},
	5: {{params: map[string]string{"region": "global"}}},
	6: {{params: map[string]string{"region-pending": "global"}}},
	7: {{params: map[string]string{"draw": "dense", "region-candidates": "fixed"}}},
	8: {{params: map[string]string{"mixed-moves": "1", "pending": "bucb"}}},
}

// pinTable9 is generation 9's pinning (pinEarlierDefaults) over table9.
func pinTable9(gen int, spec agent.Spec, ps bandit.Params) {
	for g := max(gen, 1); g < 9; g++ {
		for _, pin := range table9[g] {
			if pin.unless != "" && bandit.Declares(spec.Params, pin.unless) || pin.fitted && ps["hyper"] == "fixed" {
				continue
			}
			for _, d := range spec.Params {
				name := d.Describe().Name
				if v, ok := pin.params[name]; ok {
					if _, set := ps[name]; !set {
						ps[name] = v
					}
				}
			}
		}
	}
}

// The migration read from the declarations pins what the hand-written
// table of generation 9 pinned, for every algorithm, every generation up
// to 9 and parameters that meet each condition or not: stored studies are
// migrated exactly as before.
func TestDeclaredGenerationsAreTheTable(t *testing.T) {
	nine := generations{current: 9, specs: agent.All()} // the table's generations; later ones add changes it lacks
	given := []bandit.Params{{}, {"hyper": "fixed"}, {"hyper": "fit"}, {"standardise": "on"}, {"pending": "bucb", "region": "trust"}}
	checked := 0
	for _, spec := range agent.All() {
		for gen := 0; gen <= 9; gen++ {
			for _, ps := range given {
				want, got := maps.Clone(ps), maps.Clone(ps)
				pinTable9(gen, spec, want)
				nine.pin(gen, spec.Name, got)
				if !maps.Equal(got, want) {
					t.Errorf("%s, generation %d, given %v: pinned %v, the table pinned %v", spec.Name, gen, ps, got, want)
				}
				checked += len(want) - len(ps)
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d pins compared", checked)
	}
}

// withChange returns a copy of specs where every declaration of param (a
// shared declaration, as agent's are) gains the change c: what editing
// that declaration does.
func withChange(specs []agent.Spec, param string, c bandit.Change) []agent.Spec {
	out := slices.Clone(specs)
	for i, s := range out {
		ps := slices.Clone(s.Params)
		for j, d := range ps {
			if p, ok := d.(bandit.IntParam); ok && p.Name == param {
				p.Earlier = append(slices.Clone(p.Earlier), c)
				ps[j] = p
			}
			if p, ok := d.(bandit.ChoiceParam); ok && p.Name == param {
				p.Earlier = append(slices.Clone(p.Earlier), c)
				ps[j] = p
			}
		}
		out[i].Params = ps
	}
	return out
}

// A new generation is one change on a declaration and the newest
// generation bumped: here generation current+1 makes refine's default
// something else where hyperparameters are fitted. Nothing else is
// edited, and the migration, the list of generations and the papers'
// settings follow.
func TestAGenerationIsOneDeclaration(t *testing.T) {
	now := api.DefaultsPractical
	next := generations{current: now + 1, specs: withChange(agent.All(), "refine",
		bandit.Change{Until: now, Value: "step", If: agent.FitsHyper, Why: "a made-up change of refine"})}

	// A study of the generation that was newest keeps step, where the
	// change applies and its algorithm declares refine.
	for _, c := range []struct {
		algo string
		ps   bandit.Params
		want string
	}{{"rpol-ucb", bandit.Params{}, "step"}, {"config", bandit.Params{"hyper": "fit"}, "step"},
		{"rpol-ucb", bandit.Params{"hyper": "fixed"}, ""}, {"rpol-ucb", bandit.Params{"refine": "ascent"}, "ascent"},
		{"opb", bandit.Params{}, ""}} {
		ps := maps.Clone(c.ps)
		next.pin(now, c.algo, ps)
		if ps["refine"] != c.want {
			t.Errorf("%s given %v, generation %d under %d: refine %q, want %q", c.algo, c.ps, now, now+1, ps["refine"], c.want)
		}
		ps = maps.Clone(c.ps)
		defaultGenerations.pin(now, c.algo, ps)
		if !maps.Equal(ps, c.ps) {
			t.Errorf("%s: the current generation pins %v", c.algo, ps)
		}
	}
	// A study of generation 1 still keeps step from generation 4's
	// change, and nothing else of its migration moves.
	for _, algo := range []string{"rpol-ucb", "ckb-ts", "igp-ucb", "cei"} {
		old, ps := bandit.Params{}, bandit.Params{}
		defaultGenerations.pin(1, algo, old)
		next.pin(1, algo, ps)
		if !maps.Equal(old, ps) {
			t.Errorf("%s, generation 1: pinned %v under %d, %v under %d", algo, ps, now+1, old, now)
		}
	}
	// The migration of a stored definition.
	s := &api.StudySpec{Algorithm: "rpol-ucb", Defaults: now}
	if !next.migrateSpec(s) || s.Params["refine"] != "step" || s.Defaults != now+1 {
		t.Errorf("migrated: generation %d, params %v", s.Defaults, s.Params)
	}
	// The list of generations.
	d := next.describe()
	for _, want := range []string{"absent on creation = " + strconv.Itoa(now+1), strconv.Itoa(now+1) + ": a made-up change of refine. ", "2–" + strconv.Itoa(now) + " = earlier"} {
		if !strings.Contains(d, want) {
			t.Errorf("the generations say %q, want %q in it", d, want)
		}
	}
	if strings.Contains(defaultGenerations.describe(), "made-up") {
		t.Error("the registry's declarations changed")
	}
	var md bytes.Buffer
	if err := next.markdown(&md); err != nil {
		t.Fatal(err)
	}
	if row := "| " + strconv.Itoa(now+1) + " | a made-up change of refine | `refine` | step | hyper≠fixed |"; !strings.Contains(md.String(), row) {
		t.Errorf("docs/parameters-table.md's generations lack %q:\n%s", row, md.String())
	}
	// The papers' settings are those the declarations give.
	a, _ := agent.PaperDefaults(agent.All())
	b, _ := agent.PaperDefaults(next.specs)
	if !maps.Equal(a, b) {
		t.Errorf("papers' settings %v, were %v", b, a)
	}
}

// openapiDefaults is the generated part of openapi.json: the maximum and
// the description of the study's "defaults".
var openapiDefaults = regexp.MustCompile(`("defaults": \{\n\s*"type": "integer",\n\s*"minimum": 1,\n\s*"maximum": )(\d+)(,\n\s*"description": )("(?:[^"\\]|\\.)*")`)

// openapi.json describes the generations as the declarations give them.
// After a new generation: go test ./service -run TestOpenAPIDescribesTheGenerations -update
func TestOpenAPIDescribesTheGenerations(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	m := openapiDefaults.FindSubmatchIndex(raw)
	if m == nil {
		t.Fatal("openapi.json: no \"defaults\" with a maximum and a description")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(defaultGenerations.describe()); err != nil {
		t.Fatal(err)
	}
	want := openapiDefaults.ReplaceAll(raw, []byte("${1}"+strconv.Itoa(api.DefaultsPractical)+"${3}"+strings.ReplaceAll(strings.TrimSpace(b.String()), "$", "$$")))
	if bytes.Equal(raw, want) {
		return
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("openapi.json: defaults has maximum %s and description %s; want %d and %q (go test ./service -run TestOpenAPIDescribesTheGenerations -update)",
		raw[m[4]:m[5]], raw[m[8]:m[9]], api.DefaultsPractical, defaultGenerations.describe())
}
