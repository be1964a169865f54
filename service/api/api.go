package api

import (
	"fmt"
	"time"

	"github.com/cbandit/cbandit/bandit"
)

// Space kinds.
const (
	SpaceBox    = "box"
	SpacePoints = "points"
	// SpaceContextual: the action set changes every round (Pacchiano et al.'s setting);
	// each ask carries the round's actions as feature vectors of Dim
	// coordinates.
	SpaceContextual = "contextual"
)

// Constraint kinds (bandit.ConstraintKind): which violation of
// g_j = metric_j − threshold_j ≤ 0 the algorithm keeps small, and how the
// summary counts it.
const (
	// KindCumulative counts Σ_t [g_j(x_t)]⁺ (hard, cumulative violation).
	KindCumulative = bandit.KindCumulative
	// KindLongTerm counts [Σ_t g_j(x_t)]⁺ (soft, long-term violation).
	KindLongTerm = bandit.KindLongTerm
	// KindStageWise counts the rounds with g_j(x_t) > 0 (per-round constraint).
	KindStageWise = bandit.KindStageWise
)

// Goals of the objective.
const (
	Maximize = "maximize"
	Minimize = "minimize"
)

// Space is the search space of a study: a box [lo, hi] or a finite set of
// points.
type Space struct {
	// Type is "box" or "points".
	Type string `json:"type"`
	// Lo and Hi bound the box (Type "box").
	Lo []float64 `json:"lo,omitempty"`
	Hi []float64 `json:"hi,omitempty"`
	// Candidates is the size of the deterministic candidate set the learner
	// chooses from inside a box (default 256: a 16×16 grid in 2-D, a grid in
	// 1-D, a Halton set in 3-D and above). 0 means the default.
	Candidates int `json:"candidates,omitempty"`
	// Native gives a box to the learner as the box itself, for algorithms
	// whose models handle continuous domains (candidates plus local
	// refinement); suggestions are then arbitrary points of the box. An
	// algorithm that cannot is refused (400, field "algorithm"). When
	// neither Native nor Candidates is given, the service sets Native for
	// an algorithm that can take a box (a box space, or parameters that are
	// all floats) and records it; otherwise the learner chooses among the
	// candidate set.
	Native bool `json:"native,omitempty"`
	// Rounded (with Native and parameters) gives the learner the encoded
	// cube without its discrete coordinates: ints and categoricals are
	// searched as floats and decoded by rounding and arg max — what a native
	// typed space was before generation 8 (DefaultsMixed), kept by the
	// migration of such studies.
	Rounded bool `json:"rounded,omitempty"`
	// Points are the actions of a finite space (Type "points"): their
	// coordinates, which linear algorithms use as feature vectors.
	Points [][]float64 `json:"points,omitempty"`
	// Dim is the number of coordinates of a contextual space's actions.
	Dim int `json:"dim,omitempty"`
	// StarConvex lets stage-wise linear algorithms (lc-lucb, safe-lts) play
	// any point of the segments [x₀, x_i] between the safe point x₀
	// (prior.safe) and the listed actions x_i (Pacchiano et al. Def. 8, 13): a
	// suggestion is then such a point, and its arm names the segment.
	StarConvex bool `json:"star_convex,omitempty"`
}

// Objective names the metric to optimise.
type Objective struct {
	Name string `json:"name"`
	// Goal is "maximize" (default) or "minimize".
	Goal string `json:"goal,omitempty"`
}

// Constraint is metric_j ≤ threshold_j, i.e. g_j = metric_j − threshold_j ≤ 0.
type Constraint struct {
	Name      string  `json:"name"`
	Threshold float64 `json:"threshold"`
	// Kind is which violation the algorithm keeps small: "stage-wise"
	// (every round within the threshold), "cumulative" (the sum of the
	// violations) or "long-term" (the average). Absent: the strictest kind
	// the study's algorithm keeps (ckb-*: long-term, rpol-*: cumulative,
	// config and the safe and stage-wise algorithms: stage-wise), or
	// "stage-wise" when the study names no algorithm. A kind the algorithm
	// does not keep is refused (400, naming both); an algorithm keeps a kind
	// it declares or a weaker one (every round feasible ⇒ no cumulative
	// violation; [Σg]⁺ ≤ Σ[g]⁺). The kind also picks the violation the
	// summary reports.
	Kind bandit.ConstraintKind `json:"kind,omitempty"`
}

// Prior is what the learner assumes about the unknown functions; every field
// is optional (see the service documentation for the defaults).
type Prior struct {
	// Kernel is "se" (default), "matern12", "matern32" or "matern52".
	Kernel      string   `json:"kernel,omitempty"`
	Lengthscale *float64 `json:"lengthscale,omitempty"`
	Variance    *float64 `json:"variance,omitempty"`
	NoiseVar    *float64 `json:"noise_var,omitempty"`
	B           *float64 `json:"B,omitempty"`
	G           *float64 `json:"G,omitempty"`
	R           *float64 `json:"R,omitempty"`
	RG          *float64 `json:"RG,omitempty"`
	Slater      *float64 `json:"slater,omitempty"`
	// Safe is a point of the space known to satisfy every constraint (the
	// safe action x₀ of stage-wise algorithms; in a contextual study it must
	// be among every round's actions).
	Safe []float64 `json:"safe,omitempty"`
	// SafeReward and SafeCosts are the known mean reward and constraint
	// metrics of Safe (Pacchiano et al. Ass. 5: r₀, c₀), as measured; stage-wise
	// algorithms need them unless their parameter warm-start is set.
	SafeReward *float64  `json:"safe_reward,omitempty"`
	SafeCosts  []float64 `json:"safe_costs,omitempty"`
	// S bounds the norms of the unknown reward and cost parameters of
	// linear and stage-wise algorithms (Pacchiano et al. Ass. 2; default 1).
	S *float64 `json:"S,omitempty"`
	// L bounds the norm of the actions (Pacchiano et al. Ass. 3; default: the largest
	// norm among the points, 1 for a contextual study, whose arms are
	// checked against it).
	L *float64 `json:"L,omitempty"`
	// RewardClass and CostClass are finite classes of candidate mean
	// rewards and costs over the points (Pacchiano et al. §5.3: RewardClass[k][i] is the
	// k-th candidate's mean reward at point i), for opnlb.
	RewardClass [][]float64 `json:"reward_class,omitempty"`
	CostClass   [][]float64 `json:"cost_class,omitempty"`
}

// Parameter is one named, typed parameter of a study defined by
// parameters instead of a space.
type Parameter struct {
	Name string `json:"name"`
	// Type is "float", "int" or "categorical".
	Type string `json:"type"`
	// Low and High bound a float or int parameter (inclusive; integers for
	// an int).
	Low  *float64 `json:"low,omitempty"`
	High *float64 `json:"high,omitempty"`
	// Log searches a float or int parameter on a log scale (low > 0 for a
	// float, low ≥ 1 for an int).
	Log bool `json:"log,omitempty"`
	// Step, for a float without log, restricts it to low + k·step up to
	// high (Optuna's FloatDistribution step).
	Step *float64 `json:"step,omitempty"`
	// Choices are a categorical parameter's values: strings, numbers or
	// booleans.
	Choices []any `json:"choices,omitempty"`
}

// StudySpec defines a study.
type StudySpec struct {
	Name string `json:"name"`
	// Parameters, an alternative to Space, name and type the study's
	// parameters; suggestions then carry their values (Suggestion.Params).
	// The service derives Space from them: the encoded points the learner
	// chooses among (the unit cube of their encoding), or with
	// space.native the cube itself.
	Parameters  []Parameter  `json:"parameters,omitempty"`
	Space       Space        `json:"space"`
	Objective   Objective    `json:"objective"`
	Constraints []Constraint `json:"constraints"`
	// Algorithm is a registered algorithm ID, e.g. "ckb-ucb". Absent: the
	// service chooses one from the constraints' kinds, the space and a safe
	// point (stage-wise: config, or safeopt with prior.safe on a points
	// space; cumulative: rpol-ucb; long-term: ckb-ucb; mixed kinds: the
	// default for the strictest), records it here and says why in
	// AlgorithmChoice.
	Algorithm string `json:"algorithm"`
	// AlgorithmChoice is set by the service when the definition named no
	// algorithm: why it chose Algorithm (refused on creation).
	AlgorithmChoice string `json:"algorithm_choice,omitempty"`
	// Evaluations says what counts: "live" (every evaluation is served to
	// real traffic, so regret and limits count at every round; the
	// default, and what a stored study without it is) or "offline" (a
	// harness, a simulation, a benchmark: only the configuration deployed
	// at the end counts; evaluations may break limits while searching,
	// failures still cost; a constraint is then a limit on the
	// recommendation). Without an algorithm it picks the default declared
	// for it.
	Evaluations string `json:"evaluations,omitempty"`
	// Params are the algorithm's parameters; values may be JSON strings or
	// numbers.
	Params map[string]any `json:"params,omitempty"`
	Seed   uint64         `json:"seed"`
	// Horizon is T, the number of decisions the study is planned for; asking
	// beyond it is refused (409) until PATCH /studies/{id} raises it. Absent
	// (or 0): the study is open-ended and its algorithm runs under the
	// doubling trick, restarted on epochs of Epoch, 2·Epoch, 4·Epoch, …
	// rounds.
	Horizon int `json:"horizon,omitempty"`
	// FullInfo marks the stochastic full-information setting (Zhou & Ji (CBO) §4):
	// each ask carries a sample of the constraint metrics at every point
	// (constraint_sample), for algorithms such as scgp-ucb. Finite spaces
	// only.
	FullInfo bool `json:"full_info,omitempty"`
	// Epoch is the first epoch length of an open-ended study (default
	// 1000; absent for a study with a horizon).
	Epoch int `json:"epoch,omitempty"`
	// RaisedFrom lists the earlier horizons of a study whose horizon was
	// raised (set by PATCH; on creation, as in a definition read back,
	// increasing and below Horizon): the algorithm was restarted at each of
	// them, for the rounds up to the next.
	RaisedFrom []int `json:"raised_from,omitempty"`
	Prior      Prior `json:"prior,omitzero"`
	// Defaults is the generation of the algorithm defaults the study runs
	// under, set by the service when it creates the study (absent on
	// creation: the current one, DefaultsPractical). A study keeps the
	// defaults of its generation — one stored without it (generation 1)
	// standardise off, hyper fixed, widths theory, a box as its candidate
	// set; one of generation 2 standardise off for the algorithms
	// standardised in generation 3 — so an upgrade of the service does not
	// change what a running study does (service/generations.go): a
	// stored study of an earlier generation is migrated when first opened,
	// its generation's values made explicit in Params (and space.rounded)
	// and Defaults set to the current generation (service/migrate.go).
	Defaults int `json:"defaults,omitempty"`
}

// DefaultsPractical is the current generation of the algorithm defaults
// (docs/defaults.md). 1: the papers' settings; each later one changed
// defaults of parameters, declared with them (bandit.Change on the
// declaration: the value before, the generation, the condition, why), and
// the service's own choices (otherChanges in service/generations.go).
// docs/parameters-table.md and openapi.json list them, generated from the
// declarations. A new generation is one change on a declaration and this
// constant bumped (docs/defaults.md, "How to add a generation").
const DefaultsPractical = 36

// DefaultsMixed is the first generation in which a study of typed
// parameters with ints or categoricals and no space.candidates goes to an
// algorithm that takes boxes as its encoded cube with discrete
// coordinates, searched at every decision (ints and categoricals as
// discrete steps, floats by gradient), instead of a candidate set stored at
// creation.
const DefaultsMixed = 8

// DefaultsNativeBox is the first generation in which a box space with
// neither native nor candidates goes to the algorithm as a box.
const DefaultsNativeBox = 2

// StudyPatch is the body of PATCH /studies/{id}.
type StudyPatch struct {
	// Horizon raises the study's horizon (it cannot be lowered).
	Horizon int `json:"horizon"`
}

// Study is a stored study.
type Study struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Spec    StudySpec `json:"spec"`
	// Rounds is the number of decisions made so far.
	Rounds int `json:"rounds"`
}

// StudyList is the answer of GET /studies: a page of studies, oldest first
// (?limit=, default 50, at most 1000; ?name= keeps the study of that name,
// if any).
type StudyList struct {
	Studies []Study `json:"studies"`
	// Next is the value of ?after= for the next page (absent: no more).
	Next string `json:"next,omitempty"`
}

// SuggestRequest is the body of POST /studies/{id}/suggestions (optional).
type SuggestRequest struct {
	// Count is the number of suggestions (left out: 1; at least 1, at most
	// 100; 1 when arms or constraint_sample is given). An explicit "count": 0
	// is refused; 0 here is left out of the JSON, hence 1.
	Count int `json:"count,omitempty"`
	// Arms is the round's action set of a contextual study: feature vectors
	// of space.dim coordinates, prior.safe among them. The suggestion's arm
	// is an index into it.
	Arms [][]float64 `json:"arms,omitempty"`
	// ConstraintSample is, in a full-information study, this round's sample
	// of the m constraint metrics at every point of the space (one row of m
	// values per point, in the order of the points or candidates).
	ConstraintSample [][]float64 `json:"constraint_sample,omitempty"`
}

// Suggestion is one decision to run.
type Suggestion struct {
	DecisionID int64     `json:"decision_id"`
	Round      int       `json:"round"`
	X          []float64 `json:"x"`
	// Arm is the index of the point in a "points" space, or of the candidate
	// in a box's candidate set.
	Arm int `json:"arm"`
	// Policy is the distribution the action was drawn from (randomised
	// algorithms only).
	Policy []float64 `json:"policy,omitempty"`
	// Params are the parameters' values (studies defined by parameters):
	// a float as a number, an int as an integer, a categorical as the
	// choice. X is then their encoding in the learner's unit cube.
	Params map[string]any `json:"params,omitempty"`
}

// SuggestResponse is the answer of POST /studies/{id}/suggestions.
type SuggestResponse struct {
	Suggestions []Suggestion `json:"suggestions"`
}

// Observation is the body of POST /studies/{id}/observations. Reward and
// costs may come together or in separate requests, late and in any order;
// re-sending an identical observation is a no-op.
type Observation struct {
	DecisionID int64 `json:"decision_id"`
	// Reward is the objective metric's value (as measured, before the goal's
	// sign is applied).
	Reward *float64 `json:"reward,omitempty"`
	// Costs are the m constraint metrics' values, in the order of the
	// study's constraints (as measured, before the threshold is subtracted).
	Costs []float64 `json:"costs,omitempty"`
	// X, when given, must equal the suggestion's point (a consistency check).
	X []float64 `json:"x,omitempty"`
	// Failed says the evaluation ran and produced no metrics (a crash, an
	// out-of-memory, a timeout); it carries no reward and no costs. Unlike
	// DELETE (abandon: the evaluation never happened) the model learns from
	// it: GP agents model the probability of failure and avoid it.
	Failed bool `json:"failed,omitempty"`
	// Reason is a failure's cause in a few words ("OOM"), at most 200 bytes.
	Reason string `json:"reason,omitempty"`
}

// TrialRequest is a decision a person makes: a point to try next (POST
// /studies/{id}/enqueue, Optuna's enqueue_trial) or a past measurement with
// its values (POST /studies/{id}/trials, Optuna's add_trial, Ax's
// attach_trial). The point is Params (a study defined by parameters) or X.
type TrialRequest struct {
	Params map[string]any `json:"params,omitempty"`
	X      []float64      `json:"x,omitempty"`
	// Reward and Costs are the measured values (trials only; all of them).
	Reward *float64  `json:"reward,omitempty"`
	Costs  []float64 `json:"costs,omitempty"`
	// Failed records a past evaluation that failed (trials only; no reward,
	// no costs), with its Reason, at most 200 bytes: the algorithm learns
	// where evaluations fail from it, as from a failed observation.
	Failed bool   `json:"failed,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// EnqueueResponse is the answer of POST /studies/{id}/enqueue.
type EnqueueResponse struct {
	// Queued is the number of points now waiting, this one last.
	Queued int            `json:"queued"`
	X      []float64      `json:"x"`
	Params map[string]any `json:"params,omitempty"`
}

// AbandonResponse is the answer of DELETE /studies/{id}/decisions/{did}.
type AbandonResponse struct {
	DecisionID int64 `json:"decision_id"`
	// Abandoned is true; a repeated DELETE answers the same.
	Abandoned bool `json:"abandoned"`
}

// ObserveResponse is the answer of POST /studies/{id}/observations.
type ObserveResponse struct {
	DecisionID int64 `json:"decision_id"`
	// Applied lists what this request newly recorded: "reward", "costs".
	Applied []string `json:"applied"`
	// Duplicate lists what had already been recorded with the same value.
	Duplicate []string `json:"duplicate,omitempty"`
}

// DecisionRecord is one decision with what has been observed of it.
type DecisionRecord struct {
	DecisionID int64     `json:"decision_id"`
	Round      int       `json:"round"`
	X          []float64 `json:"x"`
	Arm        int       `json:"arm"`
	Policy     []float64 `json:"policy,omitempty"`
	// Params are the parameters' values (studies defined by parameters).
	Params  map[string]any `json:"params,omitempty"`
	Created time.Time      `json:"created"`
	// Observed is when the decision's last observation arrived.
	Observed *time.Time `json:"observed,omitempty"`
	Reward   *float64   `json:"reward,omitempty"`
	Costs    []float64  `json:"costs,omitempty"`
	// Abandoned is set for a decision abandoned by DELETE or by the
	// server's pending-decision TTL: it takes no observation.
	Abandoned bool `json:"abandoned,omitempty"`
	// Failed is set for a decision whose evaluation failed, with its Reason.
	Failed bool   `json:"failed,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// DecisionList is the answer of GET /studies/{id}/decisions.
type DecisionList struct {
	Decisions []DecisionRecord `json:"decisions"`
	// Next is the value of ?after= for the next page (0: no more).
	Next int64 `json:"next,omitempty"`
}

// ConstraintSummary is what has been observed of one constraint.
type ConstraintSummary struct {
	Name      string                `json:"name"`
	Kind      bandit.ConstraintKind `json:"kind"`
	Threshold float64               `json:"threshold"`
	// Observed is the number of rounds with costs observed.
	Observed int `json:"observed"`
	// CumulativeCost is Σ_t g_j(x_t) over observed rounds (metric − threshold).
	CumulativeCost float64 `json:"cumulative_cost"`
	// ViolationHard is Σ_t [g_j(x_t)]⁺; ViolationSoft is [Σ_t g_j(x_t)]⁺;
	// ViolationCount is the number of rounds with g_j(x_t) > 0.
	ViolationHard  float64 `json:"violation_hard"`
	ViolationSoft  float64 `json:"violation_soft"`
	ViolationCount int     `json:"violation_count"`
	// Violation is the figure that matches Kind (hard, soft or count).
	Violation float64 `json:"violation"`
}

// Best is the best observed feasible decision.
type Best struct {
	DecisionID int64     `json:"decision_id"`
	X          []float64 `json:"x"`
	// Params are the parameters' values (studies defined by parameters).
	Params map[string]any `json:"params,omitempty"`
	Reward float64        `json:"reward"`
	Costs  []float64      `json:"costs"`
}

// Summary is the answer of GET /studies/{id}/summary.
type Summary struct {
	Rounds         int `json:"rounds"`
	RewardObserved int `json:"reward_observed"`
	CostsObserved  int `json:"costs_observed"`
	// Pending counts decisions still waiting for some observation (not
	// abandoned); Abandoned counts the abandoned ones.
	Pending   int `json:"pending"`
	Abandoned int `json:"abandoned"`
	// Failed counts the evaluations that failed (an observation, unlike an
	// abandon); Reasons counts them by reason.
	Failed  int            `json:"failed"`
	Reasons map[string]int `json:"failure_reasons,omitempty"`
	// Horizon is the current horizon (0: open-ended); Epoch the index of
	// the algorithm's current run (0 until the doubling trick or a raised
	// horizon restarts it).
	Horizon     int                 `json:"horizon"`
	Epoch       int                 `json:"epoch"`
	RewardSum   float64             `json:"reward_sum"`
	Constraints []ConstraintSummary `json:"constraints"`
	// Best is nil until some decision has reward and costs observed with
	// every g_j ≤ 0.
	Best *Best `json:"best,omitempty"`
	// Recommendation is what the study's model recommends deploying; absent
	// while it names none (an algorithm without a model of the evaluated
	// configurations, or none believed feasible with probability 0.95).
	Recommendation *Recommendation `json:"recommendation,omitempty"`
}

// Recommendation is the configuration the study's model believes best
// among the evaluated ones (the current run's: an open-ended study's
// algorithm restarts at each epoch) with P(every limit holds) ≥ 0.95, with
// the posterior of each metric (DESIGN.md, "what is recommended"). Unlike
// Best, a lucky draw of the noise does not make it.
type Recommendation struct {
	// DecisionID is a decision that evaluated the configuration.
	DecisionID int64 `json:"decision_id"`
	// X is the configuration in the learner's coordinates (as Best.X);
	// Params its parameters' values (studies defined by parameters).
	X      []float64      `json:"x"`
	Params map[string]any `json:"params,omitempty"`
	// Objective is the posterior mean and standard deviation of the
	// objective, in its own direction and units.
	Objective bandit.Moments `json:"objective"`
	// Constraints are the posteriors of the constraint metrics (as
	// measured, before the threshold is subtracted), in the study's order.
	Constraints []ConstraintMoments `json:"constraints"`
	// Feasible is the posterior probability that every limit holds there.
	Feasible float64 `json:"feasible"`
}

// ConstraintMoments is the posterior of one constraint metric.
type ConstraintMoments struct {
	Name string  `json:"name"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Error is the body of every 4xx and 5xx answer.
type Error struct {
	Err ErrorBody `json:"error"`
}

// ErrorBody describes an error; Field names the offending request field
// (a JSON path like "space.lo[1]") when there is one.
type ErrorBody struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Err.Field != "" {
		return fmt.Sprintf("%d %s: %s: %s", e.Err.Status, e.Err.Code, e.Err.Field, e.Err.Message)
	}
	return fmt.Sprintf("%d %s: %s", e.Err.Status, e.Err.Code, e.Err.Message)
}

// Health is the answer of GET /healthz and GET /livez: Status "ok", or
// "unavailable" (503) with the Reason when the store does not answer.
type Health struct {
	Status string `json:"status"`
	Store  string `json:"store"`
	Reason string `json:"reason,omitempty"`
}
