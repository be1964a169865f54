// Package store keeps the durable state of the decision service: one record
// per study (its definition) and, per study, an append-only log of events
// (decisions made and observations received). The log is the state: an agent
// is rebuilt by replaying it (package service), so a store only has to keep
// the log complete, ordered and consistent.
//
// Three implementations share the Store interface:
//
//   - SQLite (Open("sqlite:FILE")): an embedded file, the default. It uses
//     the pure-Go driver modernc.org/sqlite in WAL mode with
//     locking_mode=EXCLUSIVE: one process owns the file (a second `cbandit
//     serve` on it fails at start), so that process's in-memory view is
//     authoritative. Appends from concurrent requests are group-committed:
//     one writer goroutine writes every waiting append in one transaction.
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
// Each store also keeps the latest snapshot of each study's live agent
// (PutSnapshot, GetSnapshot): an optimisation the service validates against
// the log, never a source of truth.
//
// The Update protocol is what makes replicas and caches safe: the caller says
// how many events it has applied (known); under the study's lock the store
// passes the newer events to the caller's function, which applies them,
// acts, and returns the events to append at the end of the log.
package store
