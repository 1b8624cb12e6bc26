package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/notesoup/notesoup/dream"
	"github.com/notesoup/notesoup/harness/builtins"
)

func init() {
	register("dream", "consolidate a project's notes headless through a harness's CLI (--dry-run, --undo)", runDream)
}

func dreamUsage() string {
	names := builtins.WithHeadless()
	return fmt.Sprintf(`Usage:
  notesoup dream [--harness %s] [--cwd DIR] [--timeout D] [--dry-run]
  notesoup dream --undo [--force] [--cwd DIR]

Runs the dream playbook (playbook/dream.md) over the notes of the project of
--cwd, headless through the chosen harness's own CLI, in the project's
folder, and prints the pass's report on stdout; the harness's progress goes
to stderr. Before it starts, the notes (the project's and the global ones)
are snapshotted under $NOTESOUP_HOME/dream; --undo puts the newest snapshot
back byte for byte, and refuses if the notes changed since that pass ended
unless --force. One dream at a time runs on the same notes. The harness CLI
is found on PATH or named by %s.

Flags:
`, strings.Join(names, "|"), binEnvs(names))
}

func binEnvs(names []string) string {
	var envs []string
	for _, n := range names {
		if h, err := builtins.Headless(n); err == nil {
			envs = append(envs, h.BinEnv)
		}
	}
	return strings.Join(envs, ", ")
}

func runDream(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dream", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dreamUsage()); fs.PrintDefaults() }
	names := builtins.WithHeadless()
	harnessName := fs.String("harness", names[0], "the harness whose CLI runs the pass: "+strings.Join(names, ", "))
	cwd := fs.String("cwd", ".", "a folder of the project whose notes the pass consolidates")
	home := fs.String("home", "", "notes home (default $NOTESOUP_HOME or ~/.notesoup)")
	dryRun := fs.Bool("dry-run", false, "print the plan (harness, notes, command, prompt) and change nothing")
	undo := fs.Bool("undo", false, "restore the notes from the newest pass's snapshot")
	force := fs.Bool("force", false, "with --undo: restore even if the notes changed since the pass ended")
	timeout := fs.Duration("timeout", dream.DefaultTimeout, "stop the pass after this long")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup dream: unexpected argument %q; everything is a flag (see --help)\n", fs.Arg(0))
		return 2
	}
	if *force && !*undo {
		fmt.Fprintln(stderr, "notesoup dream: --force goes with --undo")
		return 2
	}
	if *undo && *dryRun {
		fmt.Fprintln(stderr, "notesoup dream: --undo and --dry-run do not go together")
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "notesoup dream: --timeout %v: give a positive duration such as 45m\n", *timeout)
		return 2
	}
	if *undo {
		res, err := dream.Undo(*home, *cwd, *force)
		if err != nil {
			fmt.Fprintln(stderr, "notesoup dream --undo:", err)
			return 1
		}
		c := res.Changes
		fmt.Fprintf(stdout, "restored the notes as they were before the pass in %s: %d put back, %d rewritten, %d removed\n", res.PassDir, c.Created, c.Rewritten, c.Removed)
		return 0
	}
	h, err := builtins.Headless(*harnessName)
	if err != nil {
		fmt.Fprintln(stderr, "notesoup dream:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "notesoup dream: cannot find the running notesoup (%v); run it by its path\n", err)
		return 1
	}
	plan, err := dream.NewPlan(dream.Options{Home: *home, Cwd: *cwd, Harness: h, Env: os.Environ(), Self: self, Timeout: *timeout})
	if err != nil {
		fmt.Fprintln(stderr, "notesoup dream:", err)
		return 1
	}
	if *dryRun {
		fmt.Fprint(stdout, plan.Render())
		return 0
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
		fmt.Fprintln(stderr, "notesoup dream:", err)
		if errors.Is(err, dream.ErrBusy) {
			return 3
		}
		return 1
	}
	return 0
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
