//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
)

// hangBound is how long a host call may take before the test calls it hung.
// It is a hang detector, far above any start timeout or stop bound used
// here, not a speed requirement.
const hangBound = 90 * time.Second

// within runs fn and fails the test if it has not returned within hangBound.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("%s did not return within %v: the host hangs", what, hangBound)
	}
}

// forkPids reads the "<plugin pid> <child pid>" a fork-mode fault plugin
// wrote into its plugin directory.
func forkPids(t *testing.T, dir, name string) (plugin, child int) {
	t.Helper()
	p := filepath.Join(dir, name+".pids")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("fault plugin %s left no pids (it did not get as far as starting its child): %v", name, err)
	}
	if _, err := fmt.Sscan(string(b), &plugin, &child); err != nil || plugin < 2 || child < 2 {
		t.Fatalf("%s: %q: %v", p, b, err)
	}
	return plugin, child
}

// killLeftChildren makes sure that, whatever the outcome (even a test that
// gave up on a hung host), no fork-mode child outlives the test.
func killLeftChildren(t *testing.T, dir, name string) {
	t.Cleanup(func() {
		var plugin, child int
		if b, err := os.ReadFile(filepath.Join(dir, name+".pids")); err == nil {
			if _, err := fmt.Sscan(string(b), &plugin, &child); err == nil && child > 1 {
				syscall.Kill(child, syscall.SIGKILL)
			}
		}
	})
}

// waitGone waits (boundedly) for pid to exit; it reports whether it did.
func waitGone(pid int) bool {
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestChildHoldingPipesAtStart: a plugin whose child holds its stdout and
// stderr, and that never shakes hands, used to hang the host forever after
// the start timeout (go-plugin waits for EOF on pipes the child keeps open)
// and leaked that child on every attempt. Each attempt must now fail with
// an error naming the plugin, the healthy plugin must answer, and neither
// the plugin nor its child may survive.
func TestChildHoldingPipesAtStart(t *testing.T) {
	dir := faultPluginDir(t, []string{"forkhang1"}, "ok8")
	killLeftChildren(t, dir, "forkhang1")
	h := newTestHost(t, WithPluginDirs(dir), WithTimeouts(4*time.Second, 5*time.Second, 5*time.Second))
	for attempt := range 2 {
		var answered []string
		var err error
		within(t, "Each over a plugin whose child holds its pipes", func() {
			err = h.Each(context.Background(), nil, func(name string, hz contract.Harness) error {
				if _, err := hz.Describe(context.Background()); err != nil {
					return err
				}
				answered = append(answered, name)
				return nil
			})
		})
		var pe *PluginError
		if !errors.As(err, &pe) || pe.Name != "forkhang1" || pe.Op != "start" || !strings.Contains(err.Error(), "timeout") {
			t.Fatalf("attempt %d: err = %v; want a start timeout naming forkhang1", attempt, err)
		}
		if fmt.Sprint(answered) != "[ok8]" {
			t.Errorf("attempt %d: answered %v, want the healthy ok8", attempt, answered)
		}
		plugin, child := forkPids(t, dir, "forkhang1")
		if !waitGone(plugin) {
			t.Errorf("attempt %d: plugin %d still running after its failed start", attempt, plugin)
		}
		if !waitGone(child) {
			t.Errorf("attempt %d: the plugin's child %d was left behind as an orphan", attempt, child)
			syscall.Kill(child, syscall.SIGKILL)
		}
		os.Remove(filepath.Join(dir, "forkhang1.pids"))
	}
}

// TestChildHoldingPipesAtClose: a healthy plugin that left a child holding
// its pipes used to hang Close (and so the MCP server's exit at EOF). Close
// must return, and the plugin and its child must be gone.
func TestChildHoldingPipesAtClose(t *testing.T) {
	dir := faultPluginDir(t, []string{"forkserve1"})
	killLeftChildren(t, dir, "forkserve1")
	h := newTestHost(t, WithPluginDirs(dir))
	within(t, "Describe", func() {
		if _, _, err := h.Describe(context.Background(), "forkserve1"); err != nil {
			t.Errorf("forkserve1 should start and answer: %v", err)
		}
	})
	plugin, child := forkPids(t, dir, "forkserve1")
	within(t, "Close", h.Close)
	if !waitGone(plugin) || !waitGone(child) {
		t.Errorf("after Close: plugin %d alive %v, its child %d alive %v; want both gone", plugin, alive(plugin), child, alive(child))
	}
}

// TestChildOutsideGroupDoesNotHangClose: a child that left the plugin's
// process group (setsid) is out of reach of the group kill and can hold
// the pipes forever; Close must still return (the wait is bounded) and the
// plugin itself must be gone. The child is the test's to kill.
func TestChildOutsideGroupDoesNotHangClose(t *testing.T) {
	dir := faultPluginDir(t, []string{"forkescape1"})
	killLeftChildren(t, dir, "forkescape1")
	h := newTestHost(t, WithPluginDirs(dir))
	h.stopGrace, h.stopWait = 500*time.Millisecond, 500*time.Millisecond
	within(t, "Describe", func() {
		if _, _, err := h.Describe(context.Background(), "forkescape1"); err != nil {
			t.Errorf("forkescape1 should start and answer: %v", err)
		}
	})
	plugin, child := forkPids(t, dir, "forkescape1")
	if pgid, err := syscall.Getpgid(child); err != nil || pgid == plugin {
		t.Fatalf("child %d in group %d (%v): want it outside the plugin's group %d", child, pgid, err, plugin)
	}
	within(t, "Close", h.Close)
	if !waitGone(plugin) {
		t.Errorf("plugin %d still running after Close", plugin)
	}
}

// TestPluginRunsInItsOwnGroup: the group kill is only safe if the plugin
// leads a group of its own, never the host's.
func TestPluginRunsInItsOwnGroup(t *testing.T) {
	dir := faultPluginDir(t, []string{"forkserve2"})
	killLeftChildren(t, dir, "forkserve2")
	h := newTestHost(t, WithPluginDirs(dir))
	if _, _, err := h.Describe(context.Background(), "forkserve2"); err != nil {
		t.Fatal(err)
	}
	plugin, child := forkPids(t, dir, "forkserve2")
	for _, pid := range []int{plugin, child} {
		if pgid, err := syscall.Getpgid(pid); err != nil || pgid != plugin {
			t.Errorf("pid %d is in group %d (%v), want the plugin's own group %d", pid, pgid, err, plugin)
		}
	}
	if syscall.Getpgrp() == plugin {
		t.Fatal("the plugin leads the test's own process group")
	}
}

// TestNoBuildLeftInTmp runs a test that builds the fault plugin in a child
// test process whose TMPDIR is empty, and checks that it is empty again
// afterwards: the 19 MB plugin build used to stay in /tmp on every run.
func TestNoBuildLeftInTmp(t *testing.T) {
	if os.Getenv("NOTESOUP_HOST_TEST_TMPCHECK") != "" {
		t.Skip("already the child run")
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDecodeGarbageEvents$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NOTESOUP_HOST_TEST_TMPCHECK=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child test run: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) > 0 {
		t.Errorf("the test run left %v in its TMPDIR, want nothing", left)
	}
}
