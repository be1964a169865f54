package bandit

import (
	"fmt"
	"math"
)

// Action is a point an agent plays. For finite domains Arm indexes the action
// set (and X, when set, holds the arm's coordinates); for continuous domains
// Arm is -1 and X holds the coordinates.
type Action struct {
	Arm int       `json:"arm"`
	X   []float64 `json:"x,omitempty"`
}

// ArmAction is the action that plays arm i of a finite domain.
func ArmAction(i int) Action { return Action{Arm: i} }

// PointAction is the action that plays the point x of a continuous domain.
func PointAction(x []float64) Action { return Action{Arm: -1, X: x} }

// Round is what an agent is told when it must decide.
type Round struct {
	// T is the 1-based round number.
	T int
	// Arms is the action set of this round when it changes from round to round
	// (contextual settings, Pacchiano et al.). Nil means the problem's fixed domain.
	Arms [][]float64
	// ConstraintSample is an i.i.d. sample g_t(·) of the m constraint functions,
	// given before the decision in the stochastic full-information setting
	// (Zhou & Ji (CBO) §4). It writes the m values at x into dst. Nil otherwise.
	ConstraintSample func(x Action, dst []float64)
}

// Decision is an agent's answer for one round.
type Decision struct {
	// ID names the decision; feedback refers to it. IDs are assigned by the
	// agent, start at 1 and increase by one per decision.
	ID int64 `json:"id"`
	// Round is the round number the decision was made in.
	Round int `json:"round"`
	// Action is the action to play.
	Action Action `json:"action"`
	// Policy is the distribution over the arms the action was drawn from, for
	// algorithms that play randomised policies (OPB, OPLB); nil otherwise.
	Policy []float64 `json:"policy,omitempty"`
}

// Feedback reports the outcome of an earlier decision. Reward and costs may
// arrive together or separately.
type Feedback struct {
	// ID is the decision the feedback belongs to.
	ID int64 `json:"id"`
	// Reward is the noisy reward r_t; meaningful only when HasReward.
	Reward    float64 `json:"reward"`
	HasReward bool    `json:"has_reward"`
	// Costs are the m noisy cost observations c_t; nil when this feedback
	// carries no costs. Agents must copy what they keep: the caller may reuse
	// the slice after Observe returns.
	Costs []float64 `json:"costs,omitempty"`
	// Failed says that the evaluation was attempted and did not produce
	// metrics (a crash, an out-of-memory, a timeout): an observation of a
	// hidden pass/fail constraint (Gelbart, Snoek & Adams 2014 UAI), unlike
	// an abandoned decision, which teaches nothing. A failure carries no
	// reward and no costs, and completes its decision.
	Failed bool `json:"failed,omitempty"`
	// Reason is a failure's short cause as the user gave it ("OOM").
	Reason string `json:"reason,omitempty"`
}

// MaxReasonLen bounds the length in bytes of a failure's Reason.
const MaxReasonLen = 200

// Agent is one algorithm.
type Agent interface {
	// Decide picks the action for round r. It must not block on missing feedback.
	Decide(r *Round) (Decision, error)
	// Observe records feedback for an earlier decision.
	Observe(fb Feedback) error
}

// Pending decisions: a decision made and not yet fully observed is pending;
// several can be pending at once (parallel workers, batches, delayed
// feedback). An agent's state includes them: a GP agent conditions on them
// at their posterior mean, a randomised agent draws afresh per decision.

// Abandoner is implemented by agents that can drop a pending decision whose
// evaluation failed or was given up: it is pending no more, and feedback
// for it is refused. The service calls it for DELETE and --pending-ttl.
type Abandoner interface {
	Abandon(id int64) error
}

// Imposer is implemented by agents that take decisions a person makes: a
// point to try (Optuna's enqueue_trial) or a past measurement (add_trial,
// followed by its Feedback). Impose records action a as the decision of
// round r, as if the agent had chosen it; the models learn from its
// feedback, and each rule's state follows what its paper says of observed
// costs (a rule updated from the agent's own choice, such as CKB's dual
// step, is left as it is).
type Imposer interface {
	Impose(r *Round, a Action) (Decision, error)
}

// Diagnostics is implemented by agents that report numbers about their own
// work beside the metrics (e.g. how many rounds an inner solver left
// uncertified). The runner calls it once, after a trial's last round, and
// records the values per trial in summary.json under "diagnostics". Keys are
// snake_case; an agent reports the same keys in every trial of a run, or
// none (nil) when it has nothing to report.
type Diagnostics interface {
	Diagnostics() map[string]float64
}

// Validate checks a feedback's values against an agent with m constraints:
// finite reward, finite costs, exactly m of them. It does not check the ID.
func (fb Feedback) Validate(m int) error {
	if fb.Failed {
		switch {
		case fb.HasReward || fb.Costs != nil:
			return fmt.Errorf("feedback %d: failed: a failed evaluation carries no reward and no costs", fb.ID)
		case len(fb.Reason) > MaxReasonLen:
			return fmt.Errorf("feedback %d: reason has %d bytes: at most %d", fb.ID, len(fb.Reason), MaxReasonLen)
		}
		return nil
	}
	if fb.Reason != "" {
		return fmt.Errorf("feedback %d: reason = %q: given only with failed = true", fb.ID, fb.Reason)
	}
	if fb.HasReward && (math.IsNaN(fb.Reward) || math.IsInf(fb.Reward, 0)) {
		return fmt.Errorf("feedback %d: reward = %v: must be a finite number", fb.ID, fb.Reward)
	}
	if fb.Costs != nil {
		if len(fb.Costs) != m {
			return fmt.Errorf("feedback %d: costs has %d values, the problem has %d constraints", fb.ID, len(fb.Costs), m)
		}
		for j, c := range fb.Costs {
			if math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("feedback %d: costs[%d] = %v: must be a finite number", fb.ID, j, c)
			}
		}
	}
	if !fb.HasReward && fb.Costs == nil {
		return fmt.Errorf("feedback %d: carries neither a reward nor costs", fb.ID)
	}
	return nil
}
