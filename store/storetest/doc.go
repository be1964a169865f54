// Package storetest checks a store backend against the store.Store
// contract, as testing/fstest checks a file system: a backend's test calls
// Run with a function that opens its store.
//
//	func TestMyBackend(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			s, err := store.Open(context.Background(), "mine:…")
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// Run covers the log protocol (Update with the newer events, ErrAhead,
// atomic appends, gap-free logs under concurrent writers), the study
// records and their counters, snapshots, definitions replaced by SetSpec,
// paged reads (Scan, ListPage) and the times events are given.
package storetest
