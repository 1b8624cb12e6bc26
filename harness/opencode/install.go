package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/shared/jsonedit"
)

// `notesoup-harness-opencode install|uninstall` (what `notesoup install
// opencode` runs, through cmd/notesoup's fallback to an external plugin's
// installer) wires notesoup into OpenCode's global configuration folder,
// $XDG_CONFIG_HOME/opencode (default ~/.config/opencode):
//
//   - opencode.json (or opencode.jsonc when that is the one there):
//     mcp.notesoup, a local MCP server running `notesoup mcp --harness
//     opencode`, edited in as text so comments and layout stay and
//     uninstall gives back the same bytes;
//   - plugin/notesoup.js: a small OpenCode plugin that puts the boot block
//     of each window into the system prompt and adds the budget warning to
//     one tool result per window (notesoup.js.tmpl).

// pluginJS is the OpenCode plugin install writes, with the notesoup binary
// in place of __NOTESOUP_BIN__.
//
//go:embed notesoup.js.tmpl
var pluginJS string

const (
	serverName = "notesoup"
	// pluginMarker opens every notesoup.js install writes; uninstall
	// removes only a file that starts with it.
	pluginMarker = "// notesoup for OpenCode: written by `notesoup install opencode`"
	emptyFile    = "{\n}\n"
	// maxConfigBytes bounds a configuration file read.
	maxConfigBytes = 16 << 20
)

// mcpServer is the mcp.notesoup entry, in the order it is written.
type mcpServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
}

func wantServer(bin string) mcpServer {
	return mcpServer{Type: "local", Command: []string{bin, "mcp", "--harness", Name}, Enabled: true}
}

// isOurServer reports whether an mcp.notesoup entry is one install wrote
// (with any binary): it runs "<bin> mcp --harness opencode".
func isOurServer(s mcpServer) bool {
	return len(s.Command) == 4 && slices.Equal(s.Command[1:], wantServer("").Command[1:])
}

// installer is one install or uninstall run.
type installer struct {
	configDir string
	bin       string
	dryRun    bool
	out       io.Writer
	changed   int
}

// runInstaller is `notesoup-harness-opencode install|uninstall [flags]`:
// exit 0 done, 1 failed, 2 misuse.
func runInstaller(verb string, args []string, stdout, stderr io.Writer) int {
	prog := "notesoup " + verb + " " + Name
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("opencode-config", "", "OpenCode's configuration folder (default $XDG_CONFIG_HOME/opencode, else ~/.config/opencode)")
	dry := fs.Bool("dry-run", false, "print what would change, write nothing")
	bin := new(string)
	if verb == "install" {
		bin = fs.String("binary", "", "the notesoup binary OpenCode should run (absolute; default: notesoup on PATH)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %v\n", prog, fs.Args())
		return 2
	}
	in := &installer{configDir: *dir, bin: *bin, dryRun: *dry, out: stdout}
	if in.configDir == "" {
		var err error
		if in.configDir, err = configDir(); err != nil {
			fmt.Fprintf(stderr, "%s: %v (pass --opencode-config)\n", prog, err)
			return 1
		}
	}
	var err error
	if verb == "install" {
		err = in.install()
	} else {
		err = in.uninstall()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	return 0
}

// configDir is OpenCode's global configuration folder.
func configDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "opencode"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to find ~/.config/opencode: %v", err)
	}
	return filepath.Join(h, ".config", "opencode"), nil
}

// configFile is the global config file install edits: opencode.jsonc when
// only that exists, else opencode.json.
func (in *installer) configFile() string {
	jsonc := filepath.Join(in.configDir, "opencode.jsonc")
	plain := filepath.Join(in.configDir, "opencode.json")
	if _, err := os.Lstat(plain); err != nil {
		if _, err := os.Lstat(jsonc); err == nil {
			return jsonc
		}
	}
	return plain
}

func (in *installer) pluginFile() string { return filepath.Join(in.configDir, "plugin", "notesoup.js") }

func (in *installer) install() error {
	if in.bin == "" {
		p, err := exec.LookPath("notesoup")
		if err != nil {
			return fmt.Errorf("no notesoup on PATH to wire in: pass --binary")
		}
		in.bin = p
	}
	if !filepath.IsAbs(in.bin) {
		return fmt.Errorf("--binary %q is not an absolute path; OpenCode runs it from any folder", in.bin)
	}
	cfg := in.configFile()
	old, err := readOptional(cfg)
	if err != nil {
		return err
	}
	next, err := mergeServer(old, in.bin)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg, err)
	}
	js := strings.Replace(pluginJS, "__NOTESOUP_BIN__", jsString(in.bin), 1)
	oldJS, err := readOptional(in.pluginFile())
	if err != nil {
		return err
	}
	if oldJS != nil && !bytes.HasPrefix(oldJS, []byte(pluginMarker)) {
		return fmt.Errorf("%s is not one notesoup install wrote; rename or remove it, then install again", in.pluginFile())
	}
	if err := in.write(cfg, old, next); err != nil {
		return err
	}
	if err := in.write(in.pluginFile(), oldJS, []byte(js)); err != nil {
		return err
	}
	if in.changed > 0 && !in.dryRun {
		fmt.Fprintln(in.out, "OpenCode reads its configuration and plugins at start: restart running opencode sessions. The notes tools come from notesoup's MCP server; plugin/notesoup.js gives each window the boot block.")
	}
	return nil
}

func (in *installer) uninstall() error {
	cfg := in.configFile()
	old, err := readOptional(cfg)
	if err != nil {
		return err
	}
	next, msg, err := unmergeServer(old)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg, err)
	}
	if msg != "" {
		fmt.Fprintln(in.out, msg)
	}
	if err := in.write(cfg, old, next); err != nil {
		return err
	}
	js, err := readOptional(in.pluginFile())
	if err != nil {
		return err
	}
	switch {
	case js != nil && bytes.HasPrefix(js, []byte(pluginMarker)):
		if err := in.write(in.pluginFile(), js, nil); err != nil {
			return err
		}
		// The plugin folder goes too when install left it empty.
		if !in.dryRun {
			_ = os.Remove(filepath.Dir(in.pluginFile()))
		}
	case js != nil:
		fmt.Fprintf(in.out, "%s is kept: install did not write it\n", in.pluginFile())
	}
	fmt.Fprintln(in.out, "The notes are kept.")
	return nil
}

// write replaces path's content old with next (nil: remove the file), or
// says what it would do.
func (in *installer) write(path string, old, next []byte) error {
	if bytes.Equal(old, next) && (old == nil) == (next == nil) {
		if old != nil {
			fmt.Fprintf(in.out, "%s: already up to date\n", path)
		}
		return nil
	}
	in.changed++
	if in.dryRun {
		if next == nil {
			fmt.Fprintf(in.out, "would remove %s\n", path)
		} else {
			fmt.Fprintf(in.out, "would write %s\n\n--- %s (would be)\n%s\n", path, path, next)
		}
		return nil
	}
	if err := writeIfUnchanged(path, old, next); err != nil {
		return err
	}
	if next == nil {
		fmt.Fprintf(in.out, "removed %s\n", path)
	} else {
		fmt.Fprintf(in.out, "wrote %s\n", path)
	}
	return nil
}

// jsString is s as a JavaScript string literal (JSON's is one).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// mergeServer adds mcp.notesoup to an opencode.json (old nil: none yet),
// keeping everything else byte for byte. A different mcp.notesoup of a
// person's own is refused, not replaced.
func mergeServer(old []byte, bin string) ([]byte, error) {
	text := old
	if old == nil || len(bytes.TrimSpace(old)) == 0 {
		text = []byte(emptyFile)
	}
	d, err := jsonedit.Parse(text)
	if err != nil {
		return nil, err
	}
	want := wantServer(bin)
	servers, ok := d.Root.Get("mcp")
	if !ok {
		return d.AddMember(d.Root, d.Root.Start, "mcp", map[string]mcpServer{serverName: want}), nil
	}
	if servers.Value.Kind != '{' {
		return nil, fmt.Errorf(`"mcp" is not an object; fix it first`)
	}
	cur, ok := servers.Value.Get(serverName)
	if !ok {
		return d.AddMember(servers.Value, servers.KeyStart, serverName, want), nil
	}
	var have mcpServer
	if err := d.Decode(cur.Value, &have); err != nil || !isOurServer(have) {
		return nil, fmt.Errorf(`mcp.notesoup is not one notesoup install wrote (it does not run "mcp --harness opencode"); rename or remove it, then install again`)
	}
	if slices.Equal(have.Command, want.Command) {
		return text, nil
	}
	return d.Replace(cur.Value, want), nil
}

// unmergeServer takes mcp.notesoup out again, and mcp when install created
// it; nil means the file held nothing else (remove it).
func unmergeServer(old []byte) ([]byte, string, error) {
	if old == nil || len(bytes.TrimSpace(old)) == 0 {
		return old, "", nil
	}
	d, err := jsonedit.Parse(old)
	if err != nil {
		return nil, "", err
	}
	text, msg := old, ""
	if servers, ok := d.Root.Get("mcp"); ok && servers.Value.Kind == '{' {
		if i := servers.Value.Index(serverName); i >= 0 {
			var have mcpServer
			if d.Decode(servers.Value.Members[i].Value, &have) != nil || !isOurServer(have) {
				msg = `mcp.notesoup is kept: install did not write it (it does not run "mcp --harness opencode")`
			} else if text, err = jsonedit.DropIfEmpty(d.RemoveMember(servers.Value, i), "mcp"); err != nil {
				return nil, "", err
			}
		}
	}
	if string(text) == emptyFile {
		return nil, msg, nil
	}
	return text, msg, nil
}

// readOptional reads a configuration file that may not exist (nil): a
// regular file only, at most maxConfigBytes.
func readOptional(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; notesoup edits only plain files: change it by hand", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes; notesoup will not edit it", path, maxConfigBytes)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// writeIfUnchanged replaces path (through a link, to the file it names)
// with next atomically — a temporary file in the same folder, renamed over
// it, the mode kept — or removes it (next nil), unless the file changed
// since it was read as old: OpenCode and people edit it too.
func writeIfUnchanged(path string, old, next []byte) error {
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	now, err := readOptional(target)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) || (now == nil) != (old == nil) {
		return fmt.Errorf("%s changed while notesoup was editing it; nothing written, run the command again", path)
	}
	if next == nil {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("removing %s: %w", path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(target), err)
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".notesoup-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(next); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
