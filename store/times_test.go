package store

import (
	"context"
	"testing"
	"time"
)

// The time a store gives the events it appends is the one every reader of
// the log gets back, in whole microseconds (PostgreSQL's precision): the
// writer's copy and a reread agree on every backend.
func TestAppendTimesReadBack(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			id := newID("t")
			if err := s.Create(ctx, Study{ID: id, Name: "name-" + id, Spec: []byte(`{}`), Created: time.Now().UTC()}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Delete(ctx, id) })
			var written []Event
			for k := 0; k < 3; k++ {
				if _, err := s.Update(ctx, id, int64(len(written)), func([]Event) ([]Event, error) {
					evs := []Event{{Kind: KindAsk, Data: []byte("{}")}, {Kind: KindTell, Data: []byte("{}")}}
					written = append(written, evs...) // the store sets Time in place
					return written[len(written)-2:], nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			read, err := s.Events(ctx, id, 0)
			if err != nil || len(read) != len(written) {
				t.Fatalf("events: %d, %v; want %d", len(read), err, len(written))
			}
			for i, w := range written {
				if w.Time.IsZero() || !w.Time.Equal(w.Time.Truncate(time.Microsecond)) {
					t.Errorf("event %d: appended at %s, not in whole microseconds", i+1, w.Time.Format(time.RFC3339Nano))
				}
				if !read[i].Time.Equal(w.Time) {
					t.Errorf("event %d: the writer has %s, a reader %s", i+1, w.Time.Format(time.RFC3339Nano), read[i].Time.Format(time.RFC3339Nano))
				}
			}
		})
	}
}
