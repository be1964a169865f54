package service_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/cbandit/cbandit/service"
	"github.com/cbandit/cbandit/store"
)

// A study defined by named, typed parameters: suggestions carry their
// values in "params" (an int as an integer, a categorical as the choice),
// and Export writes the decisions as CSV, one row per decision.
func ExampleServer_Export() {
	srv := service.New(store.NewMemory(), service.Options{})
	defer srv.Close()
	call := func(method, path, body string) []byte {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Host = "localhost" // without a token: loopback names only, JSON bodies
		r.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(w, r)
		return w.Body.Bytes()
	}
	var st struct{ ID string }
	json.Unmarshal(call("POST", "/studies", `{"name":"demo","algorithm":"ckb-ucb","seed":1,
		"parameters":[{"name":"layers","type":"int","low":1,"high":4},
		              {"name":"opt","type":"categorical","choices":["adam","sgd"]}],
		"objective":{"name":"accuracy"},"constraints":[{"name":"latency","threshold":0.5}]}`), &st)
	var ask struct {
		Suggestions []struct {
			Params map[string]any `json:"params"`
		} `json:"suggestions"`
	}
	json.Unmarshal(call("POST", "/studies/"+st.ID+"/suggestions", `{"count":2}`), &ask)
	p := ask.Suggestions[0].Params
	fmt.Printf("layers is a %T, opt is a %T\n", p["layers"], p["opt"])
	call("POST", "/studies/"+st.ID+"/observations", `{"decision_id":1,"reward":0.8,"costs":[0.3]}`)

	found, _ := srv.Lookup(context.Background(), "demo")
	var out bytes.Buffer
	srv.Export(context.Background(), found.ID, service.FormatCSV, &out)
	rows, _ := csv.NewReader(&out).ReadAll()
	fmt.Println(strings.Join(rows[0], ","))
	fmt.Println(len(rows)-1, "decisions;", "first:", rows[1][3], "reward", rows[1][8])
	// Output:
	// layers is a float64, opt is a string
	// decision_id,round,arm,status,created,observed,params.layers,params.opt,reward,costs.latency,reason
	// 2 decisions; first: observed reward 0.8
}
