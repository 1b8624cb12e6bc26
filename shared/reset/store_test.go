package reset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestStoreApplyPersistsAcrossProcesses(t *testing.T) {
	st := Store{Dir: filepath.Join(t.TempDir(), "state")}
	// Each call stands for a new process: only the file carries state.
	for _, ev := range []Event{start, tool(`"w"`, ""), step} {
		if _, _, err := st.Apply("claude", "sess-1", 5, ev); err != nil {
			t.Fatal(err)
		}
	}
	_, acts, err := st.Apply("claude", "sess-1", 5, completed)
	if err != nil || len(acts) != 1 || acts[0].Kind != ActRunCompaction {
		t.Fatalf("actions %+v, %v", acts, err)
	}
	s, err := st.Load("claude", "sess-1", 0)
	if err != nil || s.Commit == nil || s.Commit.Marker != acts[0].Marker || s.Request.LastWord != "w" || s.Seed != 5 {
		t.Fatalf("loaded %+v, %v", s, err)
	}
	// The same sequence in memory gives the same state.
	mem, _ := run(t, NewState("sess-1", 5), start, tool(`"w"`, ""), step, completed)
	if !reflect.DeepEqual(mem, s) {
		t.Fatalf("persisted state differs from in-memory:\n%+v\n%+v", s, mem)
	}
	entries, _ := os.ReadDir(st.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
}

func TestStoreRefusesCorruptAndNewer(t *testing.T) {
	cases := []struct {
		name, content string
		want          error
	}{
		{"garbage", "not json", ErrCorruptState},
		{"no version", `{"generation":1}`, ErrCorruptState},
		{"newer", `{"version":99,"generation":1,"next_id":1}`, ErrNewerState},
		{"unknown field", `{"version":1,"generation":1,"next_id":1,"surprise":true}`, ErrCorruptState},
		{"commit without request", `{"version":1,"generation":1,"next_id":3,"commit":{"marker":"m","request_id":1}}`, ErrCorruptState},
		{"bad origin", `{"version":1,"generation":1,"next_id":3,"request":{"id":1,"origin":"alien"}}`, ErrCorruptState},
		{"truncated", `{"version":1,"generation":1,`, ErrCorruptState},
	}
	for _, c := range cases {
		st := Store{Dir: t.TempDir()}
		path, _ := st.Path("pi", "s")
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := st.Apply("pi", "s", 1, step)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
		after, _ := os.ReadFile(path)
		if string(after) != c.content {
			t.Errorf("%s: a refused file was rewritten", c.name)
		}
	}
}

func TestStorePathRejectsUnsafeNames(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	for _, bad := range [][2]string{{"../x", "s"}, {"claude", "a/b"}, {"claude", ""}, {"", "s"}, {"claude", ".hidden"},
		{"claude", "-dash"}, {"claude", "a b"}, {"claude", "x\x00"}, {"claude", strings.Repeat("a", 129)}} {
		if _, err := st.Path(bad[0], bad[1]); err == nil {
			t.Errorf("Path(%q, %q) accepted", bad[0], bad[1])
		}
	}
	for _, good := range [][2]string{{"claude", "0b5e8a61-7c1d-4f3e-9a2b-000000000001"}, {"pi", "a.b_c-d"}, {"codex", strings.Repeat("a", 128)}} {
		if _, err := st.Path(good[0], good[1]); err != nil {
			t.Errorf("Path(%q, %q) refused: %v", good[0], good[1], err)
		}
	}
}

func TestStoreConcurrentUpdatesSerialize(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	const n = 40
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := st.Update("codex", "s", 1, func(s State) (State, error) {
				s.NextID++
				return s, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := st.Load("codex", "s", 1)
	if err != nil || s.NextID != 1+n {
		t.Fatalf("next_id %d after %d locked increments, %v: an update was lost", s.NextID, n, err)
	}
}

func TestDecodeEvent(t *testing.T) {
	good := []string{
		`{"type":"reset_requested","last_word":"x","terminate":"not-a-bool"}`,
		`{"type":"turn_started","origin":"closeout"}`,
		`{"type":"step","subagent":true}`,
		`{"type":"session_changed","session":"abc","seed":3}`,
		`{"type":"compaction_committed","marker":"m","evidence":true}`,
	}
	for _, g := range good {
		if _, err := DecodeEvent([]byte(g)); err != nil {
			t.Errorf("DecodeEvent(%s): %v", g, err)
		}
	}
	ev, _ := DecodeEvent([]byte(good[0]))
	if _, acts := Step(NewState("s", 1), ev); acts[0].Kind != ActRefuse {
		t.Errorf("a decoded non-boolean terminate was not refused by Step")
	}
	bad := map[string]string{
		`{"type":"nope"}`:                                    "unknown type",
		`{"type":"step","extra":1}`:                          "unknown field",
		`{"type":"turn_started"}`:                            "origin",
		`{"type":"session_changed"}`:                         "session",
		`{"type":"compaction_failed"}`:                       "marker",
		`{"type":"step","terminate":true}`:                   "reset_requested only",
		`{"type":"step"} {"type":"step"}`:                    "trailing",
		`[]`:                                                 "event",
		`{"type":"step","subagent":"yes"}`:                   "event",
		`{"type":"session_changed","session":"a","seed":-1}`: "event",
	}
	for in, want := range bad {
		if _, err := DecodeEvent([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeEvent(%s) = %v, want error containing %q", in, err, want)
		}
	}
}
