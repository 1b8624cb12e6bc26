package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/internal/installdir"
)

// An external harness plugin (notesoup-harness-<name> in a plugin folder,
// host/plugindir) that can wire itself into its harness answers
// `notesoup-harness-<name> install|uninstall [flags]` when started with
// those arguments instead of the go-plugin handshake. `notesoup install
// <name>` falls back to it when no built-in harness of that name has an
// installer: the plugin knows its harness's configuration, notesoup does
// not.

// externalInstallTimeout bounds one plugin installer run: it edits a few
// files; a plugin that hangs is stopped rather than holding the terminal.
const externalInstallTimeout = 2 * time.Minute

// runExternalInstaller runs the external plugin's installer for name with
// args (the flags after the harness name), its stdout and stderr passed
// through, and returns its exit code; ok is false when no plugin of that
// name is installed. For install without --binary it first places this
// notesoup in notesoup's install folder, as for the built-ins, and passes
// that binary on.
func runExternalInstaller(verb, name string, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	var plugin string
	for _, p := range plugindir.Discover(plugindir.DefaultDirs()) {
		if p.Name == name {
			plugin = p.Path
			break
		}
	}
	if plugin == "" {
		return 0, false
	}
	prog := "notesoup " + verb + " " + name
	if verb == "install" && !hasFlag(args, "binary") && !hasFlag(args, "help") && !hasFlag(args, "h") {
		root, err := installdir.Root()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return exitError, true
		}
		bin, msgs, err := placeBinaries("", installdir.BinDir(root), hasFlag(args, "dry-run"))
		for _, m := range msgs {
			fmt.Fprintln(stdout, m)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return exitError, true
		}
		args = append(slices.Clone(args), "--binary", bin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), externalInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, plugin, append([]string{verb}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, stdout, stderr
	// The plugin must not take this for the host's handshake (contract/pluginrpc's cookie).
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NOTESOUP_HARNESS_PLUGIN=") })
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: %s did not finish within %s; it was stopped\n", prog, plugin, externalInstallTimeout)
		return exitError, true
	case errors.As(err, &exit):
		return exit.ExitCode(), true
	default:
		fmt.Fprintf(stderr, "%s: running %s: %v\n", prog, plugin, err)
		return exitError, true
	}
}

// hasFlag reports whether args hold --name or -name, alone or as
// --name=value.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimLeft(a, "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}
