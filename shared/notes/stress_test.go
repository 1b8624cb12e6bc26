//go:build unix

package notes

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The stress test re-executes this test binary as helper processes; the
// helper's role comes from this environment variable.
const helperEnv = "NOTES_TEST_HELPER"

const (
	stressProcs    = 16              // concurrent writer processes, as the issue asks
	stressDuration = 3 * time.Second // long enough for thousands of contended ops, short enough for CI
	commonNotes    = 4               // notes every process replaces whole
	sharedAnchor   = "<!-- end -->"  // unique line every notes_edit appends before
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "stress":
		os.Exit(stressWorker())
	case "holdlock":
		os.Exit(holdLock())
	case "victim":
		os.Exit(victim())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// checksummed builds note text whose last line is the SHA-256 of the rest,
// so a torn or mixed note fails verifySum.
func checksummed(body string) string {
	sum := sha256.Sum256([]byte(body))
	return body + "sum: " + hex.EncodeToString(sum[:]) + "\n"
}

func verifySum(text string) error {
	i := strings.LastIndex(text, "sum: ")
	if i < 0 || !strings.HasSuffix(text, "\n") {
		return fmt.Errorf("no sum line in %q", Clip(text, 80))
	}
	sum := sha256.Sum256([]byte(text[:i]))
	if text[i+len("sum: "):len(text)-1] != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("sum mismatch in %q", Clip(text, 80))
	}
	return nil
}

// stressWorker runs one process's share of the stress test and prints one
// line per acknowledged update: "shared <token>" for a notes_edit on the
// shared note, "own <seq>" for a write of its own note.
func stressWorker() int {
	id, _ := strconv.Atoi(os.Getenv("NOTES_ID"))
	start, _ := strconv.ParseInt(os.Getenv("NOTES_START"), 10, 64)
	until, _ := strconv.ParseInt(os.Getenv("NOTES_UNTIL"), 10, 64)
	sp, err := Open(os.Getenv("NOTES_HOME")).Space(os.Getenv("NOTES_CWD"))
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	rng := rand.New(rand.NewSource(int64(id)))
	time.Sleep(time.Until(time.Unix(0, start)))
	own := fmt.Sprintf("own/w%02d.md", id)
	seq := 0
	for n := 0; time.Now().UnixNano() < until; n++ {
		switch op := rng.Intn(10); {
		case op < 4:
			token := fmt.Sprintf("w%02d-%06d", id, n)
			_, err := sp.Edit(EditRequest{Name: "shared.md", OldText: sharedAnchor, NewText: token + "\n" + sharedAnchor})
			if err != nil {
				fmt.Fprintln(out, "err edit", err)
				return 1
			}
			fmt.Fprintln(out, "shared", token)
		case op < 6:
			seq++
			if _, err := sp.Write(WriteRequest{Name: own, Content: checksummed(fmt.Sprintf("# w%02d\nseq: %d\n", id, seq))}); err != nil {
				fmt.Fprintln(out, "err write", err)
				return 1
			}
			fmt.Fprintln(out, "own", seq)
		case op < 8:
			body := fmt.Sprintf("# common\nwriter: %d\nn: %d\n%s\n", id, n, strings.Repeat("x", rng.Intn(4000)))
			if _, err := sp.Write(WriteRequest{Name: fmt.Sprintf("common/c%d.md", rng.Intn(commonNotes)), Content: checksummed(body)}); err != nil {
				fmt.Fprintln(out, "err write", err)
				return 1
			}
		case op < 9:
			name := fmt.Sprintf("common/c%d.md", rng.Intn(commonNotes))
			r, err := sp.Read(ReadRequest{Name: name})
			if CodeOf(err) == CodeNotFound {
				continue
			}
			if err != nil {
				fmt.Fprintln(out, "err read", err)
				return 1
			}
			if err := verifySum(r.Content); err != nil {
				fmt.Fprintln(out, "bad", name, err)
				return 1
			}
		default:
			if _, err := sp.List(ListRequest{}); err != nil {
				fmt.Fprintln(out, "err list", err)
				return 1
			}
		}
	}
	return 0
}

// victim replaces the common notes in a loop until it is killed, so the
// stress test can kill a writer mid-write (often while it holds the lock).
func victim() int {
	sp, err := Open(os.Getenv("NOTES_HOME")).Space(os.Getenv("NOTES_CWD"))
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	for n := 0; ; n++ {
		body := fmt.Sprintf("# common\nwriter: victim\nn: %d\n%s\n", n, strings.Repeat("v", 2000))
		if _, err := sp.Write(WriteRequest{Name: fmt.Sprintf("common/c%d.md", n%commonNotes), Content: checksummed(body)}); err != nil {
			fmt.Println("err", err)
			return 1
		}
	}
}

// holdLock takes the project scope's lock, says so, and waits to be killed.
func holdLock() int {
	sp, err := Open(os.Getenv("NOTES_HOME")).Space(os.Getenv("NOTES_CWD"))
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	unlock, err := sp.project.lock()
	if err != nil {
		fmt.Println("err", err)
		return 1
	}
	// Keep the lock's file reachable: its finalizer would close it (and drop
	// the lock) once nothing refers to it.
	heldUnlock = unlock
	fmt.Println("locked")
	// Sleep rather than block forever: "select {}" in a process with no
	// other goroutines is a fatal deadlock, which would exit and unlock.
	for {
		time.Sleep(time.Hour)
	}
}

var heldUnlock func()

func helperCmd(t *testing.T, role, home, cwd string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+role, "NOTES_HOME="+home, "NOTES_CWD="+cwd)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestStressConcurrentProcesses(t *testing.T) {
	sp := newSpace(t)
	home := filepath.Dir(filepath.Dir(sp.ProjectDir()))
	mustWrite(t, sp, "shared.md", "# shared\n"+sharedAnchor+"\n")

	start := time.Now().Add(500 * time.Millisecond) // let every process start before the clock runs
	until := start.Add(stressDuration)
	cmds := make([]*exec.Cmd, stressProcs)
	outs := make([]*bytes.Buffer, stressProcs)
	for i := range cmds {
		outs[i] = &bytes.Buffer{}
		cmds[i] = helperCmd(t, "stress", home, sp.Root(),
			"NOTES_ID="+strconv.Itoa(i), "NOTES_START="+strconv.FormatInt(start.UnixNano(), 10), "NOTES_UNTIL="+strconv.FormatInt(until.UnixNano(), 10))
		cmds[i].Stdout = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	// A 17th writer is killed mid-run: whatever it held (the lock, a
	// temporary file) must not stop the others or tear a note.
	vict := helperCmd(t, "victim", home, sp.Root())
	if err := vict.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(start.Add(stressDuration / 2)))
	vict.Process.Signal(syscall.SIGKILL)
	vict.Wait()

	acked := map[string]bool{}
	lastOwn := make([]int, stressProcs)
	var edits, writes int
	for i, c := range cmds {
		err := c.Wait()
		for _, line := range strings.Split(strings.TrimSpace(outs[i].String()), "\n") {
			kind, val, _ := strings.Cut(line, " ")
			switch kind {
			case "shared":
				acked[val] = true
				edits++
			case "own":
				lastOwn[i], _ = strconv.Atoi(val)
				writes++
			case "":
			default:
				t.Errorf("process %d: %s", i, line)
			}
		}
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	t.Logf("%d processes, %v: %d acknowledged edits of shared.md, %d acknowledged writes of own notes", stressProcs, stressDuration, edits, writes)
	if edits < stressProcs {
		t.Fatalf("only %d edits acknowledged; the test did not exercise contention", edits)
	}

	// Every acknowledged token is present exactly once, and nothing else was added.
	shared := string(mustFile(t, sp, "shared.md"))
	lines := strings.Split(strings.TrimSuffix(shared, "\n"), "\n")
	if lines[0] != "# shared" || lines[len(lines)-1] != sharedAnchor {
		t.Fatalf("shared.md lost its frame: first %q, last %q", lines[0], lines[len(lines)-1])
	}
	seen := map[string]bool{}
	for _, l := range lines[1 : len(lines)-1] {
		if !acked[l] {
			t.Errorf("shared.md has unacknowledged or torn line %q", l)
		}
		if seen[l] {
			t.Errorf("shared.md has %q twice", l)
		}
		seen[l] = true
	}
	for tok := range acked {
		if !seen[tok] {
			t.Errorf("acknowledged edit %q was lost", tok)
		}
	}
	// Each process's own note holds its last acknowledged write.
	for i, seq := range lastOwn {
		if seq == 0 {
			continue
		}
		got := string(mustFile(t, sp, fmt.Sprintf("own/w%02d.md", i)))
		if want := checksummed(fmt.Sprintf("# w%02d\nseq: %d\n", i, seq)); got != want {
			t.Errorf("own note of process %d = %q, want %q", i, got, want)
		}
	}
	// Every note parses: valid UTF-8, and checksummed notes match their sums.
	snap, err := sp.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range snap.Notes {
		if !utf8.ValidString(n.Content) {
			t.Errorf("%s is not UTF-8", n.Name)
		}
		if strings.HasPrefix(n.Name, "common/") || strings.HasPrefix(n.Name, "own/") {
			if err := verifySum(n.Content); err != nil {
				t.Errorf("%s: %v", n.Name, err)
			}
		}
	}
	filepath.WalkDir(sp.ProjectDir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestLockReleasedWhenHolderKilled shows a killed writer leaves no stale
// lock: the kernel drops its flock, and the next write proceeds.
func TestLockReleasedWhenHolderKilled(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "a.md", "before\n")
	home := filepath.Dir(filepath.Dir(sp.ProjectDir()))
	cmd := helperCmd(t, "holdlock", home, sp.Root())
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("holder said %q", line)
	}
	// While the holder lives, the lock is taken.
	f, err := os.Open(filepath.Join(sp.ProjectDir(), lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("lock not held by the helper: flock = %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	done := make(chan error, 1)
	go func() {
		_, err := sp.Write(WriteRequest{Name: "a.md", Content: "after\n"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a hang, not a speed target
		t.Fatal("write still blocked 10s after the lock holder was killed: stale lock")
	}
	if got := string(mustFile(t, sp, "a.md")); got != "after\n" {
		t.Errorf("a.md = %q", got)
	}
}

// TestConcurrentGoroutines covers one process serving parallel tool calls
// (an MCP server): each flock comes from its own open of the lock file, so
// goroutines exclude each other just as processes do.
func TestConcurrentGoroutines(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "shared.md", "# shared\n"+sharedAnchor+"\n")
	const workers, perWorker = 8, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < perWorker; i++ {
				tok := fmt.Sprintf("g%d-%d", w, i)
				if _, err := sp.Edit(EditRequest{Name: "shared.md", OldText: sharedAnchor, NewText: tok + "\n" + sharedAnchor}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got := string(mustFile(t, sp, "shared.md"))
	for w := 0; w < workers; w++ {
		for i := 0; i < perWorker; i++ {
			if tok := fmt.Sprintf("g%d-%d\n", w, i); strings.Count(got, tok) != 1 {
				t.Errorf("token %q appears %d times", tok, strings.Count(got, tok))
			}
		}
	}
}
