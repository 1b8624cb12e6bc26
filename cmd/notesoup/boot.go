package main

import (
	"context"
	"io"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/boot"
	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "boot",
		summary: "print the boot block a harness session would get",
		usage:   "boot --harness NAME --session ID [flags]",
		flags:   func(fs *pflag.FlagSet) { new(bootOpts).define(fs) },
		run:     runBoot,
	})
}

// bootOpts are boot's flags.
type bootOpts struct {
	harness, session, cwd, sticky, handoff string
	ordinal, budget                        int
	json                                   bool
}

func (o *bootOpts) define(fs *pflag.FlagSet) {
	fs.StringVar(&o.harness, "harness", "", "the harness `NAME`, e.g. claude, codex or pi (required)")
	fs.SetAnnotation("harness", valuesAnnotation, builtins.Names())
	fs.StringVar(&o.session, "session", "", "the harness's session `ID` (required)")
	fs.StringVar(&o.cwd, "cwd", ".", "the session's working `DIR`")
	fs.IntVar(&o.ordinal, "ordinal", 0, "the window's ordinal `N` within the session (0 for the first window)")
	fs.StringVar(&o.sticky, "sticky", "", "the last word (`TEXT`) of the reset that opened this window")
	fs.StringVar(&o.handoff, "handoff", "", "the handoff paragraph (`TEXT`) shown after a reset")
	fs.IntVar(&o.budget, "budget", boot.DefaultBudgetTokens, "the block's budget in `TOKENS` (estimated as bytes/4)")
	homeFlag(fs)
	fs.BoolVar(&o.json, "json", false, "print the block and its facts as JSON")
}

func runBoot(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["boot"], args, stdout, stderr)
	var o bootOpts
	fs := newFlags("boot")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; everything is a flag", pos[0])
	}
	if o.harness == "" || o.session == "" {
		return inv.usageErr("--harness and --session are required, e.g. --harness claude --session 0b6c…")
	}
	if o.budget <= 0 {
		return inv.usageErr("--budget %d must be a positive number of tokens (default %d)", o.budget, boot.DefaultBudgetTokens)
	}
	svc, done, err := newService()
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	res, err := svc.Boot(context.Background(), service.Caller{Harness: o.harness, Session: o.session, Cwd: o.cwd},
		service.BootRequest{Ordinal: o.ordinal, Sticky: o.sticky, Handoff: o.handoff, BudgetTokens: o.budget})
	if err != nil {
		return inv.fail(err)
	}
	if o.json {
		return inv.jsonOut(res)
	}
	// Notes are text anyone's tools may have written: escapes in them are
	// shown, not acted on by the terminal.
	io.WriteString(stdout, termsafe.Sanitize(res.Text))
	return exitOK
}
