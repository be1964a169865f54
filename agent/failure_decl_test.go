package agent

import (
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// Every algorithm takes a failed evaluation (no error) and goes on
// deciding. The ones registered through onCore stand on the decision core
// and model failures (their ledger has a failure model after the first),
// as onCore declares for them (LearnsFailures); the others declare that
// they do not.
func TestFailuresAsDeclared(t *testing.T) {
	eachFitting(t, 20, func(s Spec, prob string, p problem.Problem, ag bandit.Agent) {
		d, err := ag.Decide(p.Round(nil, 1))
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := ag.Observe(bandit.Feedback{ID: d.ID, Failed: true, Reason: "OOM"}); err != nil {
			t.Errorf("%s on %s: a failed evaluation refused: %v", s.Name, prob, err)
			return
		}
		if _, err := ag.Decide(p.Round(nil, 2)); err != nil {
			t.Errorf("%s on %s: after a failure: %v", s.Name, prob, err)
		}
		oc, onCore := ag.(interface{ decisionCore() *gpCore })
		if onCore != onCoreNames[s.Name] {
			t.Errorf("%s: stands on the decision core %v, registered through onCore %v", s.Name, onCore, onCoreNames[s.Name])
		}
		learns := onCore && oc.decisionCore().ledger.fail != nil
		if learns != s.Can.LearnsFailures {
			t.Errorf("%s on %s: declares LearnsFailures %v, its ledger models failures: %v", s.Name, prob, s.Can.LearnsFailures, learns)
		}
	})
}
