// Package dream runs a dream pass, the consolidation of a project's notes
// that playbook/dream.md describes, headless through a harness's own CLI,
// and undoes it.
//
// One job: plan the pass (Plan), hold the dream lock so one pass at a time
// works on the same notes, snapshot the notes before the harness starts,
// run it bounded in time with its output streamed, record what it left
// (Run), and put the snapshot back byte for byte (Undo). How each harness
// is started comes from the harness packages (headless.Harness, found by
// name in harness/builtins); nothing here names a harness.
//
// A pass never starts on its own: a person or a schedule runs
// `notesoup dream`.
package dream

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/notesoup/notesoup/dream/headless"
	"github.com/notesoup/notesoup/shared/notes"
)

// The playbook and the skill the pass follows: byte-identical copies of
// playbook/dream.md and skills/dream/SKILL.md (a test keeps them so), since
// an embedded file must live in the package's folder.
var (
	//go:embed playbook.md
	playbook string
	//go:embed skill.md
	skill string
)

// DefaultTimeout bounds a pass when the caller sets no timeout: a pass
// over a few hundred notes takes minutes; one still running after half
// an hour is stuck or looping.
const DefaultTimeout = 30 * time.Minute

// graceWait is how long a cancelled harness gets to exit after SIGTERM.
const graceWait = 10 * time.Second

// PromptMarker opens every pass's prompt; tests and the scripted model
// server recognise a pass by it.
const PromptMarker = "notesoup dream pass"

// Options says which pass to run.
type Options struct {
	// Home is the notes home ("" means notes.DefaultHome).
	Home string
	// Cwd is a folder of the project whose notes the pass consolidates.
	Cwd string
	// Harness is how the chosen harness runs a prompt headless.
	Harness headless.Harness
	// Env is the environment the harness binary is found in and runs with
	// (os.Environ() in the CLI).
	Env []string
	// Self is the running notesoup executable (os.Executable), for a
	// harness that starts notesoup's MCP server itself.
	Self string
	// Timeout bounds the harness's run (DefaultTimeout when zero).
	Timeout time.Duration
}

// ScopeInfo is one notes folder the pass works on.
type ScopeInfo struct {
	Label string `json:"label"` // "project" or "global"
	Dir   string `json:"dir"`
	Files int    `json:"files"`
	Bytes int64  `json:"bytes"`
}

// Plan is what a pass would do. Making one changes nothing.
type Plan struct {
	Harness string        `json:"harness"`
	Bin     string        `json:"bin"`
	Project string        `json:"project"`
	Scopes  []ScopeInfo   `json:"scopes"`
	Passes  string        `json:"passes"` // the folder the snapshot goes into
	Timeout time.Duration `json:"timeout"`
	Args    []string      `json:"args"` // the harness's arguments, the prompt shown as <prompt>
	Prompt  string        `json:"prompt"`

	opts  Options
	space *notes.Space
}

// NewPlan resolves the project, its notes folders and the harness binary,
// and builds the prompt and the command line. It creates, locks and
// starts nothing.
func NewPlan(o Options) (*Plan, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	sp, err := notes.Open(o.Home).Space(o.Cwd)
	if err != nil {
		return nil, err
	}
	bin, err := FindBinary(o.Harness, o.Env)
	if err != nil {
		return nil, err
	}
	p := &Plan{
		Harness: o.Harness.Name, Bin: bin, Project: sp.Root(), Timeout: o.Timeout,
		Passes: passesFolder(o.Home, sp), opts: o, space: sp,
	}
	p.Prompt = Prompt(o.Harness, sp.Root())
	for _, sc := range scopesOf(sp) {
		es, err := readScope(sc.dir)
		if err != nil {
			return nil, err
		}
		info := ScopeInfo{Label: sc.label, Dir: sc.dir}
		for _, e := range es {
			if e.Kind == kindFile {
				info.Files++
				info.Bytes += int64(len(e.Data))
			}
		}
		p.Scopes = append(p.Scopes, info)
	}
	cmd, err := p.command(context.Background())
	if err != nil {
		return nil, err
	}
	for _, a := range cmd.Args[1:] {
		if a == p.Prompt {
			a = "<prompt>"
		}
		p.Args = append(p.Args, a)
	}
	return p, nil
}

func (p *Plan) command(ctx context.Context) (*exec.Cmd, error) {
	return p.opts.Harness.Command(ctx, headless.Request{
		Bin: p.Bin, Dir: p.Project, Prompt: p.Prompt, Self: p.opts.Self, Env: p.opts.Env,
	})
}

// Render is the plan as --dry-run prints it.
func (p *Plan) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dream pass plan (dry run: nothing was started, snapshotted or changed)\n")
	fmt.Fprintf(&b, "harness:  %s (%s)\n", p.Harness, p.Bin)
	fmt.Fprintf(&b, "project:  %s\n", p.Project)
	for _, s := range p.Scopes {
		fmt.Fprintf(&b, "notes:    %s, %d files, %s (%s)\n", s.Label, s.Files, notes.HumanSize(s.Bytes), s.Dir)
	}
	fmt.Fprintf(&b, "snapshot: a new folder under %s before the harness starts; notesoup dream --undo restores it\n", p.Passes)
	fmt.Fprintf(&b, "timeout:  %v\n", p.Timeout)
	fmt.Fprintf(&b, "command:  %s %s\n", p.Bin, strings.Join(quoteAll(p.Args), " "))
	fmt.Fprintf(&b, "prompt (%s):\n%s\n", notes.HumanSize(int64(len(p.Prompt))), p.Prompt)
	return b.String()
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`{}[]*?;&|<>()") && a != "<prompt>" {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return out
}

// Prompt is the pass's whole prompt for harness h in the project at root:
// what the run is, the playbook, and the skill's rules.
func Prompt(h headless.Harness, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", PromptMarker)
	fmt.Fprintf(&b, "A person started a dream pass over the notesoup notes of the project at %s with `notesoup dream`. Nobody is watching: do not ask questions, decide, and say in the report what you left undecided.\n\n", root)
	fmt.Fprintf(&b, "Follow the playbook below step by step, applying the rules of the dream skill after it. The notes and history tools are offered to you (named like %s here). Check facts against the code with the read-only file tools; editing files and running commands are not allowed in this run. Change only notes. notesoup snapshotted the notes before this run, and `notesoup dream --undo` restores them.\n\n", h.Tools)
	b.WriteString("End your reply with the report of the playbook's last step: it is what the person reads.\n\n")
	b.WriteString("<playbook>\n")
	b.WriteString(playbook)
	b.WriteString("</playbook>\n\n<skill>\n")
	b.WriteString(skill)
	b.WriteString("</skill>\n")
	return b.String()
}

// FindBinary returns the harness's CLI: the file its BinEnv names, else
// its Binary on the PATH of env.
func FindBinary(h headless.Harness, env []string) (string, error) {
	if p, ok := headless.Lookup(env, h.BinEnv); ok && p != "" {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s is not an executable file; point it at the %s CLI or unset it to use %s from PATH", h.BinEnv, p, h.Name, h.Binary)
		}
		return p, nil
	}
	path, _ := headless.Lookup(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, h.Binary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("the %s CLI (%s) is not on PATH; install it, or set %s to its path", h.Name, h.Binary, h.BinEnv)
}

// scope is one notes folder of a space.
type scope struct{ label, dir string }

// scopesOf returns the space's two notes folders, project first, their
// paths with links resolved where they exist (a notes home linked into a
// dotfiles folder is snapshotted where the files really are).
func scopesOf(sp *notes.Space) []scope {
	out := []scope{{"project", sp.ProjectDir()}, {"global", sp.GlobalDir()}}
	for i := range out {
		if r, err := filepath.EvalSymlinks(out[i].dir); err == nil {
			out[i].dir = r
		}
	}
	return out
}

func scopeDirs(sp *notes.Space) []string {
	var dirs []string
	for _, s := range scopesOf(sp) {
		dirs = append(dirs, s.dir)
	}
	return dirs
}

// passesFolder is where a project's passes are kept.
func passesFolder(home string, sp *notes.Space) string {
	return filepath.Join(notes.Open(home).Home(), passesDir, notes.ProjectKey(sp.Root()))
}

// Result is what a pass did.
type Result struct {
	// Report is the pass's final report, as the harness gave it.
	Report string
	// PassDir holds the snapshot.
	PassDir string
	// Changed lists the notes-folder paths (scope label and path) the
	// pass changed, created or removed.
	Changed []string
}

// maxStdout bounds how much of the harness's stdout is kept for the
// report: the report is the end of it.
const maxStdout = 16 << 20

// Run runs the pass: it takes the dream lock (refusing at once, with
// ErrBusy, while another pass or undo holds it), snapshots the notes,
// runs the harness in the project's folder (its stdout rendered and its
// stderr passed to progress), records what the pass left, and returns the
// report. The harness is stopped at the plan's timeout or when ctx ends;
// what it left is recorded then too, so its changes can be undone.
func (p *Plan) Run(ctx context.Context, progress io.Writer) (Result, error) {
	var res Result
	release, err := lockDreams(scopeDirs(p.space))
	if err != nil {
		return res, err
	}
	defer release()
	// Taken after the lock, which creates missing folders: their paths
	// with links resolved are what Undo will compare.
	scopes := scopesOf(p.space)
	started := time.Now()
	rec := before{Version: recordVersion, Project: p.Project, Harness: p.Harness, Started: started.UTC()}
	for _, sc := range scopes {
		var es []Entry
		if err := withNotesLock(sc.dir, func() (err error) { es, err = readScope(sc.dir); return }); err != nil {
			return res, err
		}
		rec.Scopes = append(rec.Scopes, ScopeSnapshot{Label: sc.label, Dir: sc.dir, Entries: es})
	}
	passDir, err := newPassDir(p.Passes, started)
	if err != nil {
		return res, err
	}
	res.PassDir = passDir
	if err := writeJSON(filepath.Join(passDir, beforeFile), rec); err != nil {
		os.RemoveAll(passDir)
		return res, fmt.Errorf("write the snapshot %s: %w; nothing was run", passDir, err)
	}

	runCtx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	cmd, err := p.command(runCtx)
	if err != nil {
		return res, err
	}
	cmd.Env = p.opts.Env
	// Two goroutines of exec copy stdout and stderr: one writer, locked,
	// takes both.
	shared := &lockedWriter{w: progress}
	out := &streamer{progress: shared, render: p.opts.Harness.Progress}
	cmd.Stdout, cmd.Stderr = out, shared
	ownGroup(cmd)
	runErr := cmd.Run()
	out.flush()
	if runCtx.Err() != nil && ctx.Err() == nil {
		runErr = fmt.Errorf("the pass ran past its %v timeout and was stopped (--timeout sets it)", p.Timeout)
	} else if runErr != nil {
		runErr = fmt.Errorf("%s %s: %w", p.Harness, p.Bin, runErr)
	}

	// Record what the pass left, whatever became of it.
	aft := after{Ended: time.Now().UTC(), Exit: "ok", Scopes: map[string]map[string]string{}}
	if runErr != nil {
		aft.Exit = runErr.Error()
	}
	var recErr error
	for i, sc := range scopes {
		var es []Entry
		if err := withNotesLock(sc.dir, func() (err error) { es, err = readScope(sc.dir); return }); err != nil {
			recErr = err
			break
		}
		now := sums(es)
		aft.Scopes[sc.label] = now
		for _, path := range diff(sums(rec.Scopes[i].Entries), now) {
			res.Changed = append(res.Changed, sc.label+": "+path)
		}
	}
	if recErr == nil {
		recErr = writeJSON(filepath.Join(passDir, afterFile), aft)
	}
	if recErr != nil {
		recErr = fmt.Errorf("recording what the pass left failed (%v); notesoup dream --undo --force still restores the snapshot", recErr)
	}
	prune(p.Passes)

	report := out.buf.Bytes()
	if f := p.opts.Harness.Report; f != nil {
		res.Report = strings.TrimSpace(f(report))
	} else {
		res.Report = strings.TrimSpace(string(report))
	}
	return res, errors.Join(runErr, recErr)
}

// streamer keeps the harness's stdout (its last maxStdout bytes) for the
// report and writes each whole line, rendered, to progress.
type streamer struct {
	progress io.Writer
	render   func([]byte) string
	buf      bytes.Buffer
	line     []byte
	skipping bool // the current line grew past maxProgressLine
}

// maxProgressLine bounds a line kept for rendering; a longer one (a huge
// tool result in a JSON stream) is not shown.
const maxProgressLine = 1 << 20

func (s *streamer) Write(b []byte) (int, error) {
	s.buf.Write(b)
	if s.buf.Len() > maxStdout {
		keep := s.buf.Bytes()[s.buf.Len()-maxStdout/2:]
		s.buf = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	rest := b
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if !s.skipping && len(s.line)+len(rest) <= maxProgressLine {
				s.line = append(s.line, rest...)
			} else {
				s.line, s.skipping = nil, true
			}
			break
		}
		if !s.skipping && len(s.line)+i <= maxProgressLine {
			s.emit(append(s.line, rest[:i]...))
		}
		s.line, s.skipping = s.line[:0], false
		rest = rest[i+1:]
	}
	return len(b), nil
}

func (s *streamer) emit(line []byte) {
	text := string(line)
	if s.render != nil {
		text = s.render(line)
	}
	if text != "" {
		fmt.Fprintln(s.progress, text)
	}
}

func (s *streamer) flush() {
	if len(s.line) > 0 {
		s.emit(s.line)
		s.line = nil
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
