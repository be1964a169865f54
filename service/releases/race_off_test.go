//go:build !race

package releases

// raceEnabled: a replay is several times slower under the race detector.
const raceEnabled = false
