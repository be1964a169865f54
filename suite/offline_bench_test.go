package suite

import (
	"context"
	"testing"
)

// BenchmarkOfflineStudy: the offline default's whole noise-free study of
// T = 200 on the vessel (4 dims, 4 limits) and the speed reducer (7 dims,
// 11), seed 1, natural units, as `cbandit suite --evaluations offline`
// runs it (the same decisions); cpu-ns/decision is the run's
// DecisionCPUPerRound, the mean CPU time of a decision over the 200 (the
// service's snapshots off the books): the figure the bar holds against a
// third of Optuna GPSampler's CPU time per trial over the same 200 trials
// (its ask and tell: 123 and 376 ms, docs/offline_cost_optuna.json;
// docs/offline.md, "Cost").
func BenchmarkOfflineStudy(b *testing.B) {
	for _, name := range []string{"vessel", "speed-reducer"} {
		b.Run(name, func(b *testing.B) {
			var sum float64
			for i := 0; i < b.N; i++ {
				s, err := Run(context.Background(), Options{Set: SetSystems, Problems: []string{name}, Algorithms: []string{Default},
					Horizon: 200, Seeds: 1, Units: []string{Natural}, Workers: 1, NoiseFree: true, Evaluations: Offline})
				if err != nil {
					b.Fatal(err)
				}
				r := s.Cells[0].Runs[0]
				if r.DecisionCPUPerRound == 0 {
					b.Skip("no per-thread CPU on this platform")
				}
				sum += r.DecisionCPUPerRound
			}
			b.ReportMetric(sum/float64(b.N)*1e9, "cpu-ns/decision")
		})
	}
}
