// Package runner runs trials × agents on a problem and aggregates the metrics
// of ../shared/DESIGN.md: cumulative regret, violation_soft, violation_hard,
// violation_count (and cost for stage-wise problems), per round, with the
// per-trial final values, mean ± standard error and quartiles across trials.
//
// Common random numbers: trial i builds its problem instance from
// [ProblemSeed](seed, i); round t's action set, noisy observation and
// feedback delays come from [RoundSeed], [NoiseSeed] and [DelaySeed](seed, i,
// t), the same for every algorithm of the trial; an agent's own randomness
// from [AgentSeed](seed, i, label). An algorithm's numbers therefore do not
// depend on which other algorithms run, in which order, on how many workers,
// or in which shard. [Collect] aggregates jobs in trial order, whether they
// come from one [Run] or from the shards of an array job.
//
// Feedback may be delayed: a Delay model gives, per decision, how many rounds
// later the reward and the costs arrive; the runner delivers due feedback at
// the start of each round, before Decide. Feedback due after the horizon is
// never delivered.
package runner
