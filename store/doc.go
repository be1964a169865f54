// Package store keeps the durable state of the decision service: one record
// per study (its definition) and, per study, an append-only log of events
// (decisions made and observations received). The log is the state: an agent
// is rebuilt by replaying it (package service), so a store only has to keep
// the log complete, ordered and consistent.
//
// Backends register by URL scheme (Register, in the init of the backend's
// file) and Open picks one by the scheme of its URL, so a new backend is one
// file; the contract every backend keeps is checked by one exported test,
// storetest.Run, which each backend's tests call. Three implementations
// share the Store interface:
//
//   - SQLite (Open("sqlite:FILE")): an embedded file, the default. It uses
//     the pure-Go driver modernc.org/sqlite in WAL mode. One process owns
//     the file through an advisory lock (flock) on FILE-lock (a second
//     `cbandit serve` on it fails at start), so that process's in-memory
//     view of each log's length is authoritative. Appends from concurrent
//     requests are group-committed: one writer goroutine writes every
//     waiting append in one transaction on the one writer connection,
//     which also updates each study's log length and decision count in the
//     studies table; reads go through a pool of read-only connections,
//     which in WAL mode neither wait for the writer nor make it wait, and
//     never count a log (a database written before the counters gets them
//     from its log once, when opened).
//     synchronous=FULL by default: an acknowledged append survives a kill
//     of the process and a loss of power (an fsync per group commit);
//     `?sync=normal` survives a kill of the process but may lose the
//     commits since the last WAL checkpoint on power loss.
//   - PostgreSQL (Open("postgres://...")): several service replicas share one
//     database. Update takes the study's row lock (SELECT … FOR UPDATE), so
//     one writer per study at a time, and hands the events appended by
//     other replicas since the caller's last known length to the caller
//     before it acts.
//   - Memory (Open("memory:")): for tests; nothing survives the process.
//
// Logs are read a page at a time (Scan, ScanPage events per query): a
// restore holds one page, not the log, and no connection is held while
// the caller works. ListPage pages the studies by (creation time, ID).
//
// Each store also keeps the latest snapshot of each study's live agent
// (PutSnapshot, GetSnapshot): an optimisation the service validates against
// the log, never a source of truth.
//
// The Update protocol is what makes replicas and caches safe: the caller says
// how many events it has applied (known); under the study's lock the store
// passes the newer events to the caller's function, which applies them,
// acts, and returns the events to append at the end of the log.
package store
