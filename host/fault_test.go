package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/shared/history"
)

var (
	faultOnce   sync.Once
	faultPlugin string
	faultErr    error
)

// faultPluginDir lays out host/internal/faultplugin (built once, into
// TestMain's buildDir, which it removes) under the given plugin names, next
// to test plugins named in ok.
func faultPluginDir(t *testing.T, faulty []string, ok ...string) string {
	t.Helper()
	faultOnce.Do(func() {
		faultPlugin = filepath.Join(buildDir, "faultplugin")
		out, err := exec.Command("go", "build", "-o", faultPlugin, "./internal/faultplugin").CombinedOutput()
		if err != nil {
			faultErr = errors.New(string(out))
		}
	})
	if faultErr != nil {
		t.Fatalf("building the fault plugin: %v", faultErr)
	}
	dir := pluginDir(t, ok...)
	for _, n := range faulty {
		if err := os.Symlink(faultPlugin, filepath.Join(dir, plugindir.Prefix+n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stallEvents mirrors host/internal/faultplugin: events a stalling plugin
// sends before it stops.
const stallEvents = 1000

// decodeAll decodes a harness's only session and returns the event texts.
func decodeAll(ctx context.Context, h *Host, name string, onEvent func(history.Event)) ([]string, error) {
	hz, err := h.Harness(ctx, name)
	if err != nil {
		return nil, err
	}
	var texts []string
	_, err = hz.Decode(ctx, contract.DecodeRequest{Session: history.Session{Harness: name, ID: name + "-1", Path: "/nowhere/" + name}}, func(ev history.Event) error {
		texts = append(texts, ev.Text)
		if onEvent != nil {
			onEvent(ev)
		}
		return nil
	})
	return texts, err
}

// TestDecodeKilledMidStream SIGKILLs a plugin in the middle of a Decode
// stream, again and again, while another harness decodes at the same time:
// the killed stream ends with an error naming the plugin, the healthy one
// answers in full, and the next call starts a fresh plugin process.
func TestDecodeKilledMidStream(t *testing.T) {
	const rounds = 5
	dir := faultPluginDir(t, []string{"stall1"}, "ok1")
	h := newTestHost(t, WithPluginDirs(dir), WithTimeouts(5*time.Second, 5*time.Second, 20*time.Second))
	ctx := context.Background()
	pids := map[int]bool{}
	for round := range rounds {
		var (
			wg       sync.WaitGroup
			okTexts  []string
			okErr    error
			killedAt int
		)
		wg.Add(1)
		go func() {
			defer wg.Done()
			okTexts, okErr = decodeAll(ctx, h, "ok1", nil)
		}()
		texts, err := decodeAll(ctx, h, "stall1", func(ev history.Event) {
			pid, perr := strconv.Atoi(strings.TrimPrefix(ev.Text, "pid "))
			if perr != nil {
				t.Errorf("round %d: event %q carries no pid", round, ev.Text)
				return
			}
			if killedAt == pid {
				return // killed on its first event already
			}
			killedAt = pid
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Errorf("round %d: kill %d: %v", round, pid, err)
			}
		})
		wg.Wait()
		if okErr != nil || len(okTexts) != 3 {
			t.Errorf("round %d: healthy harness answered %v, %v; want its 3 events", round, okTexts, okErr)
		}
		if len(texts) == 0 || len(texts) >= stallEvents {
			t.Errorf("round %d: killed stream delivered %d events, want some of the %d sent before the kill, not all", round, len(texts), stallEvents)
		}
		var pe *PluginError
		if !errors.As(err, &pe) || pe.Name != "stall1" || !strings.Contains(err.Error(), "decode") {
			t.Fatalf("round %d: err = %v, want a PluginError naming stall1's decode", round, err)
		}
		if pids[killedAt] {
			t.Errorf("round %d: pid %d reused: the dead plugin was not replaced", round, killedAt)
		}
		pids[killedAt] = true
	}
}

// TestDecodeHungMidStream: a plugin that stops mid-stream and ignores
// cancellation is cut off at the stream deadline with an error naming it,
// and its process is killed rather than left behind.
func TestDecodeHungMidStream(t *testing.T) {
	dir := faultPluginDir(t, []string{"stall2"}, "ok2")
	const deadline = 1500 * time.Millisecond
	h := newTestHost(t, WithPluginDirs(dir), WithTimeouts(5*time.Second, 2*time.Second, deadline))
	ctx := context.Background()
	var pid int
	texts, err := decodeAll(ctx, h, "stall2", func(ev history.Event) {
		pid, _ = strconv.Atoi(strings.TrimPrefix(ev.Text, "pid "))
	})
	var pe *PluginError
	if !errors.As(err, &pe) || pe.Name != "stall2" || !strings.Contains(err.Error(), "DeadlineExceeded") {
		t.Fatalf("err = %v, want a deadline PluginError naming stall2", err)
	}
	if len(texts) == 0 || len(texts) >= stallEvents || pid == 0 {
		t.Fatalf("got %d events, want some of the %d sent before the hang", len(texts), stallEvents)
	}
	gone := false
	for range 50 {
		if !alive(pid) {
			gone = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !gone {
		t.Errorf("hung plugin %d is still running after its deadline", pid)
	}
	if texts, err := decodeAll(ctx, h, "ok2", nil); err != nil || len(texts) != 3 {
		t.Errorf("healthy harness after the hang: %v, %v", texts, err)
	}
}

// TestDecodeGarbageEvents: a plugin that speaks the protocol but streams
// nonsense (seqs going backwards, invalid UTF-8) cannot crash the host; the
// host passes what it got or refuses it, naming the plugin, and the other
// harness still answers.
func TestDecodeGarbageEvents(t *testing.T) {
	dir := faultPluginDir(t, []string{"badseq1"}, "ok3")
	h := newTestHost(t, WithPluginDirs(dir))
	ctx := context.Background()
	// Backwards seqs and invalid UTF-8 must never reach history paging:
	// the stream is refused (by the contract's seq check or gRPC's UTF-8
	// check) with an error naming the plugin.
	texts, err := decodeAll(ctx, h, "badseq1", nil)
	var pe *PluginError
	if err == nil || !errors.As(err, &pe) || pe.Name != "badseq1" {
		t.Fatalf("garbage stream: %d events, err = %v; want a refusal naming badseq1", len(texts), err)
	}
	if texts, err := decodeAll(ctx, h, "ok3", nil); err != nil || len(texts) != 3 {
		t.Errorf("healthy harness: %v, %v", texts, err)
	}
}
