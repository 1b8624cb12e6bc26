//go:build linux

package notes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Fault injection for the notes store: a notes folder that is read-only or
// full must give a clear error and leave every note as it was (no partial
// or empty note, no temp file left behind). The stale-lock case is
// TestLockReleasedWhenHolderKilled.
//
// Both faults use a real filesystem: a small tmpfs mounted over the notes
// home (read-only by remounting it). Where mounting is not permitted the
// tests fall back to a child process — running as nobody over a chmod'ed
// folder, or under RLIMIT_FSIZE — so they never skip. Setting
// NOTES_TEST_NO_MOUNT=1 forces the fallback.

// faultChildEnv selects TestFaultChild's job in a child process.
const faultChildEnv = "NOTES_FAULT_CHILD"

// nobody is the unprivileged uid/gid the read-only fallback runs as, so a
// root test process still meets permission checks.
const nobody = 65534

// mountTmpfs mounts a tmpfs of the given size on dir and unmounts it when
// the test ends. It reports false when mounting is not permitted.
func mountTmpfs(t *testing.T, dir, size string) bool {
	t.Helper()
	if os.Getenv("NOTES_TEST_NO_MOUNT") != "" {
		return false
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Logf("mount not permitted (%v: %s); using the fallback", err, strings.TrimSpace(string(out)))
		return false
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return true
}

// faultOps are the mutations tried on a faulty folder; each must fail.
var faultOps = []struct {
	name string
	run  func(sp *Space) error
}{
	{"write existing", func(sp *Space) error {
		_, err := sp.Write(WriteRequest{Name: "a.md", Content: "new " + strings.Repeat("n", 30<<10) + "\n"})
		return err
	}},
	{"write new", func(sp *Space) error {
		_, err := sp.Write(WriteRequest{Name: "b.md", Content: "fresh " + strings.Repeat("f", 30<<10) + "\n"})
		return err
	}},
	{"edit", func(sp *Space) error {
		_, err := sp.Edit(EditRequest{Name: "a.md", OldText: "old", NewText: "edited " + strings.Repeat("e", 30<<10)})
		return err
	}},
}

// TestFaultChild is the child side of the fallbacks: it runs faultOps and
// prints one line per op, "ok" or the error. It does nothing unless started
// by a fault test.
func TestFaultChild(t *testing.T) {
	job := os.Getenv(faultChildEnv)
	if job == "" {
		return
	}
	if job == "fsize" {
		// Files may grow to fsizeLimit bytes: enough for the lock file,
		// far too little for a note of 30 KiB.
		const fsizeLimit = 4096
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: fsizeLimit, Max: fsizeLimit}); err != nil {
			fmt.Println("setrlimit", err)
			os.Exit(2)
		}
	}
	sp, err := Open(os.Getenv("NOTES_HOME")).Space(os.Getenv("NOTES_CWD"))
	if err != nil {
		fmt.Println("space", err)
		os.Exit(2)
	}
	for _, op := range faultOps {
		if err := op.run(sp); err != nil {
			fmt.Printf("%s: %s\n", op.name, strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Printf("%s: ok\n", op.name)
		}
	}
	os.Exit(0)
}

// runFaultChild runs TestFaultChild with job and returns its lines.
func runFaultChild(t *testing.T, job, home, cwd string, cred *syscall.Credential) []string {
	t.Helper()
	bin := os.Args[0]
	if cred != nil {
		// The go test build folder is private to its owner; give the
		// unprivileged child a copy it may execute.
		dir := filepath.Dir(home)
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "notes.test")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestFaultChild$")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+job, "NOTES_HOME="+home, "NOTES_CWD="+cwd)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fault child %s: %v\n%s", job, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// checkIntact asserts a.md still holds the old text, b.md does not exist
// and no temp file is left in the notes home.
func checkIntact(t *testing.T, sp *Space, home string) {
	t.Helper()
	r, err := sp.Read(ReadRequest{Name: "a.md"})
	if err != nil {
		t.Fatalf("reading a.md after the fault: %v", err)
	}
	if !strings.Contains(r.Content, "old note") || strings.Contains(r.Content, "new") || strings.Contains(r.Content, "edited") {
		t.Errorf("a.md changed: %q", Clip(r.Content, 80))
	}
	if _, err := sp.Read(ReadRequest{Name: "b.md"}); CodeOf(err) != CodeNotFound {
		t.Errorf("b.md after a failed create: err = %v, want not_found", err)
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

// checkRefused asserts every op failed with a message naming the cause.
func checkRefused(t *testing.T, lines []string, cause ...string) {
	t.Helper()
	if len(lines) != len(faultOps) {
		t.Fatalf("child printed %q, want one line per op", lines)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, faultOps[i].name+": ") || strings.HasSuffix(l, ": ok") {
			t.Errorf("op %s: %q, want a refusal", faultOps[i].name, l)
			continue
		}
		found := false
		for _, c := range cause {
			found = found || strings.Contains(l, c)
		}
		if !found {
			t.Errorf("op %s: %q does not name the cause (any of %q)", faultOps[i].name, l, cause)
		}
	}
}

func opLines(sp *Space) []string {
	var lines []string
	for _, op := range faultOps {
		if err := op.run(sp); err != nil {
			lines = append(lines, op.name+": "+err.Error())
		} else {
			lines = append(lines, op.name+": ok")
		}
	}
	return lines
}

// faultSpace returns a project space whose notes home is home.
func faultSpace(t *testing.T, home string) (*Space, string) {
	t.Helper()
	proj := t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := Open(home).Space(proj)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, sp, "a.md", "# a\nold note\n")
	return sp, proj
}

func TestReadOnlyNotesDir(t *testing.T) {
	home := t.TempDir()
	if mountTmpfs(t, home, "1m") {
		sp, _ := faultSpace(t, home)
		if out, err := exec.Command("mount", "-o", "remount,ro", home).CombinedOutput(); err != nil {
			t.Fatalf("remount ro: %v: %s", err, out)
		}
		checkRefused(t, opLines(sp), "read-only file system")
		checkIntact(t, sp, home)
		return
	}
	// Fallback: a folder without write permission, met by an unprivileged
	// process (root ignores permissions, so root runs the ops as nobody).
	if err := os.Chmod(filepath.Dir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, proj := faultSpace(t, home)
	if err := os.Chmod(filepath.Dir(proj), 0o755); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	for _, d := range dirs {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	checkRefused(t, runFaultChild(t, "readonly", home, proj, cred), "permission denied")
	checkIntact(t, sp, home)
}

func TestFullNotesDir(t *testing.T) {
	home := t.TempDir()
	if mountTmpfs(t, home, "256k") {
		sp, _ := faultSpace(t, home)
		// Fill the filesystem to the last block.
		filler := filepath.Join(home, "filler")
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		chunk := make([]byte, 4096)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling: %v", err)
				}
				break
			}
		}
		f.Close()
		checkRefused(t, opLines(sp), "no space left on device")
		checkIntact(t, sp, home)
		// Room again: the store recovers with no repair.
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, sp, "a.md", "# a\nafter\n")
		return
	}
	// Fallback: a file size limit makes every note write fail with EFBIG.
	sp, proj := faultSpace(t, home)
	checkRefused(t, runFaultChild(t, "fsize", home, proj, nil), "file too large")
	checkIntact(t, sp, home)
}
