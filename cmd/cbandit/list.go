package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cbandit/cbandit/agent"
	"github.com/cbandit/cbandit/bandit"
	"github.com/cbandit/cbandit/experiment"
	"github.com/cbandit/cbandit/problem"
	"github.com/cbandit/cbandit/service"
)

func init() {
	c := command{name: "list", usage: "[--verbose] [--fits] [--markdown]", summary: "list problems, algorithms and reproducible papers; --fits: which algorithm runs on which problem"}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet(c, stderr)
		verbose := fs.Bool("verbose", false, "also list every parameter with its default and source")
		fits := fs.Bool("fits", false, "a table of which algorithm runs on which problem (with default parameters), and why not")
		markdown := fs.Bool("markdown", false, "every algorithm's parameters as a Markdown table, from their declarations (docs/parameters-table.md)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("list: unexpected argument %q", fs.Arg(0))
		}
		if *fits {
			return listFits(stdout)
		}
		if *markdown {
			return listMarkdown(stdout)
		}
		return list(stdout, *verbose)
	}
	register(c)
}

// listWidth is the width `cbandit list` keeps within, so a line fits a
// terminal; the longer story of a parameter is in docs/parameters.md.
const listWidth = 100

// list prints the problems, algorithms and papers, one line each within
// listWidth columns (a summary too long is cut with "…"); with verbose the
// whole summary, the source and every parameter with its default and doc,
// wrapped to listWidth.
func list(w io.Writer, verbose bool) error {
	bw := bufio.NewWriter(w)
	nameW := 0
	for _, s := range problem.All() {
		nameW = max(nameW, utf8.RuneCountInString(s.Name))
	}
	for _, s := range agent.All() {
		nameW = max(nameW, utf8.RuneCountInString(s.Name))
	}
	indent := 2 + nameW + 2
	entry := func(name, summary, source, can string, ps []bandit.Param) {
		head := "  " + name + strings.Repeat(" ", nameW-utf8.RuneCountInString(name)+2)
		if !verbose {
			fmt.Fprintln(bw, head+cut(summary, listWidth-indent))
			return
		}
		writeWrapped(bw, head, strings.Repeat(" ", indent), summary+" ["+source+"]")
		if can != "" {
			writeWrapped(bw, strings.Repeat(" ", indent)+"can: ", strings.Repeat(" ", indent+5), can)
		}
		for _, q := range ps {
			p := q.Describe()
			first := strings.Repeat(" ", indent) + p.Name + "=" + p.Default + "  "
			if utf8.RuneCountInString(first) > listWidth/2 { // a long default: its doc below
				writeWrapped(bw, strings.Repeat(" ", indent), strings.Repeat(" ", indent+4), p.Name+"="+p.Default)
				first = strings.Repeat(" ", indent+4)
			}
			writeWrapped(bw, first, strings.Repeat(" ", indent+4), p.Values()+": "+p.Doc+" ["+p.Source+"]")
		}
	}
	more := " (--verbose: sources, parameters)"
	if verbose {
		more = ""
	}
	fmt.Fprintln(bw, "PROBLEMS"+more)
	for _, s := range problem.All() {
		entry(s.Name, s.Summary, s.Source, "", s.Params)
	}
	fmt.Fprintln(bw, "\nALGORITHMS"+more+"; which runs where: cbandit list --fits")
	for _, s := range agent.All() {
		entry(s.Name, s.Summary, s.Source, s.Can.String(), s.Params)
	}
	fmt.Fprintln(bw, "\nEXPERIMENTS (cbandit reproduce <paper>; cbandit run --config experiments/<file>)")
	for _, p := range experiment.Papers() {
		head := "  " + p.Name + strings.Repeat(" ", max(0, nameW-utf8.RuneCountInString(p.Name))+2)
		if verbose {
			writeWrapped(bw, head, strings.Repeat(" ", indent), p.Summary+" ["+p.Source+"]")
		} else {
			fmt.Fprintln(bw, head+cut(p.Summary, listWidth-indent))
		}
		if files := experiment.EmbeddedNames(p.Name); len(files) > 0 {
			writeWrapped(bw, strings.Repeat(" ", indent)+"files: ", strings.Repeat(" ", indent+7), strings.Join(files, ", "))
		}
	}
	return bw.Flush()
}

// cut shortens s to at most n runes, ending with "…" when it cuts.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ,;:") + "…"
}

// writeWrapped writes text after first, wrapped at word boundaries to
// listWidth columns (in runes), continuing lines with rest. A word longer
// than a line is cut.
func writeWrapped(w io.Writer, first, rest, text string) {
	line, n := first, utf8.RuneCountInString(first)
	empty := true
	for _, word := range strings.Fields(text) {
		wl := utf8.RuneCountInString(word)
		if !empty && n+1+wl > listWidth {
			fmt.Fprintln(w, line)
			line, n, empty = rest, utf8.RuneCountInString(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		if n+wl > listWidth {
			word = cut(word, listWidth-n)
			wl = utf8.RuneCountInString(word)
		}
		line += word
		n += wl
		empty = false
	}
	fmt.Fprintln(w, line)
}

// listFits prints which algorithm runs on which problem as a matrix:
// algorithms in rows, problems (built with their default parameters, seed
// 1) in numbered columns. A cell is ✓ when the algorithm's declaration fits
// the problem (agent.Spec.Fits) and its factory builds it with default
// parameters — the check the runner makes before a run; else a capital
// letter for the declaration's reason (domain, constraints, safe action, full
// information, stage-wise facts) or a small letter for the factory's
// reason, each explained below the matrix. A problem that cannot be built
// here (e.g. real data not found) has ? in its column.
func listFits(w io.Writer) error {
	const horizon = 100
	bw := bufio.NewWriter(w)
	algos, probs := agent.All(), problem.All()
	type col struct {
		name, about string
		info        *bandit.Info
	}
	cols := make([]col, len(probs))
	var unbuilt []string // why a problem cannot be built here
	for j, ps := range probs {
		cols[j].name = ps.Name
		p, err := problem.New(ps.Name, nil, 1)
		if err != nil {
			cols[j].about = "not built here, see below"
			unbuilt = append(unbuilt, err.Error())
			continue
		}
		in := p.Info()
		in.Horizon = horizon
		cols[j].info = &in
		about := []string{agent.DomainOf(in), fmt.Sprintf("m=%d", in.M)}
		if in.Safe != nil {
			about = append(about, "safe")
		}
		if in.FullInfo {
			about = append(about, "full-info")
		}
		if in.Stage != nil {
			about = append(about, "stage")
		}
		cols[j].about = strings.Join(about, ",")
	}
	declared := []struct{ code, text string }{
		{"D", "its domains exclude the problem's"},
		{"C", "needs constraints (m ≥ 1)"},
		{"S", "needs a known safe action"},
		{"F", "needs full constraint information (Zhou & Ji (CBO) §4)"},
		{"W", "needs the stage-wise facts of Pacchiano et al. (thresholds, the safe arm's values)"},
	}
	// The factory's reasons, by letter a, b, …: messages that differ in
	// their numbers alone (a problem's noise scale) share a letter, shown as
	// first met.
	var reasons, reasonKeys []string
	number := regexp.MustCompile(`[0-9][0-9.e+-]*`)
	cell := func(s agent.Spec, in *bandit.Info, prob string) string {
		if in == nil {
			return "?"
		}
		c := s.Can
		err := s.Fits(*in)
		if err != nil {
			// The declaration's reason, by the order Spec.Fits checks.
			switch {
			case !c.Takes(agent.DomainOf(*in)):
				return "D"
			case c.NeedsConstraints && in.M < 1:
				return "C"
			case c.NeedsSafe && in.Safe == nil:
				return "S"
			case c.NeedsFullInfo && !in.FullInfo:
				return "F"
			case c.NeedsStage && in.Stage == nil:
				return "W"
			}
		} else {
			_, err = agent.New(s.Name, agent.Config{Info: *in, Horizon: horizon, Seed: 1})
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), s.Name)
			msg = strings.TrimLeft(msg, ": ")
			key := number.ReplaceAllString(msg, "#")
			i := slices.Index(reasonKeys, key)
			if i < 0 {
				reasons, reasonKeys = append(reasons, msg+" (e.g. on "+prob+")"), append(reasonKeys, key)
				i = len(reasons) - 1
			}
			return string(rune('a' + i%26))
		}
		return "✓"
	}
	nameW := 0
	for _, a := range algos {
		nameW = max(nameW, utf8.RuneCountInString(a.Name))
	}
	fmt.Fprintln(bw, "Which algorithm runs on which problem (default parameters): ✓ runs; a letter says why not.")
	fmt.Fprintln(bw)
	head := strings.Repeat(" ", nameW+2)
	for j := range cols {
		head += fmt.Sprintf("%3d", j+1)
	}
	fmt.Fprintln(bw, head)
	for _, a := range algos {
		line := a.Name + strings.Repeat(" ", nameW+2-utf8.RuneCountInString(a.Name))
		for j := range cols {
			line += "  " + cell(a, cols[j].info, cols[j].name)
		}
		fmt.Fprintln(bw, line)
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Problems (domain, constraints m, what the learner is told):")
	var key []string
	for j, c := range cols {
		key = append(key, fmt.Sprintf("%d %s (%s)", j+1, c.name, c.about))
	}
	writePacked(bw, "  ", key)
	for _, e := range unbuilt {
		writeWrapped(bw, "  ? ", "    ", e)
	}
	fmt.Fprintln(bw, "Declared (agent.Caps):")
	var dk []string
	for _, d := range declared {
		dk = append(dk, d.code+" "+d.text)
	}
	writePacked(bw, "  ", dk)
	if len(reasons) > 0 {
		fmt.Fprintln(bw, "Refused by the factory (with default parameters):")
		for i, r := range reasons {
			writeWrapped(bw, "  "+string(rune('a'+i%26))+" ", "    ", r)
		}
	}
	return bw.Flush()
}

// writePacked writes items separated by ";  " on lines of at most
// listWidth columns, each line starting with indent.
func writePacked(w io.Writer, indent string, items []string) {
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = indent + it
		case utf8.RuneCountInString(line)+3+utf8.RuneCountInString(it) > listWidth:
			fmt.Fprintln(w, line)
			line = indent + it
		default:
			line += ";  " + it
		}
	}
	if line != "" {
		fmt.Fprintln(w, line)
	}
}

// listMarkdown writes every algorithm's declared parameters as one
// Markdown table per algorithm: name, default (a computed one in italics),
// values, what and why, source — the declarations themselves, so docs/parameters-table.md is generated, not
// kept by hand (TestParametersTableIsGenerated).
func listMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# Parameters of every algorithm")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "Generated by `cbandit list --markdown` from the declarations in `agent/` (do not edit;")
	fmt.Fprintln(bw, "`docs/parameters.md` tells the longer story of the practical defaults); at the end, the")
	fmt.Fprintln(bw, "generations of the defaults and the papers' settings, from the same declarations.")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, s := range agent.All() {
		fmt.Fprintf(bw, "\n## %s\n\n%s [%s]; %s.\n", s.Name, s.Summary, s.Source, s.Can.String())
		if len(s.Params) == 0 {
			continue
		}
		fmt.Fprintln(bw, "\n| parameter | default | values | what and why | source |\n|---|---|---|---|---|")
		for _, q := range s.Params {
			p := q.Describe()
			def := cell(p.Default)
			if p.Computed {
				def = "*" + def + "*"
			}
			fmt.Fprintf(bw, "| `%s` | %s | %s | %s | %s |\n", p.Name, def, cell(p.Values()), cell(p.Doc), cell(p.Source))
		}
	}
	if err := service.WriteGenerations(bw); err != nil {
		return err
	}
	return bw.Flush()
}
