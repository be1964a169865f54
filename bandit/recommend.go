package bandit

// Moments are a posterior's mean and standard deviation of one metric at one
// configuration, in the metric's own units.
type Moments struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Recommendation is the configuration an agent's models believe best among
// those evaluated: the best posterior mean of the objective among the
// evaluated configurations whose probability that every limit holds is at
// least the level asked (DESIGN.md, "what is recommended"). Unlike the best
// single observation, it does not reward a lucky draw of the noise.
type Recommendation struct {
	// Decision is the ID of a decision that evaluated the configuration.
	Decision int
	// Action is the configuration.
	Action Action
	// Objective is the posterior of the reward (maximised) at Action.
	Objective Moments
	// Constraints are the posteriors of the costs g_j (≤ 0 holds) at Action.
	Constraints []Moments
	// Feasible is the posterior probability that every limit holds at
	// Action (the constraints taken as independent).
	Feasible float64
}

// Recommender is implemented by agents whose models can name a
// recommendation. ok is false when no evaluated configuration reaches the
// level (or nothing has been observed): the caller says so rather than
// recommend a configuration the model believes infeasible.
type Recommender interface {
	Recommend(level float64) (rec Recommendation, ok bool)
}
