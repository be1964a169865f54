// Package client is a Go client of the cbandit decision service (`cbandit
// serve`): create a study, ask for suggestions, run them, tell the reward
// and costs back.
//
//	c := client.New("http://127.0.0.1:8080", client.WithToken(os.Getenv("CBANDIT_TOKEN")))
//	st, err := c.CreateStudy(ctx, api.StudySpec{...})
//	s, err := c.Suggest(ctx, st.ID, 1)
//	_, err = c.Observe(ctx, st.ID, api.Observation{DecisionID: s[0].DecisionID, Reward: &r, Costs: costs})
//
// Errors answered by the server are *api.Error values: their Err.Status,
// Err.Code and Err.Field say what was wrong. Observe is idempotent on the
// server, so retrying it after a network error is safe; an ask is not —
// SuggestOnce and ObserveOnce carry an Idempotency-Key, so a retry with the
// same key gets the first answer instead of new decisions.
package client
