package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Runner runs the program once per configuration, as a child process under
// a memory limit the kernel enforces (setrlimit(2)) and a time limit.
type Runner struct {
	Program    string        // path of the program's binary
	Records    int           // records per run (the program's -records)
	LimitBytes uint64        // memory limit of the child
	LimitKind  string        // "data" (RLIMIT_DATA) or "as" (RLIMIT_AS)
	Timeout    time.Duration // a run longer than this is killed and told as failed
	// Repeat runs each configuration this many times (at least once) and
	// reports each metric's median, so one run slowed by the machine's
	// other load does not decide; a configuration fails if any run fails.
	Repeat int
}

// Outcome is one run: metrics, or a failure with its reason.
type Outcome struct {
	Objective float64
	Costs     []float64
	Failed    bool
	Reason    string  // "OOM", "timeout", or the exit status and the last line of stderr
	Seconds   float64 // wall time of the child
	MaxRSSMiB float64 // peak resident memory of the child (getrusage)
	CPU       float64 // user + system CPU seconds of the child: less sensitive to the machine's load than wall time
}

// rlimitArg is the first argument that makes this binary a launcher: set
// the limit, then exec the program (limitedExec). A Go program cannot run
// code between fork and exec, so the child sets the limit on itself and
// execs: the program then starts under it, unmodified.
const rlimitArg = "-exec-with-rlimit"

// Run runs the program with configuration c, Repeat times.
func (r *Runner) Run(ctx context.Context, c Config) Outcome {
	var runs []Outcome
	for range max(r.Repeat, 1) {
		o := r.runOnce(ctx, c)
		if o.Failed {
			for _, p := range runs {
				o.Seconds += p.Seconds
				o.CPU += p.CPU
				o.MaxRSSMiB = max(o.MaxRSSMiB, p.MaxRSSMiB)
			}
			return o
		}
		runs = append(runs, o)
	}
	m := Outcome{Costs: make([]float64, len(runs[0].Costs))}
	m.Objective = median(column(runs, func(o Outcome) float64 { return o.Objective }))
	for j := range m.Costs {
		m.Costs[j] = median(column(runs, func(o Outcome) float64 { return o.Costs[j] }))
	}
	for _, o := range runs {
		m.Seconds += o.Seconds
		m.CPU += o.CPU
		m.MaxRSSMiB = max(m.MaxRSSMiB, o.MaxRSSMiB)
	}
	return m
}

// runOnce runs the program once with configuration c.
func (r *Runner) runOnce(ctx context.Context, c Config) Outcome {
	args, env, err := commandFor(c, r.Records)
	if err != nil {
		return Outcome{Failed: true, Reason: err.Error()}
	}
	self, err := os.Executable()
	if err != nil {
		return Outcome{Failed: true, Reason: "finding the launcher: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	argv := append([]string{rlimitArg, r.LimitKind, strconv.FormatUint(r.LimitBytes, 10), r.Program}, args...)
	cmd := exec.CommandContext(ctx, self, argv...)
	cmd.Env = append(cleanEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	o := Outcome{Seconds: time.Since(start).Seconds()}
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			o.MaxRSSMiB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
			o.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		o.Failed, o.Reason = true, "timeout"
	case err != nil:
		o.Failed, o.Reason = true, failureReason(err, stderr.String())
	default:
		o.Objective, o.Costs, err = metrics(stdout.Bytes())
		if err != nil {
			o.Failed, o.Reason = true, truncate(err.Error(), 200)
		}
	}
	return o
}

// failureReason names a crash: "OOM" when the Go runtime (or any program
// printing the usual messages) could not get memory, else the exit status
// and the line of stderr that says why: a Go crash's first line ("fatal
// error: …", "panic: …", "unexpected fault address …", "SIGSEGV: …"; the
// goroutine dump and registers follow it), otherwise the last line.
func failureReason(err error, stderr string) string {
	s := strings.ToLower(stderr)
	if strings.Contains(s, "out of memory") || strings.Contains(s, "cannot allocate memory") {
		return "OOM"
	}
	var ee *exec.ExitError
	msg := err.Error()
	if errors.As(err, &ee) {
		msg = ee.ProcessState.String() // "exit status 2", "signal: killed"
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	why := lines[len(lines)-1]
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") ||
			strings.HasPrefix(l, "unexpected fault address") || strings.HasPrefix(l, "SIG") {
			why = l
			break
		}
	}
	if why != "" {
		msg += ": " + why
	}
	return truncate(msg, 200) // bandit.MaxReasonLen
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut]
}

// cleanEnv is the environment without the runtime knobs the study sets, so
// an unset knob is the program's default.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			env = append(env, kv)
		}
	}
	return env
}

// limitedExec is the launcher: args are kind, bytes, program, its
// arguments. It sets the limit on itself and replaces itself by the
// program; it returns only on error.
func limitedExec(args []string) error {
	if len(args) < 3 {
		return fmt.Errorf("%s: want KIND BYTES PROGRAM [ARGS...], got %q", rlimitArg, args)
	}
	res, err := rlimitResource(args[0])
	if err != nil {
		return err
	}
	limit, err := strconv.ParseUint(args[1], 10, 64)
	if err != nil {
		return fmt.Errorf("%s: limit %q: %w", rlimitArg, args[1], err)
	}
	path, err := exec.LookPath(args[2])
	if err != nil {
		return err
	}
	path, _ = filepath.Abs(path)
	argv, env := args[2:], os.Environ() // prepared before the limit: nothing to allocate after it
	if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fmt.Errorf("setrlimit %s = %d: %w", args[0], limit, err)
	}
	return syscall.Exec(path, argv, env)
}

// rlimitResource maps a limit's name to its resource. RLIMIT_DATA counts
// a process's writable private memory (Linux ≥ 4.7: its anonymous mappings
// too, so a Go heap); RLIMIT_AS its whole address space, which for a Go
// program includes ~700 MiB reserved at start-up and never touched.
func rlimitResource(kind string) (int, error) {
	switch kind {
	case "data":
		return syscall.RLIMIT_DATA, nil
	case "as":
		return syscall.RLIMIT_AS, nil
	}
	return 0, fmt.Errorf("memory limit kind %q: want data or as", kind)
}
