// The start every decision on the core shares (decideTurn, SCBO, ADMMBO):
// the initial design's point in its rounds, else the models conditioned on
// the pending decisions.

package agent

import (
	"fmt"

	"github.com/cbandit/cbandit/bandit"
)

// designed records the initial design's point as the decision of round t
// (parameter init; ok false: the design has no point for t).
func (c *gpCore) designed(t int) (d bandit.Decision, ok bool) {
	act, ok := c.design.at(t)
	if !ok {
		return bandit.Decision{}, false
	}
	return c.ledger.Record(t, act, c.epoch), true
}

// condition conditions f and g_1..g_m on the pending decisions for the
// decision of round t (pendModels, parameter pending): undo restores them
// before they observe again; pend are those decisions, for the maximiser.
// An error names the policy and the round.
func (c *gpCore) condition(t int) (undo func(), pend pending, err error) {
	g := c.g
	if c.unpendG {
		g = nil
	}
	undo, pend, err = pendModels(c.halluc, c.ledger, c.f, g)
	if err != nil {
		return nil, pending{}, fmt.Errorf("%s: round %d: %w", c.name, t, err)
	}
	return undo, pend, nil
}
