// Package optimize runs the library's algorithms on one's own function, in
// about twenty lines and with typed options: a box, a finite set of points
// or named typed parameters (Int, Float, LogFloat, SteppedFloat,
// Categorical), an objective to maximise or minimise, constraints
// metric ≤ Max of a kind, a horizon, a number of workers and a seed — no
// problem definition, no kernel, no string parameters (Options.Params stays
// open for those who tune an algorithm by the names `cbandit list
// --verbose` prints).
//
// Parameters are encoded as the ask/tell service encodes them, by package
// space: floats and ints scaled to [0, 1] (log-scaled ones after a log),
// categoricals one-hot. The algorithm searches the unit cube of the
// encoding: a box when every parameter is a continuous float, else a mixed
// space (ints, steps and categoricals marked, space.Vars), which the GP
// algorithms search at every decision, the discrete coordinates as the
// values they take and the floats refined (the alternation of BoTorch's
// optimize_acqf_mixed; docs/typed.md). Options.Candidates > 0 asks for a
// candidate set of exact encodings fixed at the start instead
// (space.Candidates); a named algorithm that takes no box gets one of
// DefaultCandidates. The function reads Point.Values.
//
// Run evaluates the function Horizon times, Options.Workers at a time.
// Each worker asks for a point as soon as its own evaluation ends and
// tells its values as soon as they are back, so a slow evaluation idles no
// other worker; the points under way are distinct, since the algorithm
// decides knowing the pending ones (the GP algorithms condition on them,
// GP-BUCB, Desautels et al. 2014). The trials then depend on which
// evaluation finishes first. Options.Batches asks Workers points together
// and tells them in decision order once all are back, so the trials
// depend on the options and the seed alone; one worker is reproducible
// either way. A function that returns an error, or a value NaN or ±Inf,
// has failed (a crash, an out-of-memory, a diverged training): the
// algorithm is told (bandit.Feedback.Failed, a hidden constraint as
// Gelbart, Snoek & Adams 2014 model it), the trial is Failed with a
// Reason (the error's first line, or `objective returned NaN`), and it
// counts toward the horizon. Study is the same optimisation as ask/tell
// in process, safe for several goroutines: Ask, Tell (a NaN or ±Inf value
// fails the trial, as Optuna fails a trial returning NaN), Fail, and
// Abandon (an evaluation given up, which teaches nothing).
//
// A study that names no algorithm gets one chosen from its constraints by
// Choose, the rule the ask/tell service applies too: the default the
// registry declares (agent.Caps.DefaultFor) for the strictest kind among
// them — StageWise (every round within the limit, a latency SLO): cei on
// a mixed space of Parameters, config on a box, on continuous floats or on
// Points; Cumulative (the sum of the violations): rpol-ucb; LongTerm (the
// average): ckb-ucb; no constraints: igp-ucb — and Result.Reason says why
// in a line. (Choose with a safe point, which the service's studies may
// give, picks safeopt for stage-wise limits on a finite set.) Kind is the
// one constraint kind of the project (bandit.ConstraintKind), the
// registry's and the service's ("stage-wise", "cumulative", "long-term").
// A constraint without a kind gets the strictest kind its algorithm keeps
// (DefaultKind), StageWise when none is named; a kind the named algorithm
// does not keep is refused, naming both (CheckKeeps). An algorithm keeps
// the kinds its declaration lists and any weaker one: every round feasible
// means no cumulative violation, and [Σ_t g]⁺ ≤ Σ_t [g]⁺.
//
// Options.Evaluations says what counts. Offline, the default here (one's
// own function is a harness, a simulation, a benchmark): only the
// configuration kept at the end counts, evaluations may break the limits
// while searching and failures still cost, so a constraint of any kind is
// a limit on that configuration; the algorithm chosen is the one declared
// for the offline situation ("stage-wise+offline", …), the live default
// while none is. Live (the service's default): every evaluation counts, as
// when each is served to real traffic. Result.Recommendation (and
// Study.Recommend) is what to deploy: the evaluated configuration the
// algorithm's models believe best with P(every limit holds) ≥ 0.95, with
// the posterior of the objective and of each metric, when the algorithm
// names one; Result.Best stays the best single observation.
//
// The options become the learner's definition in package learner, the one
// place the service's studies are built too: the domain with its
// encoding, the kernel and prior, the candidates, the choice of the
// algorithm and the agent. The algorithms are told the domain and the
// number of constraints, with the prior a service study gets by default; the GP algorithms with
// practical defaults (ckb-*, rpol-ucb, config, cei) standardise the metrics and
// fit the kernel's hyperparameters, so metrics in any units work. Lower
// down, package agent builds any algorithm on a bandit.Info, and package
// runner runs algorithms on the registered problems.
package optimize
