package bandit

import (
	"strings"
	"testing"
)

// TestParamsOutOfRange: a number too large for its type is called out of
// range, not "not a number" (noise_f=1e400).
func TestParamsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		v, want string
		int     bool
	}{
		{"1e400", `o: parameter k = "1e400": out of range`, false},
		{"-1e400", `o: parameter k = "-1e400": out of range`, false},
		{"99999999999999999999", `o: parameter k = "99999999999999999999": out of range`, true},
		{"1.5", `o: parameter k = "1.5": not an integer`, true},
		{"abc", `o: parameter k = "abc": not a number`, false},
	} {
		var err error
		if c.int {
			_, err = Params{"k": c.v}.Int("o", "k", 0)
		} else {
			_, err = Params{"k": c.v}.Float("o", "k", 0)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.v, err, c.want)
		}
	}
}
