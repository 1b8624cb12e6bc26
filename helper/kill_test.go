package helper_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/notes"
)

// killRounds is how many `notesoup helper` processes are SIGKILLed at a
// random point of a notes.write. The kill times spread uniformly over
// 1.2 times the longest of a few uninterrupted runs, so kills land before
// the request is read, during the write and after the answer.
const killRounds = 40

// sealed returns note text (about 22 KB, under the 32 KiB a notes_read
// answer holds) whose last line is the SHA-256 of the rest, so a
// torn or mixed note is detected.
func sealed(version int) string {
	body := fmt.Sprintf("# k\nversion: %d\n%s\n", version, strings.Repeat(fmt.Sprintf("line of version %d\n", version), 1200))
	sum := sha256.Sum256([]byte(body))
	return body + "sum: " + hex.EncodeToString(sum[:]) + "\n"
}

// versionOf checks a sealed note and returns its version.
func versionOf(text string) (int, error) {
	i := strings.LastIndex(text, "sum: ")
	if i < 0 || !strings.HasSuffix(text, "\n") {
		return 0, fmt.Errorf("no seal in %q", notes.Clip(text, 60))
	}
	sum := sha256.Sum256([]byte(text[:i]))
	if text[i+len("sum: "):len(text)-1] != hex.EncodeToString(sum[:]) {
		return 0, fmt.Errorf("seal mismatch: a torn or mixed note")
	}
	var v int
	_, err := fmt.Sscanf(text, "# k\nversion: %d\n", &v)
	return v, err
}

// TestHelperKilledDuringWrite SIGKILLs `notesoup helper` processes at
// random points of a notes.write. After each kill the note must read as the
// previous version or the new one, never a mix, and no temp file may show
// up as a note.
func TestHelperKilledDuringWrite(t *testing.T) {
	e := newEnv(t)
	home := homeOf(e)
	sp, err := notes.Open(home).Space(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Write(notes.WriteRequest{Name: "k.md", Content: sealed(0)}); err != nil {
		t.Fatal(err)
	}
	write := func(version int) *exec.Cmd {
		req, _ := json.Marshal(map[string]any{"v": 1, "op": "notes.write", "caller": map[string]string{"cwd": e.cwd},
			"args": map[string]string{"name": "k.md", "content": sealed(version)}})
		cmd := exec.Command(e.bin, "helper")
		cmd.Env = e.vars
		cmd.Stdin = strings.NewReader(string(req))
		return cmd
	}
	var longest time.Duration
	for range 3 {
		start := time.Now()
		if out, err := write(0).CombinedOutput(); err != nil {
			t.Fatalf("uninterrupted write: %v: %s", err, out)
		}
		longest = max(longest, time.Since(start))
	}
	killWindow := longest * 6 / 5
	current := 0
	outcomes := map[string]int{}
	for round := 1; round <= killRounds; round++ {
		cmd := write(round)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(killWindow))))
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		killed := err != nil && strings.Contains(err.Error(), "killed")

		r, err := sp.Read(notes.ReadRequest{Name: "k.md"})
		if err != nil {
			t.Fatalf("round %d: reading after the kill: %v", round, err)
		}
		v, err := versionOf(r.Content)
		switch {
		case err != nil:
			t.Fatalf("round %d: %v", round, err)
		case v == current:
			outcomes["old note (killed before the rename)"]++
		case v == round:
			current = round
			outcomes["new note"]++
		default:
			t.Fatalf("round %d: note is version %d, want %d (old) or %d (new)", round, v, current, round)
		}
		if !killed && v != round {
			t.Fatalf("round %d: the helper exited normally but the note is still version %d", round, v)
		}
	}
	list, err := sp.List(notes.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Notes) != 1 || list.Notes[0].Name != "k.md" {
		t.Errorf("notes after the kills: %+v, want only k.md", list.Notes)
	}
	t.Logf("%d kills over %v: %v (temp files on disk: %d)", killRounds, killWindow, outcomes, countTemps(t, home))
	if outcomes["new note"] == 0 || outcomes["old note (killed before the rename)"] == 0 {
		t.Logf("every kill landed on the same side of the rename; the random window did not spread")
	}
}

// countTemps counts leftover temporary files in the notes home.
func countTemps(t *testing.T, home string) int {
	n := 0
	m, _ := filepath.Glob(filepath.Join(home, "*", "*", ".tmp-*"))
	n += len(m)
	m, _ = filepath.Glob(filepath.Join(home, "*", ".tmp-*"))
	return n + len(m)
}
