package service

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/service/snap"
	"github.com/cbandit/cbandit/store"
)

func TestZZMeasureNative(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	var d, m, T int
	fmt.Sscan(os.Getenv("ZZ"), &d, &m, &T)
	spec := api.StudySpec{Name: "m", Space: api.Space{Type: api.SpaceBox, Lo: make([]float64, d), Hi: make([]float64, d), Native: true},
		Objective: api.Objective{Name: "y"}, Algorithm: os.Getenv("ZZA"), Seed: 1, Horizon: T}
	for i := range spec.Space.Hi {
		spec.Space.Hi[i] = 1
	}
	for j := 0; j < m; j++ {
		spec.Constraints = append(spec.Constraints, api.Constraint{Name: fmt.Sprint("c", j), Threshold: 0.5})
	}
	spec.Space.Native = false
	spec, _, e := decodeStudy(must(json.Marshal(spec)))
	if e != nil {
		t.Fatal(e)
	}
	t.Logf("native %v candidates %d defaults %d", spec.Space.Native, spec.Space.Candidates, spec.Defaults)
	raw, _ := json.Marshal(spec)
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	l, err := newLive(store.Study{ID: "x", Spec: raw}, newMetrics())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	step := 500
	if os.Getenv("ZZS") != "" {
		fmt.Sscan(os.Getenv("ZZS"), &step)
	}
	for i := 1; i <= T; i++ {
		a, err := l.decide(time.Now(), roundInput{})
		if err != nil {
			t.Fatal(err)
		}
		x := a.X
		c := make([]float64, m)
		for j := range c {
			c[j] = x[0] + 0.1*float64(j)
		}
		if err := l.observe(tellEvent{ID: a.ID, Reward: f64(toyF(append(x, 0, 0)[:2])), Costs: c}, false); err != nil {
			t.Fatal(err)
		}
		if i%step == 0 || i == T {
			runtime.GC()
			runtime.ReadMemStats(&ms1)
			b, _ := snap.Encode(l.agent)
			t.Logf("d=%d m=%d t=%d: %.1fs heap %+.1f MB snapshot %.1f MB weight %.1f MB", d, m, i, time.Since(start).Seconds(),
				float64(int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/1e6, float64(len(b))/1e6, float64(l.weight())/1e6)
		}
	}
}

func must(b []byte, err error) []byte { return b }
