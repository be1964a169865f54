package service

import "github.com/cbandit/cbandit/learner"

// Limits and defaults of a study definition (documented in doc.go and the
// OpenAPI document).
const (
	DefaultCandidates = learner.DefaultCandidates
	MaxCandidates     = 2048
	MaxPoints         = 2048
	MaxDim            = 32
	MaxConstraints    = 16
	// DefaultEpoch is the first epoch of an open-ended study's doubling
	// trick (the former default horizon).
	DefaultEpoch = 1000
	MaxEpoch     = 1_000_000
	MaxHorizon   = 1_000_000_000
	// MaxMagnitude bounds every metric value, threshold, box bound and
	// prior scale a study accepts: squares and sums over a billion rounds
	// stay far below math.MaxFloat64 (1e12² · 1e9 = 1e33), so kernels,
	// standardisation and summaries stay finite.
	MaxMagnitude = 1e12
	// MinScale bounds prior lengthscales and noise variances from below
	// (relative to the space for lengthscales): below it kernel matrices
	// are numerically singular or identity.
	MinScale        = 1e-9
	DefaultNoiseVar = learner.DefaultNoiseVar
	DefaultB        = learner.DefaultB
	DefaultG        = learner.DefaultG
	DefaultVariance = learner.DefaultVariance
	// DefaultLengthscaleFraction × the mean side of the space's bounding box
	// is the default kernel lengthscale.
	DefaultLengthscaleFraction = learner.DefaultLengthscaleFraction
	maxNameLen                 = 200
	// MaxModelEntries bounds (m+1)·N², the size of the prior covariances
	// over N candidates of the m+1 posteriors a study keeps (32 MiB each at
	// the bound): N = 2048 with no constraint, 1448 with one, 1024 with
	// three, 512 with fifteen.
	MaxModelEntries = 1 << 22
	// DefaultS bounds the norms of the unknown linear parameters (Pacchiano et al. Ass.
	// 2); Pacchiano et al.'s linear experiments use S = 1 (problem/stagewise.go).
	DefaultS = learner.DefaultS
	// MaxClass bounds the size of a function class (prior.reward_class,
	// prior.cost_class).
	MaxClass = 256
)
