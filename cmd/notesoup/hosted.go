package main

import (
	"io"
	"os"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/spf13/pflag"
)

// The commands that run only in the full build (mcp.go, plugins.go), and
// that the light build hands over (light.go): their flags are defined here,
// in both builds, so either answers --help and completes them alike.

// mcpCommand is `notesoup mcp`, answered by run.
func mcpCommand(run func(args []string, stdout, stderr io.Writer) int) *command {
	return &command{
		name:    "mcp",
		summary: mcpSummary,
		flags:   func(fs *pflag.FlagSet) { new(mcpOpts).define(fs) },
		about: `Add it to an MCP client, e.g.:
  claude mcp add notesoup -- notesoup mcp --harness claude
  codex mcp add notesoup -- notesoup mcp --harness codex
`,
		run: run,
	}
}

// mcpOpts are mcp's flags.
type mcpOpts struct{ harness, session, cwd string }

func (o *mcpOpts) define(fs *pflag.FlagSet) {
	fs.StringVar(&o.harness, "harness", os.Getenv("NOTESOUP_HARNESS"), "the client harness `NAME`, one that notesoup plugins lists: binds the boot block in the server instructions, and which tool call _meta key binds the session [$NOTESOUP_HARNESS]")
	fs.SetAnnotation("harness", valuesAnnotation, builtins.Names())
	fs.StringVar(&o.session, "session", os.Getenv("NOTESOUP_SESSION"), "the client's session `ID`, when known at start; otherwise each tool call's _meta binds it, under the harness's own key (Codex: threadId) [$NOTESOUP_SESSION]")
	fs.StringVar(&o.cwd, "cwd", "", "the project `DIR` (default: the current directory)")
	homeFlag(fs)
}

// pluginsCommand is `notesoup plugins`, answered by run.
func pluginsCommand(run func(args []string, stdout, stderr io.Writer) int) *command {
	return &command{
		name:    "plugins",
		summary: pluginsSummary,
		flags:   func(fs *pflag.FlagSet) { new(pluginsOpts).define(fs) },
		about: `External plugins are executables named notesoup-harness-NAME in
$NOTESOUP_PLUGIN_DIR or HOME/plugins (HOME: --home, default $NOTESOUP_HOME
or ~/.notesoup); one overrides the built-in of its name.
`,
		run: run,
	}
}

// pluginsOpts are plugins' flags.
type pluginsOpts struct{ json bool }

func (o *pluginsOpts) define(fs *pflag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print JSON")
	homeFlag(fs)
}
