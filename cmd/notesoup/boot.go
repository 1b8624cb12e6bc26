package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/boot"
	"github.com/notesoup/notesoup/shared/termsafe"
)

func init() {
	register("boot", "print the boot block a harness session would get", runBoot)
}

func runBoot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("boot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	harness := fs.String("harness", "", "harness: claude, codex or pi")
	session := fs.String("session", "", "the harness's session id")
	cwd := fs.String("cwd", ".", "the session's working directory")
	ordinal := fs.Int("ordinal", 0, "window ordinal within the session (0 for the first window)")
	sticky := fs.String("sticky", "", "last_word of the reset that opened this window")
	handoff := fs.String("handoff", "", "handoff paragraph shown after a reset")
	budget := fs.Int("budget", boot.DefaultBudgetTokens, "token budget of the block (estimated as bytes/4)")
	home := fs.String("home", "", "notes home (default $NOTESOUP_HOME or ~/.notesoup)")
	asJSON := fs.Bool("json", false, "print the block and its facts as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: notesoup boot --harness claude|codex|pi --session ID [--cwd DIR] [--ordinal N] [--sticky S] [--handoff H] [--budget T] [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup boot: unexpected argument %q; everything is a flag (see --help)\n", fs.Arg(0))
		return 2
	}
	if *harness == "" || *session == "" {
		fmt.Fprintln(stderr, "notesoup boot: --harness and --session are required, e.g. --harness claude --session 0b6c…")
		return 2
	}
	if *budget <= 0 {
		fmt.Fprintf(stderr, "notesoup boot: --budget %d must be a positive number of tokens (default %d)\n", *budget, boot.DefaultBudgetTokens)
		return 2
	}
	if *home != "" {
		os.Setenv("NOTESOUP_HOME", *home)
	}
	svc, done, err := newService()
	if err != nil {
		fmt.Fprintln(stderr, "notesoup boot:", err)
		return 1
	}
	defer done()
	res, err := svc.Boot(context.Background(), service.Caller{Harness: *harness, Session: *session, Cwd: *cwd},
		service.BootRequest{Ordinal: *ordinal, Sticky: *sticky, Handoff: *handoff, BudgetTokens: *budget})
	if err != nil {
		fmt.Fprintln(stderr, "notesoup boot:", termsafe.Sanitize(err.Error()))
		return 1
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintln(stderr, "notesoup boot:", err)
			return 1
		}
		return 0
	}
	// Notes are text anyone's tools may have written: escapes in them are
	// shown, not acted on by the terminal.
	io.WriteString(stdout, termsafe.Sanitize(res.Text))
	return 0
}
