package rule

import (
	"fmt"
	"math"
)

// Psi is the penalty function ψ of Shi & Eryilmaz 2022 §5 (Assumption 2): ψ(x) = 1 for
// x ≤ 0 and, for x ≥ 0, either (cx+1)^n (eq. 9, Kind "poly") or exp(cx)
// (eq. 10, Kind "exp"), with c > 0 and n ≥ 1.
type Psi struct {
	Kind string  // "exp" (eq. 10) or "poly" (eq. 9)
	C    float64 // c > 0
	N    float64 // n ≥ 1 (eq. 9 only)
}

// NewPsi validates the constants of ψ: c > 0 (finite) and, for eq. (9),
// n ≥ 1 (Shi & Eryilmaz 2022 §5: "n ≥ 1 and c > 0 are some constants").
func NewPsi(kind string, c, n float64) (Psi, error) {
	switch kind {
	case "exp", "poly":
	default:
		return Psi{}, fmt.Errorf("psi = %q: accepted are exp (Shi & Eryilmaz 2022 eq. 10), poly (eq. 9)", kind)
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return Psi{}, fmt.Errorf("psi constant c = %v: must be a finite number > 0 (Shi & Eryilmaz 2022 eq. 9–10)", c)
	}
	if kind == "poly" && (!(n >= 1) || math.IsInf(n, 0)) {
		return Psi{}, fmt.Errorf("psi exponent n = %v: must be a finite number ≥ 1 (Shi & Eryilmaz 2022 eq. 9)", n)
	}
	return Psi{Kind: kind, C: c, N: n}, nil
}

// At returns ψ(x) (may be +Inf for huge x; see LogAt).
func (p Psi) At(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if p.Kind == "exp" {
		return math.Exp(p.C * x)
	}
	return math.Pow(p.C*x+1, p.N)
}

// LogAt returns log ψ(x), finite for every finite x (the κ update works in
// the log domain so that it cannot overflow, Shi & Eryilmaz 2022 §5.1).
func (p Psi) LogAt(x float64) float64 {
	if x <= 0 {
		return 0
	}
	if p.Kind == "exp" {
		return p.C * x
	}
	return p.N * math.Log1p(p.C*x)
}

// Penalty is the epoch-wise multiplier rule of Shi & Eryilmaz 2022 §5–6. Decisions are
// grouped into epochs of S rounds; once the S constraint observations of an
// epoch are in, κ is updated with their mean ḡ_j:
//
//	Multiplicative (Alg. 2, step 4):  κ_j^{l+1} = κ_j^l ψ(ḡ_j),  κ_j^1 = 1;
//	Additive (Alg. 3):                κ_j^{l+1} = [κ_j^l + μ ḡ_j]⁺, κ_j^1 = 0.
//
// Epochs complete in order: a late epoch holds back the updates of later
// ones, so κ^{l+1} is always κ^l updated by epoch l. Decisions never wait
// for an update: they use the κ in force when they are made.
//
// Overflow guard (Shi & Eryilmaz 2022 §5.1 warns that ψ = exp makes κ overflow): the
// multiplicative update is done on log κ, and κ_j is capped at KappaMax
// (documented default 1e12 in the agents). Capped updates are counted in
// Capped.
type Penalty struct {
	Kappa    []float64
	S        int
	KappaMax float64
	Capped   int
	// Epoch is the number of completed κ updates (κ in force is κ^{Epoch+1}).
	Epoch int
	psi   *Psi
	mu    float64
	sums  map[int][]float64
	count map[int]int
}

func checkEpochs(m, s int) error {
	if m < 1 {
		return fmt.Errorf("penalty rule: constraints m = %d: must be at least 1", m)
	}
	if s < 1 {
		return fmt.Errorf("penalty rule: epoch length S = %d: must be at least 1 (Shi & Eryilmaz 2022 Alg. 2–3)", s)
	}
	return nil
}

// NewMultiplicative returns the rule of Shi & Eryilmaz 2022 Alg. 2 for m constraints,
// epochs of S rounds, penalty ψ and the cap kappaMax on κ (> 0; +Inf for none).
func NewMultiplicative(m, s int, psi Psi, kappaMax float64) (*Penalty, error) {
	if err := checkEpochs(m, s); err != nil {
		return nil, err
	}
	if _, err := NewPsi(psi.Kind, psi.C, psi.N); err != nil {
		return nil, fmt.Errorf("penalty rule: %w", err)
	}
	if !(kappaMax >= 1) {
		return nil, fmt.Errorf("penalty rule: kappa-max = %v: must be ≥ κ^1 = 1", kappaMax)
	}
	p := &Penalty{Kappa: make([]float64, m), S: s, KappaMax: kappaMax, psi: &psi,
		sums: map[int][]float64{}, count: map[int]int{}}
	for j := range p.Kappa {
		p.Kappa[j] = 1 // Shi & Eryilmaz 2022 Alg. 2, line 1
	}
	return p, nil
}

// NewAdditive returns the rule of Shi & Eryilmaz 2022 Alg. 3: κ^1 = 0, step μ > 0.
func NewAdditive(m, s int, mu float64) (*Penalty, error) {
	if err := checkEpochs(m, s); err != nil {
		return nil, err
	}
	if !(mu > 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("penalty rule: step mu = %v: must be a finite number > 0 (Shi & Eryilmaz 2022 Alg. 3)", mu)
	}
	return &Penalty{Kappa: make([]float64, m), S: s, KappaMax: math.Inf(1), mu: mu,
		sums: map[int][]float64{}, count: map[int]int{}}, nil
}

// EpochOf returns the 0-based epoch of the k-th decision (k ≥ 1).
func (p *Penalty) EpochOf(k int) int { return (k - 1) / p.S }

// Record adds the constraint observations g (len m) of a decision made in
// epoch e (0-based) and applies every κ update that became possible. It
// returns the number of updates applied.
func (p *Penalty) Record(e int, g []float64) (int, error) {
	if len(g) != len(p.Kappa) {
		return 0, fmt.Errorf("penalty rule: %d constraint values, want %d", len(g), len(p.Kappa))
	}
	if e < p.Epoch {
		return 0, fmt.Errorf("penalty rule: epoch %d is already closed", e)
	}
	s := p.sums[e]
	if s == nil {
		s = make([]float64, len(p.Kappa))
		p.sums[e] = s
	}
	for j, v := range g {
		s[j] += v
	}
	p.count[e]++
	if p.count[e] > p.S {
		return 0, fmt.Errorf("penalty rule: epoch %d has more than S = %d observations", e, p.S)
	}
	n := 0
	for p.count[p.Epoch] == p.S {
		sum := p.sums[p.Epoch]
		delete(p.sums, p.Epoch)
		delete(p.count, p.Epoch)
		for j := range sum {
			sum[j] /= float64(p.S)
		}
		p.update(sum)
		p.Epoch++
		n++
	}
	return n, nil
}

// update applies one κ update with the epoch means mean_j.
func (p *Penalty) update(mean []float64) {
	for j, g := range mean {
		if p.psi != nil {
			lp := p.psi.LogAt(g)
			if math.Log(p.Kappa[j])+lp > math.Log(p.KappaMax) {
				p.Kappa[j] = p.KappaMax
				p.Capped++
			} else {
				p.Kappa[j] *= math.Exp(lp)
			}
			continue
		}
		p.Kappa[j] = math.Max(0, p.Kappa[j]+p.mu*g)
	}
}

// Transform returns the value the objective model is given for the
// observation g_j: ψ(g_j) − 1 for Alg. 2 (F_l = f − Σ κ_j(ψ(g_j) − 1)),
// g_j itself for Alg. 3 (F_l = f − Σ κ_j g_j). For ψ = exp it is capped at
// 1e150 so that penalised values stay finite.
func (p *Penalty) Transform(g float64) float64 {
	if p.psi == nil {
		return g
	}
	return math.Min(math.Expm1(p.psi.LogAt(g)), 1e150)
}
