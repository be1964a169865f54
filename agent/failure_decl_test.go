package agent

import (
	"reflect"
	"testing"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/problem"
)

// ledgerIn finds the *Ledger an agent keeps (a field of its struct or of
// an embedded or pointed-to struct).
func ledgerIn(v reflect.Value, depth int) *Ledger {
	if depth > 4 || !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		if l, ok := v.Interface().(*Ledger); ok {
			return l
		}
		return ledgerIn(v.Elem(), depth+1)
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && f.Type() == reflect.TypeFor[*Ledger]() && !f.IsNil() {
			return (*Ledger)(f.UnsafePointer())
		}
		if f.Kind() == reflect.Pointer || f.Kind() == reflect.Struct {
			if f.Kind() == reflect.Pointer && f.IsNil() {
				continue
			}
			if f.Kind() == reflect.Pointer && f.Elem().Kind() != reflect.Struct {
				continue
			}
			var inner reflect.Value
			if f.Kind() == reflect.Pointer {
				inner = f.Elem()
			} else {
				inner = f
			}
			if l := ledgerIn(inner, depth+1); l != nil {
				return l
			}
		}
	}
	return nil
}

// Every algorithm takes a failed evaluation (no error) and goes on
// deciding; the ones that declare LearnsFailures model failures (their
// ledger has a failure model), the others do not.
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
		if l := ledgerIn(reflect.ValueOf(ag), 0); l == nil {
			if s.Can.LearnsFailures {
				t.Errorf("%s declares LearnsFailures and keeps no ledger", s.Name)
			}
		} else if learns := l.fail != nil; learns != s.Can.LearnsFailures {
			t.Errorf("%s on %s: declares LearnsFailures %v, its ledger models failures: %v", s.Name, prob, s.Can.LearnsFailures, learns)
		}
	})
}
