// Package optimize runs the library's algorithms on one's own function, in
// about fifteen lines and with typed options: a box (or a finite set of
// points), an objective to maximise or minimise, constraints metric ≤ Max
// of a kind, a horizon and a seed — no problem definition, no kernel, no
// string parameters (Options.Params stays open for those who tune an
// algorithm by the names `cbandit list --verbose` prints).
//
// Run evaluates the function Horizon times; Study is the same optimisation
// as ask/tell in process, for evaluations that run elsewhere or several at
// a time (an algorithm decides knowing the pending ones).
//
// A study that names no algorithm gets one chosen from its constraints by
// Choose, the rule the ask/tell service applies too: the default the
// registry declares (agent.Caps.DefaultFor) for the strictest kind among
// them — PerRound (every round within the limit, a latency SLO): config,
// or safeopt with a safe point on a finite set; Cumulative (the sum of the
// violations): rpol-ucb; LongTerm (the average): ckb-ucb; no constraints:
// igp-ucb — and Result.Reason says why. A constraint without a kind gets
// the strictest kind its algorithm keeps (DefaultKind), PerRound when none
// is named; a kind the named algorithm does not keep is refused, naming
// both (CheckKeeps). An algorithm keeps the kinds its declaration lists and
// any weaker one: every round feasible means no cumulative violation, and
// [Σ_t g]⁺ ≤ Σ_t [g]⁺.
//
// The algorithms are told the domain and the number of constraints, with
// the prior a service study gets by default; the GP algorithms with
// practical defaults (ckb-*, rpol-ucb, config) standardise the metrics and
// fit the kernel's hyperparameters, so metrics in any units work. Lower
// down, package agent builds any algorithm on a bandit.Info, and package
// runner runs algorithms on the registered problems.
package optimize
