package optimize_test

import (
	"encoding/json"
	"testing"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/optimize"
	"github.com/cbandit/cbandit/service/api"
)

// TestOneConstraintKind: the registry's, the façade's and the service's
// constraint kinds are one type (this table compiles only so) with the
// spellings of the service's JSON.
func TestOneConstraintKind(t *testing.T) {
	for _, c := range []struct {
		registry, facade, service bandit.ConstraintKind
		json                      string
	}{
		{agent.KindPerRound, optimize.StageWise, api.KindStageWise, "stage-wise"},
		{agent.KindCumulative, optimize.Cumulative, api.KindCumulative, "cumulative"},
		{agent.KindLongTerm, optimize.LongTerm, api.KindLongTerm, "long-term"},
	} {
		if c.registry != c.facade || c.facade != c.service {
			t.Errorf("kinds %q, %q, %q differ", c.registry, c.facade, c.service)
		}
		var k optimize.Kind = c.service
		b, err := json.Marshal(api.Constraint{Name: "c", Threshold: 1, Kind: k})
		if want := `{"name":"c","threshold":1,"kind":"` + c.json + `"}`; err != nil || string(b) != want {
			t.Errorf("JSON %s (%v), want %s", b, err, want)
		}
		var back api.Constraint
		if err := json.Unmarshal(b, &back); err != nil || back.Kind != c.registry {
			t.Errorf("decoded kind %q (%v), want %q", back.Kind, err, c.registry)
		}
		if err := optimize.ValidKind(back.Kind); err != nil {
			t.Error(err)
		}
	}
}
