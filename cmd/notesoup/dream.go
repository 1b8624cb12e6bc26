package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/notesoup/notesoup/dream"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/spf13/pflag"
)

func init() {
	names := builtins.WithHeadless()
	registerCommand(&command{
		name:    "dream",
		summary: "consolidate a project's notes headless through a harness's CLI (--dry-run, --undo)",
		usage: "dream [--harness " + strings.Join(names, "|") + "] [--cwd DIR] [--timeout DURATION] [--dry-run]\n" +
			"dream --undo [--force] [--cwd DIR]",
		flags: func(fs *pflag.FlagSet) { new(dreamOpts).define(fs) },
		about: `Runs the dream playbook (playbook/dream.md) over the notes of the project of
--cwd, headless through the chosen harness's own CLI, in the project's
folder, and prints the pass's report on stdout; the harness's progress goes
to stderr. Before it starts, the notes (the project's and the global ones)
are snapshotted under $NOTESOUP_HOME/dream; --undo puts the newest snapshot
back byte for byte, and refuses if the notes changed since that pass ended
unless --force. One dream at a time runs on the same notes. The harness CLI
is found on PATH, or named by one of
  ` + binEnvs(names) + `
See docs/dream.md.

Exit status: 0 done, 2 a usage error, a failed pass or a refused undo (the
message says why), 3 another dream pass (or undo) holds these notes: try
again when it ends.
`,
		run: runDream,
	})
}

// exitBusy is dream's own status for "another pass holds these notes": a
// refusal a script may retry later, unlike a failure (docs/dream.md).
const exitBusy = 3

func binEnvs(names []string) string {
	var envs []string
	for _, n := range names {
		if h, err := builtins.Headless(n); err == nil {
			envs = append(envs, h.BinEnv)
		}
	}
	return strings.Join(envs, ", ")
}

// dreamOpts are dream's flags.
type dreamOpts struct {
	harness string
	cwd     string
	dryRun  bool
	undo    bool
	force   bool
	timeout time.Duration
}

func (o *dreamOpts) define(fs *pflag.FlagSet) {
	names := builtins.WithHeadless()
	fs.StringVar(&o.harness, "harness", names[0], "the harness `NAME` whose CLI runs the pass: "+strings.Join(names, ", "))
	fs.SetAnnotation("harness", valuesAnnotation, names)
	fs.StringVar(&o.cwd, "cwd", ".", "a folder `DIR` of the project whose notes the pass consolidates")
	homeFlag(fs)
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the plan (harness, notes, command, prompt) and change nothing")
	fs.BoolVar(&o.undo, "undo", false, "restore the notes from the newest pass's snapshot")
	fs.BoolVar(&o.force, "force", false, "with --undo: restore even if the notes changed since the pass ended")
	fs.DurationVar(&o.timeout, "timeout", dream.DefaultTimeout, "stop the pass after this `DURATION`")
}

func runDream(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["dream"], args, stdout, stderr)
	var o dreamOpts
	fs := newFlags("dream")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) > 0:
		return inv.usageErr("unexpected argument %q; everything is a flag", pos[0])
	case o.force && !o.undo:
		return inv.usageErr("--force goes with --undo")
	case o.undo && o.dryRun:
		return inv.usageErr("--undo and --dry-run do not go together")
	case o.timeout <= 0:
		return inv.usageErr("--timeout %v: give a positive duration such as 45m", o.timeout)
	}
	// --home, when given, is in $NOTESOUP_HOME now (inv.parse), which the
	// notes store and the harness started below both read.
	if o.undo {
		res, err := dream.Undo("", o.cwd, o.force)
		if err != nil {
			return dreamFail(inv, "--undo: ", err)
		}
		c := res.Changes
		fmt.Fprintf(stdout, "restored the notes as they were before the pass in %s: %d put back, %d rewritten, %d removed\n", res.PassDir, c.Created, c.Rewritten, c.Removed)
		return exitOK
	}
	h, err := builtins.Headless(o.harness)
	if err != nil {
		return inv.usageErr("--harness %s: %v%s", o.harness, err, didYouMean(o.harness, builtins.WithHeadless()))
	}
	self, err := os.Executable()
	if err != nil {
		return inv.failf("cannot find the running notesoup (%v); run it by its path", err)
	}
	plan, err := dream.NewPlan(dream.Options{Cwd: o.cwd, Harness: h, Env: os.Environ(), Self: self, Timeout: o.timeout})
	if err != nil {
		return dreamFail(inv, "", err)
	}
	if o.dryRun {
		fmt.Fprint(stdout, plan.Render())
		return exitOK
	}
	// An interrupt stops the harness (its whole process group) and still
	// records what the pass left, so --undo works after it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stderr, "notesoup dream: running %s in %s (at most %v)\n", plan.Bin, plan.Project, plan.Timeout)
	res, err := plan.Run(ctx, stderr)
	if res.Report != "" {
		fmt.Fprintln(stdout, res.Report)
	}
	if res.PassDir != "" {
		fmt.Fprintf(stderr, "notesoup dream: the pass changed %d notes-folder entries%s; notesoup dream --undo restores the snapshot in %s\n",
			len(res.Changed), changedList(res.Changed), res.PassDir)
	}
	if err != nil {
		return dreamFail(inv, "", err)
	}
	return exitOK
}

// dreamFail reports err: exit 3 when another pass holds the notes (a
// refusal worth retrying), else 2.
func dreamFail(inv *invocation, prefix string, err error) int {
	code := inv.failf("%s%v", prefix, err)
	if errors.Is(err, dream.ErrBusy) {
		return exitBusy
	}
	return code
}

func changedList(ps []string) string {
	const most = 10
	switch {
	case len(ps) == 0:
		return ""
	case len(ps) > most:
		return " (" + strings.Join(ps[:most], ", ") + fmt.Sprintf(", and %d more)", len(ps)-most)
	}
	return " (" + strings.Join(ps, ", ") + ")"
}
