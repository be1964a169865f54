package bandit_test

import (
	"fmt"

	"github.com/cbandit/cbandit/bandit"
)

// Parameters come as key=value strings (the command line, experiment
// files); a bad value is an error that names the owner, the key and the
// value.
func ExampleParseParams() {
	p, err := bandit.ParseParams([]string{"h=0.5,n=30", "noise_f=1e400"})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := p.Float("rkhs-synthetic", "h", 1)
	n, _ := p.Int("rkhs-synthetic", "n", 100)
	missing, _ := p.Float("rkhs-synthetic", "B", 1)
	fmt.Println(h, n, missing)
	_, err = p.Float("gardner", "noise_f", 0)
	fmt.Println(err)
	err = p.Check("gardner", []bandit.Param{bandit.FloatParam{Name: "noise_f"}})
	fmt.Println(err)
	// Output:
	// 0.5 30 1
	// gardner: parameter noise_f = "1e400": out of range (a float64's magnitude is at most 1.7976931348623157e+308)
	// gardner: unknown parameter "h": accepted are noise_f
}

// Feedback names its decision and carries the reward, the m costs, or both;
// Validate refuses values no agent should see.
func ExampleFeedback_Validate() {
	fb := bandit.Feedback{ID: 7, Reward: 0.4, HasReward: true, Costs: []float64{0.1, -0.2}}
	fmt.Println(fb.Validate(2))
	fmt.Println(fb.Validate(1))
	// Output:
	// <nil>
	// feedback 7: costs has 2 values, the problem has 1 constraints
}
