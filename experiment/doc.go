// Package experiment loads experiment files (YAML, experiments/<paper>/*.yaml),
// turns them into runner specs, writes their outputs, and keeps the registry of
// paper reproductions that `cbandit reproduce` runs.
//
// A run remembers how it was made: the file and its --set overrides, or the
// problem, parameters and --algos entries of a command-line run
// ([Config.Command]); report.md prints that command, which re-creates the same
// summary.json. A sharded run writes its per-trial results to trials.json;
// [Merge] combines shards into the outputs of the unsharded run, refusing
// shards of different runs, duplicates and gaps.
package experiment
