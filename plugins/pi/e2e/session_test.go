//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// bootsIn counts boot blocks in a request body (the JSON-escaped text pi
// sends).
func bootsIn(body string) int {
	return strings.Count(body, `<notesoup-boot window=\"pi:`)
}

func bootMessages(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] == "custom_message" && m["customType"] == "notesoup-boot" {
			c, _ := m["content"].(string)
			out = append(out, c)
		}
	}
	return out
}

func TestBootOncePerWindowAcrossResumeAndFork(t *testing.T) {
	e := setup(t, "plain.json", nil)
	e.run(t, nil, "-p", "Say hello")
	files, _ := e.w.SessionFiles("pi")
	if len(files) != 1 {
		t.Fatalf("want one session file, got %v", files)
	}
	parent := files[0]
	sid := strings.TrimSuffix(filepath.Base(parent)[strings.LastIndex(filepath.Base(parent), "_")+1:], ".jsonl")

	e.run(t, nil, "-p", "--session", parent, "Say it again")
	if b := bootMessages(t, parent); len(b) != 1 || !strings.Contains(b[0], `window="pi:`+sid+`:0"`) {
		t.Errorf("after resume the session holds %d boot messages, want the one of window pi:%s:0", len(b), sid)
	}

	e.run(t, nil, "-p", "--fork", parent, "Fork it")
	files, _ = e.w.SessionFiles("pi")
	sort.Strings(files)
	var child string
	for _, f := range files {
		if f != parent {
			child = f
		}
	}
	if child == "" {
		t.Fatalf("fork wrote no new session file: %v", files)
	}
	cid := strings.TrimSuffix(filepath.Base(child)[strings.LastIndex(filepath.Base(child), "_")+1:], ".jsonl")
	cb := bootMessages(t, child)
	if len(cb) == 0 || !strings.Contains(cb[len(cb)-1], `window="pi:`+cid+`:0"`) {
		t.Errorf("forked session's newest boot is not its own window pi:%s:0: %d boots", cid, len(cb))
	}

	bodies := e.bodies()
	if len(bodies) != 3 {
		t.Fatalf("model requests = %d, want 3", len(bodies))
	}
	for i, b := range bodies {
		if n := bootsIn(b); n != 1 {
			t.Errorf("request %d carries %d boot blocks, want 1", i+1, n)
		}
	}
	if !strings.Contains(bodies[2], "pi:"+cid+":0") || strings.Contains(bodies[2], "pi:"+sid+":0") {
		t.Errorf("forked request does not carry exactly the fork's own boot")
	}
}

func TestDisabled(t *testing.T) {
	e := setup(t, "plain.json", nil)
	e.run(t, []string{"NOTESOUP_DISABLED=1"}, "-p", "Say hello")
	bodies := e.bodies()
	if len(bodies) != 1 {
		t.Fatalf("model requests = %d, want 1", len(bodies))
	}
	for _, gone := range []string{"notesoup-boot", "notes_write", "empty_brain", "history_list"} {
		if strings.Contains(bodies[0], gone) {
			t.Errorf("with NOTESOUP_DISABLED the request still carries %q", gone)
		}
	}
}

func TestStatusCommand(t *testing.T) {
	e := setup(t, "plain.json", nil)
	e.run(t, nil, "-p", "Say hello")
	files, _ := e.w.SessionFiles("pi")
	_, stderr := e.run(t, nil, "-p", "--session", files[0], "/notesoup status")
	for _, want := range []string{"notesoup: binary ", "(plugin)", "Window pi:", ":0; no reset pending", "Hard point (automatic reset): 175,424 tokens"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("/notesoup status output lacks %q:\n%s", want, stderr)
		}
	}
	if n := len(e.bodies()); n != 1 {
		t.Errorf("/notesoup status made %d model requests, want none after the first run's one", n-1)
	}
}

// TestInstalledPackage installs the plugin folder with pi's own package
// mechanism (pi install <path>) and runs without -e; the binary is named
// with --notesoup-bin, which wins over the plugin-local build.
func TestInstalledPackage(t *testing.T) {
	e := setup(t, "plain.json", nil)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	opts := modelserver.AgentOptions{PiContextWindow: contextWindow, Env: []string{"NOTESOUP_HOME=" + e.notesHome}}
	install, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), opts, "install", e.ext)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("pi install %s: %v\n%s", e.ext, err, out)
	}
	// A copy of the binary elsewhere: only the flag can name it.
	bin := filepath.Join(e.w.Dir, "elsewhere", "notesoup")
	raw, err := os.ReadFile(filepath.Join(e.ext, "bin", "notesoup"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	run, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), opts,
		"-nc", "--provider", "fake", "--model", modelserver.DefaultModel, "--notesoup-bin", bin, "-p", "/notesoup status")
	if err != nil {
		t.Fatal(err)
	}
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "notesoup: binary "+bin+" (flag)") {
		t.Errorf("installed package did not load or did not use --notesoup-bin:\n%s", out)
	}
}

// TestEmptyCommand: /notesoup empty while idle gives the model one hidden
// close-out turn (the budget warning) to save notes, then empties the
// window with no continuation; the next prompt starts from the boot.
func TestEmptyCommand(t *testing.T) {
	e := setup(t, "empty.json", nil)
	e.run(t, nil, "-p", "Say hello")
	files, _ := e.w.SessionFiles("pi")
	_, stderr := e.run(t, nil, "-p", "--session", files[0], "/notesoup empty")
	t.Logf("pi stderr:\n%s", stderr)
	bodies := e.bodies()
	if len(bodies) != 3 {
		t.Fatalf("model requests after /notesoup empty = %d, want 3 (hello, close-out, its tool follow-up; no continuation)", len(bodies))
	}
	// The close-out's cause is the person's request: at 1,000 tokens the
	// window is not "nearly full" and nothing counts down.
	if !strings.Contains(bodies[1], "asked for this context window to be emptied") {
		t.Errorf("close-out request does not carry the close-out text:\n%.3000s", bodies[1])
	}
	for _, wrong := range []string{warningPhrase, "nearly full", "filled up"} {
		if strings.Contains(bodies[1], wrong) {
			t.Errorf("close-out request says %q", wrong)
		}
	}
	es := e.entries(t)
	comps := ofType(es, "compaction")
	if len(comps) != 1 {
		t.Fatalf("compaction entries = %d, want 1", len(comps))
	}
	if s, _ := comps[0]["summary"].(string); !strings.Contains(s, "the deploy key rotates on Fridays") {
		t.Errorf("boot after /notesoup empty lacks the note saved in the close-out:\n%s", s)
	}
	e.run(t, nil, "-p", "--session", files[0], "What do you remember?")
	next := e.bodies()[3]
	if !strings.Contains(next, "the deploy key rotates on Fridays") || strings.Contains(next, "Say hello") {
		t.Errorf("the prompt after /notesoup empty does not start from the clean boot:\n%.3000s", next)
	}
}
