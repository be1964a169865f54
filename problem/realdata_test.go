package problem

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/gp"
)

func TestMissingDataFileNamesFileAndFlag(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"light-sensor", "stocks"} {
		_, err := New(name, bandit.Params{"data": dir}, 1)
		if err == nil {
			t.Fatalf("%s: no error for an empty data directory", name)
		}
		for _, want := range []string{dir, "data=DIR", DataEnv} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: error %q does not mention %q", name, err, want)
			}
		}
	}
}

// Built as ../shared/data/README.md says: 41 sensors / 29 stocks, f = column
// mean, unit-diagonal kernel, g = −f + h, and rewards are recorded samples.
func TestRealDataProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		arms int
	}{{"light-sensor", 41}, {"stocks", 29}} {
		p, err := New(c.name, nil, 1)
		if err != nil {
			t.Skipf("%s: %v (data not available)", c.name, err)
		}
		fin := p.(*Finite)
		in := fin.Info()
		pk := in.Kernel.(*gp.Precomputed)
		if pk.N != c.arms || len(fin.F) != c.arms {
			t.Fatalf("%s: %d arms, want %d", c.name, pk.N, c.arms)
		}
		// Defaults: f normalised by max|f| (B = 1), kernel C (unit diagonal), λ = 1.
		maxF := 0.0
		for _, v := range fin.F {
			maxF = math.Max(maxF, math.Abs(v))
		}
		if math.Abs(maxF-1) > 1e-12 || in.B != 1 {
			t.Fatalf("%s: max|f| = %v, B = %v: want 1 (normalise=max)", c.name, maxF, in.B)
		}
		for i := 0; i < pk.N; i++ {
			if math.Abs(pk.K[i*pk.N+i]-1) > 1e-12 {
				t.Fatalf("%s: k(%d,%d) = %v, want 1 (the correlation matrix, 001 App. F.1)", c.name, i, i, pk.K[i*pk.N+i])
			}
		}
		if in.NoiseVar != 1 {
			t.Fatalf("%s: λ = %v, want 1 (Chowdhury & Gopalan's code)", c.name, in.NoiseVar)
		}
		// Measured from the data on request, in raw units with normalise=none.
		q, err := New(c.name, bandit.Params{"kernel-var": "data", "noise-var": "data", "normalise": "none"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		qf := q.(*Finite)
		qk := qf.Info().Kernel.(*gp.Precomputed)
		var f2 float64
		for _, v := range qf.F {
			f2 += v * v
		}
		f2 /= float64(len(qf.F))
		for i := 0; i < qk.N; i++ {
			if math.Abs(qk.K[i*qk.N+i]-f2) > 1e-9*f2 {
				t.Fatalf("%s: kernel-var=data: k(%d,%d) = %v, want mean f² = %v", c.name, i, i, qk.K[i*qk.N+i], f2)
			}
		}
		if nv := qf.Info().NoiseVar; !(nv > 0) || nv > qf.Info().R*qf.Info().R {
			t.Fatalf("%s: noise-var=data: λ = %v: want the measured noise variance in (0, R²]", c.name, nv)
		}
		// Normalising divides f, R and h by max|f| and nothing else.
		for i := range fin.F {
			if math.Abs(fin.F[i]*qf.In.B-qf.F[i]) > 1e-9*qf.In.B || math.Abs(fin.G[0][i]*qf.In.B-qf.G[0][i]) > 1e-9*qf.In.B {
				t.Fatalf("%s: arm %d: normalised f, g = %v, %v; raw %v, %v (B = %v)", c.name, i, fin.F[i], fin.G[0][i], qf.F[i], qf.G[0][i], qf.In.B)
			}
		}
		if math.Abs(in.R*qf.In.B-qf.In.R) > 1e-9*qf.In.R {
			t.Fatalf("%s: R = %v normalised, %v raw", c.name, in.R, qf.In.R)
		}
		if _, err := New(c.name, bandit.Params{"noise-var": "-1"}, 1); err == nil || !strings.Contains(err.Error(), "noise-var") {
			t.Fatalf("%s: noise-var=-1: error %v, want one naming noise-var", c.name, err)
		}
		h := fin.G[0][0] + fin.F[0]
		for i := range fin.F {
			if math.Abs(fin.G[0][i]+fin.F[i]-h) > 1e-9 {
				t.Fatalf("%s: g ≠ −f + h at arm %d", c.name, i)
			}
		}
		rng := rand.New(rand.NewPCG(1, 1))
		costs := []float64{0}
		r, err := p.Observe(rng, p.Round(rng, 1), bandit.ArmAction(0), costs)
		if err != nil || math.Abs(costs[0]-(-r+h)) > 1e-9 {
			t.Fatalf("%s: reward %v, cost %v, err %v", c.name, r, costs[0], err)
		}
		if in.Safe == nil || fin.G[0][in.Safe.Arm] > 0 {
			t.Fatalf("%s: safe seed missing or unsafe", c.name)
		}
	}
	if p, err := New("stocks", bandit.Params{"normalise": "none"}, 1); err == nil {
		if h := p.(*Finite).G[0][0] + p.(*Finite).F[0]; math.Abs(h-100) > 1e-9 {
			t.Fatalf("stocks: h = %v, want 100 (001 App. F.2)", h)
		}
	}
}

func TestNonPSDKernelRejected(t *testing.T) {
	_, err := gp.NewPrecomputed([]float64{1, 2, 2, 1}, 2)
	if err == nil || !strings.Contains(err.Error(), "positive semi-definite") {
		t.Fatalf("non-PSD kernel: %v", err)
	}
}

func TestFullInfoSamples(t *testing.T) {
	p, err := New("rkhs-synthetic-full", bandit.Params{"n": "20", "support": "20"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	fi := p.(*FullInfoFinite)
	if !fi.Info().FullInfo {
		t.Fatal("FullInfo not set")
	}
	rng := rand.New(rand.NewPCG(2, 2))
	var sum float64
	const rounds = 4000
	dst := []float64{0}
	for r := 1; r <= rounds; r++ {
		round := p.Round(rng, r)
		round.ConstraintSample(bandit.ArmAction(5), dst)
		if d := dst[0] - fi.G[0][5]; math.Abs(d) > fi.Half+1e-12 {
			t.Fatalf("sample deviates by %v > half-width %v", d, fi.Half)
		}
		costs := []float64{0}
		if _, err := p.Observe(rng, round, bandit.ArmAction(5), costs); err != nil || costs[0] != dst[0] {
			t.Fatalf("observed cost %v, sample %v", costs[0], dst[0])
		}
		sum += dst[0]
	}
	if m := sum / rounds; math.Abs(m-fi.G[0][5]) > 4*fi.Half/math.Sqrt(3*rounds) {
		t.Fatalf("sample mean %v, g = %v", m, fi.G[0][5])
	}
}

func TestGPUAllocation(t *testing.T) {
	p, err := New("gpu-allocation", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := p.(*GPU)
	rng := rand.New(rand.NewPCG(4, 4))
	var sum float64
	dst := []float64{0}
	for r := 1; r <= 20000; r++ {
		p.Round(rng, r).ConstraintSample(bandit.ArmAction(0), dst)
		sum += dst[0]
	}
	// Arm 0 is x = (0, 0): no service, so E g_t = λ = 2.5.
	if m := sum / 20000; math.Abs(m-2.5) > 0.05 {
		t.Fatalf("mean ω(t) − 0 = %v, want 2.5", m)
	}
	if _, err := New("gpu-allocation", bandit.Params{"arrival": "10"}, 1); err == nil {
		t.Fatal("arrival above total service accepted")
	}
	_ = g
}
