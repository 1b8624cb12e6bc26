package service_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/shared/history"
)

// Huge and hostile inputs, decoded by each harness's real plugin process:
// the decode must finish within hugeTime with the plugin's peak resident
// memory under hugeMemory, and end in events or a clear refusal — never a
// crashed plugin.
const (
	hugeLine   = 1 << 30          // the 1 GB line (a sparse hole: no disk used)
	hugeDepth  = 100_000          // nesting of the deeply nested line
	tinyCount  = 1_000_000        // the million tiny records
	hugeTime   = 20 * time.Second // per decode, on a loaded CI machine
	hugeMemory = 256 << 20        // peak RSS of the plugin process
)

// hugeSamples is one real transcript per harness: its first line (header
// or first record) goes before the hostile content, the rest after it.
var hugeSamples = map[string]string{
	"claude": "samples/claude/projects/-tmp-notesoup-record-claude-tools-work/0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl",
	"pi":     "samples/pi/sessions/--tmp-notesoup-record-pi-tools-work--/2026-12-02T12-07-00-063Z_01a236a6-a2de-75bd-a83e-3ff443212984.jsonl",
	"codex":  "testdata/transcripts/codex/tools/rollout-2026-12-02T12-09-14-01a236a8-ae0f-7c42-9107-6ff0851bd7a6.jsonl",
}

// hostile writes the hostile middle of a transcript to f.
type hostile struct {
	name  string
	write func(f *os.File) error
}

var hostiles = []hostile{
	{"1 GB line", func(f *os.File) error {
		if _, err := f.WriteString(`{"type":"user","pad":"`); err != nil {
			return err
		}
		off, err := f.Seek(hugeLine, 1) // a hole: reads as NUL bytes
		if err != nil {
			return err
		}
		_, err = f.WriteAt([]byte("\"}\n"), off)
		if err == nil {
			_, err = f.Seek(0, 2)
		}
		return err
	}},
	{"deeply nested JSON", func(f *os.File) error {
		_, err := f.WriteString(`{"type":"user","message":{"role":"user","content":` + strings.Repeat("[", hugeDepth) + strings.Repeat("]", hugeDepth) + "}}\n")
		return err
	}},
	{"a million tiny records", func(f *os.File) error {
		_, err := f.Write(bytes.Repeat([]byte("{}\n"), tinyCount))
		return err
	}},
}

func TestHugeInputsBounded(t *testing.T) {
	for _, hz := range []string{"claude", "pi", "codex"} {
		data, err := os.ReadFile(filepath.Join(repoRoot(), hugeSamples[hz]))
		if err != nil {
			t.Fatal(err)
		}
		first, rest, _ := bytes.Cut(data, []byte("\n"))
		for _, h := range hostiles {
			t.Run(hz+"/"+h.name, func(t *testing.T) {
				root := t.TempDir()
				dir := filepath.Join(root, "-tmp-huge", "2026", "12", "02")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, filepath.Base(hugeSamples[hz]))
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.Write(append(first, '\n'))
				if err == nil {
					err = h.write(f)
				}
				if err == nil {
					_, err = f.Write(rest)
				}
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
				s := newService(t, map[string]string{hz: root})
				plug, err := s.Harnesses().Harness(context.Background(), hz)
				if err != nil {
					t.Fatal(err)
				}
				pid := pluginPID(t, hz)
				id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
				n := 0
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), hugeTime)
				defer cancel()
				_, err = plug.Decode(ctx, contract.DecodeRequest{Session: history.Session{Harness: hz, ID: id, Path: path}, Roots: []string{root}},
					func(history.Event) error { n++; return nil })
				took := time.Since(start)
				peak := peakRSS(t, pid)
				t.Logf("%s: %d events, err=%v, %v, plugin peak RSS %d MiB", h.name, n, err, took.Round(time.Millisecond), peak>>20)
				var pe *host.PluginError
				if err != nil && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "DeadlineExceeded")) {
					t.Errorf("decode did not finish within %v", hugeTime)
				} else if err != nil && errors.As(err, &pe) && !pluginAlive(pid) {
					t.Errorf("the plugin died: %v", err)
				}
				if err != nil && pe != nil && !strings.Contains(err.Error(), path+":2") {
					t.Errorf("refusal %q does not name the file and line (%s:2)", err, path)
				}
				if err == nil && n == 0 {
					t.Errorf("decode accepted the file but yielded no events")
				}
				if peak > hugeMemory {
					t.Errorf("plugin peak RSS %d MiB, want under %d MiB", peak>>20, hugeMemory>>20)
				}
			})
		}
	}
}

// pluginPID finds the built-in plugin process of a harness among this
// process's children.
func pluginPID(t *testing.T, harness string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmd, []byte(host.PluginModeArg+"\x00"+harness)) {
			return pid
		}
	}
	t.Fatalf("no %s plugin process found among the children of %d", harness, os.Getpid())
	return 0
}

// peakRSS is a process's peak resident set size in bytes (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0 // the process is gone; the caller reports that
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM for %d", pid)
	return 0
}

func pluginAlive(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d/status", pid))
	return err == nil
}
