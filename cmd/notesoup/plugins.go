//go:build !light

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/contract/pluginrpc"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host"
)

// newLogger returns the process logger: stderr only (stdout belongs to the
// protocols), level from NOTESOUP_LOG (trace|debug|info|warn|error, default
// warn).
func newLogger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv("NOTESOUP_LOG"))
	if level == hclog.NoLevel {
		level = hclog.Warn
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: level, Output: os.Stderr})
}

// newHost returns a plugin host for this process's built-ins and the
// external plugins in the default plugin directories.
func newHost() *host.Host {
	return host.New(host.WithBuiltins(builtins.Names()...), host.WithLogger(newLogger("notesoup")))
}

func init() {
	register(host.PluginModeArg, pluginModeSummary, runPluginMode)
	registerCommand(pluginsCommand(runPlugins))
}

// runPluginMode serves one built-in harness over go-plugin. The host starts
// it; a person running it by hand gets go-plugin's explanation instead.
func runPluginMode(args []string, _, stderr io.Writer) int {
	var impl contract.Harness
	if len(args) == 1 {
		if b, ok := builtins.New(args[0]); ok {
			impl = b
		}
	}
	if impl == nil {
		fmt.Fprintf(stderr, "notesoup: %s takes one built-in harness name, one of %v\n", host.PluginModeArg, builtins.Names())
		return 2
	}
	pluginrpc.Serve(impl, pluginrpc.WithServeLogger(newLogger("notesoup-harness-"+args[0])))
	return 0
}

// pluginRow is one line of `notesoup plugins`.
type pluginRow struct {
	Name             string   `json:"name"`
	Source           string   `json:"source"`
	PluginVersion    string   `json:"plugin_version,omitempty"`
	ContractVersions []int    `json:"contract_versions,omitempty"`
	Capabilities     []string `json:"capabilities,omitempty"`
	DefaultRoots     []string `json:"default_roots,omitempty"`
	Status           string   `json:"status"` // ok, failed, or ignored
	Error            string   `json:"error,omitempty"`
	Reason           string   `json:"reason,omitempty"` // why an ignored file is not a plugin, and what to do
}

func runPlugins(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["plugins"], args, stdout, stderr)
	var o pluginsOpts
	fs := newFlags("plugins")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	h := newHost()
	defer h.Close()
	rows := listPlugins(context.Background(), h)
	if o.json {
		return inv.jsonOut(rows)
	}
	// A plugin's name and path are file names anyone with write access to
	// a plugin directory chose: the table makes them inert (writeTable),
	// and its errors too.
	table := make([][]string, 0, len(rows))
	var notes []string
	for _, r := range rows {
		switch {
		case r.Status == statusIgnored:
			table = append(table, []string{r.Name, r.Status, "-", "-", "-", shortPath(r.Source)})
			notes = append(notes, fmt.Sprintf("%s: %s", r.Name, r.Reason))
		case r.Error != "":
			table = append(table, []string{r.Name, r.Status, "-", "-", "-", shortPath(r.Source)})
			notes = append(notes, fmt.Sprintf("%s: %s", r.Name, r.Error))
		default:
			table = append(table, []string{r.Name, r.Status, "v" + r.PluginVersion, fmt.Sprint(r.ContractVersions), strings.Join(r.Capabilities, ","), shortPath(r.Source)})
		}
	}
	writeTable(stdout, []string{"NAME", "STATUS", "VERSION", "CONTRACT", "CAPABILITIES", "SOURCE"}, table)
	for _, n := range notes {
		fmt.Fprintln(stdout, sanitizeLine(n))
	}
	return exitOK
}

// statusIgnored marks a file named like a plugin that cannot be one.
const statusIgnored = "ignored"

// listPlugins starts every harness the host can find and fingerprints it.
// A plugin that fails is listed with its error, not dropped; a file named
// like a plugin that cannot run (not executable, a directory, a broken
// link) is listed after them with the reason.
func listPlugins(ctx context.Context, h *host.Host) []pluginRow {
	names := h.Names()
	rows := make([]pluginRow, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() { // start the plugins side by side: each start is a process launch and handshake
			defer wg.Done()
			rows[i] = describeRow(ctx, h, name)
		}()
	}
	wg.Wait()
	for _, ig := range h.Ignored() {
		rows = append(rows, pluginRow{Name: ig.Name, Source: ig.Path, Status: statusIgnored, Reason: ig.Reason})
	}
	return rows
}

// describeRow fingerprints one harness for the listing.
func describeRow(ctx context.Context, h *host.Host, name string) pluginRow {
	d, src, err := h.Describe(ctx, name)
	row := pluginRow{Name: name, Source: src, Status: "ok"}
	if err != nil {
		row.Status = "failed"
		row.Error = err.Error()
		if pe, ok := err.(*host.PluginError); ok {
			row.Source = pe.Source
		}
	} else {
		row.PluginVersion, row.ContractVersions, row.Capabilities, row.DefaultRoots = d.PluginVersion, d.ContractVersions, d.Capabilities, d.DefaultRoots
	}
	return row
}

// sanitizeLine makes an error printable on one terminal line: control
// characters (a plugin's stray output may carry escapes) become spaces.
func sanitizeLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
