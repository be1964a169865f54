// Package learner is the one place a study's definition becomes a learner,
// for the ask/tell service and package optimize alike.
//
// A Definition says where actions live (a box, points, named typed
// parameters with their encoding from package space, or per-round action
// sets), the objective's direction, the constraints with their kinds, the
// algorithm or none, its parameters, the prior, a safe point, the seed,
// the horizon and what counts (Live or Offline evaluations). Build turns
// it into a Learner: the domain with its encoding (a box, the mixed cube
// whose discrete coordinates are marked, or a candidate set), the kernel
// by name (gp.NewNamed) and the default prior, the safe action and the
// stage-wise facts of Pacchiano et al. §2, and the algorithm — named, or
// chosen by Choose from the registry's declarations (agent.Caps.DefaultFor,
// "+offline" situations for offline studies). NewAgent builds a run of it
// through the registry; New does both. Recommend reads an agent's
// bandit.Recommender in the definition's units.
//
// The service validates a request, makes its defaults explicit with this
// package's functions (DefaultLengthscale, BoxCandidates, TypedCandidates,
// DefaultL) and stores the definition; a stored definition (Stored) is
// built exactly as recorded, so studies of earlier releases decide as they
// did.
package learner
