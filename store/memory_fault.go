package store

import "context"

// SetFault makes every later operation of the memory store fail with cause,
// classified unavailable, until SetFault(nil): an outage injected by tests,
// the memory store having none of its own. Nothing is applied while it
// lasts.
func (m *Memory) SetFault(cause error) {
	m.mu.Lock()
	m.fault = cause
	m.mu.Unlock()
}

// failing returns the injected fault, classified, or nil.
func (m *Memory) failing() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fault == nil {
		return nil
	}
	return unavailable(m.fault)
}

// Ping implements Pinger.
func (m *Memory) Ping(context.Context) error { return m.failing() }
