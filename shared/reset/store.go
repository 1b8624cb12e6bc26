package reset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Store persists one State per (harness, session) under
// $NOTESOUP_HOME/state/<harness>-<session>.json, because the caller may be a
// new process for every event. Every read-modify-write holds the exclusive
// lock of a sibling lock file (internal/filelock), and every write is atomic (temp file, fsync,
// rename, directory fsync).
type Store struct {
	Dir string // the state directory, normally $NOTESOUP_HOME/state
}

// ErrCorruptState and ErrNewerState are wrapped by Load when a state file
// cannot be trusted; the caller must refuse rather than continue from a
// guessed state.
var (
	ErrCorruptState = errors.New("corrupt reset state")
	ErrNewerState   = errors.New("reset state from a newer notesoup")
)

// validNamePart limits harness and session names to characters safe in a file
// name on every platform; session ids of all three harnesses (UUIDs) fit.
// It is checked by hand: the equivalent regexp (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$)
// compiles to a 128-fold program that cost ~2 ms of every process start.
func validNamePart(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// StoreFromEnv returns the store under $NOTESOUP_HOME/state, or
// ~/.notesoup/state when NOTESOUP_HOME is unset.
func StoreFromEnv() (Store, error) {
	home := os.Getenv("NOTESOUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Store{}, fmt.Errorf("reset state: NOTESOUP_HOME is unset and the home directory is unknown: %v", err)
		}
		home = filepath.Join(h, ".notesoup")
	}
	return Store{Dir: filepath.Join(home, "state")}, nil
}

// Path returns the state file of one session.
func (st Store) Path(harness, session string) (string, error) {
	if !validNamePart(harness) {
		return "", fmt.Errorf("reset state: harness %q: want letters, digits, '.', '_' or '-'", harness)
	}
	if !validNamePart(session) {
		return "", fmt.Errorf("reset state: session %q: want letters, digits, '.', '_' or '-' (at most 128)", session)
	}
	return filepath.Join(st.Dir, harness+"-"+session+".json"), nil
}

// Load reads a session's state without changing it; a missing file is the
// initial state with the given seed.
func (st Store) Load(harness, session string, seed uint64) (State, error) {
	var out State
	err := st.Update(harness, session, seed, func(s State) (State, error) {
		out = s
		return s, errNoWrite
	})
	if errors.Is(err, errNoWrite) {
		err = nil
	}
	return out, err
}

var errNoWrite = errors.New("no write")

// Update runs fn on the session's state under the lock and writes its
// result atomically. fn returning an error leaves the file unchanged.
func (st Store) Update(harness, session string, seed uint64, fn func(State) (State, error)) error {
	path, err := st.Path(harness, session)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("reset state: create %s: %v", st.Dir, err)
	}
	lock, err := filelock.Acquire(path+".lock", 0o600, filelock.Wait)
	if err != nil {
		return fmt.Errorf("reset state: %v", err)
	}
	defer lock.Release()

	cur, err := readState(path, session, seed)
	if err != nil {
		return err
	}
	next, err := fn(cur)
	if err != nil {
		return err
	}
	next.Version = StateVersion
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return fmt.Errorf("reset state: encode: %v", err)
	}
	return writeAtomic(path, append(data, '\n'))
}

// Apply steps the session's persisted state with one event and returns the
// state it left and the actions, all under the lock.
func (st Store) Apply(harness, session string, seed uint64, ev Event) (State, []Action, error) {
	var (
		next State
		acts []Action
	)
	err := st.Update(harness, session, seed, func(s State) (State, error) {
		next, acts = Step(s, ev)
		return next, nil
	})
	return next, acts, err
}

// maxStateBytes bounds a state file. The largest field is a last_word,
// which an event carries in at most maxEventBytes; even with every byte
// escaped six-fold a state stays well under this, so a larger file is
// damage, not a state this notesoup wrote.
const maxStateBytes = 1 << 20

func readState(path, session string, seed uint64) (State, error) {
	data, err := rawread.ReadAll(path, maxStateBytes)
	if errors.Is(err, os.ErrNotExist) {
		return NewState(session, seed), nil
	}
	var big *rawread.TooLargeError
	if errors.As(err, &big) {
		return State{}, fmt.Errorf("%w: %v; delete it to start this session's reset flow afresh", ErrCorruptState, err)
	}
	if err != nil {
		return State{}, fmt.Errorf("reset state: read %s: %v", path, err)
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.Version == nil {
		return State{}, fmt.Errorf("%w: %s is not a reset state file (%v); delete it to start this session's reset flow afresh", ErrCorruptState, path, errOr(err, "no version"))
	}
	if *probe.Version > StateVersion {
		return State{}, fmt.Errorf("%w: %s has version %d, this notesoup reads up to %d; upgrade notesoup or delete the file", ErrNewerState, path, *probe.Version, StateVersion)
	}
	if *probe.Version < 1 {
		return State{}, fmt.Errorf("%w: %s has version %d", ErrCorruptState, path, *probe.Version)
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("%w: %s: %v; delete it to start this session's reset flow afresh", ErrCorruptState, path, err)
	}
	if err := s.validate(); err != nil {
		return State{}, fmt.Errorf("%w: %s: %v; delete it to start this session's reset flow afresh", ErrCorruptState, path, err)
	}
	if s.Session != "" && s.Session != session {
		// A file copied or renamed from another session: continuing from
		// it would act on that session's pending reset.
		return State{}, fmt.Errorf("%w: %s holds the state of session %q, not %q; delete it to start this session's reset flow afresh", ErrCorruptState, path, s.Session, session)
	}
	return s, nil
}

// validate checks the invariants a well-formed state always has, so a
// hand-edited or damaged file cannot produce a wrong continuation.
func (s State) validate() error {
	switch {
	case s.Generation == 0:
		return errors.New("generation 0")
	case s.NextID == 0:
		return errors.New("next_id 0")
	case s.Window < 0:
		return errors.New("negative window")
	case s.Commit != nil && s.Request == nil:
		return errors.New("a compaction attempt without a request")
	case s.Commit != nil && s.Commit.RequestID != s.Request.ID:
		return errors.New("a compaction attempt for another request")
	case s.Request != nil && s.Request.ID >= s.NextID:
		return errors.New("request id not below next_id")
	case s.Continuation >= s.NextID:
		return errors.New("continuation id not below next_id")
	}
	if s.Request != nil {
		switch s.Request.Origin {
		case RequestTool, RequestBudget, RequestManual:
		default:
			return fmt.Errorf("request origin %q", s.Request.Origin)
		}
	}
	return nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("reset state: %v", err)
	}
	return nil
}
