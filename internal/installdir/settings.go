package installdir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Harnesses that install through their own commands (claude plugin
// install, pi install) leave traces in their settings files even after
// their own uninstall: an empty "enabledPlugins": {} or "packages": [], a
// settings.json that did not exist before. A Snapshot records, before
// install changes anything, which of those keys were absent and whether
// the file existed; Restore takes out again what is left empty, so
// uninstall gives back the settings as they were.

// maxSettings bounds a settings file read here.
const maxSettings = 4 << 20

// Snapshot is the state of a harness's settings file before install.
type Snapshot struct {
	Path    string   `json:"path"`
	Existed bool     `json:"existed"`
	Absent  []string `json:"absent,omitempty"`
}

// Take records which of keys path's top-level object lacks, and whether
// path exists.
func Take(path string, keys []string) (Snapshot, error) {
	s := Snapshot{Path: path}
	obj, existed, err := readObject(path)
	if err != nil {
		return s, err
	}
	s.Existed = existed
	for _, k := range keys {
		if _, ok := obj.get(k); !ok {
			s.Absent = append(s.Absent, k)
		}
	}
	return s, nil
}

// Save writes s to file, unless file already holds a snapshot: the first
// install's snapshot is the state to come back to.
func (s Snapshot) Save(file string) error {
	if _, err := os.Stat(file); err == nil {
		return nil
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, append(data, '\n'), atomicfile.Options{Perm: 0o644})
}

// Load reads a snapshot Save wrote; ok is false when there is none.
func Load(file string) (s Snapshot, ok bool, err error) {
	data, err := readBounded(file)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, false, fmt.Errorf("%s: %w; remove it to uninstall without restoring", file, err)
	}
	return s, true, nil
}

// Restore removes from the settings file each key the snapshot found
// absent that is now empty ({} or []), and the file itself when it did not
// exist and nothing is left in it. Other keys keep their order and values.
// It returns what it did, or would do with dryRun ("" for nothing).
func (s Snapshot) Restore(dryRun bool) (string, error) {
	obj, existed, err := readObject(s.Path)
	if err != nil || !existed {
		return "", err
	}
	var dropped []string
	for _, k := range s.Absent {
		if v, ok := obj.get(k); ok && isEmpty(v) {
			obj.del(k)
			dropped = append(dropped, k)
		}
	}
	if !s.Existed && len(obj) == 0 {
		if dryRun {
			return "would remove " + s.Path + " (it did not exist before install)", nil
		}
		if err := os.Remove(s.Path); err != nil {
			return "", fmt.Errorf("removing %s: %w", s.Path, err)
		}
		return "removed " + s.Path + " (it did not exist before install)", nil
	}
	if len(dropped) == 0 {
		return "", nil
	}
	msg := fmt.Sprintf("%s: took out the empty %s left by uninstall", s.Path, strings.Join(dropped, ", "))
	if dryRun {
		return "would do: " + msg, nil
	}
	target, err := atomicfile.Target(s.Path)
	if err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	if err := atomicfile.Write(target, obj.encode(), atomicfile.Options{Perm: mode}); err != nil {
		return "", fmt.Errorf("writing %s: %w", s.Path, err)
	}
	return msg, nil
}

// member is one top-level key of a JSON object, in file order.
type member struct {
	key string
	val json.RawMessage
}

type object []member

func (o object) get(k string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == k {
			return m.val, true
		}
	}
	return nil, false
}

func (o *object) del(k string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.key != k {
			out = append(out, m)
		}
	}
	*o = out
}

// encode writes the object two-space indented, as the harnesses write
// their settings.
func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, m := range o {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(m.key)
		b.WriteString("\n  ")
		b.Write(k)
		b.WriteString(": ")
		var v bytes.Buffer
		if json.Indent(&v, m.val, "  ", "  ") != nil {
			v.Reset()
			v.Write(m.val)
		}
		b.Write(v.Bytes())
	}
	if len(o) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func isEmpty(v json.RawMessage) bool {
	t := string(bytes.Join(bytes.Fields(v), nil))
	return t == "{}" || t == "[]" || t == "null"
}

// readObject reads path's top-level JSON object in order; a missing or
// empty file reads as an empty object.
func readObject(path string) (object, bool, error) {
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, true, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, true, fmt.Errorf("%s is not a JSON object; fix or remove it", path)
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", path, err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, true, fmt.Errorf("%s: %w", path, err)
		}
		o = append(o, member{k, v})
	}
	return o, true, nil
}

// readBounded reads a regular file (through a link) of at most
// maxSettings bytes.
func readBounded(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return nil, serr
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSettings {
		return nil, fmt.Errorf("%s is larger than %d bytes; not a settings file notesoup reads", path, maxSettings)
	}
	return data, nil
}

// ReadJSON decodes the settings file at path into v; a missing file is
// ok=false and no error.
func ReadJSON(path string, v any) (ok bool, err error) {
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// CommandTimeout bounds one run of a harness's CLI by install, uninstall
// or doctor: adding a local marketplace or package takes seconds; a CLI
// that hangs (waiting on a prompt, a network it cannot reach) must not
// hang notesoup.
const CommandTimeout = 2 * time.Minute

// maxOutput bounds what is kept of a CLI's output.
const maxOutput = 1 << 20

// Run runs a harness CLI with extra environment variables, no standard
// input, and CommandTimeout; the error carries the command and what it
// said on stderr.
func Run(ctx context.Context, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = nil
	var out, errb limited
	out.max, errb.max = maxOutput, maxOutput
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err != nil {
		said := strings.TrimSpace(errb.String())
		if said == "" {
			said = strings.TrimSpace(out.String())
		}
		if ctx.Err() != nil {
			return out.String(), fmt.Errorf("%s %s: no answer within %v", name, strings.Join(args, " "), CommandTimeout)
		}
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, said)
	}
	return out.String(), nil
}

// limited is a buffer that keeps at most max bytes.
type limited struct {
	bytes.Buffer
	max int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); room > 0 {
		if len(p) > room {
			l.Buffer.Write(p[:room])
		} else {
			l.Buffer.Write(p)
		}
	}
	return len(p), nil
}
