package service

import (
	"bytes"
	"encoding/json"

	"github.com/cbandit/cbandit/service/api"
)

// checkDecisionID refuses an observation whose body has no decision_id (or
// a null one): decoded, it would read as decision 0.
func checkDecisionID(body []byte, id int64) *apiError {
	if id != 0 {
		return nil
	}
	var probe struct {
		DecisionID json.RawMessage `json:"decision_id"`
	}
	if json.Unmarshal(body, &probe) == nil && len(probe.DecisionID) > 0 && !bytes.Equal(probe.DecisionID, []byte("null")) {
		return nil // given as 0: the range check names it
	}
	return invalid("decision_id", "is missing: an observation names the decision it measures (\"decision_id\" of the suggestion)")
}

// conflictingReason answers a second failure report of a decision with
// another reason: as for a conflicting value, the first stands and the
// client hears of both.
func conflictingReason(o api.Observation, first string) *apiError {
	return conflict("conflicting_observation", "reason",
		"= %q: decision %d was already reported failed with reason %q", clip(o.Reason, 200), o.DecisionID, first)
}
