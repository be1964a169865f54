// Package releases checks that studies written by earlier releases of
// cbandit restore and decide exactly as they did there: each
// testdata/release-<commit> holds a SQLite database of studies written by
// that release's `cbandit serve` and the decisions each made next
// (testdata/gen_release.py writes them). Its own package, so that the
// replays run beside the service's other tests, in their own test binary.
package releases
