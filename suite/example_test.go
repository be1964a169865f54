package suite_test

import (
	"fmt"

	"github.com/cbandit/cbandit/suite"
)

// An entry that names no algorithm and asks for generation 9's defaults:
// run beside "default", it measures today's defaults against those of
// generation 9, seed by seed.
func ExampleParseEntry() {
	e, err := suite.ParseEntry("g9=default:defaults=9")
	fmt.Println(e.ID, e.Defaults, e.Params == nil, err)
	e, err = suite.ParseEntry("config:beta-safe=2")
	fmt.Println(e.ID, e.Defaults, e.Params["beta-safe"], err)
	// Output:
	// default 9 true <nil>
	// config 0 2 <nil>
}
