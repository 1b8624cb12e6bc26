package codex

import (
	"context"
	"os/exec"

	"github.com/notesoup/notesoup/dream/headless"
)

// Headless runs Codex without a person for `notesoup dream`: codex exec in
// a read-only sandbox, with notesoup's MCP server (this very notesoup)
// configured by -c overrides. The overrides set the same keys `notesoup
// install codex` writes, so an installed server is replaced for this run
// rather than offered twice, and the writing tools are approved as install
// approves them (codex exec never asks).
var Headless = headless.Harness{
	Name:    Name,
	Binary:  "codex",
	BinEnv:  "NOTESOUP_CODEX_BIN",
	Tools:   "notes_list (namespace mcp__notesoup)",
	Command: headlessCommand,
}

func headlessCommand(ctx context.Context, r headless.Request) (*exec.Cmd, error) {
	srv := "mcp_servers." + serverName
	args := []string{"exec", "--skip-git-repo-check", "--sandbox", "read-only", "-C", r.Dir,
		"-c", srv + ".command=" + tomlString(r.Self),
		"-c", srv + ".args=" + tomlStrings([]string{"mcp", "--harness", Name}),
		"-c", srv + ".env_vars=" + tomlStrings(passEnv),
	}
	for _, t := range writeTools {
		args = append(args, "-c", srv+".tools."+t+".approval_mode=\"approve\"")
	}
	// "--" ends the options: the prompt is the one positional argument.
	args = append(args, "--", r.Prompt)
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	return cmd, nil
}
