package bandit

// Stage holds what a stage-wise constrained problem (Pacchiano et al. §2, §4, §5) tells the
// learner besides the domain: the thresholds, the safe action and, when the
// problem discloses them, its reward and costs (Pacchiano et al. Ass. 5 / Ass. 22 / Ass. 43).
//
// Stage-wise problems report g_i = c_i − τ_i as their constraint values, so a
// decision is feasible when g ≤ 0 (the runner's convention); agents that work
// with costs add Tau back to the observed g.
type Stage struct {
	// Tau are the thresholds τ_1..τ_m (len Info.M).
	Tau []float64
	// X0 are the coordinates of the safe action x₀ (linear problems); nil for
	// a multi-armed bandit without coordinates.
	X0 []float64
	// SafeArm is the index of the safe arm in a finite action set, −1 when the
	// safe action is identified by X0 (it must then appear in every action set).
	SafeArm int
	// Known reports whether R0 and C0 are disclosed (Pacchiano et al. Ass. 5). When false the
	// learner must estimate them (Pacchiano et al. Remark 12, App. F.1) and R0, C0 are zero.
	Known bool
	// R0 and C0 are the mean reward and the m mean costs of the safe action.
	R0 float64
	C0 []float64
	// S bounds ‖θ*‖ and ‖μ*‖ (Pacchiano et al. Ass. 2); L bounds ‖x‖ over actions (Ass. 3).
	S, L float64
	// StarConvex marks action sets that are finite star-convex sets around X0
	// (Pacchiano et al. Def. 8, Def. 13): the union of the segments [x₀, x_i] over the listed
	// points x_i. When false only the listed points may be played.
	StarConvex bool
	// RewardClass and CostClass are finite function classes G_r, G_c over the
	// arms of a finite action set (Pacchiano et al. §5.3): RewardClass[k][a] is the k-th
	// candidate mean reward of arm a. Nil when the problem gives none.
	RewardClass [][]float64
	CostClass   [][]float64
}
