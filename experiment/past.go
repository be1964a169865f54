package experiment

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/runner"
)

// ReadPast reads past measurements from a CSV file with a header: the point
// as x1..xd (a box, or arms by coordinates) or as arm (an arm's index), then
// reward and g1..gm, the constraint values in the problem's convention
// (g ≤ 0 feasible), and optionally failed (true or 1: the evaluation failed;
// its reward and g columns empty) and reason. Errors name the line and the
// column.
func ReadPast(path string) ([]runner.Past, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("past measurements: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.TrimLeadingSpace = true
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("past measurements %s: %w", path, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("past measurements %s: want a header and at least one row", path)
	}
	head := rows[0]
	var xs, gs []int
	arm, rew, failed, reason := -1, -1, -1, -1
	for c, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case h == "arm":
			arm = c
		case h == "reward":
			rew = c
		case h == "failed":
			failed = c
		case h == "reason":
			reason = c
		case len(h) > 1 && h[0] == 'x':
			xs = append(xs, c)
		case len(h) > 1 && h[0] == 'g':
			gs = append(gs, c)
		default:
			return nil, fmt.Errorf("past measurements %s: column %q: want arm or x1..xd, reward, g1..gm, failed, reason", path, h)
		}
	}
	if rew < 0 || (arm < 0) == (len(xs) == 0) {
		return nil, fmt.Errorf("past measurements %s: the header needs reward and either arm or x1..xd (got %v)", path, head)
	}
	num := func(line, c int, s string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("past measurements %s: line %d, column %s = %q: must be a finite number", path, line, head[c], s)
		}
		return v, nil
	}
	out := make([]runner.Past, 0, len(rows)-1)
	for k, row := range rows[1:] {
		line := k + 2
		var pm runner.Past
		pm.Action.Arm = -1
		if arm >= 0 {
			v, err := num(line, arm, row[arm])
			if err != nil {
				return nil, err
			}
			if v != math.Trunc(v) || v < 0 {
				return nil, fmt.Errorf("past measurements %s: line %d, column arm = %v: must be an arm index ≥ 0", path, line, v)
			}
			pm.Action = bandit.ArmAction(int(v))
		}
		for _, c := range xs {
			v, err := num(line, c, row[c])
			if err != nil {
				return nil, err
			}
			pm.Action.X = append(pm.Action.X, v)
		}
		if failed >= 0 {
			switch strings.ToLower(strings.TrimSpace(row[failed])) {
			case "true", "1":
				pm.Failed = true
			case "false", "0", "":
			default:
				return nil, fmt.Errorf("past measurements %s: line %d, column failed = %q: must be true, false, 1, 0 or empty", path, line, row[failed])
			}
		}
		if reason >= 0 {
			pm.Reason = strings.TrimSpace(row[reason])
			if pm.Reason != "" && !pm.Failed {
				return nil, fmt.Errorf("past measurements %s: line %d, column reason = %q: given only for a failed evaluation", path, line, pm.Reason)
			}
			if len(pm.Reason) > bandit.MaxReasonLen {
				return nil, fmt.Errorf("past measurements %s: line %d, column reason: %d bytes, at most %d", path, line, len(pm.Reason), bandit.MaxReasonLen)
			}
		}
		if pm.Failed {
			for _, c := range append([]int{rew}, gs...) {
				if strings.TrimSpace(row[c]) != "" {
					return nil, fmt.Errorf("past measurements %s: line %d, column %s = %q: a failed evaluation has no values (leave it empty)", path, line, head[c], row[c])
				}
			}
			out = append(out, pm)
			continue
		}
		v, err := num(line, rew, row[rew])
		if err != nil {
			return nil, err
		}
		pm.Reward = v
		for _, c := range gs {
			v, err := num(line, c, row[c])
			if err != nil {
				return nil, err
			}
			pm.G = append(pm.G, v)
		}
		out = append(out, pm)
	}
	return out, nil
}
