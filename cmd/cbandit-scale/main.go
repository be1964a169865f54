// Command cbandit-scale measures how the cost of a round grows with the
// number of observations t and with the number of arms N, and draws the
// scaling figures of docs/scaling.md:
//
//	go run ./cmd/cbandit-scale --out docs
//
// writes DIR/scaling.csv (series, x, seconds_per_round, agent_heap_mib),
// DIR/scaling_t.{svg,png} (time per round against t: exact and sparse
// rpol-ucb on gardner) and DIR/scaling_n.{svg,png} (time per round and
// agent heap against N: ckb-ucb on rkhs-synthetic). Timings are wall time of
// Decide + Observe on this machine; run it on a quiet machine.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

type point struct {
	series string
	x      float64
	sec    float64 // seconds per round
	heap   float64 // MiB of heap held by the agent (max over the run)
}

func main() {
	out := flag.String("out", "docs", "output directory")
	horizon := flag.Int("horizon", 5000, "rounds of the time-against-t curve")
	window := flag.Int("window", 250, "rounds averaged per point of the t curve")
	inducing := flag.Int("inducing", 256, "inducing points of the sparse curve (0: none)")
	ns := flag.String("n", "100,1000,10000", "arm counts of the N curve")
	nT := flag.Int("n-horizon", 500, "rounds per arm count")
	cpuprof := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cbandit-scale:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "cbandit-scale:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*out, *horizon, *window, *inducing, *ns, *nT); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "cbandit-scale:", err)
		os.Exit(1)
	}
}

func run(out string, horizon, window, inducing int, ns string, nT int) error {
	if horizon < 1 || window < 1 || nT < 1 {
		return fmt.Errorf("horizon = %d, window = %d, n-horizon = %d: all must be ≥ 1", horizon, window, nT)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var pts []point
	series := []struct{ name, algo string }{{"rpol-ucb (exact)", "rpol-ucb"}}
	if inducing > 0 {
		series = append(series, struct{ name, algo string }{fmt.Sprintf("rpol-ucb:inducing=%d (sparse)", inducing), "rpol-ucb:inducing=" + strconv.Itoa(inducing)})
	}
	for _, s := range series {
		ps, err := curveT(s.name, s.algo, horizon, window)
		if err != nil {
			return err
		}
		pts = append(pts, ps...)
	}
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return fmt.Errorf("--n: %q is not an arm count ≥ 2", f)
		}
		p, err := pointN(n, nT)
		if err != nil {
			return err
		}
		pts = append(pts, p)
	}
	if err := writeCSV(filepath.Join(out, "scaling.csv"), pts); err != nil {
		return err
	}
	return figures(out, pts)
}

// loop runs T rounds of algo (id[:k=v]) on the problem and calls at after
// every round with its wall time (Decide + Observe).
func loop(prob string, pp bandit.Params, id string, T int, at func(t int, d time.Duration)) error {
	p, err := problem.New(prob, pp, 1)
	if err != nil {
		return err
	}
	name, ps := id, bandit.Params{}
	if i := strings.IndexByte(id, ':'); i >= 0 {
		name = id[:i]
		for _, kv := range strings.Split(id[i+1:], ";") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("algorithm %q: parameter %q is not k=v", id, kv)
			}
			ps[k] = v
		}
	}
	info := p.Info()
	info.Horizon = T
	a, err := agent.New(name, agent.Config{Info: info, Horizon: T, Params: ps, Seed: 2})
	if err != nil {
		return err
	}
	env := rand.New(rand.NewPCG(3, 4))
	costs := make([]float64, info.M)
	for t := 1; t <= T; t++ {
		r := p.Round(env, t)
		start := time.Now()
		d, err := a.Decide(r)
		if err != nil {
			return err
		}
		el := time.Since(start)
		rew, err := p.Observe(env, r, d.Action, costs)
		if err != nil {
			return err
		}
		start = time.Now()
		if err := a.Observe(bandit.Feedback{ID: d.ID, Reward: rew, HasReward: true, Costs: costs}); err != nil {
			return err
		}
		at(t, el+time.Since(start))
	}
	return nil
}

func curveT(series, algo string, T, window int) ([]point, error) {
	var pts []point
	var sum time.Duration
	n := 0
	err := loop("gardner", nil, algo, T, func(t int, d time.Duration) {
		sum += d
		n++
		if n == window || t == T {
			pts = append(pts, point{series: series, x: float64(t), sec: sum.Seconds() / float64(n)})
			fmt.Fprintf(os.Stderr, "%s t=%d: %.3g ms/round\n", series, t, 1e3*sum.Seconds()/float64(n))
			sum, n = 0, 0
		}
	})
	return pts, err
}

// pointN runs ckb-ucb on rkhs-synthetic with n arms for T rounds: the mean
// time of the last half of the rounds, and the agent's heap (heap in use,
// sampled every 50 rounds, less the heap after building the problem).
func pointN(n, T int) (point, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := base
	var sum time.Duration
	cnt := 0
	err := loop("rkhs-synthetic", bandit.Params{"n": strconv.Itoa(n)}, "ckb-ucb", T, func(t int, d time.Duration) {
		if t == 1 { // the problem's construction garbage is gone by now
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base = ms.HeapInuse
		}
		if t > T/2 {
			sum += d
			cnt++
		}
		if t%50 == 0 || t == T {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	})
	p := point{series: "ckb-ucb, rkhs-synthetic", x: float64(n), sec: sum.Seconds() / float64(max(cnt, 1)),
		heap: float64(peak-min(base, peak)) / (1 << 20)}
	fmt.Fprintf(os.Stderr, "N=%d: %.3g ms/round, agent heap ≈ %.1f MiB\n", n, 1e3*p.sec, p.heap)
	return p, err
}

func writeCSV(path string, pts []point) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"series", "x", "seconds_per_round", "agent_heap_mib"})
	for _, p := range pts {
		_ = w.Write([]string{p.series, strconv.FormatFloat(p.x, 'g', -1, 64),
			strconv.FormatFloat(p.sec, 'g', 6, 64), strconv.FormatFloat(p.heap, 'g', 6, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func figures(out string, pts []point) error {
	pt := plot.New()
	pt.Title.Text = "gardner: time per round against t (Decide + Observe)"
	pt.X.Label.Text = "round t"
	pt.Y.Label.Text = "ms per round"
	byS := map[string]plotter.XYs{}
	var order []string
	for _, p := range pts {
		if strings.HasPrefix(p.series, "ckb-ucb") {
			continue
		}
		if _, ok := byS[p.series]; !ok {
			order = append(order, p.series)
		}
		byS[p.series] = append(byS[p.series], plotter.XY{X: p.x, Y: 1e3 * p.sec})
	}
	var args []any
	for _, s := range order {
		args = append(args, s, byS[s])
	}
	if err := plotutil.AddLinePoints(pt, args...); err != nil {
		return err
	}
	pt.Legend.Top, pt.Legend.Left = true, true
	pn := plot.New()
	pn.Title.Text = "ckb-ucb on rkhs-synthetic: cost against the number of arms N"
	pn.X.Label.Text = "arms N (log scale)"
	pn.Y.Label.Text = "ms per round / agent heap MiB (log scale)"
	pn.X.Scale = plot.LogScale{}
	pn.X.Tick.Marker = plot.LogTicks{Prec: -1}
	pn.Y.Scale = plot.LogScale{}
	pn.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var tn, hn plotter.XYs
	for _, p := range pts {
		if strings.HasPrefix(p.series, "ckb-ucb") { // floors keep the log scale finite
			tn = append(tn, plotter.XY{X: p.x, Y: max(1e3*p.sec, 1e-4)})
			hn = append(hn, plotter.XY{X: p.x, Y: max(p.heap, 1e-2)})
		}
	}
	if len(tn) > 0 {
		if err := plotutil.AddLinePoints(pn, "ms per round", tn, "agent heap (MiB)", hn); err != nil {
			return err
		}
		pn.Legend.Top, pn.Legend.Left = true, true
	}
	for name, p := range map[string]*plot.Plot{"scaling_t": pt, "scaling_n": pn} {
		for _, ext := range []string{"svg", "png"} {
			if err := p.Save(7*vg.Inch, 4*vg.Inch, filepath.Join(out, name+"."+ext)); err != nil {
				return err
			}
		}
	}
	return nil
}
