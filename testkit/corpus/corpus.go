// Package corpus writes deterministic, realistic transcript corpora of all
// three harnesses (Claude Code, Pi, Codex) for benchmarks: the record shapes
// the real recordings in testdata/transcripts show (long tool outputs,
// parallel tool calls, compactions, forks, Pi branches, Codex MCP calls), in
// each harness's real root layout, at any size from a few MB to many GB.
//
// The same Options always produce byte-identical files, so two benchmark
// runs (or two commits) measure the same bytes.
package corpus

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Harness names, as the decoders use them.
const (
	Claude = "claude"
	Pi     = "pi"
	Codex  = "codex"
)

// Size shape of a corpus. A real machine has many small sessions and a few
// long ones; a log-normal spread around the mean reproduces that.
const (
	// DefaultMeanSessionBytes is the mean session size when Options.Sessions
	// is 0: 1 GB gives about 3,300 sessions, "thousands" as the issue asks.
	DefaultMeanSessionBytes = 300 << 10
	// sizeSigma is the log-normal spread of session sizes.
	sizeSigma = 1.0
	// minSessionBytes keeps every session at least a few turns long.
	minSessionBytes = 4 << 10
	// forkPercent of sessions are forks of an earlier session.
	forkPercent = 6
	// writeBuffer is the file write buffer.
	writeBuffer = 256 << 10
)

// Options say what to generate.
type Options struct {
	// Seed selects the corpus; the same seed and sizes give the same bytes.
	Seed uint64
	// TotalBytes is the approximate total size (within a few percent).
	TotalBytes int64
	// Sessions is the number of sessions; 0 derives it from TotalBytes and
	// DefaultMeanSessionBytes.
	Sessions int
	// Harnesses limits the harnesses (default all three, in equal shares
	// of bytes).
	Harnesses []string
	// Needle is planted in the user prompt of NeedleSessions sessions, so a
	// search benchmark knows the exact answer. Default "corpus-needle-<seed>".
	Needle string
	// NeedleSessions defaults to 3 per harness.
	NeedleSessions int
}

// Layout is where each harness's root lies under the corpus directory, laid
// out as the harnesses write it: Claude's projects/<encoded cwd>/<id>.jsonl,
// Pi's sessions/--<cwd>--/<time>_<id>.jsonl and Codex's
// sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl.
type Layout struct {
	Home   string // the fake $HOME
	Claude string // ~/.claude/projects
	Pi     string // ~/.pi/agent/sessions
	Codex  string // ~/.codex/sessions
}

// NewLayout returns the layout under dir.
func NewLayout(dir string) Layout {
	home := filepath.Join(dir, "home")
	return Layout{
		Home:   home,
		Claude: filepath.Join(home, ".claude", "projects"),
		Pi:     filepath.Join(home, ".pi", "agent", "sessions"),
		Codex:  filepath.Join(home, ".codex", "sessions"),
	}
}

// File is one generated session file.
type File struct {
	Harness string
	ID      string
	Path    string
	Bytes   int64
	// Needle is how many events of this session's active branch contain the
	// needle (0 for most).
	Needle int
	// ForkOf is the parent session id of a fork, "" otherwise.
	ForkOf string
}

// Result describes a generated corpus.
type Result struct {
	Layout Layout
	Files  []File
	Bytes  int64
	Needle string
}

// ByHarness returns the files of one harness.
func (r Result) ByHarness(h string) []File {
	var out []File
	for _, f := range r.Files {
		if f.Harness == h {
			out = append(out, f)
		}
	}
	return out
}

// Generate writes a corpus under dir (which should be empty or absent).
func Generate(dir string, opts Options) (Result, error) {
	if opts.TotalBytes <= 0 {
		return Result{}, fmt.Errorf("corpus: TotalBytes must be positive (e.g. 10<<20 for 10 MB), got %d", opts.TotalBytes)
	}
	hs := opts.Harnesses
	if len(hs) == 0 {
		hs = []string{Claude, Pi, Codex}
	}
	for _, h := range hs {
		if h != Claude && h != Pi && h != Codex {
			return Result{}, fmt.Errorf("corpus: unknown harness %q; use claude, pi or codex", h)
		}
	}
	n := opts.Sessions
	if n <= 0 {
		n = int(opts.TotalBytes / DefaultMeanSessionBytes)
		if n < len(hs) {
			n = len(hs)
		}
	}
	if opts.Needle == "" {
		opts.Needle = fmt.Sprintf("corpus-needle-%d", opts.Seed)
	}
	if opts.NeedleSessions <= 0 {
		opts.NeedleSessions = 3 * len(hs)
	}
	lay := NewLayout(dir)
	res := Result{Layout: lay, Needle: opts.Needle}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6e6f7465736f7570))
	// Session sizes: log-normal weights scaled so they sum to TotalBytes.
	weights := make([]float64, n)
	var sum float64
	for i := range weights {
		weights[i] = math.Exp(rng.NormFloat64() * sizeSigma)
		sum += weights[i]
	}
	needleEvery := n / opts.NeedleSessions
	if needleEvery < 1 {
		needleEvery = 1
	}
	base := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var prior []*session // earlier sessions per harness, fork parents
	for i := 0; i < n; i++ {
		h := hs[i%len(hs)]
		size := int64(float64(opts.TotalBytes) * weights[i] / sum)
		if size < minSessionBytes {
			size = minSessionBytes
		}
		s := &session{
			g:       newGen(rng.Uint64()),
			harness: h,
			target:  size,
			start:   base.Add(time.Duration(i) * 17 * time.Minute),
			lay:     lay,
		}
		s.id = s.g.uuid()
		s.cwd = "/home/dev/src/" + projects[s.g.r.IntN(len(projects))]
		if i%needleEvery == 0 && i/needleEvery < opts.NeedleSessions {
			s.needle = opts.Needle
		}
		if i > len(hs) && s.g.r.IntN(100) < forkPercent {
			// Fork the latest earlier session of the same harness.
			for k := len(prior) - 1; k >= 0; k-- {
				// A needle session is never a parent, so its needle is
				// counted once.
				if prior[k].harness == h && prior[k].parent == nil && prior[k].needle == "" && len(prior[k].prefix) > 4 {
					s.parent = prior[k]
					s.cwd = prior[k].cwd
					break
				}
			}
		}
		f, err := s.write()
		if err != nil {
			return res, err
		}
		res.Files = append(res.Files, f)
		res.Bytes += f.Bytes
		prior = append(prior, s)
		if len(prior) > 64 {
			// Forks come from recent sessions; keep the prefixes bounded.
			prior[0].prefix = nil
			prior = prior[1:]
		}
	}
	return res, nil
}

// projects are the working directories sessions ran in.
var projects = []string{"notesoup", "api-server", "web/frontend", "infra/terraform", "ml/pipeline", "tools/cli", "docs-site", "mobile/app"}

// session is one session being written.
type session struct {
	g       *gen
	harness string
	id      string
	cwd     string
	target  int64
	start   time.Time
	lay     Layout
	needle  string
	parent  *session
	// prefix is the first lines of the session, kept for forks of it, and
	// prefixIDs the record id (uuid, entry id) of each, "" for none.
	prefix      []string
	prefixIDs   []string
	prefixBytes int64
	path        string
	// needles counts needle events on the active branch.
	needles int
}

// prefixLines bounds how many of a session's lines a fork copies.
const prefixLines = 40

func (s *session) write() (File, error) {
	var path string
	ts := s.start
	switch s.harness {
	case Claude:
		path = filepath.Join(s.lay.Claude, claudeProjectDir(s.cwd), s.id+".jsonl")
	case Pi:
		path = filepath.Join(s.lay.Pi, "--"+strings.ReplaceAll(strings.TrimPrefix(s.cwd, "/"), "/", "-")+"--",
			ts.Format("2006-01-02T15-04-05")+"-000Z_"+s.id+".jsonl")
	case Codex:
		// A fork lands in its own date directory, as Codex writes it; the
		// decoder finds the parent by id under the roots.
		path = filepath.Join(s.lay.Codex, ts.Format("2006"), ts.Format("01"), ts.Format("02"),
			"rollout-"+ts.Format("2006-01-02T15-04-05")+"-"+s.id+".jsonl")
	}
	s.path = path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return File{}, fmt.Errorf("corpus: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return File{}, fmt.Errorf("corpus: %w", err)
	}
	w := &lineWriter{w: bufio.NewWriterSize(f, writeBuffer), keep: prefixLines, s: s}
	switch s.harness {
	case Claude:
		s.writeClaude(w)
	case Pi:
		s.writePi(w)
	case Codex:
		s.writeCodex(w)
	}
	if err := w.w.Flush(); err != nil {
		f.Close()
		return File{}, fmt.Errorf("corpus: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return File{}, fmt.Errorf("corpus: close %s: %w", path, err)
	}
	out := File{Harness: s.harness, ID: s.id, Path: path, Bytes: w.n, Needle: s.needles}
	if s.parent != nil {
		out.ForkOf = s.parent.id
	}
	return out, nil
}

// claudeProjectDir encodes a cwd as Claude Code names its project folders.
func claudeProjectDir(cwd string) string {
	return strings.NewReplacer("/", "-", ".", "-").Replace(cwd)
}

// lineWriter counts bytes and keeps the first lines for forks.
type lineWriter struct {
	w    *bufio.Writer
	n    int64
	keep int
	s    *session
}

// line writes one JSONL record; id is its record id ("" for none).
func (w *lineWriter) line(b []byte, id string) {
	w.w.Write(b)
	w.w.WriteByte('\n')
	w.n += int64(len(b)) + 1
	if len(w.s.prefix) < w.keep {
		w.s.prefix = append(w.s.prefix, string(b))
		w.s.prefixIDs = append(w.s.prefixIDs, id)
		w.s.prefixBytes = w.n
	}
}

// full reports whether the session reached its target size.
func (w *lineWriter) full() bool { return w.n >= w.s.target }

// outputSize draws a tool output size: mostly short, sometimes long (a test
// log, a file listing), bounded by what is left of the session.
func (s *session) outputSize(w *lineWriter) int {
	n := 80 + s.g.r.IntN(1500)
	switch p := s.g.r.IntN(100); {
	case p < 8:
		n = 20<<10 + s.g.r.IntN(180<<10)
	case p < 30:
		n = 2<<10 + s.g.r.IntN(14<<10)
	}
	// Codex stores an output twice, so half of what is left is the most
	// one output may take; near the end outputs are short.
	if left := (s.target - w.n) / 2; int64(n) > left {
		n = max(80, int(left))
	}
	return n
}
