// Package snap serialises the in-memory state of an agent — any Go object
// graph of plain data — so that the decision service can restore a study
// from a snapshot plus the tail of its log instead of replaying the whole
// log.
//
// Agents do not implement a serialisation of their own: their state lives in
// unexported fields of models, rules, estimators and random generators
// spread over several packages. Encode walks the graph by reflection
// (reading unexported fields through package unsafe) and writes every
// reachable value; Decode writes a graph back into a freshly built agent of
// the same study. The rules, all of them:
//
//   - every field of every reachable struct is encoded, exported or not,
//     except a transient one, tagged `snap:"-"` (a cache, a computation
//     running off the caller's path): it is not encoded, not part of its
//     struct's shape, and zero after Decode, so the type must rebuild what
//     it held, deterministically;
//   - pointers and maps keep their identity (two fields that share an
//     object share it after Decode; cycles are allowed);
//   - slices keep their aliasing: slices over one backing array (found by
//     the end of their capacity) are decoded as views of one new array, with
//     their offsets, lengths and capacities;
//   - interface values carry the name of their dynamic type, which Decode
//     looks up among the types reachable from the fresh agent (statically,
//     through fields and elements, and dynamically) and those that reachable
//     types declare (Declarer: the types an interface field may come to
//     hold, as encoding/gob's Register);
//   - functions are not data: a non-nil function is kept from the fresh
//     agent (closures made by its constructor), and Decode refuses a graph
//     where the fresh agent has none; channels and unsafe pointers are
//     refused (a transient field may hold them).
//
// Every type's shape (kind, name, names and types of the encoded fields) is
// written once and checked on Decode, so a snapshot taken by a build whose
// agent types differ fails to decode instead of decoding wrongly. Whether a
// decoded agent behaves like the original is what the service checks
// beyond this package: it replays the log after the snapshot, comparing
// each replayed decision with the logged one, and its tests compare
// decisions after a restore with those of an uninterrupted agent for every
// algorithm.
package snap
