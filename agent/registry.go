package agent

import (
	"fmt"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/internal/registry"
)

// Config is what a factory receives to build an agent.
type Config struct {
	// Info is what the problem discloses to the learner.
	Info bandit.Info
	// Horizon is T; agents whose defaults depend on T (V = G√T/ρ, λ = 1 + 2/T) read it.
	Horizon int
	// Params are the algorithm's settings (unknown keys are an error).
	Params bandit.Params
	// Seed seeds the agent's own random stream (Thompson draws, random Z).
	Seed uint64
}

// Spec describes one registered algorithm.
type Spec struct {
	// Name is the ID used on the command line, e.g. "ckb-ucb".
	Name string
	// Summary is one line for `cbandit list`.
	Summary string
	// Source cites the paper and algorithm, e.g. "Zhou & Ji (CBO) Alg. 1 (GP-UCB), Thm. 1".
	Source string
	// Params declares the accepted parameters: the factory reads them
	// through these declarations, and list prints them.
	Params []bandit.Param
	// Can declares what the algorithm can do (domains, constraint kinds,
	// needs, pending decisions); Fits and Choose read it.
	Can Caps
	// New builds the agent.
	New func(cfg Config) (bandit.Agent, error)
}

var specs = registry.New[Spec]("algorithm")

// Register adds an algorithm; it panics on a duplicate name or a malformed
// declaration (bandit.CheckDecls): programming errors caught by every test
// run, never by user input.
func Register(s Spec) {
	if err := bandit.CheckDecls(s.Name, s.Params); err != nil {
		panic(err)
	}
	specs.Register(s.Name, s)
}

// Lookup returns the algorithm registered under name; the error lists the
// accepted names.
func Lookup(name string) (Spec, error) { return specs.Lookup(name) }

// All returns every registered algorithm sorted by name.
func All() []Spec { return specs.All() }

// New builds the named agent after checking its parameters, the horizon
// and that the problem has the constraints the algorithm declares it needs.
func New(name string, cfg Config) (bandit.Agent, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if cfg.Params == nil {
		cfg.Params = bandit.Params{}
	}
	if err := cfg.Params.Check(name, s.Params); err != nil {
		return nil, err
	}
	if cfg.Horizon <= 0 {
		return nil, fmt.Errorf("%s: horizon = %d: must be at least 1", name, cfg.Horizon)
	}
	if err := s.constrained(cfg.Info); err != nil {
		return nil, err
	}
	return s.New(cfg)
}
