package api

// Importance is the answer of GET /studies/{id}/importance: how much each
// parameter (or coordinate x1..xd of a space) explains of the objective,
// most important first.
type Importance struct {
	// Method names the computation: "fanova-gp", the first-order variance
	// decomposition (functional ANOVA; Hutter, Hoos & Leyton-Brown 2014,
	// ICML) of the posterior mean of an ARD Matérn-5/2 GP fitted to the
	// evaluated configurations (package importance).
	Method string `json:"method"`
	// Observations is the number of evaluated configurations with an
	// objective value the fit used (failed and pending ones have none).
	Observations int `json:"observations"`
	// Explained is the sum of the first-order shares: the part of the
	// posterior mean's variance the parameters explain one at a time (the
	// rest is their interactions).
	Explained  float64               `json:"explained"`
	Parameters []ParameterImportance `json:"parameters"`
}

// ParameterImportance is one parameter's importance.
type ParameterImportance struct {
	Parameter string `json:"parameter"`
	// Importance is the parameter's main-effect variance over the sum of
	// all parameters' (the importances sum to 1).
	Importance float64 `json:"importance"`
	// FirstOrder is its main-effect variance over the posterior mean's
	// variance (Sobol' first-order index).
	FirstOrder float64 `json:"first_order"`
}
