package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/service/snap"
	"github.com/cbandit/cbandit/store"
)

// Snapshots: the state of a study's agent, saved in the store every
// Options.SnapshotEvery log events, so that a restart restores the study
// from the latest snapshot plus the events after it (light replay of the
// prefix: decisions and observations are read back, the agent is not run).
//
// Layout: snapshotMagic, a big-endian uint32 length, the JSON meta, the
// agent state (package snap), and a SHA-256 of everything before it.

const snapshotMagic = "cbandit-snapshot\n"

// snapshotVersion changes with the layout or the meaning of the meta (2:
// snapshots are versioned by the shape of the agent state, not the build).
const snapshotVersion = 2

// snapshotMeta says what a snapshot is of; every field but Build is checked
// on load.
type snapshotMeta struct {
	Version   int    `json:"version"`
	Study     string `json:"study"`
	Seq       int64  `json:"seq"`
	Chain     string `json:"chain"` // hash chain of the first Seq events
	Epoch     int    `json:"epoch"`
	Decisions int    `json:"decisions"`
	Algorithm string `json:"algorithm"`
	// Shape is the fingerprint of the agent's type graph (snap.Fingerprint
	// of a freshly built agent of the study's epoch): a build whose agent
	// types have the same shapes restores the snapshot, another replays
	// the whole log.
	Shape string `json:"shape"`
	// Build names the build that took the snapshot, for the operator's
	// information (logs); it is not checked.
	Build string `json:"build"`
}

// buildID names the running build in snapshot metas: Options.Version when
// set (cbandit serve sets its version), else the module version and VCS
// revision of the executable. Tests replace it to stand for another build.
var buildID = sync.OnceValue(func() string {
	id := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		id += " " + bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Key + "=" + s.Value
			}
		}
	}
	return id
})

// build is the name of this build in snapshot metas.
func (s *Server) build() string {
	if s.opt.Version != "" {
		return s.opt.Version + " (" + runtime.Version() + ")"
	}
	return buildID()
}

// shapeOf returns the fingerprint of the type graph of the study's agent in
// its current epoch, computed once per epoch from a freshly built agent
// (fresh is one, or nil to build one).
func (l *live) shapeOf(fresh bandit.Agent) (string, error) {
	if l.shapeEpoch == l.epoch+1 {
		return l.shape, nil
	}
	if fresh == nil {
		a, e := l.b.newAgent(&l.spec, l.epochLen, l.epochSeed(l.epoch))
		if e != nil {
			return "", fmt.Errorf("study %s: stored definition: %v", l.id, e)
		}
		fresh = a
	}
	fp, err := snap.Fingerprint(fresh)
	if err != nil {
		return "", err
	}
	l.shape, l.shapeEpoch = hex.EncodeToString(fp[:]), l.epoch+1
	return l.shape, nil
}

// takeSnapshot encodes the study's agent as it stands (under l.mu).
func (l *live) takeSnapshot(build string) ([]byte, error) {
	if l.agent == nil {
		return nil, fmt.Errorf("no agent to save")
	}
	shape, err := l.shapeOf(nil)
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(snapshotMeta{Version: snapshotVersion, Study: l.id, Seq: l.n, Chain: hex.EncodeToString(l.chain[:]),
		Epoch: l.epoch, Decisions: len(l.decs), Algorithm: l.spec.Algorithm, Shape: shape, Build: build})
	if err != nil {
		return nil, err
	}
	// Room for the last snapshot's length and an eighth more (the state
	// grows with the observations): the state is encoded in place, not
	// copied through a growing buffer and then into the frame.
	b := make([]byte, 0, max(l.bytes+l.bytes/8, 4096))
	b = append(b, snapshotMagic...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(meta)))
	b = append(b, meta...)
	if b, err = snap.AppendEncode(b, l.agent); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...), nil
}

// parseSnapshot checks the framing and checksum and returns the meta and
// the agent state.
func parseSnapshot(data []byte) (snapshotMeta, []byte, error) {
	var meta snapshotMeta
	if len(data) < len(snapshotMagic)+4+sha256.Size || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return meta, nil, fmt.Errorf("not a snapshot")
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return meta, nil, fmt.Errorf("checksum mismatch")
	}
	rest := body[len(snapshotMagic):]
	n := binary.BigEndian.Uint32(rest)
	rest = rest[4:]
	if uint64(n) > uint64(len(rest)) {
		return meta, nil, fmt.Errorf("meta length %d exceeds the snapshot", n)
	}
	if err := json.Unmarshal(rest[:n], &meta); err != nil {
		return meta, nil, fmt.Errorf("meta: %v", err)
	}
	return meta, rest[n:], nil
}

// errNoSnapshot: the study has no usable snapshot (not an error to log).
var errNoSnapshot = errors.New("no snapshot")

// errShapeChanged: the snapshot is of an agent state of another shape (an
// upgrade changed the algorithm's types).
var errShapeChanged = errors.New("snapshot of another shape")

// fromSnapshot rebuilds a study from its latest snapshot and the log after
// it. Any mismatch — an agent state of another shape, another study, a log whose prefix does
// not hash to the snapshot's chain, a state that does not decode, a replayed
// decision that differs from the log — returns an error, and the caller
// replays the whole log instead.
func (s *Server) fromSnapshot(ctx context.Context, rec store.Study) (*live, error) {
	sn, err := s.st.GetSnapshot(ctx, rec.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSnapshot
	}
	if err != nil {
		return nil, err
	}
	meta, state, err := parseSnapshot(sn.Data)
	if err != nil {
		return nil, err
	}
	switch {
	case meta.Version != snapshotVersion:
		return nil, fmt.Errorf("version %d, this server writes %d", meta.Version, snapshotVersion)
	case meta.Study != rec.ID || meta.Seq != sn.Seq:
		return nil, fmt.Errorf("of study %s at event %d, stored as %s at %d", meta.Study, meta.Seq, rec.ID, sn.Seq)
	case meta.Seq < 1 || meta.Seq > rec.Len:
		return nil, fmt.Errorf("at event %d, the log has %d", meta.Seq, rec.Len)
	}
	l, err := newLive(rec, s.metrics)
	if err != nil {
		return nil, err
	}
	if meta.Algorithm != l.spec.Algorithm {
		return nil, fmt.Errorf("of algorithm %q, the study runs %q", meta.Algorithm, l.spec.Algorithm)
	}
	// The prefix the snapshot covers is read back without the agent; at
	// its end the snapshot is checked and decoded; the rest is replayed.
	decoded := false
	atPrefix := func() error {
		if hex.EncodeToString(l.chain[:]) != meta.Chain || l.epoch != meta.Epoch || len(l.decs) != meta.Decisions {
			return fmt.Errorf("does not match the log (chain, epoch %d vs %d, decisions %d vs %d)", meta.Epoch, l.epoch, meta.Decisions, len(l.decs))
		}
		if err := l.ensureAgent(); err != nil {
			return err
		}
		shape, err := l.shapeOf(l.agent) // fresh: nothing decided yet
		if err != nil {
			return err
		}
		if shape != meta.Shape {
			return fmt.Errorf("%w: the agent state's shape changed since build %q took it (fingerprint %.12s…, now %.12s…)",
				errShapeChanged, meta.Build, meta.Shape, shape)
		}
		if err := snap.Decode(state, l.agent); err != nil {
			return err
		}
		decoded = true
		return nil
	}
	err = s.st.Scan(ctx, rec.ID, 0, func(ev store.Event) error {
		if err := l.applyEvent(ev, !decoded); err != nil {
			return err
		}
		if l.n == meta.Seq {
			return atPrefix()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !decoded {
		return nil, fmt.Errorf("at event %d, the log has %d", meta.Seq, l.n)
	}
	l.snapN = meta.Seq
	l.bytes = int64(len(state))
	return l, nil
}

// snapshotJob is a snapshot waiting to be written.
type snapshotJob struct {
	id   string
	seq  int64
	data []byte
}

// snapQueue holds the snapshots waiting for the writer: at most one per
// study (a newer one replaces it) and, beyond the first, at most max bytes
// in all; a snapshot that does not fit is skipped (the study keeps its
// previous one: a restore replays a little more).
type snapQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   map[string]snapshotJob
	order  []string // study IDs in arrival order
	bytes  int64
	max    int64
	closed bool
}

func newSnapQueue(max int64) *snapQueue {
	q := &snapQueue{jobs: map[string]snapshotJob{}, max: max}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// put queues j; it reports whether j was queued (replaced: whether an
// older snapshot of the study was dropped for it).
func (q *snapQueue) put(j snapshotJob) (queued, replaced bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false, false
	}
	size := int64(len(j.data))
	old, had := q.jobs[j.id]
	if had {
		size -= int64(len(old.data))
	}
	if len(q.jobs) > 0 && q.bytes+size > q.max && !(had && len(q.jobs) == 1) {
		return false, false
	}
	if !had {
		q.order = append(q.order, j.id)
	}
	q.jobs[j.id] = j
	q.bytes += size
	q.cond.Signal()
	return true, had
}

// take waits for the oldest job; ok is false once the queue is closed and
// empty.
func (q *snapQueue) take() (j snapshotJob, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.order) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.order) == 0 {
		return j, false
	}
	id := q.order[0]
	q.order = q.order[1:]
	j = q.jobs[id]
	delete(q.jobs, id)
	q.bytes -= int64(len(j.data))
	return j, true
}

func (q *snapQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *snapQueue) size() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

// maybeSnapshot takes a snapshot of l (under l.mu) when SnapshotEvery
// events have passed since the last one, or the agent has worked
// SnapshotCost since, and queues it for the writer. With snapshots off it
// still measures the agent's state on that schedule (the study's weight in
// the cache and its memory limit).
func (s *Server) maybeSnapshot(l *live) {
	if l.agent == nil || l.n == l.snapN {
		return
	}
	every := int64(s.opt.SnapshotEvery)
	if every < 0 {
		every = DefaultSnapshotEvery
	}
	byCount := l.n-l.snapN >= every
	byCost := s.opt.SnapshotCost > 0 && l.sinceSn >= s.opt.SnapshotCost.Seconds()
	if !byCount && !byCost {
		return
	}
	if s.opt.SnapshotEvery < 0 {
		l.snapN, l.sinceSn = l.n, 0
		return
	}
	start := time.Now()
	var data []byte
	var err error
	s.snapWork(func() { data, err = l.takeSnapshot(s.build()) })
	l.snapN = l.n // also after a failure: do not retry every event
	if err != nil {
		s.metrics.snapshotErrors.Add(1)
		s.log.Warn("snapshot not taken: the study will be restored by replay", "study", l.id, "err", err)
		return
	}
	s.metrics.snapshotEncode.observe(time.Since(start).Seconds())
	l.sinceSn = 0
	l.bytes, l.measureN, l.sinceMeasure = int64(len(data)), l.n, 0
	s.cache.reweigh(l, l.weight())
	queued, replaced := s.snapQ.put(snapshotJob{id: l.id, seq: l.n, data: data})
	if replaced {
		s.metrics.snapshotsSkipped.Add(1)
	}
	if !queued {
		s.metrics.snapshotsSkipped.Add(1) // the writer is behind: skip this one
		s.log.Info("snapshot skipped: the snapshot queue is full", "study", l.id, "bytes", len(data),
			"queued_bytes", s.snapQ.size(), "limit", s.opt.SnapshotQueueBytes)
	}
}

// measureEvery is the number of log events after which a study's agent
// is measured again (maybeMeasure), whatever its cost.
const measureEvery = 1000

// maybeMeasure measures the agent's state (snap.Size: a walk of its graph,
// without copying) when it was never measured, when measureEvery events
// have passed or their number has doubled, or when the agent has worked 20
// times what the last measurement cost: the figure stays current for
// models that grow with their data (also when their fits run off the ask's
// path, refit=deferred), at most about 5 % of the agent's time.
func (s *Server) maybeMeasure(l *live) {
	if l.agent == nil {
		return
	}
	if l.bytes != 0 && l.n-l.measureN < measureEvery && l.sinceMeasure < 20*l.measureCost && l.n < 2*l.measureN {
		return
	}
	start := time.Now()
	var n int64
	var err error
	s.snapWork(func() { n, err = snap.Size(l.agent) })
	l.measureCost = time.Since(start).Seconds()
	l.measureN, l.sinceMeasure = l.n, 0
	if err == nil && n > 0 {
		l.bytes = n
		s.cache.reweigh(l, l.weight())
	}
}

// snapshotWriter saves queued snapshots, off the request path.
func (s *Server) snapshotWriter() {
	defer close(s.snapDone)
	for {
		j, ok := s.snapQ.take()
		if !ok {
			return
		}
		start := time.Now()
		var err error
		s.snapWork(func() { err = s.st.PutSnapshot(context.Background(), j.id, store.Snapshot{Seq: j.seq, Data: j.data}) })
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			s.metrics.snapshotErrors.Add(1)
			s.log.Warn("snapshot not saved", "study", j.id, "err", err)
			continue
		}
		s.metrics.snapshots.Add(1)
		s.metrics.snapshotWrite.observe(time.Since(start).Seconds())
	}
}
