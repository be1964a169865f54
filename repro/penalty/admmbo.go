package penalty

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/internal/seed"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/runner"
)

// ADMMBO stops by its own rule (Ariafar et al.'s public code, see
// agent.ADMMBO) and then replays its incumbent; Shi & Eryilmaz 2022 App. E plots it only
// up to its stop ("about 90" rounds on gardner, "about 50" on data-rate).
// The runner records every algorithm to T, so the reproduction replays each
// ADMMBO trial alone with the runner's seeds (runner.ProblemSeed, AgentSeed,
// RoundSeed, NoiseSeed; the penalty experiments have no feedback delay) to
// learn its stop round, and draws an ADMMBO trial's boxes and table means
// only at checkpoints t ≤ its stop round.

// admmboStops returns, for each algorithm of c with id admmbo (by label),
// the round of its last BO query in every trial (0 = still running at T).
func admmboStops(c *experiment.Config, quick bool) (map[string][]int, error) {
	spec, err := c.Spec(quick)
	if err != nil {
		return nil, err
	}
	res := map[string][]int{}
	for _, al := range spec.Algos {
		if al.ID != "admmbo" {
			continue
		}
		if spec.Delay != nil {
			return nil, fmt.Errorf("admmbo stop rounds: replay without feedback delays only (%s has a delay)", c.Title)
		}
		label := al.Label
		if label == "" {
			label = al.ID
		}
		for tr := 0; tr < spec.Trials; tr++ {
			s, err := admmboStop(&spec, al, tr)
			if err != nil {
				return nil, fmt.Errorf("admmbo stop rounds: %s, trial %d: %w", label, tr, err)
			}
			res[label] = append(res[label], s)
		}
	}
	return res, nil
}

// admmboStop replays one trial of ADMMBO as runner.Run plays it.
func admmboStop(spec *runner.Spec, al runner.Algo, tr int) (int, error) {
	p, err := problem.New(spec.Problem, spec.ProblemParams, runner.ProblemSeed(spec.Seed, tr))
	if err != nil {
		return 0, err
	}
	info := p.Info()
	info.Horizon = spec.Horizon
	ag, err := agent.New(al.ID, agent.Config{Info: info, Horizon: spec.Horizon, Params: al.Params,
		Seed: runner.AgentSeed(spec.Seed, tr, al.Label)})
	if err != nil {
		return 0, err
	}
	ad, ok := ag.(*agent.ADMMBO)
	if !ok {
		return 0, fmt.Errorf("agent %q is not ADMMBO", al.ID)
	}
	roundStream, noiseStream := seed.NewStream(), seed.NewStream()
	costs := make([]float64, info.M)
	for t := 1; t <= spec.Horizon && ad.StopRound() == 0; t++ {
		r := p.Round(roundStream.At(runner.RoundSeed(spec.Seed, tr, t)), t)
		d, err := ag.Decide(r)
		if err != nil {
			return 0, fmt.Errorf("round %d: %w", t, err)
		}
		if _, err := p.Truth(r, d.Action, costs); err != nil {
			return 0, fmt.Errorf("round %d: %w", t, err)
		}
		rew, err := p.Observe(noiseStream.At(runner.NoiseSeed(spec.Seed, tr, t)), r, d.Action, costs)
		if err != nil {
			return 0, fmt.Errorf("round %d: %w", t, err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: costs}); err != nil {
			return 0, fmt.Errorf("round %d: %w", t, err)
		}
	}
	return ad.StopRound(), nil
}

// running returns the values of the trials still running at checkpoint k
// (every trial for an algorithm that does not stop).
func (f finals) running(x [][]float64, k int) []float64 {
	if f.stops == nil {
		return x[k]
	}
	var out []float64
	for tr, v := range x[k] {
		if s := f.stops[tr]; s == 0 || f.checkpoints[k] <= s {
			out = append(out, v)
		}
	}
	return out
}

// stopNote states each stopping algorithm's stop rounds, for report.md.
func stopNote(v map[string]finals) string {
	labels := make([]string, 0, len(v))
	for l, f := range v {
		if f.stops != nil {
			labels = append(labels, l)
		}
	}
	sort.Strings(labels)
	var b strings.Builder
	for _, l := range labels {
		st := v[l].stops
		lo, hi, sum, n := 0, 0, 0, 0
		for _, s := range st {
			if s == 0 {
				continue
			}
			if n == 0 || s < lo {
				lo = s
			}
			if s > hi {
				hi = s
			}
			sum += s
			n++
		}
		if n == 0 {
			fmt.Fprintf(&b, "%s did not stop before T in any of %d trials.\n\n", l, len(st))
			continue
		}
		fmt.Fprintf(&b, "%s stops by its own rule at round %.1f on average (min %d, max %d; %d of %d trials stopped before T); "+
			"Shi & Eryilmaz 2022 plot ADMMBO only up to its stop. Its boxplots and the means above use, at each t, only the trials not yet stopped "+
			"(— when none); the experiment's own curve figures run to T with its replayed incumbent after the stop.\n\n",
			l, float64(sum)/float64(n), lo, hi, n, len(st))
	}
	return b.String()
}
