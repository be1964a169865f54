package service

import (
	"encoding/json"
	"testing"

	"github.com/cbandit/cbandit/service/api"
)

// TestPracticalDefaultsOfAStudy: a box study that names neither
// native nor candidates goes to rpol-ucb as the box itself and records the
// generation of its defaults; asking for candidates keeps the grid; a study
// of the earlier generation keeps the earlier parameter values.
func TestPracticalDefaultsOfAStudy(t *testing.T) {
	def := func(extra map[string]any) []byte {
		s := map[string]any{
			"name": "d", "space": map[string]any{"type": "box", "lo": []float64{0, 0}, "hi": []float64{1, 1}},
			"objective":   map[string]any{"name": "y"},
			"constraints": []map[string]any{{"name": "c", "threshold": 1}},
			"algorithm":   "rpol-ucb", "seed": 1, "horizon": 50,
		}
		for k, v := range extra {
			s[k] = v
		}
		b, _ := json.Marshal(s)
		return b
	}
	spec, b, e := decodeStudy(def(nil))
	if e != nil {
		t.Fatal(e)
	}
	if !spec.Space.Native || spec.Defaults != api.DefaultsPractical || b.Def.Params["standardise"] != "" {
		t.Fatalf("native %v, defaults %d, params %v", spec.Space.Native, spec.Defaults, b.Def.Params)
	}
	spec, _, e = decodeStudy(def(map[string]any{"space": map[string]any{"type": "box", "lo": []float64{0, 0}, "hi": []float64{1, 1}, "candidates": 64}}))
	if e != nil || spec.Space.Native || spec.Space.Candidates != 64 {
		t.Fatalf("candidates given: native %v, candidates %d, %v", spec.Space.Native, spec.Space.Candidates, e)
	}
	spec, b, e = decodeStudy(def(map[string]any{"defaults": 1}))
	if e != nil || spec.Space.Native || b.Def.Params["standardise"] != "off" || b.Def.Params["hyper"] != "fixed" || b.Def.Params["widths"] != "theory" {
		t.Fatalf("defaults 1: native %v, params %v, %v", spec.Space.Native, b.Def.Params, e)
	}
	if _, _, e = decodeStudy(def(map[string]any{"defaults": api.DefaultsPractical + 1})); e == nil || e.field != "defaults" {
		t.Fatalf("defaults %d: %v", api.DefaultsPractical+1, e)
	}
	// Float parameters form a box: native; with an int among them, the
	// encoded cube with a discrete coordinate (DefaultsMixed), and before
	// that generation the candidate encoding.
	lo, hi := 1.0, 5.0
	floats := []map[string]any{{"name": "a", "type": "float", "low": lo, "high": hi}, {"name": "b", "type": "float", "low": lo, "high": hi, "log": true}}
	spec, _, e = decodeStudy(def(map[string]any{"space": nil, "parameters": floats}))
	if e != nil || !spec.Space.Native || spec.Space.Type != api.SpaceBox {
		t.Fatalf("float parameters: space %+v, %v", spec.Space, e)
	}
	withInt := append(floats, map[string]any{"name": "c", "type": "int", "low": lo, "high": hi})
	spec, _, e = decodeStudy(def(map[string]any{"space": nil, "parameters": withInt}))
	if e != nil || !spec.Space.Native {
		t.Fatalf("an int parameter: space %+v, %v", spec.Space, e)
	}
	spec, _, e = decodeStudy(def(map[string]any{"space": nil, "parameters": withInt, "defaults": api.DefaultsMixed - 1}))
	if e != nil || spec.Space.Native {
		t.Fatalf("an int parameter, generation %d: space %+v, %v", api.DefaultsMixed-1, spec.Space, e)
	}
}

// TestDefaultsGenerations: a study keeps the defaults of its generation
// (the declarations' bandit.Change). Generation 2 pins standardise=off for exactly the
// algorithms standardised in generation 3 (not for rpol-ucb, standardised
// in 2), generation 1 pins every earlier practical default, the current
// generation pins nothing, and a value the study sets is kept.
func TestDefaultsGenerations(t *testing.T) {
	def := func(algo string, gen int, ps map[string]any) []byte {
		s := map[string]any{
			"name": "d", "space": map[string]any{"type": "box", "lo": []float64{0, 0}, "hi": []float64{1, 1}},
			"objective":   map[string]any{"name": "y"},
			"constraints": []map[string]any{{"name": "c", "threshold": 1}},
			"algorithm":   algo, "seed": 1, "horizon": 50,
		}
		if gen > 0 {
			s["defaults"] = gen
		}
		if ps != nil {
			s["params"] = ps
		}
		b, _ := json.Marshal(s)
		return b
	}
	for _, c := range []struct {
		algo       string
		gen        int
		ps         map[string]any
		std, hyp   string
		wantNative bool
	}{
		{"igp-ucb", 0, nil, "", "", true},
		{"igp-ucb", api.DefaultsPractical, nil, "", "", true},
		{"igp-ucb", 2, nil, "off", "", true},
		{"penalty-noisy", 2, nil, "off", "", true},
		{"admmbo", 2, nil, "off", "", true},
		{"igp-ucb", 2, map[string]any{"standardise": "on"}, "on", "", true},
		{"igp-ucb", 1, nil, "off", "", false},
		{"rpol-ucb", 2, nil, "", "", true},
		{"rpol-ucb", 1, nil, "off", "fixed", false},
	} {
		spec, b, e := decodeStudy(def(c.algo, c.gen, c.ps))
		if e != nil {
			t.Fatalf("%s defaults %d: %v", c.algo, c.gen, e)
		}
		if b.Def.Params["standardise"] != c.std || b.Def.Params["hyper"] != c.hyp || spec.Space.Native != c.wantNative {
			t.Errorf("%s defaults %d params %v: standardise %q hyper %q native %v, want %q %q %v",
				c.algo, c.gen, c.ps, b.Def.Params["standardise"], b.Def.Params["hyper"], spec.Space.Native, c.std, c.hyp, c.wantNative)
		}
	}
}

// Generation 5 fits constraints about their mean: a study of
// generation 4 keeps constraint-fit = threshold (and so CKB's 0.2δ slack);
// igp-ucb, which fits no constraint, is given nothing.
func TestDefaultsGeneration5(t *testing.T) {
	for _, c := range []struct {
		algo string
		gen  int
		want string
	}{{"rpol-ucb", 4, "threshold"}, {"ckb-ucb", 4, "threshold"}, {"ckb-ucb", 5, ""}, {"config", 3, "threshold"}, {"igp-ucb", 4, ""}} {
		b, _ := json.Marshal(map[string]any{
			"name": "d", "space": map[string]any{"type": "box", "lo": []float64{0}, "hi": []float64{1}},
			"objective": map[string]any{"name": "y"}, "constraints": []map[string]any{{"name": "c", "threshold": 1}},
			"algorithm": c.algo, "seed": 1, "horizon": 50, "defaults": c.gen,
		})
		_, bs, e := decodeStudy(b)
		if e != nil {
			t.Fatalf("%s defaults %d: %v", c.algo, c.gen, e)
		}
		if got := bs.Def.Params["constraint-fit"]; got != c.want {
			t.Errorf("%s defaults %d: constraint-fit %q, want %q", c.algo, c.gen, got, c.want)
		}
		if want := map[int]string{3: "ignore", 4: "hallucinate", 5: "bucb"}[c.gen]; bs.Def.Params["pending"] != want {
			t.Errorf("%s defaults %d: pending %q, want %q", c.algo, c.gen, bs.Def.Params["pending"], want)
		}
	}
}

// pin is a stored 3-D box study's expected parameters: an algorithm at a
// generation, with the parameters the study names; want maps a parameter to
// the value its definition stores ("" where nothing is pinned).
type pin struct {
	algo string
	gen  int
	ps   map[string]any
	want map[string]string
}

// checkPins decodes each case's study and compares its stored parameters.
func checkPins(t *testing.T, cases []pin) {
	t.Helper()
	for _, c := range cases {
		b, _ := json.Marshal(map[string]any{
			"name": "d", "space": map[string]any{"type": "box", "lo": []float64{0, 0, 0}, "hi": []float64{1, 1, 1}},
			"objective": map[string]any{"name": "y"}, "constraints": []map[string]any{{"name": "c", "threshold": 1}},
			"algorithm": c.algo, "seed": 1, "horizon": 50, "defaults": c.gen, "params": c.ps,
		})
		_, bs, e := decodeStudy(b)
		if e != nil {
			t.Fatalf("%s defaults %d: %v", c.algo, c.gen, e)
		}
		for k, want := range c.want {
			if got := bs.Def.Params[k]; got != want {
				t.Errorf("%s defaults %d params %v: %s %q, want %q", c.algo, c.gen, c.ps, k, got, want)
			}
		}
	}
}

// Generation 6 puts rpol-ucb and config in a trust region in
// 3+ dims: a study of generation 5 keeps region = global unless it sets
// region; igp-ucb, which takes no region, is given nothing. Generation 7
// keeps the region while decisions are pending: a study of generation 6 or
// earlier keeps region-pending = global (the whole box, as generation 6
// searched it) unless it sets it.
func TestDefaultsGeneration6(t *testing.T) {
	r := func(region, pending string) map[string]string {
		return map[string]string{"region": region, "region-pending": pending}
	}
	checkPins(t, []pin{
		{"rpol-ucb", 5, nil, r("global", "global")}, {"config", 2, nil, r("global", "global")}, {"rpol-ucb", 6, nil, r("", "global")},
		{"rpol-ucb", 5, map[string]any{"region": "trust"}, r("trust", "global")}, {"igp-ucb", 5, nil, r("", "")},
		{"config", 7, nil, r("", "")}, {"ckb-ucb", 6, nil, r("", "global")}, {"config", 6, map[string]any{"region-pending": "trust"}, r("", "trust")},
	})
}

// Generation 10 gives config a safe stage in 3+ dims: a study of
// generation 9 or earlier keeps feasibility = optimistic unless it sets
// it; rpol-ucb, which takes no feasibility, is given nothing.
func TestDefaultsGeneration10(t *testing.T) {
	f := func(v string) map[string]string { return map[string]string{"feasibility": v} }
	checkPins(t, []pin{
		{"config", 9, nil, f("optimistic")}, {"config", 2, nil, f("optimistic")}, {"config", 10, nil, f("")},
		{"config", 9, map[string]any{"feasibility": "pessimistic"}, f("pessimistic")}, {"rpol-ucb", 9, nil, f("")},
	})
}

// A config study of generation 10 or earlier keeps safe-pending =
// hallucinated unless it sets it; generation 11 gets the default (nothing
// pinned).
func TestDefaultsGeneration11(t *testing.T) {
	sp := func(v string) map[string]string { return map[string]string{"safe-pending": v} }
	checkPins(t, []pin{
		{"config", 10, nil, sp("hallucinated")}, {"config", 9, nil, sp("hallucinated")}, {"config", 11, nil, sp("")},
		{"config", 10, map[string]any{"safe-pending": "observed"}, sp("observed")},
	})
}

// A config study of generation 11 or earlier keeps safe-observed = model
// unless it sets it (generation 10's too, where safe-pending = hallucinated
// leaves it unread); generation 12 gets the default (nothing pinned).
// A lognei study of generation 11 keeps exploit = 0.
func TestDefaultsGeneration12(t *testing.T) {
	checkPins(t, []pin{
		{"config", 11, nil, map[string]string{"safe-observed": "model"}},
		{"config", 12, nil, map[string]string{"safe-observed": ""}},
		{"config", 10, nil, map[string]string{"safe-observed": "model"}},
		{"config", 11, map[string]any{"safe-observed": "exact"}, map[string]string{"safe-observed": "exact"}},
		{"lognei", 11, nil, map[string]string{"exploit": "0"}},
		{"lognei", 12, nil, map[string]string{"exploit": ""}},
	})
}

// Generation 13 changes config's constraint-warp, beta-safe-noisy and
// beta-safe-noisy-seed and lognei's polish-trials: a study of generation
// 12 or before keeps their earlier values unless it names them; one of
// generation 13 gets its defaults: nothing pinned but beta-safe-noisy-seed,
// which generation 14 changed.
func TestDefaultsGeneration13(t *testing.T) {
	checkPins(t, []pin{
		{"config", 12, nil, map[string]string{"constraint-warp": "none", "beta-safe-noisy": "0", "beta-safe-noisy-seed": "none"}},
		{"config", 11, nil, map[string]string{"constraint-warp": "none", "beta-safe-noisy": "0", "beta-safe-noisy-seed": "none", "safe-observed": "model"}},
		{"config", 13, nil, map[string]string{"constraint-warp": "", "beta-safe-noisy": "", "beta-safe-noisy-seed": "evaluated"}},
		{"config", 12, map[string]any{"beta-safe-noisy": 3}, map[string]string{"beta-safe-noisy": "3", "beta-safe-noisy-seed": "none"}},
		{"lognei", 12, nil, map[string]string{"polish-trials": "full", "polish-search": "", "exploit-noisy": ""}},
		{"lognei", 11, nil, map[string]string{"polish-trials": "full", "exploit": "0"}},
		{"lognei", 13, nil, map[string]string{"polish-trials": ""}},
		{"lognei", 12, map[string]any{"polish-trials": "bound"}, map[string]string{"polish-trials": "bound"}},
	})
}

// Generation 14 changes lognei's confirm-deep (where nothing is
// confirmable, the confirmation evaluates a point its replicates could
// confirm) and config's safe-hold and beta-safe-noisy-seed: a study of
// generation 13 keeps confirm-deep 0, safe-hold none and
// beta-safe-noisy-seed evaluated unless it names them, one of generation
// 12 its own; one of generation 14 gets the defaults (nothing pinned).
func TestDefaultsGeneration14(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 13, nil, map[string]string{"confirm-deep": "0"}},
		{"lognei", 12, nil, map[string]string{"confirm-deep": "0", "polish-trials": "full"}},
		{"lognei", 14, nil, map[string]string{"confirm-deep": ""}},
		{"lognei", 13, map[string]any{"confirm-deep": 1.645}, map[string]string{"confirm-deep": "1.645"}},
		{"config", 13, nil, map[string]string{"safe-hold": "none", "beta-safe-noisy-seed": "evaluated"}},
		{"config", 12, nil, map[string]string{"safe-hold": "none", "beta-safe-noisy-seed": "none", "constraint-warp": "none"}},
		{"config", 14, nil, map[string]string{"safe-hold": "evaluated", "beta-safe-noisy-seed": ""}},
		{"config", 13, map[string]any{"safe-hold": "evaluated"}, map[string]string{"safe-hold": "evaluated"}},
	})
}

// Generation 15 takes the noisy safe set at β = 1.5 from 20 dims on
// (config's beta-safe-noisy-wide): a study of generation 14 or earlier keeps
// beta-safe-noisy-wide 0 unless it names it; one of generation 15 gets the
// default (nothing pinned).
func TestDefaultsGeneration15(t *testing.T) {
	checkPins(t, []pin{
		{"config", 14, nil, map[string]string{"beta-safe-noisy-wide": "0", "safe-hold": "evaluated"}},
		{"config", 13, nil, map[string]string{"beta-safe-noisy-wide": "0", "safe-hold": "none"}},
		{"config", 15, nil, map[string]string{"beta-safe-noisy-wide": ""}},
		{"config", 14, map[string]any{"beta-safe-noisy-wide": 2}, map[string]string{"beta-safe-noisy-wide": "2"}},
		{"rpol-ucb", 14, nil, map[string]string{"beta-safe-noisy-wide": ""}},
	})
}

// Generation 16 puts lognei's constraints' prior mean at their observed
// mean in 10+ dims until an evaluation meets every limit
// (region-prior-mean): a study of generation 15 or earlier keeps
// region-prior-mean threshold unless it names it; one of generation 16
// gets the default (nothing pinned); config does not declare it.
func TestDefaultsGeneration16(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 15, nil, map[string]string{"region-prior-mean": "threshold"}},
		{"lognei", 13, nil, map[string]string{"region-prior-mean": "threshold", "confirm-deep": "0"}},
		{"lognei", 16, nil, map[string]string{"region-prior-mean": ""}},
		{"lognei", 15, map[string]any{"region-prior-mean": "before"}, map[string]string{"region-prior-mean": "before"}},
		{"config", 15, nil, map[string]string{"region-prior-mean": ""}},
	})
}

// Generation 17 has a batch's later decisions in config's first stage
// condition f alone on the pending ones (first-pending): a study of
// generation 16 or earlier keeps first-pending hallucinated unless it
// names it; one of generation 17 gets the default (nothing pinned);
// lognei does not declare it.
func TestDefaultsGeneration17(t *testing.T) {
	checkPins(t, []pin{
		{"config", 16, nil, map[string]string{"first-pending": "hallucinated"}},
		{"config", 14, nil, map[string]string{"first-pending": "hallucinated", "beta-safe-noisy-wide": "0"}},
		{"config", 17, nil, map[string]string{"first-pending": ""}},
		{"config", 16, map[string]any{"first-pending": "observed"}, map[string]string{"first-pending": "observed"}},
		{"lognei", 16, nil, map[string]string{"first-pending": ""}},
	})
}

// Generation 18 has lognei polish from its starts alone where every metric
// is deterministic (box-polish=auto) and take, in the search away from
// evaluated configurations, the first search's runs that came near none
// of them (search-again=reuse): a study of generation 17 or earlier keeps
// each and full unless it named them.
func TestDefaultsGeneration18(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 17, nil, map[string]string{"box-polish": "each", "search-again": "full"}},
		{"lognei", 10, nil, map[string]string{"box-polish": "best", "search-again": "full"}},
		{"lognei", 18, nil, map[string]string{"box-polish": "", "search-again": ""}},
		{"lognei", 17, map[string]any{"box-polish": "starts", "search-again": "reuse"}, map[string]string{"box-polish": "starts", "search-again": "reuse"}},
		{"config", 17, nil, map[string]string{"box-polish": "", "search-again": ""}},
	})
}

// Generation 19 has config's constraints refit every 8 observations from a
// wide box's noisy safe stage on (safe-refit): a study of generation 18 or
// earlier keeps the doubling schedule alone (0) unless it named it.
func TestDefaultsGeneration19(t *testing.T) {
	checkPins(t, []pin{
		{"config", 18, nil, map[string]string{"safe-refit": "0"}},
		{"config", 14, nil, map[string]string{"safe-refit": "0", "first-pending": "hallucinated"}},
		{"config", 19, nil, map[string]string{"safe-refit": ""}},
		{"config", 18, map[string]any{"safe-refit": 4}, map[string]string{"safe-refit": "4"}},
		{"lognei", 18, nil, map[string]string{"safe-refit": ""}},
	})
}

// Generation 20: safe-hold=unseen and noisy-replicates=on; studies of
// earlier generations keep evaluated (none before 14) and off.
func TestDefaultsGeneration20(t *testing.T) {
	checkPins(t, []pin{
		{"config", 19, nil, map[string]string{"safe-hold": "evaluated", "noisy-replicates": "off"}},
		{"config", 13, nil, map[string]string{"safe-hold": "none", "noisy-replicates": "off"}},
		{"config", 20, nil, map[string]string{"safe-hold": "", "noisy-replicates": ""}},
		{"config", 19, map[string]any{"safe-hold": "none"}, map[string]string{"safe-hold": "none", "noisy-replicates": "off"}},
		{"lognei", 19, nil, map[string]string{"noisy-replicates": "off", "safe-hold": ""}},
		{"lognei", 20, nil, map[string]string{"noisy-replicates": ""}},
	})
}

// Generation 21: lognei's noise-check=repeat; studies of earlier
// generations keep off unless they named it; config has no noise-check.
func TestDefaultsGeneration21(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 20, nil, map[string]string{"noise-check": "off", "noisy-replicates": ""}},
		{"lognei", 19, nil, map[string]string{"noise-check": "off", "noisy-replicates": "off"}},
		{"lognei", 21, nil, map[string]string{"noise-check": "repeat"}}, // generation 31: unseen
		{"lognei", 20, map[string]any{"noise-check": "repeat"}, map[string]string{"noise-check": "repeat"}},
		{"config", 20, nil, map[string]string{"noise-check": ""}},
	})
}

// Generation 22: config's constraint-warp-wide (10) and safe-hold-fallback
// (wide); studies of earlier generations keep 0 and none unless they named
// them; lognei has neither.
func TestDefaultsGeneration22(t *testing.T) {
	checkPins(t, []pin{
		{"config", 21, nil, map[string]string{"constraint-warp-wide": "0", "safe-hold-fallback": "none"}},
		{"config", 19, nil, map[string]string{"constraint-warp-wide": "0", "safe-hold-fallback": "none", "safe-hold": "evaluated"}},
		{"config", 22, nil, map[string]string{"constraint-warp-wide": "", "safe-hold-fallback": "wide"}},
		{"config", 21, map[string]any{"constraint-warp-wide": 5}, map[string]string{"constraint-warp-wide": "5", "safe-hold-fallback": "none"}},
		{"lognei", 21, nil, map[string]string{"constraint-warp-wide": "", "safe-hold-fallback": ""}},
	})
}

// Generation 23: config's safe-outside=likely; studies of earlier
// generations keep ucb unless they named it; lognei has none.
func TestDefaultsGeneration23(t *testing.T) {
	checkPins(t, []pin{
		{"config", 22, nil, map[string]string{"safe-outside": "ucb", "safe-hold-fallback": "wide"}},
		{"config", 21, nil, map[string]string{"safe-outside": "ucb", "safe-hold-fallback": "none"}},
		{"config", 23, nil, map[string]string{"safe-outside": ""}},
		{"config", 22, map[string]any{"safe-outside": "likely"}, map[string]string{"safe-outside": "likely"}},
		{"lognei", 22, nil, map[string]string{"safe-outside": ""}},
	})
}

// Generation 24: config's safe-centre=plausible; studies of earlier
// generations keep observed unless they named it; lognei has none.
func TestDefaultsGeneration24(t *testing.T) {
	checkPins(t, []pin{
		{"config", 23, nil, map[string]string{"safe-centre": "observed", "safe-outside": ""}},
		{"config", 22, nil, map[string]string{"safe-centre": "observed", "safe-outside": "ucb"}},
		{"config", 24, nil, map[string]string{"safe-centre": "plausible"}},
		{"config", 23, map[string]any{"safe-centre": "plausible"}, map[string]string{"safe-centre": "plausible"}},
		{"lognei", 23, nil, map[string]string{"safe-centre": ""}},
	})
}

// Generation 25: config's first-region=mean and safe-centre=surest;
// studies of generation 24 keep observed and plausible unless they named
// them; lognei has neither.
func TestDefaultsGeneration25(t *testing.T) {
	checkPins(t, []pin{
		{"config", 24, nil, map[string]string{"first-region": "observed", "safe-centre": "plausible"}},
		{"config", 23, nil, map[string]string{"first-region": "observed", "safe-centre": "observed"}},
		{"config", 25, nil, map[string]string{"first-region": "", "safe-centre": ""}},
		{"config", 24, map[string]any{"first-region": "mean", "safe-centre": "surest"}, map[string]string{"first-region": "mean", "safe-centre": "surest"}},
		{"lognei", 24, nil, map[string]string{"first-region": "", "safe-centre": ""}},
	})
}

// Generation 26: lognei's repeat-value=augmented; studies of generation 25
// keep ei unless they named it; config has none.
func TestDefaultsGeneration26(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 25, nil, map[string]string{"repeat-value": "ei"}},
		{"lognei", 21, nil, map[string]string{"repeat-value": "ei"}},
		{"lognei", 26, nil, map[string]string{"repeat-value": ""}},
		{"lognei", 25, map[string]any{"repeat-value": "none"}, map[string]string{"repeat-value": "none"}},
		{"config", 25, nil, map[string]string{"repeat-value": ""}},
	})
}

// Generation 27: lognei's incumbent=nei-noisy; studies of generation 26
// keep plug-in unless they named one; config has none.
func TestDefaultsGeneration27(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 26, nil, map[string]string{"incumbent": "plug-in"}},
		{"lognei", 21, nil, map[string]string{"incumbent": "plug-in"}},
		{"lognei", 27, nil, map[string]string{"incumbent": ""}},
		{"lognei", 26, map[string]any{"incumbent": "nei"}, map[string]string{"incumbent": "nei"}},
		{"config", 26, nil, map[string]string{"incumbent": ""}},
	})
}

// Generation 28: lognei's noisy-prior=constraints and noisy-final=kept;
// studies of generation 27 keep kept and search unless they named them;
// config has neither.
func TestDefaultsGeneration28(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 27, nil, map[string]string{"noisy-prior": "kept", "noisy-final": "search"}},
		{"lognei", 21, nil, map[string]string{"noisy-prior": "kept", "noisy-final": "search"}},
		{"lognei", 28, nil, map[string]string{"noisy-prior": "", "noisy-final": ""}},
		{"lognei", 27, map[string]any{"noisy-prior": "auto", "noisy-final": "kept"}, map[string]string{"noisy-prior": "auto", "noisy-final": "kept"}},
		{"config", 27, nil, map[string]string{"noisy-prior": "", "noisy-final": ""}},
	})
}

// TestDefaultsGeneration29: lognei's studies of generation 28 and earlier
// keep init=none (no startup design); generation 29's and config's store
// nothing for it; a value given is kept.
func TestDefaultsGeneration29(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 28, nil, map[string]string{"init": "none"}},
		{"lognei", 21, nil, map[string]string{"init": "none"}},
		{"lognei", 29, nil, map[string]string{"init": ""}},
		{"lognei", 28, map[string]any{"init": "startup"}, map[string]string{"init": "startup"}},
		{"config", 28, nil, map[string]string{"init": ""}},
	})
}

// Generation 30 reads config's first stage off the models' means from 10
// dims too (first-wide = means); a study of generation 29 or earlier keeps
// observed unless it sets it; lognei takes no first-wide.
func TestDefaultsGeneration30(t *testing.T) {
	checkPins(t, []pin{
		{"config", 29, nil, map[string]string{"first-wide": "observed"}},
		{"config", 12, nil, map[string]string{"first-wide": "observed"}},
		{"config", 30, nil, map[string]string{"first-wide": ""}},
		{"config", 29, map[string]any{"first-wide": "means"}, map[string]string{"first-wide": "means"}},
		{"lognei", 29, nil, map[string]string{"first-wide": ""}},
	})
}

func TestDefaultsGeneration31(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 30, nil, map[string]string{"noise-check": "repeat"}},
		{"lognei", 21, nil, map[string]string{"noise-check": "repeat"}},
		{"lognei", 20, nil, map[string]string{"noise-check": "off"}},
		{"lognei", 31, nil, map[string]string{"noise-check": ""}},
		{"lognei", 30, map[string]any{"noise-check": "unseen"}, map[string]string{"noise-check": "unseen"}},
		{"config", 30, nil, map[string]string{"noise-check": ""}},
	})
}

// Generation 32 polishes the leader in the confirmation's turns no
// challenger can use (confirm-spare = polish); a study of generation 31 or
// earlier replicates the leader there unless it sets it; config takes no
// confirm-spare.
func TestDefaultsGeneration32(t *testing.T) {
	checkPins(t, []pin{
		{"lognei", 31, nil, map[string]string{"confirm-spare": "leader"}},
		{"lognei", 11, nil, map[string]string{"confirm-spare": "leader"}},
		{"lognei", 32, nil, map[string]string{"confirm-spare": ""}},
		{"lognei", 31, map[string]any{"confirm-spare": "polish"}, map[string]string{"confirm-spare": "polish"}},
		{"config", 31, nil, map[string]string{"confirm-spare": ""}},
	})
}

// Generation 33: config's safe stage from 7 dims searches again in halved
// trust regions where its pick would repeat an evaluated point.
func TestDefaultsGeneration33(t *testing.T) {
	checkPins(t, []pin{
		{"config", 32, nil, map[string]string{"safe-hold-search": "none"}},
		{"config", 9, nil, map[string]string{"safe-hold-search": "none"}},
		{"config", 33, nil, map[string]string{"safe-hold-search": ""}},
		{"config", 32, map[string]any{"safe-hold-search": "shrink"}, map[string]string{"safe-hold-search": "shrink"}},
		{"lognei", 32, nil, map[string]string{"safe-hold-search": ""}},
	})
}

// Generation 34: safe-hold-fallback likelier (before constraint-warp-wide
// acts too, the fallback where the models hold it likelier than the
// decision to keep every limit); earlier generations pin wide, an explicit
// value stands.
func TestDefaultsGeneration34(t *testing.T) {
	checkPins(t, []pin{
		{"config", 33, nil, map[string]string{"safe-hold-fallback": "wide"}},
		{"config", 22, nil, map[string]string{"safe-hold-fallback": "wide"}},
		{"config", 21, nil, map[string]string{"safe-hold-fallback": "none"}},
		{"config", 34, nil, map[string]string{"safe-hold-fallback": ""}},
		{"config", 33, map[string]any{"safe-hold-fallback": "always"}, map[string]string{"safe-hold-fallback": "always"}},
		{"lognei", 33, nil, map[string]string{"safe-hold-fallback": ""}},
	})
}

// Generation 35 widens config's UCB of the objective on boxes of 20+ dims
// (beta-f-wide = 3): a study of generation 34 or earlier keeps 2 unless it
// sets it; lognei, which takes no beta-f-wide, is given nothing.
func TestDefaultsGeneration35(t *testing.T) {
	checkPins(t, []pin{
		{"config", 34, nil, map[string]string{"beta-f-wide": "2"}},
		{"config", 10, nil, map[string]string{"beta-f-wide": "2"}},
		{"config", 35, nil, map[string]string{"beta-f-wide": ""}},
		{"config", 34, map[string]any{"beta-f-wide": "4"}, map[string]string{"beta-f-wide": "4"}},
		{"lognei", 34, nil, map[string]string{"beta-f-wide": ""}},
	})
}

// Generation 36 fits config's models first at 2(d+2) observations on boxes
// of 20+ dims (first-fit = early): a study of generation 35 or earlier
// keeps the doubling schedule unless it sets it; lognei, which takes no
// first-fit, is given nothing.
func TestDefaultsGeneration36(t *testing.T) {
	checkPins(t, []pin{
		{"config", 35, nil, map[string]string{"first-fit": "doubling"}},
		{"config", 10, nil, map[string]string{"first-fit": "doubling"}},
		{"config", 36, nil, map[string]string{"first-fit": ""}},
		{"config", 35, map[string]any{"first-fit": "early"}, map[string]string{"first-fit": "early"}},
		{"lognei", 35, nil, map[string]string{"first-fit": ""}},
	})
}
