package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cbandit/cbandit/agent"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/report"
	"github.com/cbandit/cbandit/runner"
)

// Config is one experiment file.
type Config struct {
	Title      string            `yaml:"title"`
	Problem    string            `yaml:"problem"`
	Params     map[string]string `yaml:"params"`
	Algorithms []AlgoConfig      `yaml:"algorithms"`
	// AlgorithmDefaults are parameters given to every algorithm of the
	// file that documents them, unless its entry sets them: the settings a
	// paper shares among its algorithms. The papers' settings of the
	// parameters with practical defaults come from their declarations
	// instead (Defaults "paper", PaperDefaults).
	AlgorithmDefaults map[string]string `yaml:"algorithm_defaults"`
	Horizon           int               `yaml:"horizon"`
	Trials            int               `yaml:"trials"`
	Seed              uint64            `yaml:"seed"`
	// CurvePoints is how many rounds curves.csv records (evenly spaced,
	// always the last); 0 means 200, and a value ≥ the horizon records every round.
	CurvePoints int `yaml:"curve_points"`
	// Delay gives Poisson feedback delays (Guo et al. §7); zero means none.
	Delay *DelayConfig `yaml:"delay"`
	// Batch, Async: parallel evaluations (runner.Spec); 0 or 1 means one at a time.
	Batch int `yaml:"batch"`
	Async int `yaml:"async"`
	// Past is a CSV of past measurements every agent is told first (ReadPast).
	Past string `yaml:"past"`
	// Defaults is "practical" (default: what whoever names no setting gets)
	// or "paper": PaperDefaults for every algorithm that takes them, as the
	// papers' experiment files say (cbandit run --defaults).
	Defaults string `yaml:"defaults"`
	// Quick overrides horizon and trials under --quick.
	Quick *struct {
		Horizon int `yaml:"horizon"`
		Trials  int `yaml:"trials"`
	} `yaml:"quick"`
	Paper *struct {
		Source string                        `yaml:"source"`
		Values map[string]map[string]float64 `yaml:"values"`
	} `yaml:"paper"`
	Notes string `yaml:"notes"`
	// Figures sets what the figures' bands show (report.Results.Band) and
	// states what the paper's figure draws.
	Figures *struct {
		Band      string `yaml:"band"`
		PaperBand string `yaml:"paper_band"`
	} `yaml:"figures"`

	// Path is the file the configuration was read from ("" for a run built
	// on the command line); Sets are the --set overrides applied since, in
	// order. Together they re-create the run (report.md prints them).
	Path string   `yaml:"-"`
	Sets []string `yaml:"-"`
}

// AlgoConfig is one algorithm entry.
type AlgoConfig struct {
	ID     string            `yaml:"id"`
	Label  string            `yaml:"label"`
	Params map[string]string `yaml:"params"`
}

// DelayConfig is a Poisson delay model for reward and cost feedback.
type DelayConfig struct {
	RewardMean float64 `yaml:"reward_mean"`
	CostMean   float64 `yaml:"cost_mean"`
}

// Parse decodes an experiment file; unknown fields are errors that name the line.
func Parse(name string, data []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	c.Path = name
	if c.Problem == "" {
		return nil, fmt.Errorf("%s: field problem is missing", name)
	}
	if len(c.Algorithms) == 0 {
		return nil, fmt.Errorf("%s: field algorithms is empty", name)
	}
	for i, a := range c.Algorithms {
		if a.ID == "" {
			return nil, fmt.Errorf("%s: algorithms[%d].id is missing", name, i)
		}
	}
	if c.Figures != nil {
		if err := report.CheckBand(c.Figures.Band); err != nil {
			return nil, fmt.Errorf("%s: figures.%v", name, err)
		}
	}
	return &c, nil
}

// Load reads and parses an experiment file from disk. A path
// experiments/<paper>/<name>.yaml that does not exist on disk is read from
// the copy embedded in the binary, so the command lines that reports print
// work from any directory.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if name, ok := strings.CutPrefix(filepath.ToSlash(filepath.Clean(path)), "experiments/"); ok {
			if c, embErr := Embedded(name); embErr == nil {
				return c, nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Set applies a --set key=value override: horizon, trials, seed, title,
// params.<k>, or algorithms.<label>.<k> (every algorithm with that label or ID).
func (c *Config) Set(kv string) error {
	if err := c.set(kv); err != nil {
		return err
	}
	c.Sets = append(c.Sets, kv)
	return nil
}

func (c *Config) set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("--set %q: want key=value", kv)
	}
	switch {
	case k == "curve_points":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--set curve_points = %q: want a non-negative integer", v)
		}
		c.CurvePoints = n
	case k == "horizon" || k == "trials":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("--set %s = %q: not an integer", k, v)
		}
		// An explicit value wins over the file's quick size too.
		if k == "horizon" {
			c.Horizon = n
			if c.Quick != nil {
				c.Quick.Horizon = 0
			}
		} else {
			c.Trials = n
			if c.Quick != nil {
				c.Quick.Trials = 0
			}
		}
	case k == "seed":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("--set seed = %q: not a non-negative integer", v)
		}
		c.Seed = n
	case k == "title":
		c.Title = v
	case strings.HasPrefix(k, "params."):
		if c.Params == nil {
			c.Params = map[string]string{}
		}
		c.Params[strings.TrimPrefix(k, "params.")] = v
	case strings.HasPrefix(k, "algorithms."):
		rest := strings.TrimPrefix(k, "algorithms.")
		dot := strings.LastIndex(rest, ".")
		if dot < 0 {
			return fmt.Errorf("--set %q: want algorithms.<label>.<param>=value", kv)
		}
		who, key := rest[:dot], rest[dot+1:]
		found := false
		for i := range c.Algorithms {
			a := &c.Algorithms[i]
			if a.Label == who || a.ID == who {
				if a.Params == nil {
					a.Params = map[string]string{}
				}
				a.Params[key] = v
				found = true
			}
		}
		if !found {
			return fmt.Errorf("--set %q: no algorithm labelled %q", kv, who)
		}
	default:
		return fmt.Errorf("--set %q: unknown key %q: accepted are horizon, trials, seed, title, curve_points, params.<k>, algorithms.<label>.<k>", kv, k)
	}
	return nil
}

// Spec turns the configuration into a runner spec (quick: the reduced size).
func (c *Config) Spec(quick bool) (runner.Spec, error) {
	s := runner.Spec{
		Problem:       c.Problem,
		ProblemParams: bandit.Params(c.Params),
		Horizon:       c.Horizon,
		Trials:        c.Trials,
		Seed:          c.Seed,
		CurvePoints:   c.CurvePoints,
	}
	if quick && c.Quick != nil {
		if c.Quick.Horizon > 0 {
			s.Horizon = c.Quick.Horizon
		}
		if c.Quick.Trials > 0 {
			s.Trials = c.Quick.Trials
		}
	}
	for _, a := range c.Algorithms {
		ps, err := c.algoParams(a)
		if err != nil {
			return s, err
		}
		s.Algos = append(s.Algos, runner.Algo{Label: a.Label, ID: a.ID, Params: ps})
	}
	if c.Batch < 0 || c.Async < 0 || (c.Batch > 1 && c.Async > 1) || (c.Delay != nil && (c.Batch > 1 || c.Async > 1)) {
		return s, fmt.Errorf("batch = %d, async = %d: each must be ≥ 0, and batch, async and delay are exclusive", c.Batch, c.Async)
	}
	s.Batch, s.Async = c.Batch, c.Async
	switch c.Defaults {
	case "", "practical":
		s.Defaults = "practical"
		if len(c.AlgorithmDefaults) > 0 {
			s.Defaults = "paper" // the files pin the papers' settings
		}
	case "paper":
		s.Defaults = "paper"
	default:
		return s, fmt.Errorf("defaults = %q: want practical or paper", c.Defaults)
	}
	if c.Past != "" {
		past, err := ReadPast(c.Past)
		if err != nil {
			return s, err
		}
		s.Past = past
	}
	if c.Delay != nil {
		d, err := PoissonDelay(c.Delay.RewardMean, c.Delay.CostMean)
		if err != nil {
			return s, err
		}
		s.Delay = d
	}
	return s, nil
}

// algoParams is an entry's parameters plus the file's algorithm_defaults
// that its algorithm documents and the entry does not set.
func (c *Config) algoParams(a AlgoConfig) (bandit.Params, error) {
	defs := c.AlgorithmDefaults
	if c.Defaults == "paper" {
		defs = maps.Clone(PaperDefaults)
		maps.Copy(defs, c.AlgorithmDefaults)
	}
	if len(defs) == 0 {
		return bandit.Params(a.Params), nil
	}
	spec, err := agent.Lookup(a.ID)
	if err != nil {
		return nil, fmt.Errorf("%s: algorithms: %w", c.Path, err)
	}
	ps := bandit.Params{}
	for k, v := range a.Params {
		ps[k] = v
	}
	for _, k := range sortedKeys(defs) {
		if _, set := ps[k]; set {
			continue
		}
		if bandit.Declares(spec.Params, k) {
			ps[k] = defs[k]
		}
	}
	return ps, nil
}

// PaperDefaults are the papers' settings of the parameters that have
// practical defaults, as their declarations give them (ParamDoc.Paper,
// agent.PaperDefaults): the problem's units and constants, its fixed
// kernel, the papers' β_t schedules, a grid of candidates, decisions made
// without regard to pending ones, the one-step box refinement, the whole
// box (no trust region). Every paper's experiment file takes them
// (defaults: paper; a test checks it), and cbandit run --defaults paper
// gives them to any run.
var PaperDefaults = func() map[string]string {
	m, err := agent.PaperDefaults(agent.All())
	if err != nil {
		panic(err) // a declaration's error, which every test run meets
	}
	return m
}()

// PaperValues returns the paper's reference numbers and their source.
func (c *Config) PaperValues() (map[string]map[string]float64, string) {
	if c.Paper == nil {
		return nil, ""
	}
	return c.Paper.Values, c.Paper.Source
}

// sortedKeys is a small helper for deterministic output.
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
