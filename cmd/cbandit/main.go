// Command cbandit runs, compares and serves algorithms for sequential
// decisions under unknown constraints. Run `cbandit help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
)

// command is one subcommand; each lives in its own file and registers itself.
type command struct {
	name    string
	usage   string // one line: arguments
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// errUsage marks an error already explained by printed usage.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return exit(c.run(ctx, []string{"--help"}, stdout, stdout), stderr)
			}
		}
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "cbandit: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if wantsHelp(args[1:]) {
		// Asked-for help goes to stdout (exit 0); usage after a mistake
		// stays on stderr.
		return exit(c.run(ctx, args[1:], stdout, stdout), stderr)
	}
	return exit(c.run(ctx, args[1:], stdout, stderr), stderr)
}

// wantsHelp reports whether a command's arguments ask for its help (-h,
// -help or --help before a "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// checkWorkers refuses a --workers below 1.
func checkWorkers(n int) error {
	if n < 1 {
		return fmt.Errorf("--workers = %d: must be at least 1 (parallel jobs; default %d, the number of CPUs)", n, runtime.GOMAXPROCS(0))
	}
	return nil
}

func exit(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(stderr, "cbandit: %v\n", err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `cbandit — sequential decisions under unknown constraints (constrained bandits
and constrained Bayesian optimisation): run and compare the algorithms of the
papers, reproduce their experiments, or serve them through an ask/tell API.

Usage:
  cbandit <command> [flags]

Commands:`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, `
Run 'cbandit <command> --help' for the flags of a command.`)
}

// newFlagSet returns a flag set whose usage prints the command's summary.
func newFlagSet(c command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("cbandit "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: cbandit %s %s\n\n%s\n\nFlags:\n", c.name, c.usage, c.summary)
		fs.PrintDefaults()
	}
	return fs
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
