package pi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/dream/headless"
)

// ExtensionEnv names a folder holding the notesoup extension (a checkout's
// plugins/pi after make pi-build) that `notesoup dream` loads with -e.
const ExtensionEnv = "NOTESOUP_PI_EXTENSION"

// Headless runs Pi without a person for `notesoup dream`: pi -p with only
// the notes and history tools and Pi's read-only file tools enabled, so a
// pass can check facts against the code but not edit it or run commands.
// The tools come from the extension Pi loads itself (pi install) or, with
// ExtensionEnv set, from that folder (-e); loading it both ways would
// register every tool twice.
var Headless = headless.Harness{
	Name:    Name,
	Binary:  "pi",
	BinEnv:  "NOTESOUP_PI_BIN",
	Tools:   "notes_list",
	Command: headlessCommand,
}

// headlessTools is Pi's --tools allowlist for a pass: it applies to
// built-in and extension tools alike, so bash, edit and write stay off.
var headlessTools = []string{
	"notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete",
	"history_list", "history_read",
	"read", "grep", "find", "ls",
}

func headlessCommand(ctx context.Context, r headless.Request) (*exec.Cmd, error) {
	args := []string{"-p", "--tools", strings.Join(headlessTools, ",")}
	if dir, ok := headless.Lookup(r.Env, ExtensionEnv); ok && dir != "" {
		fi, err := os.Stat(filepath.Join(dir, "package.json"))
		if err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s=%s holds no Pi package (package.json); point it at the notesoup extension (plugins/pi after make pi-build) or unset it to use the installed one", ExtensionEnv, dir)
		}
		args = append(args, "-e", dir)
	}
	// The prompt last, after every option: pi reads the remaining
	// arguments as messages.
	args = append(args, r.Prompt)
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	return cmd, nil
}
