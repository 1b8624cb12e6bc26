package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/notesoup/notesoup/vault"
)

func init() {
	register("vault", "keep a verbatim copy of every transcript (sync), say what it holds (status), write a session back (restore)", runVault)
}

const vaultUsage = `Usage:
  notesoup vault sync [--wait dur] [--quiet] [--json] [--background] [roots]
  notesoup vault status [--json]
  notesoup vault restore SELECTOR [--dry-run] [--json] [roots]

sync copies every harness's transcripts that are new or have grown into
$NOTESOUP_HOME/vault (only the bytes appended since the last sync,
compressed; a rewritten file is kept as a new generation). Run it from a
session start hook or a timer; with nothing changed it only stats the
files. Several syncs at once wait for each other (--wait bounds it).
--background starts the sync in its own session and returns at once (what
the harnesses' session-start hooks run); NOTESOUP_VAULT_SYNC=off makes it
start nothing.

A session the vault keeps whose transcript the harness deleted is still
listed by notesoup history (its title starts with "[vault] "), read,
searched and selected by the same selector.

restore writes the session a selector names back where the harness keeps
it, byte-identical to the vault's last copy, so the harness can resume it.
It never overwrites a different file; --dry-run says what it would write.

Roots, as for notesoup history: --root NAME=DIR (repeatable) or
--NAME-root DIR for the built-ins. See docs/vault.md.
`

func runVault(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, vaultUsage)
		return 0
	}
	switch args[0] {
	case "sync":
		return vaultSync(args[1:], stdout, stderr)
	case "status":
		return vaultStatus(args[1:], stdout, stderr)
	case "restore":
		return vaultRestore(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "notesoup vault: unknown subcommand %q\n\n%s", args[0], vaultUsage)
	return 2
}

// newVaultFlags returns the flags of a vault subcommand, with the history
// commands' root flags.
func newVaultFlags(name string, stderr io.Writer, roots *historyRoots) *flag.FlagSet {
	fs := flag.NewFlagSet("notesoup vault "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, vaultUsage) }
	fs.Var(rootFlag{roots}, "root", "NAME=DIR: harness NAME's sessions under DIR instead of its defaults (repeatable)")
	for _, n := range builtins.Names() {
		fs.Var(aliasRootFlag{roots, n}, n+"-root", fmt.Sprintf("DIR: short for --root %s=DIR (repeatable)", n))
	}
	return fs
}

func vaultSync(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newVaultFlags("sync", stderr, &roots)
	wait := fs.Duration("wait", filelock.Wait, "how long to wait for another sync to finish")
	quiet := fs.Bool("quiet", false, "print nothing unless something failed")
	asJSON := fs.Bool("json", false, "print JSON")
	background := fs.Bool("background", false, "start the sync in its own session and return at once (for session-start hooks)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup vault sync: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *wait <= 0 {
		fmt.Fprintf(stderr, "notesoup vault sync: --wait must be positive, got %v\n", *wait)
		return 2
	}
	if *background {
		return vaultSyncBackground(args, stderr)
	}
	svc, done, err := historyService(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault sync: %v\n", err)
		return 1
	}
	defer done()
	start := time.Now()
	st, err := svc.VaultSync(context.Background(), vault.SyncOptions{LockWait: *wait})
	took := time.Since(start)
	for _, e := range st.Errors {
		fmt.Fprintf(stderr, "notesoup vault sync: %s\n", termsafe.Sanitize(e))
	}
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault sync: %v\n", err)
	}
	switch {
	case *asJSON:
		histWriteJSON(stdout, struct {
			Vault string `json:"vault"`
			vault.SyncStats
			Millis float64 `json:"ms"`
		}{svc.VaultDir(), st, float64(took.Microseconds()) / 1000})
	case !*quiet:
		fmt.Fprintf(stdout, "vault %s: %d files: %d unchanged, %d new, %d grown, %d rewritten, %d touched; %s read, %s stored; %v\n",
			termsafe.Sanitize(svc.VaultDir()), st.Files, st.Unchanged, st.New, st.Grown, st.Rewritten, st.Touched,
			histSize(st.BytesRead), histSize(st.BytesStored), took.Round(time.Millisecond))
	}
	if err != nil || len(st.Errors) > 0 {
		return 1
	}
	return 0
}

// vaultSyncEnv set to "off" turns off the syncs session-start hooks start
// (--background here, the Codex hook, the Claude mod, the Pi extension).
const vaultSyncEnv = "NOTESOUP_VAULT_SYNC"

// vaultSyncBackground starts the sync args describe, without --background,
// detached (startBackground), unless vaultSyncEnv is "off".
func vaultSyncBackground(args []string, stderr io.Writer) int {
	if os.Getenv(vaultSyncEnv) == "off" {
		return 0
	}
	child := []string{"vault", "sync"}
	for _, a := range args {
		switch a {
		case "--background", "-background", "--background=true", "-background=true":
			continue
		}
		child = append(child, a)
	}
	if err := startBackground(child); err != nil {
		fmt.Fprintf(stderr, "notesoup vault sync: starting it in the background: %v\n", err)
		return 1
	}
	return 0
}

func vaultStatus(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newVaultFlags("status", stderr, &roots)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	svc, done, err := historyService(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault status: %v\n", err)
		return 1
	}
	defer done()
	hs, err := svc.VaultStatus()
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault status: %v\n", err)
		return 1
	}
	if *asJSON {
		if hs == nil {
			hs = []vault.HarnessStatus{}
		}
		histWriteJSON(stdout, struct {
			Vault     string                `json:"vault"`
			Harnesses []vault.HarnessStatus `json:"harnesses"`
		}{svc.VaultDir(), hs})
		return 0
	}
	fmt.Fprintf(stdout, "vault %s\n", termsafe.Sanitize(svc.VaultDir()))
	if len(hs) == 0 {
		fmt.Fprintln(stdout, "(empty: run notesoup vault sync)")
		return 0
	}
	fmt.Fprintf(stdout, "%-10s %8s %6s %9s %9s %6s  %s\n", "harness", "sessions", "gone", "size", "stored", "older", "last copy")
	var tot vault.HarnessStatus
	for _, h := range hs {
		fmt.Fprintf(stdout, "%-10s %8d %6d %9s %9s %6d  %s\n", termsafe.Sanitize(h.Harness), h.Sessions, h.Gone,
			histSize(h.Bytes), histSize(h.Stored), h.Generations, histStamp(h.LastSync))
		tot.Sessions += h.Sessions
		tot.Gone += h.Gone
		tot.Bytes += h.Bytes
		tot.Stored += h.Stored
		tot.Generations += h.Generations
	}
	fmt.Fprintf(stdout, "%-10s %8d %6d %9s %9s %6d\n", "total", tot.Sessions, tot.Gone, histSize(tot.Bytes), histSize(tot.Stored), tot.Generations)
	return 0
}

func vaultRestore(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newVaultFlags("restore", stderr, &roots)
	dry := fs.Bool("dry-run", false, "say what would be written, write nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	// The selector may come first: notesoup vault restore claude:<id> --dry-run.
	var sel string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sel, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if sel == "" && fs.NArg() == 1 {
		sel = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup vault restore: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if sel == "" {
		fmt.Fprint(stderr, "notesoup vault restore: name the session (e.g. claude:<id>; notesoup history sessions lists them)\n\n"+vaultUsage)
		return 2
	}
	svc, done, err := historyService(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault restore: %v\n", err)
		return 1
	}
	defer done()
	sess, p, err := svc.VaultRestore(context.Background(), sel, *dry)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup vault restore: %s\n", termsafe.Sanitize(err.Error()))
		if errors.Is(err, vault.ErrDiffers) {
			return 3
		}
		return 1
	}
	ref := service.SessionRef(sess)
	if *asJSON {
		histWriteJSON(stdout, struct {
			Session string `json:"session"`
			DryRun  bool   `json:"dry_run"`
			vault.Plan
		}{ref, *dry, p})
		return 0
	}
	switch {
	case p.Same:
		fmt.Fprintf(stdout, "%s: %s already holds the vault's copy (%s); nothing to do\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size))
	case *dry:
		fmt.Fprintf(stdout, "%s: would write %s (%s, sha256 %s)\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size), p.SHA256)
	default:
		fmt.Fprintf(stdout, "%s: wrote %s (%s, sha256 %s)\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size), p.SHA256)
	}
	return 0
}
