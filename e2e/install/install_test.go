//go:build e2e

// Package install checks the release archives `make dist` builds the way a
// person without Go would use them: the linux-amd64 archive unpacked and
// its notesoup run; `notesoup install pi|codex|claude` from it, checked
// with each pinned harness's own listing command (pi list, codex mcp list,
// claude plugin list) and undone by `notesoup uninstall`; the Pi package
// archive through `pi install`; the Claude marketplace archive through
// `claude plugin marketplace add` and `claude plugin install`. Every run
// has a fresh HOME under t.TempDir() and needs no network: make e2e-install
// (after make dist).
package install

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// cmdTimeout bounds one command; each takes seconds.
const cmdTimeout = 3 * time.Minute

// repoRoot is the repository's root (this file is e2e/install/).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// archive returns the one dist archive matching pattern.
func archive(t *testing.T, root, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(root, "dist", pattern))
	if len(m) != 1 {
		t.Fatalf("want one dist/%s, found %v: run make dist first", pattern, m)
	}
	return m[0]
}

// machine is a fresh HOME with the pinned CLIs on PATH.
type machine struct {
	home, notes string
	env         []string
}

func newMachine(t *testing.T, root string) *machine {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the pinned harness CLIs in .tools are linux-x64")
	}
	npm := filepath.Join(root, ".tools", "npm", "node_modules")
	claude := filepath.Join(npm, "@anthropic-ai", "claude-code-linux-x64")
	for _, p := range []string{filepath.Join(claude, "claude"), filepath.Join(npm, ".bin", "pi"), filepath.Join(npm, ".bin", "codex")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s missing: run e2e/install.sh", p)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found on PATH (pi runs on it): make deps-check")
	}
	home := t.TempDir()
	m := &machine{home: home, notes: filepath.Join(home, ".notesoup")}
	m.env = []string{
		"HOME=" + home,
		"PATH=" + strings.Join([]string{claude, filepath.Join(npm, ".bin"), filepath.Dir(node), "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"NOTESOUP_HOME=" + m.notes,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"NO_COLOR=1",
		"TMPDIR=" + t.TempDir(),
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	return m
}

// run runs name with args on the machine and returns its output; want
// says whether it must succeed.
func (m *machine) run(t *testing.T, want bool, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = m.env
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if want && err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// lookPath finds a command on the machine's PATH.
func (m *machine) lookPath(t *testing.T, name string) string {
	t.Helper()
	for _, kv := range m.env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(path) {
				if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode()&0o111 != 0 {
					return filepath.Join(d, name)
				}
			}
		}
	}
	t.Fatalf("%s not on the test PATH", name)
	return ""
}

// unpack extracts a .tar.gz into a new temporary folder.
func unpack(t *testing.T, m *machine, tgz string) string {
	t.Helper()
	dir := t.TempDir()
	m.run(t, true, dir, "tar", "-xzf", tgz, "-C", dir)
	return dir
}

// release unpacks the linux-amd64 archive (notesoup-<version>-…, whose
// version starts with a digit, unlike notesoup-pi-…), checks its SHA256SUMS, and
// returns its folder.
func release(t *testing.T, m *machine, root string) string {
	t.Helper()
	tgz := archive(t, root, "notesoup-[0-9]*-linux-amd64.tar.gz")
	dir := unpack(t, m, tgz)
	top := filepath.Join(dir, strings.TrimSuffix(filepath.Base(tgz), ".tar.gz"))
	for _, f := range []string{"bin/notesoup", "bin/notesoup-host", "README.md", "LICENSE", "NOTICE", "SHA256SUMS",
		"share/notesoup/claude-marketplace/.claude-plugin/marketplace.json", "share/notesoup/pi/package.json"} {
		if _, err := os.Stat(filepath.Join(top, f)); err != nil {
			t.Errorf("archive lacks %s", f)
		}
	}
	sums, err := os.Open(filepath.Join(top, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	n := 0
	for sc := bufio.NewScanner(sums); sc.Scan(); n++ {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(top, name))
		if err != nil {
			t.Fatalf("SHA256SUMS names %s: %v", name, err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: checksum differs from SHA256SUMS", name)
		}
	}
	if n < 5 {
		t.Errorf("SHA256SUMS lists %d files", n)
	}
	return top
}

func TestReleaseArchiveRuns(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	top := release(t, m, root)
	out := m.run(t, true, m.home, filepath.Join(top, "bin", "notesoup"), "--version")
	if !strings.Contains(out, "notesoup") || strings.TrimSpace(out) == "" {
		t.Errorf("notesoup --version: %q", out)
	}
	// The full build answers beside it (the MCP server lives there).
	if out := m.run(t, false, m.home, filepath.Join(top, "bin", "notesoup"), "doctor", "--json"); !strings.Contains(out, `"checks"`) {
		t.Errorf("doctor --json: %s", out)
	}
}

// installed is notesoup's install folder on the machine ($NOTESOUP_HOME).
func (m *machine) stage(name string) string { return filepath.Join(m.notes, "packages", name) }

func TestInstallPiFromReleaseArchive(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	ns := filepath.Join(release(t, m, root), "bin", "notesoup")
	pi := m.lookPath(t, "pi")
	settings := filepath.Join(m.home, ".pi", "agent", "settings.json")

	dry := m.run(t, true, m.home, ns, "install", "pi", "--dry-run")
	if !strings.Contains(dry, "would run: pi install") {
		t.Errorf("dry run: %s", dry)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Errorf("dry run wrote %s", settings)
	}
	out := m.run(t, true, m.home, ns, "install", "pi")
	if !strings.Contains(out, "ran: pi install "+m.stage("pi")) {
		t.Errorf("install pi: %s", out)
	}
	if list := m.run(t, true, m.home, pi, "list"); !strings.Contains(list, m.stage("pi")) {
		t.Errorf("pi list after install lacks %s:\n%s", m.stage("pi"), list)
	}
	if fi, err := os.Stat(filepath.Join(m.stage("pi"), "bin", "notesoup")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("staged package has no runnable bin/notesoup: %v", err)
	}
	if out := m.run(t, true, m.home, ns, "install", "pi"); !strings.Contains(out, "already installed") {
		t.Errorf("second install pi: %s", out)
	}
	// Notes survive uninstall.
	note := filepath.Join(m.notes, "global", "keep.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("# keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out = m.run(t, true, m.home, ns, "uninstall", "pi")
	if !strings.Contains(out, "ran: pi remove") {
		t.Errorf("uninstall pi: %s", out)
	}
	if list := m.run(t, true, m.home, pi, "list"); strings.Contains(list, m.stage("pi")) {
		t.Errorf("pi list after uninstall still shows it:\n%s", list)
	}
	if _, err := os.Stat(settings); err == nil {
		b, _ := os.ReadFile(settings)
		t.Errorf("settings.json did not exist before install and is left: %s", b)
	}
	if _, err := os.Stat(m.stage("pi")); err == nil {
		t.Errorf("staged package left after uninstall")
	}
	if _, err := os.Stat(note); err != nil {
		t.Errorf("uninstall removed a note: %v", err)
	}
}

func TestInstallCodexFromReleaseArchive(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	ns := filepath.Join(release(t, m, root), "bin", "notesoup")
	codex := m.lookPath(t, "codex")
	installed := filepath.Join(m.notes, "bin", "notesoup")

	m.run(t, true, m.home, ns, "install", "codex")
	list := m.run(t, true, m.home, codex, "mcp", "list")
	if !strings.Contains(list, "notesoup") || !strings.Contains(list, installed) {
		t.Errorf("codex mcp list after install lacks notesoup running %s:\n%s", installed, list)
	}
	// The harness runs the installed copy, not the unpacked archive.
	if strings.Contains(list, filepath.Dir(ns)) {
		t.Errorf("codex runs the archive's binary, not the installed one:\n%s", list)
	}
	if out := m.run(t, true, m.home, installed, "--version"); strings.TrimSpace(out) == "" {
		t.Errorf("installed notesoup --version: %q", out)
	}
	m.run(t, true, m.home, ns, "uninstall", "codex")
	if list := m.run(t, true, m.home, codex, "mcp", "list"); strings.Contains(list, "notesoup") {
		t.Errorf("codex mcp list after uninstall still shows notesoup:\n%s", list)
	}
}

func TestInstallClaudeFromReleaseArchive(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	ns := filepath.Join(release(t, m, root), "bin", "notesoup")
	claude := m.lookPath(t, "claude")
	settings := filepath.Join(m.home, ".claude", "settings.json")

	out := m.run(t, true, m.home, ns, "install", "claude")
	if !strings.Contains(out, "ran: claude plugin install notesoup@notesoup") {
		t.Errorf("install claude: %s", out)
	}
	list := m.run(t, true, m.home, claude, "plugin", "list", "--json")
	if !strings.Contains(list, `"notesoup@notesoup"`) || !strings.Contains(list, m.stage("claude-marketplace")) {
		t.Errorf("claude plugin list after install lacks notesoup@notesoup loading from %s:\n%s", m.stage("claude-marketplace"), list)
	}
	if out := m.run(t, true, m.home, ns, "install", "claude"); !strings.Contains(out, "already installed and enabled") {
		t.Errorf("second install claude: %s", out)
	}
	m.run(t, true, m.home, ns, "uninstall", "claude")
	if list := m.run(t, true, m.home, claude, "plugin", "list", "--json"); strings.Contains(list, "notesoup@notesoup") {
		t.Errorf("claude plugin list after uninstall still shows notesoup:\n%s", list)
	}
	if b, err := os.ReadFile(settings); err == nil && strings.Contains(string(b), "notesoup") {
		t.Errorf("settings.json still names notesoup: %s", b)
	}
}

// TestPiPackageArchive: the Pi package archive alone, installed with
// pi install on the unpacked folder (no Go, no notesoup install).
func TestPiPackageArchive(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	dir := filepath.Join(unpack(t, m, archive(t, root, "notesoup-pi-*-linux-amd64.tar.gz")), "notesoup-pi")
	pi := m.lookPath(t, "pi")
	if out := m.run(t, true, dir, filepath.Join(dir, "bin", "notesoup"), "--version"); strings.TrimSpace(out) == "" {
		t.Errorf("package's notesoup --version: %q", out)
	}
	m.run(t, true, m.home, pi, "install", dir)
	if list := m.run(t, true, m.home, pi, "list"); !strings.Contains(list, dir) {
		t.Errorf("pi list lacks %s:\n%s", dir, list)
	}
	m.run(t, true, m.home, pi, "remove", dir)
	if list := m.run(t, true, m.home, pi, "list"); strings.Contains(list, dir) {
		t.Errorf("pi list after remove still shows %s:\n%s", dir, list)
	}
}

// TestClaudeMarketplaceArchive: the marketplace archive alone, with
// Claude's own commands.
func TestClaudeMarketplaceArchive(t *testing.T) {
	root := repoRoot(t)
	m := newMachine(t, root)
	dir := filepath.Join(unpack(t, m, archive(t, root, "notesoup-claude-*.tar.gz")), "notesoup-claude-marketplace")
	claude := m.lookPath(t, "claude")
	m.run(t, true, m.home, claude, "plugin", "marketplace", "add", dir)
	m.run(t, true, m.home, claude, "plugin", "install", "notesoup@notesoup")
	if list := m.run(t, true, m.home, claude, "plugin", "list", "--json"); !strings.Contains(list, `"notesoup@notesoup"`) {
		t.Errorf("claude plugin list lacks notesoup@notesoup:\n%s", list)
	}
	m.run(t, true, m.home, claude, "plugin", "uninstall", "notesoup@notesoup")
	m.run(t, true, m.home, claude, "plugin", "marketplace", "remove", "notesoup")
	if list := m.run(t, true, m.home, claude, "plugin", "list", "--json"); strings.Contains(list, "notesoup@notesoup") {
		t.Errorf("claude plugin list after uninstall still shows notesoup:\n%s", list)
	}
}
