// The generations of the algorithm defaults: what later generations changed, and pinning the earlier ones (laterDefaults, pinEarlierDefaults); a study's first epoch.

package service

import (
	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/api"
)

// ---- Generations of the algorithm defaults --------------------------------
//
// A study runs under the defaults of the generation it was created in
// (api.StudySpec.Defaults; absent in a stored study = 1). laterDefaults[g]
// lists what generation g+1 changed: the values the parameters had in g,
// which a study of generation ≤ g keeps (for each algorithm that documents
// the parameter, where the study did not set it). They are applied once,
// by the migration of a stored definition (migrate.go) or of an earlier
// generation asked for on creation — never when a study is built. A new
// generation adds one entry here and bumps api.DefaultsPractical; a test
// replays the studies of every earlier release (TestStudiesOfEarlierReleases).
var laterDefaults = map[int][]defaultsPin{
	// 1 → 2: the practical defaults, for every algorithm that
	// takes them.
	1: {{params: map[string]string{"standardise": "off", "hyper": "fixed", "widths": "theory", "candidates": "grid"}}},
	// 2 → 3: standardise=on for the GP agents that take it without the
	// other practical defaults (their declarations have no widths),
	// standardised after the first ones.
	2: {{unless: "widths", params: map[string]string{"standardise": "off"}}},
	// 3 → 4 (docs/parallel.md): pending decisions hallucinated (GP-BUCB) by every
	// algorithm that takes the parameter.
	3: {{params: map[string]string{"pending": "ignore"}}},
	// 4 → 5 (docs/defaults.md, "Generation 5"): constraint hyperparameters fitted about the
	// values' mean (no stuck runs); CKB's dual step on the posterior mean
	// less one σ; a multi-step box refinement in 3+ dims; GP-BUCB's wider
	// bound for f while decisions are pending (pending=bucb).
	4: {{params: map[string]string{"dual": "optimistic", "refine": "step", "pending": "hallucinate"}},
		{fitted: true, params: map[string]string{"constraint-fit": "threshold", "refit": "inline"}}},
	// 5 → 6 (docs/defaults.md, "Generation 6"): rpol-ucb and config decide in SCBO's trust region
	// in 3+ dims.
	5: {{params: map[string]string{"region": "global"}}},
	// 6 → 7 (docs/defaults.md, "Generation 7"): the trust region also for a decision asked while
	// others are pending (batches, asynchronous workers).
	6: {{params: map[string]string{"region-pending": "global"}}},
	// 7 → 8: Thompson draws pathwise over every model that can (ckb-ts);
	// typed parameters searched as a mixed space (normalization:
	// api.DefaultsMixed).
	7: {{params: map[string]string{"draw": "dense", "region-candidates": "fixed"}}},
	// 8 → 9 (docs/typed.md): the typed-space search also changes two
	// discrete coordinates at once.
	// … and in 7+ dims a batch's decisions do not widen f's bound.
	8: {{params: map[string]string{"mixed-moves": "1", "pending": "bucb"}}},
	// 9 → 10 (docs/defaults.md, "Generation 10"): config's safe stage in 3+ dims,
	// from half the horizon on, once an evaluation met every limit.
	9: {{params: map[string]string{"feasibility": "optimistic"}}},
}

// defaultsPin is one change of defaults between generations: params are
// the earlier values, for every algorithm that takes them except those
// whose declaration has the parameter unless (the registry, not names,
// says which algorithms a change concerned), and with fitted only for a
// study that fits hyperparameters (fitsHyper).
type defaultsPin struct {
	unless string
	fitted bool
	params map[string]string
}

// fitsHyper reports whether an agent with parameters ps fits
// hyperparameters: unless hyper = fixed, since every study's domain has
// coordinates (agent.FitParams apply only then).
func fitsHyper(ps bandit.Params) bool { return ps["hyper"] != "fixed" }

// pinEarlierDefaults sets on ps, for a study of generation gen, the values
// of every later generation's change (laterDefaults) where the algorithm
// takes the parameter and the study did not set it.
func pinEarlierDefaults(gen int, algorithm string, ps bandit.Params) {
	gen = max(gen, 1)
	if gen >= api.DefaultsPractical {
		return
	}
	spec, err := agent.Lookup(algorithm)
	if err != nil {
		return // refused later, naming the algorithm
	}
	for g := gen; g < api.DefaultsPractical; g++ {
		for _, pin := range laterDefaults[g] {
			if pin.unless != "" && bandit.Declares(spec.Params, pin.unless) || pin.fitted && !fitsHyper(ps) {
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

// ---- end of the generations of the algorithm defaults ---------------------

// firstEpoch is the horizon of a study's first run of its algorithm.
func firstEpoch(s *api.StudySpec) int {
	if s.Horizon > 0 {
		if len(s.RaisedFrom) > 0 {
			return s.RaisedFrom[0]
		}
		return s.Horizon
	}
	if s.Epoch > 0 {
		return s.Epoch
	}
	return DefaultEpoch
}
