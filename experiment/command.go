package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/report"
)

// ParseAlgoEntry reads one entry of --algos: "id", "id:k=v;k=v", or
// "label=id[:k=v;k=v]". Without an explicit label an entry with parameters
// is labelled by the entry itself ("ckb-ucb:beta-scale=0.5"), so that two
// entries with the same ID stay apart.
func ParseAlgoEntry(entry string) (AlgoConfig, error) {
	entry = strings.TrimSpace(entry)
	head, rest, colon := strings.Cut(entry, ":")
	var a AlgoConfig
	if label, id, ok := strings.Cut(head, "="); ok {
		if label == "" {
			return a, fmt.Errorf("--algos entry %q: empty label before '='", entry)
		}
		a.Label, head = label, id
	}
	if head == "" {
		return a, fmt.Errorf("--algos entry %q has no algorithm ID", entry)
	}
	a.ID = head
	if colon {
		// An empty parameter ("id:", "id:k=v;;", "id:k=v;") is a typo, not a
		// no-op: refused, or it would stay in the label the results carry.
		parts := strings.Split(rest, ";")
		for i, part := range parts {
			if strings.TrimSpace(part) == "" {
				return a, fmt.Errorf("--algos entry %q: parameter %d of %d is empty (want k=v;k=v, no empty entry between ';')", entry, i+1, len(parts))
			}
		}
		p, err := bandit.ParseParams(parts)
		if err != nil {
			return a, fmt.Errorf("--algos %s: %w", a.ID, err)
		}
		a.Params = p
		if a.Label == "" {
			a.Label = entry
		}
	}
	return a, nil
}

// FormatAlgoEntry is the --algos entry that [ParseAlgoEntry] reads back as
// a (same ID, label and parameters), or an error when the label or a value
// holds characters the command line cannot carry.
func FormatAlgoEntry(a AlgoConfig) (string, error) {
	label := a.Label
	if label == "" {
		label = a.ID
	}
	if label == a.ID && len(a.Params) == 0 {
		return a.ID, nil
	}
	same := func(entry string) bool {
		b, err := ParseAlgoEntry(entry)
		bl := b.Label
		if bl == "" {
			bl = b.ID
		}
		return err == nil && b.ID == a.ID && bl == label && maps.Equal(b.Params, a.Params)
	}
	if same(label) { // a label typed as "id:k=v" re-creates itself
		return label, nil
	}
	keys := slices.Sorted(maps.Keys(a.Params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + a.Params[k]
	}
	entry := label + "=" + a.ID
	if len(parts) > 0 {
		entry += ":" + strings.Join(parts, ";")
	}
	if strings.ContainsAny(label, ",:;=") || strings.ContainsAny(strings.Join(parts, ""), ",;") || !same(entry) {
		return "", fmt.Errorf("algorithm %q cannot be written as a --algos entry (label or value holds ',', ':', ';' or '=')", label)
	}
	return entry, nil
}

// Command returns the cbandit command line that re-creates this run (quick:
// the reduced size), ending in "--out DIR". A configuration read from a file
// is named by its path and its --set overrides; one built on the command
// line by its problem, parameters and algorithm entries in their order.
func (c *Config) Command(quick bool) (string, error) {
	q := report.ShellQuote
	var b strings.Builder
	b.WriteString("cbandit run")
	if c.Path != "" {
		b.WriteString(" --config " + q(c.Path))
		for _, s := range c.Sets {
			b.WriteString(" --set " + q(s))
		}
		if quick {
			b.WriteString(" --quick")
		}
		b.WriteString(" --out DIR")
		return b.String(), nil
	}
	if c.Delay != nil || c.Title != "" || c.CurvePoints != 0 {
		return "", fmt.Errorf("a run with a delay model, a title or curve_points needs an experiment file (--config)")
	}
	b.WriteString(" --problem " + q(c.Problem))
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		b.WriteString(" --param " + q(k+"="+c.Params[k]))
	}
	entries := make([]string, len(c.Algorithms))
	for i, a := range c.Algorithms {
		e, err := FormatAlgoEntry(a)
		if err != nil {
			return "", err
		}
		entries[i] = e
	}
	fmt.Fprintf(&b, " --algos %s --trials %d --horizon %d --seed %d", q(strings.Join(entries, ",")), c.Trials, c.Horizon, c.Seed)
	if c.Batch > 1 {
		fmt.Fprintf(&b, " --batch %d", c.Batch)
	}
	if c.Async > 1 {
		fmt.Fprintf(&b, " --async %d", c.Async)
	}
	if c.Past != "" {
		b.WriteString(" --past " + q(c.Past))
	}
	if c.Defaults == "paper" {
		b.WriteString(" --defaults paper")
	}
	b.WriteString(" --out DIR")
	return b.String(), nil
}
