package client_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http/httptest"

	"github.com/cbandit/cbandit/client"
	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/service/api"
	"github.com/cbandit/cbandit/store"
)

// Optimise a toy system through the API: maximise a yield over a 2-D box
// while keeping the power draw below 0.6 on average.
func Example() {
	// A server on loopback with an in-memory store; in production this is
	// `cbandit serve`.
	srv := httptest.NewServer(service.New(store.NewMemory(), service.Options{}))
	defer srv.Close()

	ctx := context.Background()
	c := client.New(srv.URL)
	st, err := c.CreateStudy(ctx, api.StudySpec{
		Name:        "toy",
		Space:       api.Space{Type: api.SpaceBox, Lo: []float64{0, 0}, Hi: []float64{1, 1}, Candidates: 121},
		Objective:   api.Objective{Name: "yield", Goal: api.Maximize},
		Constraints: []api.Constraint{{Name: "power", Threshold: 0.6, Kind: api.KindLongTerm}},
		Algorithm:   "ckb-ucb",
		Seed:        1,
		Horizon:     60,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	yield := func(x []float64) float64 { return math.Exp(-((x[0]-0.8)*(x[0]-0.8) + (x[1]-0.5)*(x[1]-0.5)) / 0.2) }
	power := func(x []float64) float64 { return x[0] }
	for round := 0; round < 60; round++ {
		s, err := c.Suggest(ctx, st.ID, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		x := s[0].X
		if _, err := c.Observe(ctx, st.ID, api.Observation{
			DecisionID: s[0].DecisionID, Reward: client.Float(yield(x)), Costs: []float64{power(x)},
		}); err != nil {
			fmt.Println(err)
			return
		}
	}
	sum, err := c.Summary(ctx, st.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rounds:", sum.Rounds)
	fmt.Println("best feasible power ≤ 0.6:", sum.Best != nil && sum.Best.Costs[0] <= 0.6)

	// Bad input is a 4xx naming the field.
	_, err = c.Observe(ctx, st.ID, api.Observation{DecisionID: 1, Costs: []float64{1, 2}})
	fmt.Println(err)
	// Output:
	// rounds: 60
	// best feasible power ≤ 0.6: true
	// 400 invalid_argument: costs: has 2 values, the study has 1 constraints
}

// Named, typed parameters: suggestions carry their values; a study is found
// again by its name, and its decisions are exported as CSV.
func ExampleClient_StudyByName() {
	srv := httptest.NewServer(service.New(store.NewMemory(), service.Options{}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL)
	_, err := c.CreateStudy(ctx, api.StudySpec{
		Name: "typed",
		Parameters: []api.Parameter{
			{Name: "lr", Type: "float", Low: client.Float(1e-4), High: client.Float(1), Log: true},
			{Name: "batch", Type: "int", Low: client.Float(16), High: client.Float(256), Log: true},
			{Name: "opt", Type: "categorical", Choices: []any{"adam", "sgd"}},
		},
		Objective:   api.Objective{Name: "accuracy"},
		Constraints: []api.Constraint{{Name: "memory", Threshold: 0.5}},
		Algorithm:   "ckb-ucb",
		Seed:        1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, _ := c.StudyByName(ctx, "typed")
	s, _ := c.Suggest(ctx, st.ID, 1)
	p := s[0].Params
	b := p["batch"].(float64) // JSON numbers decode as float64 in Go; the server sent an integer
	fmt.Println(b == math.Trunc(b) && b >= 16 && b <= 256, p["opt"] == "adam" || p["opt"] == "sgd")
	c.Observe(ctx, st.ID, api.Observation{DecisionID: s[0].DecisionID, Reward: client.Float(0.9), Costs: []float64{b / 512}})
	csv, _ := c.DecisionsCSV(ctx, st.ID)
	fmt.Print(string(csv[:bytes.IndexByte(csv, '\n')+1]))
	_, err = c.StudyByName(ctx, "nope")
	fmt.Println(err)
	// Output:
	// true true
	// decision_id,round,arm,status,created,observed,params.lr,params.batch,params.opt,reward,costs.memory,reason
	// 404 not_found: name: no study named "nope"
}
