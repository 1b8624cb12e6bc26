package reset

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestStoreRefusesDamagedFiles extends TestStoreRefusesCorruptAndNewer with
// the damage a crash, a disk fault or a hand edit leaves: each must be
// refused with an error naming the file, never continued from, and the
// file left as it was for a person to inspect.
func TestStoreRefusesDamagedFiles(t *testing.T) {
	valid := func(session string) string {
		b, err := json.Marshal(NewState(session, 1))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name, content string
		want          error
	}{
		{"empty file", "", ErrCorruptState},
		{"NUL-filled (lost blocks after power loss)", strings.Repeat("\x00", 512), ErrCorruptState},
		{"version as a string", `{"version":"1","generation":1,"next_id":1}`, ErrCorruptState},
		{"version zero", `{"version":0,"generation":1,"next_id":1}`, ErrCorruptState},
		{"negative version", `{"version":-3,"generation":1,"next_id":1}`, ErrCorruptState},
		{"huge newer version", `{"version":1000000000,"generation":1,"next_id":1}`, ErrNewerState},
		{"a JSON array", `[1,2,3]`, ErrCorruptState},
		{"negative window", `{"version":1,"generation":1,"next_id":1,"window":-1}`, ErrCorruptState},
		{"request id not below next_id", `{"version":1,"generation":1,"next_id":1,"request":{"id":1,"origin":"tool"}}`, ErrCorruptState},
		{"trailing garbage after a valid state", valid("s") + "garbage", ErrCorruptState},
		{"valid state cut in the middle", valid("s")[:len(valid("s"))/2], ErrCorruptState},
		{"valid state padded past the size bound", valid("s") + strings.Repeat(" ", maxStateBytes), ErrCorruptState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := Store{Dir: t.TempDir()}
			path, _ := st.Path("codex", "s")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, acts, err := st.Apply("codex", "s", 1, start)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v (actions %v), want %v", err, acts, c.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if _, err := st.Load("codex", "s", 1); !errors.Is(err, c.want) {
				t.Errorf("Load: %v, want %v", err, c.want)
			}
			after, _ := os.ReadFile(path)
			if string(after) != c.content {
				t.Errorf("a refused file was rewritten")
			}
		})
	}
}

// TestStoreStateFileIsADirectory: something other than a file in the
// state's place is an error naming it, not a fresh state.
func TestStoreStateFileIsADirectory(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	path, _ := st.Path("pi", "s")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Apply("pi", "s", 1, start); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a refusal naming %s", err, path)
	}
}

// FuzzStoreLoad: whatever bytes the state file holds, Load either returns
// a state that passes validation or refuses with ErrCorruptState or
// ErrNewerState — and never changes the file.
func FuzzStoreLoad(f *testing.F) {
	for _, s := range []string{`{"version":1,"generation":1,"next_id":1}`, `{"version":2}`, ``, `null`, `{"version":1,"generation":1,"next_id":3,"request":{"id":1,"origin":"tool"},"commit":{"marker":"m","request_id":1}}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		st := Store{Dir: dir}
		path, _ := st.Path("claude", "fuzz")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := st.Load("claude", "fuzz", 1)
		if err != nil {
			if !errors.Is(err, ErrCorruptState) && !errors.Is(err, ErrNewerState) {
				t.Fatalf("error %v is neither corrupt nor newer", err)
			}
		} else if verr := s.validate(); verr != nil {
			t.Fatalf("loaded an invalid state: %v", verr)
		}
		after, _ := os.ReadFile(path)
		if string(after) != string(data) {
			t.Fatal("Load changed the file")
		}
	})
}

// TestStoreOtherSessionsState puts a valid state of session "other" where
// session "s" keeps its state: continuing from it would be a wrong
// continuation.
func TestStoreOtherSessionsState(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	path, _ := st.Path("pi", "s")
	b, err := json.Marshal(NewState("other", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = st.Load("pi", "s", 1)
	refused := errors.Is(err, ErrCorruptState) && strings.Contains(err.Error(), path)
	if !refused {
		t.Errorf("another session's state was not refused: %v", err)
	}
}
