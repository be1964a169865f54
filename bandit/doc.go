// Package bandit holds the contract every cbandit algorithm implements and every
// driver (the simulation runner, the HTTP service) calls: the Agent interface,
// the Round an agent decides in, the Decision it returns, the Feedback it later
// receives, and the Info a problem discloses to the learner.
//
// The contract is event-sourced: an agent's state is a pure function of its
// configuration, its seed and the sequence of Decide and Observe calls. The
// runner relies on that for reproducibility; the service relies on it to rebuild
// a study by replaying its log.
//
// Feedback may arrive late, out of order, or in parts (reward only, costs only).
// Decide never blocks on missing feedback: an agent decides with what it has.
//
// Pending decisions are part of the state: several decisions can await
// feedback at once (parallel workers, batches, delays), and an agent decides
// knowing them — a GP agent conditions its models on them at their posterior
// mean (GP-BUCB) and never repeats one, a randomised agent draws afresh per
// decision — so a batch is distinct points. An evaluation that ran and
// failed (a crash, an out-of-memory) is feedback too (Feedback.Failed, with
// its Reason): it tells where the system cannot run, and the GP agents model
// it. A decision given up before it ran is abandoned (Abandoner): pending no
// more, and it teaches nothing. Decisions a person makes — a
// point to try, a past measurement — enter through Imposer, as if the agent
// had chosen them; the state stays a pure function of the calls, abandons
// and impositions included.
//
// Every parameter of an algorithm or a problem is declared once as a Param
// (name, type, default, range or choices, what and why, source); the
// factory reads its value through the declaration, which validates it, and
// listings print the same declaration.
package bandit
