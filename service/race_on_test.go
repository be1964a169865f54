//go:build race

package service

// raceEnabled: timing bounds do not hold under the race detector.
const raceEnabled = true
