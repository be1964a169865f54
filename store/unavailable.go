package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable: the store cannot take the operation now — its server is
// unreachable, restarting or shutting down, its disk is full or read-only,
// it timed out or stayed busy — and the same operation may succeed later.
// Each backend wraps the driver's error with it where the error arises
// (errors.Is(err, ErrUnavailable); errors.Unwrap reaches the cause); every
// other error is left as it was: a defect, or the data's fault.
var ErrUnavailable = errors.New("store: unavailable")

// unavailable wraps err with ErrUnavailable unless it already is.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// Pinger is a store that can say cheaply whether it answers.
type Pinger interface {
	// Ping runs the cheapest query the backend has; an error is
	// ErrUnavailable when the store does not answer.
	Ping(ctx context.Context) error
}

// Ping reports whether st answers: st's own Ping, or, for a store without
// one, the read of a study that does not exist (ErrNotFound is an answer).
func Ping(ctx context.Context, st Store) error {
	if p, ok := st.(Pinger); ok {
		return p.Ping(ctx)
	}
	_, err := st.Get(ctx, "\x00ping")
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return unavailable(err)
	}
	return err
}

// retryDelays are the waits between the attempts of an operation that met
// an outage of its server before anything was applied: a connection the
// server closed on restart is replaced by the pool within them, while an
// outage of seconds still answers within about a second.
var retryDelays = []time.Duration{50 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond}

// sleepCtx waits d, or less when ctx ends (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
