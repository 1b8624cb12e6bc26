package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-multierror"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/shared/history"
)

// testPlugin is the path of host/internal/testplugin, built once by TestMain.
var testPlugin string

// buildDir holds the plugins the tests build; TestMain removes it, so no
// run leaves a binary behind.
var buildDir string

func TestMain(m *testing.M) {
	if os.Getenv("NOTESOUP_HOST_TEST_CHILD") != "" {
		runChildHost()
		return
	}
	dir, err := os.MkdirTemp("", "notesoup-host-test")
	if err != nil {
		panic(err)
	}
	buildDir = dir
	testPlugin = filepath.Join(dir, "testplugin")
	if out, err := exec.Command("go", "build", "-o", testPlugin, "./internal/testplugin").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic(fmt.Sprintf("building test plugin: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pluginDir lays out external plugins named notesoup-harness-<name> (links
// to the one test plugin build) and returns the directory.
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(testPlugin, filepath.Join(dir, plugindir.Prefix+n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newTestHost(t testing.TB, opts ...Option) *Host {
	t.Helper()
	base := []Option{WithTimeouts(5*time.Second, 2*time.Second, 2*time.Second)}
	h := New(append(base, opts...)...)
	t.Cleanup(h.Close)
	return h
}

// TestFailuresAreNamedAndOthersAnswer is the host's core promise: every kind
// of broken plugin yields an error naming it, and a healthy one still answers.
func TestFailuresAreNamedAndOthersAnswer(t *testing.T) {
	dir := pluginDir(t, "ok1", "crash1", "hang1", "v2", "garbage1", "liar1", "slowstart1")
	// The start timeout is generous: seven plugins start at once, and on a
	// loaded 2-core CI machine a healthy start can take seconds.
	h := newTestHost(t, WithPluginDirs(dir), WithTimeouts(8*time.Second, 2*time.Second, 2*time.Second))

	var answered []string
	err := h.Each(context.Background(), nil, func(name string, hz contract.Harness) error {
		n := 0
		if err := hz.ListSessions(context.Background(), contract.SessionFilter{}, func(history.Session) error { n++; return nil }); err != nil {
			return err
		}
		answered = append(answered, fmt.Sprintf("%s:%d", name, n))
		return nil
	})
	if fmt.Sprint(answered) != "[ok1:1]" {
		t.Errorf("answered = %v, want only ok1 with its one session", answered)
	}
	var merr *multierror.Error
	if !errors.As(err, &merr) {
		t.Fatalf("err = %v, want a multierror", err)
	}
	want := map[string]string{ // plugin -> text its error must contain
		"crash1":     "list sessions",
		"hang1":      "DeadlineExceeded",
		"v2":         "host speaks version 1",
		"garbage1":   "start",
		"liar1":      `calls itself "somebody-else"`,
		"slowstart1": "start",
	}
	if len(merr.Errors) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(merr.Errors), len(want), err)
	}
	for _, e := range merr.Errors {
		var pe *PluginError
		if !errors.As(e, &pe) {
			t.Errorf("error %v is not a PluginError", e)
			continue
		}
		frag, ok := want[pe.Name]
		if !ok {
			t.Errorf("unexpected failure of %q: %v", pe.Name, e)
			continue
		}
		if !strings.Contains(e.Error(), frag) || !strings.Contains(e.Error(), `"`+pe.Name+`"`) || !strings.Contains(e.Error(), dir) {
			t.Errorf("error for %s = %q; want it to name the plugin, its path and contain %q", pe.Name, e, frag)
		}
		delete(want, pe.Name)
	}
	for name := range want {
		t.Errorf("no error reported for %s", name)
	}
}

func TestPluginIsReusedAndRestartedAfterCrash(t *testing.T) {
	dir := pluginDir(t, "ok1", "crash1")
	h := newTestHost(t, WithPluginDirs(dir))
	ctx := context.Background()

	pid := func(name string) int {
		h.mu.Lock()
		defer h.mu.Unlock()
		r, ok := h.running[name]
		if !ok {
			return 0
		}
		return r.client.ReattachConfig().Pid
	}
	for i := 0; i < 3; i++ {
		hz, err := h.Harness(ctx, "ok1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hz.Describe(ctx); err != nil {
			t.Fatal(err)
		}
	}
	first := pid("ok1")
	if first == 0 {
		t.Fatal("ok1 not running after use")
	}
	if _, err := h.Harness(ctx, "ok1"); err != nil || pid("ok1") != first {
		t.Fatalf("ok1 restarted (pid %d -> %d), want reuse", first, pid("ok1"))
	}

	hz, err := h.Harness(ctx, "crash1")
	if err != nil {
		t.Fatal(err)
	}
	crashPid := pid("crash1")
	if err := hz.ListSessions(ctx, contract.SessionFilter{}, func(history.Session) error { return nil }); err == nil {
		t.Fatal("crash1 ListSessions succeeded, want an error")
	}
	if pid("crash1") != 0 {
		t.Fatal("crashed plugin still registered as running")
	}
	hz, err = h.Harness(ctx, "crash1")
	if err != nil {
		t.Fatalf("restart after crash: %v", err)
	}
	if _, err := hz.Describe(ctx); err != nil {
		t.Fatalf("describe after restart: %v", err)
	}
	if p := pid("crash1"); p == 0 || p == crashPid {
		t.Fatalf("crash1 pid after restart = %d, was %d: want a fresh process", p, crashPid)
	}
}

func TestExternalOverridesBuiltin(t *testing.T) {
	tests := []struct {
		name       string
		external   []string
		wantSource func(dir string) string
	}{
		{name: "built-in only", wantSource: func(string) string { return SourceBuiltin }},
		{name: "external wins", external: []string{"ok7"}, wantSource: func(dir string) string { return filepath.Join(dir, plugindir.Prefix+"ok7") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := pluginDir(t, tc.external...)
			h := newTestHost(t, WithPluginDirs(dir), WithBuiltins("ok7"), WithSelf(testPlugin))
			d, src, err := h.Describe(context.Background(), "ok7")
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != "ok7" || src != tc.wantSource(dir) {
				t.Fatalf("Describe = %+v from %q, want ok7 from %q", d, src, tc.wantSource(dir))
			}
		})
	}
}

func TestUnknownHarness(t *testing.T) {
	h := newTestHost(t, WithPluginDirs(t.TempDir()), WithBuiltins("ok1"))
	_, err := h.Harness(context.Background(), "nope")
	if !errors.Is(err, ErrUnknownHarness) || !strings.Contains(err.Error(), "[ok1]") {
		t.Fatalf("err = %v, want ErrUnknownHarness listing the known harnesses", err)
	}
}

func TestDecodeThroughHost(t *testing.T) {
	h := newTestHost(t, WithPluginDirs(pluginDir(t, "ok1")))
	hz, err := h.Harness(context.Background(), "ok1")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	sum, err := hz.Decode(context.Background(), contract.DecodeRequest{Session: history.Session{ID: "s"}},
		func(e history.Event) error { texts = append(texts, e.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(texts) != "[event 1 event 2 event 3]" || fmt.Sprint(sum.Windows) != "[ok1:s:0]" {
		t.Fatalf("decode = %v %+v", texts, sum)
	}
	// A caller's own error stops the stream and comes back unwrapped.
	stop := errors.New("enough")
	_, err = hz.Decode(context.Background(), contract.DecodeRequest{Session: history.Session{ID: "s"}},
		func(history.Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's own error", err)
	}
}

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state field follows the parenthesized command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("plugin pid %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseKillsPlugins(t *testing.T) {
	h := newTestHost(t, WithPluginDirs(pluginDir(t, "ok1")))
	if _, err := h.Harness(context.Background(), "ok1"); err != nil {
		t.Fatal(err)
	}
	pid := h.running["ok1"].client.ReattachConfig().Pid
	h.Close()
	waitDead(t, pid)
	if _, err := h.Harness(context.Background(), "ok1"); err == nil {
		t.Fatal("closed host started a plugin")
	}
}

// runChildHost is the body of a host process the test kills with SIGKILL.
func runChildHost() {
	h := New(WithPluginDirs(os.Getenv("NOTESOUP_HOST_TEST_DIR")))
	if _, err := h.Harness(context.Background(), "ok1"); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(h.running["ok1"].client.ReattachConfig().Pid)
	time.Sleep(time.Minute)
}

func TestNoOrphanWhenHostIsKilled(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NOTESOUP_HOST_TEST_CHILD=1", "NOTESOUP_HOST_TEST_DIR="+pluginDir(t, "ok1"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("child host said %q", buf[:n])
	}
	if !alive(pid) {
		t.Fatal("plugin not running while its host lives")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitDead(t, pid)
}
