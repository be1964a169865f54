// Package service is the ask/tell HTTP API of cbandit (`cbandit serve`):
// studies of sequential decisions under unknown constraints, served by the
// same agents the simulator runs.
//
// # Endpoints
//
//	GET    /healthz                      readiness: does the store answer? 200, or 503 with a reason (no token needed)
//	GET    /livez                        liveness: 200 while the process runs (no token needed)
//	GET    /openapi.json                 the OpenAPI 3.1 document
//	GET    /metrics                      Prometheus text format
//	POST   /studies                      create a study (?load_if_exists=true: the study of that name, same definition)
//	GET    /studies                      a page of studies (?limit=&after=; ?name= : the study of that name)
//	GET    /studies/{id}                 get a study
//	PATCH  /studies/{id}                 raise the horizon: {"horizon": N}
//	DELETE /studies/{id}                 delete a study and its log
//	POST   /studies/{id}/suggestions     ask: {"count": k} → k decisions (Idempotency-Key)
//	POST   /studies/{id}/observations    tell: {"decision_id", "reward", "costs"}, or {"decision_id", "failed": true, "reason"} (Idempotency-Key)
//	POST   /studies/{id}/enqueue         a point a person chooses, answered first by the next ask: {"params"} or {"x"}
//	POST   /studies/{id}/trials          a past measurement, learned as if the algorithm had chosen it: {"params", "reward", "costs"}
//	DELETE /studies/{id}/decisions/{did} abandon a pending decision
//	GET    /studies/{id}/decisions       history with observations (?after=&limit=)
//	GET    /studies/{id}/decisions.csv   every decision as CSV: a header, one row per decision
//	GET    /studies/{id}/summary         rounds, pending, abandoned, cumulative cost and violation, best feasible point, recommendation
//	GET    /studies/{id}/importance      which parameters matter: fANOVA of a fitted GP (package importance)
//	GET    /ui/                          the dashboard (package ui; its assets need no token, its data does)
//
// # Studies
//
// A study is a search space (a box, or a finite set of points), an objective
// metric (maximised or minimised), m constraint metrics each with a threshold
// (g_j = metric_j − threshold_j ≤ 0) and a kind (stage-wise: every round
// within the threshold; cumulative: the sum of the violations kept small;
// long-term: the average), an algorithm ID with its parameters, a seed and a
// horizon T. The kind is which violation the algorithm keeps small and the
// summary reports. A study that names no algorithm gets one chosen from its
// constraints (the registry's declarations, agent.Caps.DefaultFor, read by
// learner.Choose: the default for the strictest kind — stage-wise: config
// (cei on typed parameters with an int or a categorical, or safeopt with
// prior.safe on a points space); cumulative: rpol-ucb;
// long-term: ckb-ucb; no constraints: igp-ucb), recorded in algorithm with
// the reason in algorithm_choice. A constraint without a kind gets the
// strictest kind its algorithm keeps, stage-wise when none is named; a kind
// the algorithm does not keep (agent.Caps.Kinds, or a weaker kind than one
// listed) is a 400 naming both. A study says what counts: evaluations
// "live" (the default, and a stored study without the field: every
// evaluation is served to real traffic, regret and limits count at every
// round) or "offline" (a harness, a simulation, a benchmark: only the
// configuration deployed at the end counts; evaluations may break limits
// while searching, failures still cost, so each constraint, whatever its
// kind, is a limit on the recommendation — docs/evaluations.md); without
// an algorithm, an offline study gets the default declared for its
// situation with "+offline", the live default while none is declared. The
// summary's recommendation is what to deploy: among the evaluated
// configurations, the one the model believes best with P(every limit
// holds) ≥ 0.95, with the posterior mean and standard deviation of the
// objective (its own direction and units) and of each constraint metric,
// from the agent's bandit.Recommender (absent when the algorithm names
// none); best stays the best single observation. The service builds the
// learner's bandit.Info from the study through package learner (the one
// place the Go library's optimize builds through too):
//
//   - Domain: a points space is a finite domain over its points. A box space
//     is given to the learner as a finite, deterministic candidate set inside
//     the box — a regular grid in 1-D and 2-D (k = round(n^(1/d)) points per
//     side), a Halton set in three and more dimensions — of
//     space.candidates points (default 256, a 16×16 grid in 2-D, at most
//     2048); a safe point, when given, is added. Suggestions are candidates.
//     By default (neither space.native nor space.candidates given) a box —
//     or a study's typed parameters: all floats, or, from generation 8
//     (api.DefaultsMixed), any mix of them — goes to an algorithm that can
//     take one as the box itself (space.native below), to the others as the
//     candidate set.
//     This lets every algorithm, including those over finite domains only,
//     serve a box; the resolution is the candidate spacing. With
//     space.native the learner gets the box itself (a *domain.Box: models
//     over candidates plus local refinement, e.g. rpol-ucb), suggestions are
//     arbitrary points of the box, and an algorithm that cannot handle a box
//     is refused with a 400 naming "algorithm".
//   - Contextual (space.type "contextual", space.dim d): the action set
//     changes every round (the setting of Pacchiano et al.). Each ask carries the
//     round's actions as feature vectors ("arms": k×d, count 1), the safe
//     point prior.safe among them; the suggestion's arm is an index into
//     them (with space.star_convex, x is a point of the segment from x₀ to
//     that arm). Served by lc-lucb and safe-lts, the algorithms of Pacchiano et al. §4
//     that take per-round action sets; others are refused (400,
//     "algorithm").
//   - Stage-wise algorithms (Pacchiano et al.: lc-lucb, oplb, oplb-lp, opb, opnlb, safe-lts) are
//     told the thresholds τ (constraints[j].threshold), the safe action x₀
//     (prior.safe), its known values r₀ and c₀ (prior.safe_reward,
//     prior.safe_costs; without them, set the algorithm's warm-start), the
//     bounds S (prior.S, default 1, as Pacchiano et al.'s linear experiments) and L
//     (prior.L, default the largest norm among the points), and for opnlb
//     the finite function classes prior.reward_class and prior.cost_class
//     (Pacchiano et al. §5.3). Points are the feature vectors of linear algorithms.
//   - Full information (full_info, finite spaces only): each ask carries
//     the round's sample of the constraint metrics at every point
//     ("constraint_sample", one row of m values per point, count 1), as
//     scgp-ucb needs (Zhou & Ji (CBO) §4).
//   - Noiseless costs: prior.RG = 0 (penalty-noiseless, Shi & Eryilmaz 2022 §5).
//   - An ask whose round input does not fit the study (arms for a study
//     that is not contextual, a sample of the wrong shape, …) is a 400
//     naming the field and saying what would fit.
//   - Kernel: prior.kernel "se" (default) or "matern12/32/52", lengthscale
//     0.2 × the mean side of the space's bounding box, variance 1.
//   - NoiseVar λ = 0.01; R = √λ (reward noise scale); RG = R; B = G = 1
//     (bounds on |f|, |g| and their RKHS norms: the defaults assume metrics
//     of order one — set them for other scales); Slater δ = 0 (unknown).
//   - Horizon: optional. A study with a horizon T runs its algorithm for T
//     rounds (the algorithm's schedules see T); asking beyond it is a 409
//     until PATCH /studies/{id} raises it to T′, after which rounds T+1…T′
//     are served by a fresh run of the algorithm planned for T′ − T rounds
//     (seed derived from the study's seed and the run's index): a restart,
//     as in the doubling trick, because the agents' T-dependent schedules
//     (β_t, λ = 1 + 2/T, V, windows) are fixed at construction.
//   - Open-ended (no horizon): the doubling trick (Cesa-Bianchi & Lugosi,
//     Prediction, Learning, and Games, 2006, §2.3; geometric doubling keeps
//     the minimax √T rates, Besson & Kaufmann, "What doubling tricks can
//     and can't do for multi-armed bandits", 2018): the algorithm runs on
//     epochs of E, 2E, 4E, … rounds (E = epoch, default 1000, the former
//     default horizon), restarted fresh at each epoch with the epoch's
//     length as its horizon; feedback for a decision of an earlier epoch is
//     recorded (summary, history) but not given to the new run. The summary
//     says which epoch runs. This applies to every algorithm, including
//     those whose schedules do not depend on T (they lose their data at
//     each restart; give them a horizon to avoid it).
//   - Magnitudes: every metric value, threshold, box bound and prior scale
//     is at most MaxMagnitude = 1e12 in absolute value, the noise variance
//     and the lengthscale (relative to the space) at least MinScale = 1e-9.
//     Squares and sums over 1e9 rounds stay far below the float64 range, so
//     a stored study stays computable and its summary finite.
//
// Every default is written into the stored definition, so a later change of
// defaults never changes how a stored study replays: a study of an earlier
// generation (defaults) is migrated once, when first opened — what its
// generation resolved is written into its params (and space.rounded), its
// defaults set to the current generation (migrate.go; what each generation
// changed is declared with the parameter it changed, bandit.Change, and
// listed in docs/parameters-table.md). A migration writes
// only parameters that apply to the study (constraint-fit and refit where
// hyperparameters are fitted), and drops from a stored definition those
// that earlier builds accepted without effect and the agents now refuse.
//
// # Parameters
//
// Instead of a space, a study can name and type its parameters:
//
//	"parameters": [{"name": "lr", "type": "float", "low": 1e-4, "high": 1, "log": true},
//	               {"name": "layers", "type": "int", "low": 1, "high": 8},
//	               {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]}]
//
// Suggestions, the history and the summary's best decision then carry
// "params": {"lr": 0.0031, "layers": 3, "opt": "adam"} — a float as a
// number, an int as a JSON integer, a categorical as the choice (a string,
// number or boolean) — beside x. The learner works in the unit cube of an
// encoding, as BoTorch/Ax and OSS Vizier do: a float or int is one
// coordinate scaled to [0, 1] (after a log with "log": true; Ax's Log and
// UnitX transforms, BoTorch's Normalize, Vizier's LOG scaling), a
// categorical with k choices is k one-hot coordinates (Ax's OneHot
// transform); x is that encoding. By default an algorithm that takes a box
// gets the cube itself as a mixed space (mixed.go, generation 8 on: ints,
// stepped floats and one-hot blocks move by discrete steps, floats by
// gradient, at every decision; docs/typed.md), so every suggestion is an
// exact encoding. An algorithm that takes no box, a study that gives
// space.candidates, and a study of generation 7 or earlier choose among a
// finite candidate set of exact encodings instead (space.candidates,
// default 256: every combination when there is no float and they are few —
// the enumeration of BoTorch's optimize_acqf_mixed — else a Halton set
// mapped to parameter values, ints in equal-width bins), stored with the
// definition. A point of the cube is decoded by rounding ints and steps and
// taking the arg max of each one-hot block (Ax's IntToFloat and OneHot
// untransforms). The default lengthscale is 0.2 of the cube's side. A
// study has either space or parameters (with parameters, space may hold
// only candidates and native — or the space derived from them, as GET
// /studies/{id} shows it, checked against them: a definition read from the
// service posts back as a study that decides the same; a read-back
// algorithm_choice is dropped, the algorithm being named); names are
// distinct; bounds are finite,
// integers for ints, low > 0 for a log float, low ≥ 1 for a log int; at
// most 32 parameters encoding to at most 64 coordinates and 64 choices per
// categorical; stage-wise priors (prior.safe, classes) and full_info need a
// space. Errors name the field, e.g. "parameters[0].low".
//
// # Export
//
// GET /studies/{id}/decisions.csv (and `cbandit export --db … --study NAME
// --format csv|json`, which reads the store directly — stop the server
// first when it holds a SQLite file) streams a header and one row per
// decision, a thousand decisions copied under the study's lock at a time
// (the decisions made when it starts): decision_id, round, arm, status (pending, observed,
// abandoned), created and observed (RFC 3339, UTC), params.NAME per
// parameter or x[i] per coordinate, reward and costs.NAME per constraint as
// measured (empty when not observed).
//
// # Dashboard
//
// /ui/ (package ui) lists the studies and shows, per study, the objective
// per round with the best feasible value so far, each constraint metric per
// round with its threshold, each constraint's violation so far (cumulative
// Σ_t [metric − threshold]⁺ and long-term [Σ_t (metric − threshold)]⁺),
// the latest decisions, and a Parameters view (the parameters' importance,
// slice plots, parallel coordinates); failed evaluations are marked on
// every view with their reason. It refreshes every 3 s. Its assets are embedded and public (they hold no data); its
// data comes from the API under the API's token rules, with the token the
// page asks for, keeps in sessionStorage and sends as a bearer header.
//
// # Observations
//
// Tell carries the metrics as measured; the service hands the agent the
// reward (negated when minimising) and the costs c_j − threshold_j. Reward
// and costs may come together or separately, late and in any order, while
// other suggestions are pending. Re-sending what was already recorded is a
// no-op answered 200 with the parts listed under "duplicate"; a different
// value for something already recorded is a 409 naming the field.
//
// An evaluation that ran and failed (a crash, an out-of-memory, a timeout)
// is told as {"decision_id", "failed": true, "reason": "OOM"}: an
// observation, logged and replayed, counted in the summary ("failed", by
// reason), the export and the dashboard; the GP agents model where
// evaluations fail and decide where that is unlikely (docs/failures.md).
//
// A pending decision can be abandoned: DELETE /studies/{id}/decisions/{did},
// or the server's --pending-ttl (an abandon event is logged at the next ask
// for every decision pending longer). An abandoned decision takes no
// observation (409), is reported in the summary ("abandoned", not
// "pending") and in the history; it still counts towards the horizon (the
// algorithm made it).
//
// # Idempotency
//
// Ask and tell accept an Idempotency-Key header
// (draft-ietf-httpapi-idempotency-key-header, as Stripe-style APIs use it;
// a quoted string, or a bare token, 1 to 255 printable ASCII bytes). The
// key is recorded in the study's log with a hash of the decoded request
// and, for a tell, its answer. A retry with the same key answers what the
// first request answered (with "Idempotent-Replayed: true"), without a new
// decision; the same key with another body, or on the other endpoint, is a
// 422 naming "Idempotency-Key". Keys are scoped to a study and kept as
// long as its log (they survive restarts and are seen by every replica).
//
// # State
//
// The durable state is each study's append-only log in the store (package
// store): "ask" events (the decision made) and "tell" events (the new parts
// of an observation). An agent's state is a pure function of its definition,
// seed and that sequence, so a study is rebuilt by replaying its log, and a
// replayed decision is checked against the logged one. An event is appended
// — and committed — before the answer is sent, so an acknowledged
// observation survives kill -9 (and, with SQLite's default synchronous=FULL
// or PostgreSQL with fsync on, a power loss).
//
// Snapshots. Replaying a long log repeats all of the agent's work (an
// rpol-ucb study on a native box with 3,000 observations took 67 s). So
// every Options.SnapshotEvery events (default 1000), or once the agent has
// worked Options.SnapshotCost (default 250 ms) since the last snapshot, the
// agent's state is encoded (package snap: a reflective encoding of the
// agent's object graph, with every type's shape) and saved in the store in
// the background, with a meta record: format version, build, study, log
// length n, epoch, and a SHA-256 hash chain of the first n log events;
// the whole is checksummed. A snapshot is versioned by the shape of the
// agent state, not by the build: the meta records the fingerprint of the
// type graph of a freshly built agent of the study's epoch (snap.Fingerprint:
// every reachable type's name, kind, fields and field types), so a
// redeploy — another version, another executable — whose agent types have
// the same shapes restores from the snapshots of the one before, and one
// that changed a shape replays the whole log, once per study. (The build
// is recorded in the meta for the operator, not checked; a change of an
// algorithm's behaviour that keeps its types is caught as before a
// snapshot was ever taken: each replayed decision is compared with the
// logged one.) A restore reads the log a page at a time (store.Scan: it
// holds the study's state, never its log): it reads back the first n events
// without running the agent (decisions, observations, keys), checks the
// chain, epoch, counts and shape against the snapshot, decodes the agent
// into a freshly built one, and replays the events after n with the agent
// (each replayed decision compared with the logged one). Any mismatch — a
// checksum or chain mismatch, another shape, a divergent decision —
// ignores the snapshot (logged, counted in cbandit_snapshot_rejected_total)
// and replays the whole log. A whole log that this build does not replay (a
// replayed decision differs: another release's algorithm) leaves the study
// read-only: rebuilt without its agent, its decisions, observations and
// summary readable, observations of pending decisions taken, and every
// request for a new decision (ask, enqueue, past trial) refused with 409
// study_read_only naming the decision — never a 500, nothing rewritten.
// One restore per study runs at a time: concurrent requests for a study
// being restored wait for it (single flight). Snapshots wait for the
// background writer in a queue that holds one per study (a newer one
// replaces it) and at most Options.SnapshotQueueBytes (default 256 MiB;
// one of any size always fits); one that does not fit is skipped
// (cbandit_snapshots_skipped_total, logged) and the study keeps its
// previous snapshot.
//
// Live studies are kept in memory in an LRU cache bounded by count
// (Options.CacheSize) and by memory (Options.CacheBytes): a study weighs
// the measured size of its agent state (snap.Size, a walk of its graph
// without copying: at each restore, snapshot, every 1000 events, and
// whenever the agent has worked 20 times what the last measurement cost),
// plus its decisions, their vectors and its idempotency keys.
// cbandit_cached_bytes is their sum: within a few per cent of the heap the
// live studies hold (TestCacheAccounting). The process's resident size is
// larger by the Go collector's headroom (GOGC; set GOMEMLIMIT to bound it).
//
// With PostgreSQL several replicas serve the same studies: each ask and tell
// takes the study's row lock, applies the events other replicas appended
// since its own view (log length), then acts and appends; reads catch up the
// same way.
//
// # Limits
//
// A study, an ask and a request are bounded; each limit is a server option
// (a flag of cbandit serve), and a refusal names the limit, its flag and the
// study's value:
//
//   - decisions per study, all epochs together (Options.MaxDecisions,
//     --max-decisions, default 100,000: about 25 MB of bookkeeping;
//     restarting a study at the limit takes under a second): an ask beyond
//     it is a 409 with code "decision_limit";
//   - memory per study (Options.MaxStudyBytes, --max-study-mib, default
//     512 MiB): the algorithm's state as measured plus the decisions. A
//     model that grows with its data — a GP over a native box keeps every
//     observation of its run, memory and time per round ∝ t² — is refused
//     further asks once beyond it (409, code "model_limit"); tells and
//     reads go on;
//   - count per ask (Options.MaxAskCount, --max-ask-count, default 100): a
//     400 naming count;
//   - agent time per ask (Options.MaxAskTime, --max-ask-time, default 30 s,
//     below cbandit serve's 60 s write timeout): checked before each
//     decision after the first, an ask beyond it stops and is refused (422,
//     code "ask_time_limit"). An ask whose client goes away stops the same
//     way, before its next decision (code "client_gone", status 499, which
//     only the logs and metrics see). Either way none of its decisions is
//     committed: the live study is dropped and rebuilt from the log, as if
//     the ask had never come (an agent's Decide itself is not interrupted);
//   - definitions: candidates, points, dimensions, constraints, parameters
//     (the constants of this package), request bodies (Options.MaxBodyBytes).
//
// What an operator sees: cbandit_refused_total{reason} counts every refusal
// and stop by reason (decision_limit, model_limit, ask_time_limit,
// client_gone, and the browser guards' forbidden_host, forbidden_origin,
// unsupported_media_type); the first refusal of a study at a limit is
// logged (WARN "study at a limit"), an ask stopped by its time limit too
// (WARN), one whose client went away at INFO. The request metrics keep a
// bounded label set: the route is one of the server's patterns or "other",
// the method one of the standard nine or "other", the status 100–599.
//
// # Browser guards
//
// Without a token (the default) the server trusts whoever reaches its port
// — this machine, by default — but a web page the user visits can also
// reach a loopback port. So, as Jupyter Server and Go's
// http.CrossOriginProtection do, it answers only requests whose Host is a
// loopback name (localhost, 127.0.0.0/8, [::1], any port) or one of
// Options.AllowedHosts (--allowed-hosts; 403 naming Host: DNS rebinding);
// whose Origin, when present, is the server's own (same host and port) or
// one of Options.AllowedOrigins (--allowed-origins; 403 naming Origin, or
// Sec-Fetch-Site for a cross-site write); and takes request bodies only as
// application/json (415 naming Content-Type: the types a page can send
// without a CORS preflight are refused). /healthz and /livez are exempt. The
// dashboard's same-origin fetches and the clients (Go, Python,
// cbandit-load) pass. Origins of AllowedOrigins get CORS headers
// (preflights answered). With a token these checks are off: a page cannot
// send the bearer header.
//
// Answers carry X-Content-Type-Options: nosniff, and JSON and CSV answers
// Cache-Control: no-store. The bearer scheme is matched without regard to
// case (RFC 7235). JSON keys are case-sensitive ("Reward" is an unknown
// field, not reward) and may not repeat in an object. Names (of studies,
// metrics, parameters and choices) may not hold control, format or line
// separator characters (U+202E, U+200B, U+FEFF, U+2028, …).
//
// # Errors
//
// Every error is JSON {"error": {"status", "code", "field", "message"}}
// with a 4xx status for bad input (400 invalid value, naming the field such
// as "space.lo[1]" or "costs[0]"; 401 missing token; 403 a Host or Origin
// refused by the browser guards; 404 unknown study or decision; 409
// duplicate name, conflicting observation, abandoned decision, horizon
// reached, a limit per study reached; 413 body too large; 415 a body that
// is not JSON without a token; 422 an Idempotency-Key reused for another
// request, the algorithm refusing the study's data, field "algorithm", or
// an ask beyond its time limit). A 503 (code "unavailable", Retry-After: 1)
// means the store cannot take the request now — its database unreachable,
// restarting or failing over, its disk full or read-only (the backends'
// errors classified store.ErrUnavailable) — and that a retry will do: a
// request retried with its Idempotency-Key is applied at most once. A 500
// means a server fault, never bad input. Neither carries the cause's text
// (a driver's message names the database's user, host and port): the
// server's log has it under the answer's X-Request-Id, which the message
// names. An answer is encoded before its status is written, so a 2xx never
// carries a broken or error body.
package service
