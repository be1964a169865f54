// Package linear holds the linear models of the stage-wise constrained bandits
// of Pacchiano, Ghavamzadeh & Bartlett ("Contextual Bandits with Stage-wise
// Constraints"; Pacchiano et al. below): regularised least squares with the
// confidence radius β_t(δ, d) of Pacchiano et al. Thm. 10, the projections onto span(x₀)
// and its orthogonal complement (Pacchiano et al. §2, "Notation"), the closed forms of the
// optimistic reward and pessimistic cost values of Pacchiano et al. Prop. 11 (actions) and
// Prop. 25 (policies), the largest safe scale along a segment [x₀, x] (Pacchiano et al.
// Lemma 14), and the linear programs over policies of Pacchiano et al. eq. (37) and App. D.4.
//
// # Least squares
//
// [Ridge] keeps Σ_t = λI + Σ_s X_s X_sᵀ through its inverse, updated by the
// Sherman–Morrison formula, so that adding an observation, reading θ̂_t and
// evaluating ‖x‖_{Σ_t⁻¹} each cost O(d²). [NewRidgePerp] restricts the model to
// the orthogonal complement V_o^⊥ of a safe direction e₀ (Pacchiano et al. eq. (3)–(4)): it keeps
// M = Σ^{o,⊥} + e₀e₀ᵀ, whose inverse equals (Σ^{o,⊥})† + e₀e₀ᵀ, so that for
// vectors of V_o^⊥ the pseudo-inverse of Pacchiano et al. eq. (4) is an ordinary inverse.
//
// # Closed forms
//
// [Safe] bundles the reward model and the m cost models of LC-LUCB and OPLB.
// OptimisticReward is Pacchiano et al. eq. (9)/(31); PessimisticCost is eq. (10)/(32); both
// take an action x or the mean action x_π of a policy, which is all Prop. 25
// changes.
//
// # Linear programs over policies
//
// [SolveLP1] solves max Σ_a π_a r_a s.t. Σ_a π_a c_a ≤ τ over the simplex
// (Pacchiano et al. eq. (37)) exactly in O(K) per pivot, returning a solution supported on at
// most two arms (Pacchiano et al. Lemma 30, App. D.1). [SolveLP] solves the m-constraint LP
// of Pacchiano et al. App. D.4 with gonum's simplex method, whose basic solutions have at
// most m + 1 non-zero entries.
package linear
