//go:build unix

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestAcquire: what Acquire makes of the path it is given.
func TestAcquire(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		wantErr string // "" when the lock must be taken
	}{
		{name: "missing file is created", setup: func(*testing.T, string) {}},
		{name: "existing file", setup: func(t *testing.T, p string) { write(t, p, "x") }},
		{name: "symbolic link refused", setup: func(t *testing.T, p string) {
			target := p + ".target"
			write(t, target, "")
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "too many levels of symbolic links"},
		{name: "FIFO refused without blocking", setup: func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "not a regular file"},
		{name: "folder refused", setup: func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".lock")
			tc.setup(t, path)
			l, err := Acquire(path, 0o600, time.Second)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Release(); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(path)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("lock file %v, %v: want a 0600 file", fi, err)
				}
				return
			}
			if err == nil {
				l.Release()
				t.Fatalf("Acquire took the lock, want an error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestBoundedWait: a held lock makes Acquire give up after its wait with
// ErrTimeout, and a released one is taken at once.
func TestBoundedWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	held, err := Acquire(path, 0o600, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	const wait = 150 * time.Millisecond
	start := time.Now()
	_, err = Acquire(path, 0o600, wait)
	took := time.Since(start)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if took < wait || took > wait+time.Second {
		t.Errorf("gave up after %v, want about %v", took, wait)
	}
	// Released while a waiter polls: the waiter gets it well inside its wait.
	go func() {
		time.Sleep(50 * time.Millisecond)
		held.Release()
	}()
	l, err := Acquire(path, 0o600, 5*time.Second)
	if err != nil {
		t.Fatalf("lock not taken after release: %v", err)
	}
	l.Release()
}

// TestExclusion: goroutines that each open the lock file anew exclude each
// other, so no read-modify-write of a shared counter file is lost.
func TestExclusion(t *testing.T) {
	dir := t.TempDir()
	lock, counter := filepath.Join(dir, ".lock"), filepath.Join(dir, "n")
	write(t, counter, "0")
	const workers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				l, err := Acquire(lock, 0o600, Wait)
				if err != nil {
					errs <- err
					return
				}
				b, _ := os.ReadFile(counter)
				n, _ := strconv.Atoi(string(b))
				// Yield inside the critical section, so an unlocked
				// interleaving would lose updates.
				time.Sleep(10 * time.Microsecond)
				err = os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o600)
				l.Release()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(counter)
	if got := string(b); got != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %s after %d locked increments: an update was lost", got, workers*each)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTimeoutNamesHolder: the holder writes its pid into the lock file,
// and a waiter that gives up returns a *TimeoutError naming it (matching
// ErrTimeout). A pid record left by an earlier holder is overwritten whole;
// a file without one gives PID 0 and the plain message.
func TestTimeoutNamesHolder(t *testing.T) {
	tests := []struct {
		name    string
		before  string // lock file contents before the holder takes it
		holdPID bool   // the holder is this process (Acquire writes the pid)
		wantPID int
	}{
		{name: "fresh file", holdPID: true, wantPID: os.Getpid()},
		{name: "longer stale record", before: "123456789012345678\ngarbage\n", holdPID: true, wantPID: os.Getpid()},
		{name: "holder wrote no pid", before: "", wantPID: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".lock")
			write(t, path, tc.before)
			var release func()
			if tc.holdPID {
				l, err := Acquire(path, 0o600, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				release = func() { l.Release() }
			} else {
				// A holder that does not write its pid (an older notesoup).
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
					t.Fatal(err)
				}
				release = func() { f.Close() }
			}
			defer release()
			_, err := Acquire(path, 0o600, 50*time.Millisecond)
			var te *TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want a *TimeoutError matching ErrTimeout", err)
			}
			if te.PID != tc.wantPID || te.Path != path {
				t.Errorf("timeout error names pid %d at %s, want %d at %s", te.PID, te.Path, tc.wantPID, path)
			}
			if want := "held by pid " + strconv.Itoa(tc.wantPID); (tc.wantPID > 0) != strings.Contains(err.Error(), want) {
				t.Errorf("message %q and %q", err, want)
			}
		})
	}
}

// TestGiveUpLeavesNoLock: a waiter that gave up does not keep the lock,
// nor take it for good when it frees: the thread it left in the kernel's
// queue drops it at once, so the next Acquire gets it.
func TestGiveUpLeavesNoLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	held, err := Acquire(path, 0o600, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := Acquire(path, 0o600, 20*time.Millisecond); !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
	}
	held.Release()
	l, err := Acquire(path, 0o600, 5*time.Second)
	if err != nil {
		t.Fatalf("after the holder released, the lock stayed taken: %v", err)
	}
	l.Release()
}

// TestTimeoutSaysBusy: a wait that saw the lock change hands (another pid
// in the file at its end than at its start) is reported as busy, not as
// one holder stuck for the whole wait.
func TestTimeoutSaysBusy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		handOver bool
	}{{"one holder", false}, {"changed hands", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".lock")
			l, err := Acquire(path, 0o600, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			if tc.handOver {
				go func() { // another holder's record, as a hand-over writes it
					time.Sleep(20 * time.Millisecond)
					os.WriteFile(path, pidRecord(999999), 0o600)
				}()
			}
			_, err = Acquire(path, 0o600, 300*time.Millisecond)
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TimeoutError", err)
			}
			if te.Busy != tc.handOver || strings.Contains(err.Error(), "in turn") != tc.handOver {
				t.Errorf("Busy = %v (%v), want %v", te.Busy, err, tc.handOver)
			}
		})
	}
}
