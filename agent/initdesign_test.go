package agent

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/space"
)

// TestInitialDesign: with init=auto every agent with practical defaults
// plays, in its first 2(d+2) rounds on gardner's box [0,6]², the points of
// the shifted Halton design — inside the box, all different, the same for
// the same seed, and, by the rotation, not the plain Halton points; round
// 2(d+2)+1 is the rule's again. init=none (the default) plays the rule's
// choice from round 1; bad values are refused naming the parameter.
func TestInitialDesign(t *testing.T) {
	p, err := problem.New("gardner", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := model.FirstFit(2)
	for _, algo := range []string{"ckb-ucb", "rpol-ucb", "rpol-sw-ucb", "config"} {
		xa := runDecisions(t, algo, p, bandit.Params{"init": "auto"}, n+1)
		xb := runDecisions(t, algo, p, bandit.Params{"init": "auto"}, n+1)
		for r := range xa {
			for i, v := range xa[r] {
				if v != xb[r][i] {
					t.Fatalf("%s: round %d differs between two runs with one seed", algo, r+1)
				}
				if !(v >= 0 && v <= 6) {
					t.Fatalf("%s: round %d plays %v outside [0,6]²", algo, r+1, xa[r])
				}
			}
		}
		// The design's points differ pairwise by the Halton sequence's
		// spacing (at least 6/16 in some coordinate for 8 points).
		for r := 0; r < n; r++ {
			for s := 0; s < r; s++ {
				d := math.Max(math.Abs(xa[r][0]-xa[s][0]), math.Abs(xa[r][1]-xa[s][1]))
				if d < 6.0/16-1e-9 {
					t.Errorf("%s: design rounds %d and %d are %.3g apart", algo, s+1, r+1, d)
				}
			}
		}
		// The rotation: round r's point is the Halton point r shifted by
		// one vector modulo the box, so differences between design points
		// match the plain sequence's modulo 6.
		h := [][]float64{{3, 2}, {1.5, 4}} // Halton points 1 and 2 on [0,6]²
		for i := range 2 {
			got := math.Mod(xa[1][i]-xa[0][i]+12, 6)
			want := math.Mod(h[1][i]-h[0][i]+12, 6)
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: coordinate %d of rounds 1–2 moves by %.6f, want %.6f (mod 6)", algo, i, got, want)
			}
		}
		if xa[0][0] == 3 && xa[0][1] == 2 {
			t.Errorf("%s: the design is not rotated", algo)
		}
		xn := runDecisions(t, algo, p, bandit.Params{}, n)
		same := 0
		for r := range xn {
			if xn[r][0] == xa[r][0] && xn[r][1] == xa[r][1] {
				same++
			}
		}
		if same == n {
			t.Errorf("%s: init=none plays the design", algo)
		}
		for _, bad := range []string{"-1", "many"} {
			_, err := New(algo, Config{Info: p.Info(), Horizon: 10, Seed: 1, Params: bandit.Params{"init": bad}})
			if err == nil || !strings.Contains(err.Error(), "init") || !strings.Contains(err.Error(), bad) {
				t.Errorf("%s init=%s: error %v", algo, bad, err)
			}
		}
	}
	// A finite domain takes no design.
	fin, err := problem.New("rkhs-synthetic", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New("ckb-ucb", Config{Info: fin.Info(), Horizon: 10, Seed: 1, Params: bandit.Params{"init": "4"}}); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("init=4 on a finite domain: error %v", err)
	}
}

// TestInitStartup: lognei's init=startup plays init=10's first 11
// decisions on a typed space of 7–9 parameters — 8 parameters in 12
// coordinates (a categorical's one-hot block counts once), its design
// points valid typed values — and init=none's on a typed space of 6 and
// of 10 parameters and on boxes of 7 floats (the speed reducer's) and 3.
func TestInitStartup(t *testing.T) {
	typed := []space.Param{space.Int("workers", 1, 16), space.LogInt("batch", 1, 64), space.Int("queue", 1, 8),
		space.Int("replicas", 1, 8), space.LogFloat("timeout", 10, 1000), space.Float("gc", 0.1, 0.9),
		space.Categorical("codec", "none", "lz4", "zstd"), space.Categorical("scheduler", "fifo", "fair", "priority")}
	unit := func(n int, ps []space.Param) *domain.Box {
		box, err := domain.NewBox(make([]float64, n), slices.Repeat([]float64{1}, n))
		if err != nil {
			t.Fatal(err)
		}
		box.Vars = space.Vars(ps)
		return box
	}
	typedBox := func(ps []space.Param) *domain.Box { return unit(space.Dim(ps), ps) }
	run := func(info bandit.Info, ps bandit.Params, T int) [][]float64 {
		a, err := New("lognei", Config{Info: info, Horizon: 200, Seed: 3, Params: ps})
		if err != nil {
			t.Fatal(err)
		}
		var xs [][]float64
		for r := 1; r <= T; r++ {
			d, err := a.Decide(&bandit.Round{T: r})
			if err != nil {
				t.Fatal(err)
			}
			x := d.Action.X
			xs = append(xs, slices.Clone(x))
			costs := []float64{x[0] - 0.5}
			if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: -math.Abs(x[1] - 0.3), HasReward: true, Costs: costs}); err != nil {
				t.Fatal(err)
			}
		}
		return xs
	}
	ten := append(slices.Clone(typed), space.Float("a", 0, 1), space.Float("b", 0, 1))
	for _, c := range []struct {
		name   string
		box    *domain.Box
		params int
		want   string // the init its default decides as
	}{
		{"typed 8", typedBox(typed), 8, "10"},
		{"typed 6", typedBox(typed[2:]), 6, "none"},
		{"typed 10", typedBox(ten), 10, "none"},
		{"the speed reducer's box", unit(7, nil), 7, "none"},
		{"the spring's box", unit(3, nil), 3, "none"},
	} {
		if c.box.Params() != c.params {
			t.Fatalf("%s: %d coordinates read as %d parameters, want %d", c.name, c.box.Dim(), c.box.Params(), c.params)
		}
		info := bandit.Info{Domain: c.box, M: 1}
		got := run(info, nil, StartupTrials+1)
		want := run(info, bandit.Params{"init": c.want}, StartupTrials+1)
		for r := range got {
			if !slices.Equal(got[r], want[r]) {
				t.Fatalf("%s: round %d plays %v, init=%s %v", c.name, r+1, got[r], c.want, want[r])
			}
		}
		for r := range StartupTrials {
			x := slices.Clone(got[r])
			c.box.Project(x)
			if !slices.Equal(x, got[r]) {
				t.Errorf("%s: design round %d plays %v, not a valid value (%v)", c.name, r+1, got[r], x)
			}
		}
	}
}
