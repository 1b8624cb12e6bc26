package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/notesoup/notesoup/version"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "version",
		summary: "print the version (also notesoup --version)",
		flags:   func(fs *pflag.FlagSet) { fs.Bool("json", false, "print the version and build as JSON") },
		run:     runVersion,
	})
}

// buildInfo is what `notesoup version --json` prints.
type buildInfo struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// currentBuild reads the version and, when the binary was built from a
// checkout, the commit it was built from.
func currentBuild() buildInfo {
	b := buildInfo{Version: version.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["version"], args, stdout, stderr)
	fs := newFlags("version")
	commands["version"].flags(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q", pos[0])
	}
	b := currentBuild()
	if inv.json {
		return inv.jsonOut(b)
	}
	fmt.Fprintf(stdout, "notesoup %s (%s, %s", b.Version, b.Go, b.Platform)
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += ", modified"
		}
		fmt.Fprintf(stdout, ", commit %s", c)
	}
	fmt.Fprintln(stdout, ")")
	return exitOK
}
