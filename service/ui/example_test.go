package ui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/cbandit/cbandit/service/ui"
)

// The dashboard's assets are embedded: mount the handler at ui.Prefix.
// (cbandit serve does this through service.New.)
func ExampleHandler() {
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, ui.Handler())
	for _, p := range []string{"/ui/", "/ui/app.js", "/ui/missing.js"} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		fmt.Println(p, w.Code)
	}
	// Output:
	// /ui/ 200
	// /ui/app.js 200
	// /ui/missing.js 404
}
