package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/notesoup/notesoup/vault"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "vault",
		summary: "keep a verbatim copy of every transcript (sync), say what it holds (status), write a session back (restore)",
		about:   vaultAbout,
		subs: []*command{
			{name: "sync", summary: "copy every harness's new or grown transcripts into the vault", flags: func(fs *pflag.FlagSet) { new(vaultSyncOpts).define(fs) }, run: vaultSync, about: vaultSyncAbout},
			{name: "status", summary: "per harness: sessions kept, originals gone, size, retention and its next deletion", flags: func(fs *pflag.FlagSet) { new(vaultStatusOpts).define(fs) }, run: vaultStatus},
			{name: "restore", usage: "vault restore SELECTOR [flags]", summary: "write a session back where its harness keeps it, byte-identical", flags: func(fs *pflag.FlagSet) { new(vaultRestoreOpts).define(fs) }, run: vaultRestore, about: vaultRestoreAbout},
		},
	})
}

const vaultAbout = `The vault ($NOTESOUP_HOME/vault) keeps a verbatim, compressed copy of every
harness's transcripts. A session the vault keeps whose transcript the harness
deleted is still listed by notesoup history (its title starts with
"[vault] "), read, searched and selected by the same selector.

Roots, as for notesoup history: --root NAME=DIR (repeatable) or --NAME-root
DIR for the built-ins. See docs/vault.md.

Exit status: 0 done, 1 when restore finds no copy of the session, 2 on an
error (a restore refused over a different file included).
`

const vaultSyncAbout = `Only the bytes appended since the last sync are read and compressed; a
rewritten file is kept as a new generation. With nothing changed it only
stats the files. Several syncs at once wait for each other (--wait bounds
it). --background starts the sync in its own session and returns at once
(what the harnesses' session-start hooks run); NOTESOUP_VAULT_SYNC=off makes
it start nothing.

Exit status: 0 done, 2 when something could not be copied (named on stderr).
`

const vaultRestoreAbout = `The session's last copy is written back to its original path,
byte-identical, so the harness can resume it (claude --resume <id>, pi
--session <file>, codex resume <id>). A file already there with the same
bytes is left alone; a different one is never overwritten: the restore
exits 2 naming it, and moving it away (mv FILE FILE.bak) lets the restore
run. --dry-run says what it would write.

Exit status: 0 written (or already there), 1 when the vault keeps no copy of
the session, 2 on an error or a different file in the way.
`

// vaultFlags defines the flags every vault subcommand shares: the roots
// and --home.
func vaultFlags(fs *pflag.FlagSet, roots *historyRoots) {
	fs.Var(rootFlag{roots}, "root", "harness NAME's sessions under DIR instead of its defaults (repeatable; any harness)")
	for _, n := range builtins.Names() {
		fs.Var(aliasRootFlag{roots, n}, n+"-root", fmt.Sprintf("short for --root %s=DIR (repeatable)", n))
	}
	homeFlag(fs)
}

// vaultSyncOpts are vault sync's flags.
type vaultSyncOpts struct {
	roots      historyRoots
	wait       time.Duration
	quiet      bool
	json       bool
	background bool
}

func (o *vaultSyncOpts) define(fs *pflag.FlagSet) {
	vaultFlags(fs, &o.roots)
	fs.DurationVar(&o.wait, "wait", filelock.Wait, "how long to wait for another sync to finish (`DURATION`)")
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing unless something failed")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.BoolVar(&o.background, "background", false, "start the sync in its own session and return at once (for session-start hooks)")
}

func vaultSync(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["vault"].sub("sync"), args, stdout, stderr)
	var o vaultSyncOpts
	fs := newFlags("vault sync")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	if o.wait <= 0 {
		return inv.usageErr("--wait must be positive, got %v", o.wait)
	}
	if o.background {
		return vaultSyncBackground(inv, args)
	}
	svc, done, err := historyService(o.roots)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	start := time.Now()
	st, err := svc.VaultSync(context.Background(), vault.SyncOptions{LockWait: o.wait})
	took := time.Since(start)
	for _, e := range st.Errors {
		inv.warn(e)
	}
	if err != nil {
		return inv.fail(err)
	}
	switch {
	case o.json:
		if code := inv.jsonOut(struct {
			Vault string `json:"vault"`
			vault.SyncStats
			Millis float64 `json:"ms"`
		}{svc.VaultDir(), st, float64(took.Microseconds()) / 1000}); code != exitOK {
			return code
		}
	case !o.quiet:
		fmt.Fprintf(stdout, "vault %s: %d files: %d unchanged, %d new, %d grown, %d rewritten, %d touched; %s read, %s stored; %v\n",
			termsafe.Sanitize(svc.VaultDir()), st.Files, st.Unchanged, st.New, st.Grown, st.Rewritten, st.Touched,
			histSize(st.BytesRead), histSize(st.BytesStored), took.Round(time.Millisecond))
	}
	if len(st.Errors) > 0 {
		return exitError
	}
	return exitOK
}

// vaultSyncEnv set to "off" turns off the syncs session-start hooks start
// (--background here, the Codex hook, the Claude mod, the Pi extension).
const vaultSyncEnv = "NOTESOUP_VAULT_SYNC"

// vaultSyncBackground starts the sync args describe, without --background,
// detached (startBackground), unless vaultSyncEnv is "off".
func vaultSyncBackground(inv *invocation, args []string) int {
	if os.Getenv(vaultSyncEnv) == "off" {
		return exitOK
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
		return inv.failf("starting it in the background: %v", err)
	}
	return exitOK
}

// vaultStatusOpts are vault status's flags.
type vaultStatusOpts struct {
	roots historyRoots
	json  bool
}

func (o *vaultStatusOpts) define(fs *pflag.FlagSet) {
	vaultFlags(fs, &o.roots)
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

// retentions asks each built-in harness how it deletes its transcripts
// (harness/builtins), under the roots given for it or its defaults.
func retentions(ctx context.Context, roots historyRoots) []vault.Retention {
	var out []vault.Retention
	for _, n := range builtins.Names() {
		r, _ := builtins.Retention(ctx, n, roots.of(n))
		out = append(out, r)
	}
	return out
}

func vaultStatus(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["vault"].sub("status"), args, stdout, stderr)
	var o vaultStatusOpts
	fs := newFlags("vault status")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	svc, done, err := historyService(o.roots)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	hs, err := svc.VaultStatus()
	if err != nil {
		return inv.fail(err)
	}
	rs := retentions(context.Background(), o.roots)
	if o.json {
		if hs == nil {
			hs = []vault.HarnessStatus{}
		}
		return inv.jsonOut(struct {
			Vault     string                `json:"vault"`
			Harnesses []vault.HarnessStatus `json:"harnesses"`
			Retention []vault.Retention     `json:"retention"`
		}{svc.VaultDir(), hs, rs})
	}
	fmt.Fprintf(stdout, "vault %s\n", termsafe.Sanitize(svc.VaultDir()))
	if len(hs) == 0 {
		fmt.Fprintln(stdout, "(empty: run notesoup vault sync)")
	} else {
		var rows [][]string
		var tot vault.HarnessStatus
		for _, h := range hs {
			rows = append(rows, []string{h.Harness, fmt.Sprint(h.Sessions), fmt.Sprint(h.Gone), histSize(h.Bytes), histSize(h.Stored), fmt.Sprint(h.Generations), histStamp(h.LastSync)})
			tot.Sessions += h.Sessions
			tot.Gone += h.Gone
			tot.Bytes += h.Bytes
			tot.Stored += h.Stored
			tot.Generations += h.Generations
		}
		rows = append(rows, []string{"total", fmt.Sprint(tot.Sessions), fmt.Sprint(tot.Gone), histSize(tot.Bytes), histSize(tot.Stored), fmt.Sprint(tot.Generations), ""})
		writeTable(stdout, []string{"HARNESS", "SESSIONS", "GONE", "SIZE", "STORED", "OLDER", "LAST COPY"}, rows)
	}
	fmt.Fprintln(stdout)
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{r.Harness, retentionSetting(r), retentionNext(r)})
	}
	writeTable(stdout, []string{"HARNESS", "RETENTION", "NEXT DELETION"}, rows)
	return exitOK
}

// retentionSetting is a retention's setting column, with its note.
func retentionSetting(r vault.Retention) string {
	s := r.Setting
	if !r.Known {
		s = "none known"
	}
	if r.Note != "" && r.Known {
		s += "; " + r.Note
	}
	return s
}

// retentionNext says when the harness will next delete a transcript.
func retentionNext(r vault.Retention) string {
	switch {
	case !r.Known:
		return "-"
	case !r.Deletes:
		return "never (kept)"
	case r.Oldest.IsZero():
		return "nothing to delete yet"
	case !r.Next.After(time.Now()):
		return "at its next start (oldest " + histStamp(r.Oldest) + ")"
	}
	return histStamp(r.Next)
}

// vaultRestoreOpts are vault restore's flags.
type vaultRestoreOpts struct {
	roots historyRoots
	dry   bool
	json  bool
}

func (o *vaultRestoreOpts) define(fs *pflag.FlagSet) {
	vaultFlags(fs, &o.roots)
	fs.BoolVar(&o.dry, "dry-run", false, "say what would be written, write nothing")
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

func vaultRestore(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["vault"].sub("restore"), args, stdout, stderr)
	var o vaultRestoreOpts
	fs := newFlags("vault restore")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return inv.usageErr("name the session (e.g. claude:<id>; notesoup history sessions lists them)")
	case len(pos) > 1:
		return inv.usageErr("unexpected argument %q; restore one session at a time", pos[1])
	}
	svc, done, err := historyService(o.roots)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	sess, p, err := svc.VaultRestore(context.Background(), pos[0], o.dry)
	switch {
	case errors.Is(err, vault.ErrDiffers):
		return inv.failf("%v (e.g. mv %s %s.bak, then restore again)", err, p.Target, p.Target)
	case errors.Is(err, service.ErrNotKept):
		inv.report(codeError, err.Error())
		return exitNone
	case err != nil:
		return inv.fail(err)
	}
	ref := service.SessionRef(sess)
	if o.json {
		return inv.jsonOut(struct {
			Session string `json:"session"`
			DryRun  bool   `json:"dry_run"`
			vault.Plan
		}{ref, o.dry, p})
	}
	switch {
	case p.Same:
		fmt.Fprintf(stdout, "%s: %s already holds the vault's copy (%s); nothing to do\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size))
	case o.dry:
		fmt.Fprintf(stdout, "%s: would write %s (%s, sha256 %s)\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size), p.SHA256)
	default:
		fmt.Fprintf(stdout, "%s: wrote %s (%s, sha256 %s)\n", termsafe.Sanitize(ref), termsafe.Sanitize(p.Target), histSize(p.Size), p.SHA256)
	}
	return exitOK
}
