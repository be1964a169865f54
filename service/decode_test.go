package service

import (
	"errors"
	"math"
	"testing"

	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// TestDecodeErrorsNameTheField: every way a request body fails to decode
// is a 400 naming the field by its JSON path, with the index of the
// element in an array (api.ErrorBody.Field: "space.lo[1]").
func TestDecodeErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		body  string
		dst   any
		field string
	}{
		{`{"name":"a","constraints":[{"name":"c","threshold":1},{"name":"d","threshold":"x"}]}`, &api.StudySpec{}, "constraints[1].threshold"},
		{`{"name":"a","space":{"type":"box","lo":[0,  "x"]}}`, &api.StudySpec{}, "space.lo[1]"},
		{`{"name":"a","space":{"type":"box","lo":{"a":1}}}`, &api.StudySpec{}, "space.lo"},
		{`{"name":"a","space":{"type":"box","lo":[0, [1]]}}`, &api.StudySpec{}, "space.lo[1]"},
		{`{"name":"a","parameters":[{"name":"p"},{"name":"q","type":"float","low":true}]}`, &api.StudySpec{}, "parameters[1].low"},
		{`{"name":"a","seed":-1}`, &api.StudySpec{}, "seed"},
		{`  {"name": 7}`, &api.StudySpec{}, "name"}, // offsets count the leading blanks
		{`{"name":"a","space":{"tpye":"box"}}`, &api.StudySpec{}, "space.tpye"},
		{`{"name":"a","colour":1}`, &api.StudySpec{}, "colour"},
		{`{"":""}`, &api.SuggestRequest{}, "body"},
		{`[]`, &api.StudySpec{}, "body"},
		{`{"name":`, &api.StudySpec{}, "body"},
		{`{"arms":[[1],[2,"x"]]}`, &api.SuggestRequest{}, "arms[1][1]"},
		{`{"constraint_sample":[[1e999]]}`, &api.SuggestRequest{}, "constraint_sample[0][0]"},
		{`{"decision_id":1,"costs":[1,"x"]}`, &api.Observation{}, "costs[1]"},
		{`{"decision_id":"1"}`, &api.Observation{}, "decision_id"},
		{`{"horizon":"x"}`, &api.StudyPatch{}, "horizon"},
	} {
		e := decodeJSON([]byte(c.body), c.dst)
		if e == nil || e.status != 400 || e.field != c.field {
			t.Errorf("%s: %v, want a 400 naming %s", c.body, e, c.field)
		}
	}
}

// TestDecodeSuggestCount: the ask's body is decoded once, its count's
// presence included: absent or null is one decision, anything else is
// checked, a count of the wrong type is a 400 naming count.
func TestDecodeSuggestCount(t *testing.T) {
	for _, c := range []struct {
		body  string
		count int
		field string // of the error, "" for none
	}{
		{``, 1, ""},
		{`{}`, 1, ""},
		{`{"count":null}`, 1, ""},
		{`{"count":3}`, 3, ""},
		{`{"count":0}`, 0, "count"},
		{`{"count":11}`, 0, "count"},
		{`{"count":"2"}`, 0, "count"},
		{`{"count":1.5}`, 0, "count"},
		{`{"Count":2}`, 0, "Count"},
		{`{"count":2,"count":3}`, 0, "count"},
		{`{"arms":[[0]],"count":2}`, 0, "count"},
	} {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		req, e := decodeSuggest(body, 10)
		switch {
		case c.field == "" && (e != nil || req.Count != c.count):
			t.Errorf("%s: count %d, %v; want %d", c.body, req.Count, e, c.count)
		case c.field != "" && (e == nil || e.status != 400 || e.field != c.field):
			t.Errorf("%s: %v, want a 400 naming %s", c.body, e, c.field)
		}
	}
}

// TestEventEncodingFails: a value the log cannot hold is an error that
// drops the live study (not an *apiError), never an event without data.
func TestEventEncodingFails(t *testing.T) {
	ev, err := newEvent(store.KindTell, tellEvent{ID: 1, Reward: ptr(math.NaN())})
	var ae *apiError
	if err == nil || errors.As(err, &ae) || ev.Data != nil {
		t.Fatalf("event %+v, error %v: want a plain error and no event", ev, err)
	}
	if ev, err := newEvent(store.KindTell, tellEvent{ID: 1, Reward: ptr(0.5)}); err != nil || ev.Kind != store.KindTell || len(ev.Data) == 0 {
		t.Fatalf("event %+v, %v", ev, err)
	}
}
