package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
)

func init() {
	register("install", "wire notesoup into a harness's own configuration: install <harness> [--dry-run] [--json]", runInstall)
	register("uninstall", "take out of a harness's configuration what install wrote, keeping the notes: uninstall <harness> [--dry-run] [--json]", runUninstall)
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	return runInstaller("install", args, stdout, stderr)
}

func runUninstall(args []string, stdout, stderr io.Writer) int {
	return runInstaller("uninstall", args, stdout, stderr)
}

// runInstaller runs the named harness's installer (harness/builtins) as
// install or uninstall: one flag for the harness's configuration directory,
// the binary to wire in (install), --dry-run and --json.
func runInstaller(verb string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "Usage: notesoup %s <harness> [flags]  (harnesses: %s; notesoup %s <harness> --help lists the flags)\n",
			verb, strings.Join(builtins.WithInstaller(), ", "), verb)
		return 2
	}
	name := args[0]
	inst, err := builtins.Installer(name)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup %s: %v\n", verb, err)
		return 2
	}
	prog := "notesoup " + verb + " " + name
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String(inst.HomeFlag, "", "the harness's configuration directory (default: its own default)")
	dry := fs.Bool("dry-run", false, "print what would change, write nothing")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bin := new(string)
	if verb == "install" {
		bin = fs.String("binary", "", "the notesoup binary the harness should run (default: this executable)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %v\n", prog, fs.Args())
		return 2
	}
	req := harness.InstallRequest{Home: *home, DryRun: *dry}
	if req.Home == "" {
		if req.Home, err = inst.Home(); err != nil {
			fmt.Fprintf(stderr, "%s: %v (pass --%s)\n", prog, err, inst.HomeFlag)
			return 1
		}
	}
	run := inst.Uninstall
	if verb == "install" {
		run = inst.Install
		if req.Binary, err = installBinary(*bin); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return 1
		}
	}
	rep, err := run(req)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return 1
		}
		return 0
	}
	for _, m := range rep.Messages {
		fmt.Fprintln(stdout, m)
	}
	for _, p := range rep.Preview {
		if p.Removed {
			fmt.Fprintf(stdout, "\n--- %s (would be removed)\n", p.Path)
			continue
		}
		fmt.Fprintf(stdout, "\n--- %s (would be)\n%s", p.Path, p.Content)
	}
	return 0
}

// installBinary is the absolute path of the notesoup binary to wire in:
// the one given, else this executable.
func installBinary(given string) (string, error) {
	if given == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding this executable: %v (pass --binary)", err)
		}
		given = exe
	}
	abs, err := filepath.Abs(given)
	if err != nil {
		return "", fmt.Errorf("--binary: %v", err)
	}
	return abs, nil
}
