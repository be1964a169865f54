package problem

import (
	"math/rand/v2"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/registry"
)

// Problem is the ground truth of a simulation. Agents never see it; the
// runner uses it to draw noisy feedback and to score decisions with the
// noise-free functions.
type Problem interface {
	// Info is what the learner is told.
	Info() bandit.Info
	// Round prepares round t: the action set when it changes per round and the
	// full-information constraint sample when the setting gives one. A
	// problem with neither returns &bandit.Round{T: t}.
	Round(rng *rand.Rand, t int) *bandit.Round
	// Truth writes the noise-free g_1..g_m(a) at round t into costs (len M)
	// and returns f(a). It fails when a is not in the round's domain.
	Truth(r *bandit.Round, a bandit.Action, costs []float64) (float64, error)
	// Observe draws the noisy reward and costs of playing a in round r.
	Observe(rng *rand.Rand, r *bandit.Round, a bandit.Action, costs []float64) (float64, error)
	// Optimum is the value f(x*) of the best feasible action in round r
	// (best feasible policy for policy-based settings), used for regret.
	Optimum(r *bandit.Round) float64
}

// Crasher is a problem whose evaluations fail in part of its domain (a
// hidden constraint: the system crashes, runs out of memory, times out).
// Crash returns the failure's reason for playing a in round r, or "" when
// the evaluation runs; it is deterministic. The runner then reports a failed
// evaluation (bandit.Feedback.Failed) instead of drawing metrics.
type Crasher interface {
	Crash(r *bandit.Round, a bandit.Action) string
}

// Spec describes one registered problem.
type Spec struct {
	Name    string
	Summary string
	// Source cites the paper and section the problem comes from.
	Source string
	// Params declares the accepted parameters (read through them).
	Params []bandit.Param
	// New builds one instance; seed drives any randomness in the instance
	// itself (e.g. the random RKHS function of a trial).
	New func(p bandit.Params, seed uint64) (Problem, error)
}

var specs = registry.New[Spec]("problem")

// Register adds a problem; it panics on a duplicate name or a malformed
// declaration (bandit.CheckDecls).
func Register(s Spec) {
	if err := bandit.CheckDecls(s.Name, s.Params); err != nil {
		panic(err)
	}
	specs.Register(s.Name, s)
}

// Lookup returns the named problem; the error lists the accepted names.
func Lookup(name string) (Spec, error) { return specs.Lookup(name) }

// All returns every registered problem sorted by name.
func All() []Spec { return specs.All() }

// New builds an instance of the named problem after checking its parameters.
func New(name string, p bandit.Params, seed uint64) (Problem, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = bandit.Params{}
	}
	if err := p.Check(name, s.Params); err != nil {
		return nil, err
	}
	return s.New(p, seed)
}
