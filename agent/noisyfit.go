// lognei's fits where every metric is noisy: GPSampler's priors and its early, frequent refits (opt-in).

package agent

import (
	"slices"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/domain"
	"github.com/cbandit/cbandit/model"
)

// noisyPriorDoc declares noisy-prior.
var noisyPriorDoc = bandit.ChoiceParam{Name: "noisy-prior", Default: "constraints", Choices: []string{"kept", "optuna", "between", "auto", "constraints"},
	Doc:     "where every metric is noisy (a trial fit at 2(d+2) observations puts every model's noise variance at least ConfirmNoise; a box below TrustAutoDim dimensions, typed or not): the priors of the hyperparameter fits from then on; kept: the fit's own (BoTorch's before v0.12, noise Gamma(1.1, 0.05) on λ/v); optuna: GPSampler's (noise Gamma(1.1, 30), kernel scale Gamma(2, 1), lengthscale −0.1(ℓ² + 1/ℓ²)), which keeps a fit on few points from calling the trend noise; between: GPSampler's with the noise prior Gamma(1.1, 1); auto: optuna on a box of at least NoisyPriorDim (5) dimensions, kept below (no trial fit); constraints: as auto on the constraints' models, kept on the objective's",
	Source:  "Optuna v4.6 GPSampler (optuna/_gp/prior.py, default_log_prior); measured: docs/offline.md, \"The early rounds under noise (opt-in)\", \"GPSampler's prior from 5 dimensions (opt-in)\" and \"Generation 28: GPSampler's priors on the constraints\"",
	Earlier: []bandit.Change{{Until: 27, Value: "kept", Why: "on a box of 5–9 dims where every metric is noisy, the constraints' models fit under GPSampler's priors"}}}

// NoisyPriorDim is the dimension from which noisy-prior=auto fits under
// GPSampler's priors: on 10 seeds at 5 % noise they bring the 7-D speed
// reducer's best gap from 0.029 to 0.013 but make the 4-D welded beam and
// vessel-mi worse, and the 6-D hartmann6 worse on 7 of 10 seeds
// (docs/offline.md, "GPSampler's prior from 5 dimensions
// (opt-in)"); noisy-prior=constraints keeps the objective's model out of
// them (docs/offline.md, "Generation 28: GPSampler's priors on the
// constraints").
const NoisyPriorDim = 5

// noisyRefitDoc declares noisy-refit.
var noisyRefitDoc = bandit.IntParam{Name: "noisy-refit", Default: 0, Range: bandit.AtLeast(0),
	Doc:    "where every metric is noisy (as noisy-prior): every model refits its hyperparameters at every k-th observation count (k the value; 0: only on the doubling schedule) from the trial fit at 2(d+2) observations until 8(d+2) (model.DeferFrom), and at the trial fit itself",
	Source: "Optuna v4.6 GPSampler (optuna/samplers/_gp/sampler.py: a fit at every trial from its 10th); measured: docs/offline.md, \"The early rounds under noise (opt-in)\""}

// noisyFinalDoc declares noisy-final.
var noisyFinalDoc = bandit.ChoiceParam{Name: "noisy-final", Default: "kept", Choices: []string{"search", "kept"},
	Doc:     "where noisy-prior or noisy-refit changed the fits (as noisy-prior): search: the confirmation rounds and the recommendation read the search's fits; kept: at the confirmation's first round every model refits under the kept priors, so the replicates, confirm-deep's point and P(every limit holds) of the recommendation come from the default fit",
	Source:  "measured: docs/offline.md, \"GPSampler's prior from 5 dimensions (opt-in)\" (speed reducer, 10 seeds at 5 % noise, noisy-prior=optuna: 1 of 10 recommendations breaks a limit with search, none with kept)",
	Earlier: []bandit.Change{{Until: 27, Value: "search", Why: "where noisy-prior changed the fits, the confirmation rounds and the recommendation read the kept priors' fits"}}}

// NoisyMedian is the median noise variance over the models (standardised
// units) of the trial fit at 2(d+2) observations from which a study whose
// every model fits at least ConfirmNoise counts as noisy: a noise std of
// 14 % of the data's spread. A fit on so few points often puts a
// noise-free metric's noise well above its floor: the medians, seeds 1–3
// of eight problems, are 8e-6 to 0.011 noise-free and 0.0054 to 1 at 5 %
// noise (docs/offline.md, "The early rounds under noise (opt-in)").
const NoisyMedian = 0.02

// noisyStartsDoc declares noisy-starts.
var noisyStartsDoc = bandit.IntParam{Name: "noisy-starts", Default: 0, Range: bandit.AtLeast(0),
	Doc:    "where every metric is noisy (as noisy-prior): lognei's acquisition search starts from the best k candidates and the incumbent (k the value; 0: the 4 of every study)",
	Source: "Optuna v4.6 GPSampler (optuna/_gp/optim_mixed.py: 10 local searches); measured: docs/offline.md, \"The early rounds under noise (opt-in)\""}

// noisyCandidatesDoc declares noisy-candidates.
var noisyCandidatesDoc = bandit.IntParam{Name: "noisy-candidates", Default: 0, Range: bandit.AtLeast(0),
	Doc:    "where every metric is noisy (as noisy-prior), on a box: each decision also scores n points drawn uniformly in the box (n the value), fresh each time, and the best of them join the acquisition search's starts (0: the fixed candidates alone)",
	Source: "Optuna v4.6 GPSampler (optuna/_gp/optim_mixed.py: 2,048 fresh Sobol points a trial before its local searches); measured: docs/offline.md, \"At 5 % noise: lognei toward GPSampler's recipe\""}

// noisyFit is lognei's switch to the fits of a noisy study: decided once,
// when every model first holds model.FirstFit(d) observations.
type noisyFit struct {
	prior, every int  // model.NoisyPrior…, noisy-refit
	auto         bool // noisy-prior=auto or constraints: prior set by the box's dimension in settle
	consOnly     bool // noisy-prior=constraints: the objective's model (ms[0]) keeps its fit
	starts       int  // noisy-starts
	cands        int  // noisy-candidates
	final        bool // noisy-final=kept
	settled      bool // the test ran
	noisy        bool // its answer
	restored     bool // noisy-final=kept has refit the models
}

// on reports whether noisy-prior, noisy-refit, noisy-starts or
// noisy-candidates asks for anything.
func (n *noisyFit) on() bool {
	return n.prior != model.NoisyPriorKept || n.every > 0 || n.starts > 0 || n.cands > 0
}

// settle runs the test once every model holds FirstFit(d) observations: a
// fit of each model to its data (not applied) whose noise variance is at
// least ConfirmNoise in every one, with their median at least NoisyMedian,
// makes the study noisy, and every model (with consOnly, every constraint's)
// then refits with the chosen priors and schedule. A deterministic study's
// models are left as they were, so its decisions do not change.
func (n *noisyFit) settle(ms []model.Model, dom domain.Domain) error {
	if n.auto {
		n.auto = false
		if box, ok := dom.(*domain.Box); ok && box.Dim() >= NoisyPriorDim {
			n.prior = model.NoisyPriorOptuna
		}
	}
	if !n.on() || n.settled {
		return nil
	}
	box, ok := dom.(*domain.Box)
	if !ok || box.Dim() >= TrustAutoDim {
		n.settled = true
		return nil
	}
	as := make([]*model.Adaptive, len(ms))
	for i, m := range ms {
		a, ok := m.(*model.Adaptive)
		if !ok {
			n.settled = true
			return nil
		}
		if a.Count() < model.FirstFit(box.Dim()) {
			return nil
		}
		as[i] = a
	}
	n.settled = true
	lams := make([]float64, len(as))
	for i, a := range as {
		lam, err := a.TrialNoise()
		if err != nil {
			return err
		}
		if lam < ConfirmNoise {
			return nil
		}
		lams[i] = lam
	}
	slices.Sort(lams)
	if lams[len(lams)/2] < NoisyMedian {
		return nil
	}
	n.noisy = true
	if n.prior == model.NoisyPriorKept && n.every == 0 {
		return nil // noisy-starts, noisy-candidates alone: the fits stay as they are
	}
	for i, a := range as {
		if i == 0 && n.consOnly {
			continue
		}
		if err := a.SetNoisy(n.prior, n.every); err != nil {
			return err
		}
	}
	return nil
}

// restore refits every model under the kept priors at the confirmation's
// first round from (t ≥ from) when noisy-final=kept and the fits were
// changed, once.
func (n *noisyFit) restore(ms []model.Model, t, from int) error {
	if !n.final || !n.noisy || n.restored || t < from || (n.prior == model.NoisyPriorKept && n.every == 0) {
		return nil
	}
	n.restored = true
	for _, m := range ms {
		if a, ok := m.(*model.Adaptive); ok {
			if err := a.SetNoisy(model.NoisyPriorKept, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// readNoisyFit reads noisy-prior, noisy-refit, noisy-starts,
// noisy-candidates and noisy-final.
func readNoisyFit(name string, ps bandit.Params) (noisyFit, error) {
	p, err := noisyPriorDoc.Read(name, ps)
	if err != nil {
		return noisyFit{}, err
	}
	k, err := noisyRefitDoc.Read(name, ps)
	if err != nil {
		return noisyFit{}, err
	}
	st, err := noisyStartsDoc.Read(name, ps)
	if err != nil {
		return noisyFit{}, err
	}
	nc, err := noisyCandidatesDoc.Read(name, ps)
	if err != nil {
		return noisyFit{}, err
	}
	fin, err := noisyFinalDoc.Read(name, ps)
	if err != nil {
		return noisyFit{}, err
	}
	n := noisyFit{every: k, starts: st, cands: nc, final: fin == "kept"}
	switch p {
	case "auto", "constraints":
		n.auto, n.consOnly = true, p == "constraints"
	case "optuna":
		n.prior = model.NoisyPriorOptuna
	case "between":
		n.prior = model.NoisyPriorBetween
	}
	return n, nil
}
