package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Harness names, as the decoders and corpus.json use them.
const (
	claudeH = "claude"
	piH     = "pi"
	codexH  = "codex"
)

// Tokens of the recordings that every copy rewrites. Each replacement has
// the length of what it replaces, so Codex's history_base end_byte_offset
// (a byte offset into the parent rollout) stays true in every copy.
const (
	// projectToken is in every recorded working directory
	// (/tmp/notesoup-record/<scenario>/work) and so in Claude's project
	// folder and Pi's cwd folder names; a copy's group replaces it, so a
	// project folder holds the sessions of many copies.
	projectToken = "notesoup-record"
	// markerToken is the file every recorded scenario reads; a copy's own
	// name for it ("n00042.md") is the rare query: tool calls and results
	// show it, so it is event text, in exactly one copy.
	markerToken = "notes.txt"
	// maxCopies bounds the copy number to markerToken's five digits.
	maxCopies = 100000
	// maxSampleBytes bounds one sample file read into memory.
	maxSampleBytes = 64 << 20
)

// Layouts of the times in file names.
const (
	codexNameLayout = "2006-01-02T15-04-05"
	codexDayLayout  = "2006/01/02"
)

// Patterns of the values a copy rewrites. They are found once per sample
// (a template of literal bytes and slots); every copy then only fills
// slots, which is memory copying.
var (
	uuidRe   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	isoRe    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{1,9}))?Z`)
	piTimeRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z`)
	// Epoch times as JSON numbers after a key: milliseconds (13 digits)
	// and seconds (10 digits, maybe with a fraction, which is kept).
	msRe  = regexp.MustCompile(`":(1\d{12})[,}\]]`)
	secRe = regexp.MustCompile(`":(1\d{9})[,.}\]]`)
	// parentRe is a Pi session header's link to the session it forked.
	parentRe = regexp.MustCompile(`"parentSession":"((?:[^"\\]|\\.)*)"`)
	// codexNameRe is a rollout's file name.
	codexNameRe = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d)-(.+)\.jsonl$`)
	// agentNameRe is a Claude subagent transcript's (or its meta's) name.
	agentNameRe = regexp.MustCompile(`^agent-([0-9a-zA-Z]+)\.(jsonl|meta\.json)$`)
)

// Epoch bounds: a number outside 2020..2035 is not a time.
var (
	epochLo = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	epochHi = time.Date(2035, 1, 1, 0, 0, 0, 0, time.UTC)
)

// slotKind says how a copy fills a slot.
type slotKind uint8

const (
	slotUUID      slotKind = iota // idx: unit.uuids
	slotAgent                     // idx: unit.agents
	slotProject                   // projectToken
	slotMarker                    // markerToken
	slotISO                       // t, frac digits
	slotPiTime                    // t, as in a Pi file name
	slotCodexDay                  // t, YYYY/MM/DD
	slotCodexTime                 // t, as in a rollout's file name
	slotMillis                    // n
	slotSeconds                   // n
	slotPiParent                  // idx: unit.samples (the parent file)
)

// slot is one rewritten span [off, end) of a template.
type slot struct {
	off, end int
	kind     slotKind
	idx      int
	frac     int
	t        time.Time
	n        int64
}

// template is text with slots.
type template struct {
	src   []byte
	slots []slot
}

// sample is one recorded file of the unit every copy repeats.
type sample struct {
	harness string
	rel     string // slash path under the harness's root in samples/
	// session is the original session id of a session file ("" for a
	// subagent transcript or meta file, which are not sessions).
	session string
	path    template // rel, as a template
	body    template
}

// unit is the samples, read once.
type unit struct {
	samples []sample
	uuids   []string // every UUID the samples hold, in first-seen order
	agents  []string // Claude subagent ids
	bytes   int64    // the samples' total size
}

// harnessRoots are the sample roots under samples/, by harness.
var harnessRoots = []struct{ harness, dir string }{
	{claudeH, "claude/projects"},
	{piH, "pi/sessions"},
	{codexH, "codex/sessions"},
}

// loadUnit reads the Claude, Pi and Codex samples under dir.
func loadUnit(dir string) (*unit, error) {
	u := &unit{}
	uuidIdx := map[string]int{}
	agentIdx := map[string]int{}
	type raw struct {
		harness, rel string
		data         []byte
	}
	var raws []raw
	for _, hr := range harnessRoots {
		root := filepath.Join(dir, filepath.FromSlash(hr.dir))
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("samples %s: no %s root at %s; point -samples at the repository's samples/ directory", dir, hr.harness, root)
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil // directories, and never a symlink out of the root
			}
			if !strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".meta.json") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			data, err := readBounded(p)
			if err != nil {
				return err
			}
			raws = append(raws, raw{hr.harness, filepath.ToSlash(rel), data})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("samples %s: %w", dir, err)
		}
	}
	sort.Slice(raws, func(i, j int) bool {
		if raws[i].harness != raws[j].harness {
			return raws[i].harness < raws[j].harness
		}
		return raws[i].rel < raws[j].rel
	})
	// Subagent ids first: they are literals to find in every file.
	for _, r := range raws {
		if r.harness == claudeH {
			if m := agentNameRe.FindStringSubmatch(path.Base(r.rel)); m != nil {
				if _, ok := agentIdx[m[1]]; !ok {
					agentIdx[m[1]] = len(u.agents)
					u.agents = append(u.agents, m[1])
				}
			}
		}
	}
	relIdx := map[string]int{}
	for i, r := range raws {
		relIdx[r.harness+"/"+r.rel] = i
	}
	for _, r := range raws {
		s := sample{harness: r.harness, rel: r.rel}
		base := path.Base(r.rel)
		var err error
		switch r.harness {
		case claudeH:
			if !agentNameRe.MatchString(base) {
				s.session = strings.TrimSuffix(base, ".jsonl")
			}
			s.path = scan([]byte(r.rel), u, uuidIdx, agentIdx, false)
		case piH:
			if i := strings.LastIndexByte(base, '_'); i >= 0 {
				s.session = strings.TrimSuffix(base[i+1:], ".jsonl")
			}
			s.path = scan([]byte(r.rel), u, uuidIdx, agentIdx, true)
		case codexH:
			s.path, s.session, err = codexPath(r.rel, u, uuidIdx)
		}
		if err != nil {
			return nil, fmt.Errorf("samples %s: %w", dir, err)
		}
		s.body = scan(r.data, u, uuidIdx, agentIdx, false)
		if r.harness == piH {
			s.body = piParent(s.body, relIdx)
		}
		u.samples = append(u.samples, s)
		u.bytes += int64(len(r.data))
	}
	if len(u.samples) == 0 {
		return nil, fmt.Errorf("samples %s: no Claude, Pi or Codex transcripts found", dir)
	}
	return u, nil
}

// readBounded reads a regular file of at most maxSampleBytes.
func readBounded(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSampleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > maxSampleBytes {
		return nil, fmt.Errorf("%s is over %d MB; samples are small recordings, not corpora", p, maxSampleBytes>>20)
	}
	return data, nil
}

// parsePiTime reads a Pi file name's time, 2006-01-02T15-04-05-000Z (Go's
// layouts take a fraction only after a dot or comma).
func parsePiTime(s string) (time.Time, error) {
	if len(s) != len(codexNameLayout)+5 {
		return time.Time{}, fmt.Errorf("pi time %q: want 2006-01-02T15-04-05-000Z", s)
	}
	t, err := time.Parse(codexNameLayout, s[:len(codexNameLayout)])
	if err != nil {
		return t, err
	}
	ms, err := strconv.Atoi(s[len(codexNameLayout)+1 : len(s)-1])
	if err != nil {
		return t, fmt.Errorf("pi time %q: %w", s, err)
	}
	return t.Add(time.Duration(ms) * time.Millisecond), nil
}

// appendPiTime appends t as a Pi file name's time.
func appendPiTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	dst = t.AppendFormat(dst, codexNameLayout)
	return fmt.Appendf(dst, "-%03dZ", t.Nanosecond()/int(time.Millisecond))
}

// codexPath makes the template of a rollout's path YYYY/MM/DD/rollout-
// <time>-<id>.jsonl: its folders follow the (shifted) time in its name.
func codexPath(rel string, u *unit, uuidIdx map[string]int) (template, string, error) {
	// The folders are derived from the time, as Codex writes them.
	base := path.Base(rel)
	m := codexNameRe.FindStringSubmatch(strings.TrimPrefix(base, "rollout-"))
	if !strings.HasPrefix(base, "rollout-") || m == nil {
		return template{}, "", fmt.Errorf("codex sample %s is not named rollout-<time>-<id>.jsonl", rel)
	}
	t, err := time.Parse(codexNameLayout, m[1])
	if err != nil {
		return template{}, "", fmt.Errorf("codex sample %s: %w", rel, err)
	}
	id := m[2]
	src := t.Format(codexDayLayout) + "/rollout-" + m[1] + "-" + id + ".jsonl"
	tp := template{src: []byte(src)}
	tp.slots = append(tp.slots, slot{off: 0, end: len(codexDayLayout), kind: slotCodexDay, t: t})
	off := len(codexDayLayout) + len("/rollout-")
	tp.slots = append(tp.slots, slot{off: off, end: off + len(m[1]), kind: slotCodexTime, t: t})
	off += len(m[1]) + 1
	if uuidRe.MatchString(id) && len(id) == 36 {
		tp.slots = append(tp.slots, slot{off: off, end: off + 36, kind: slotUUID, idx: uuidIndex(id, u, uuidIdx)})
	}
	return tp, id, nil
}

func uuidIndex(id string, u *unit, uuidIdx map[string]int) int {
	i, ok := uuidIdx[id]
	if !ok {
		i = len(u.uuids)
		uuidIdx[id] = i
		u.uuids = append(u.uuids, id)
	}
	return i
}

// scan finds the slots of src: UUIDs, subagent ids, the project and marker
// tokens, ISO times (and Pi file-name times when piNames), epoch times.
// Overlapping finds keep the earliest, longest one.
func scan(src []byte, u *unit, uuidIdx, agentIdx map[string]int, piNames bool) template {
	var slots []slot
	for _, m := range uuidRe.FindAllIndex(src, -1) {
		if (m[0] > 0 && isAlnum(src[m[0]-1])) || (m[1] < len(src) && isAlnum(src[m[1]])) {
			continue // part of a longer token, not a UUID
		}
		slots = append(slots, slot{off: m[0], end: m[1], kind: slotUUID, idx: uuidIndex(string(src[m[0]:m[1]]), u, uuidIdx)})
	}
	for _, a := range u.agents {
		slots = appendLiteral(slots, src, a, slotAgent, agentIdx[a])
	}
	slots = appendLiteral(slots, src, projectToken, slotProject, 0)
	slots = appendLiteral(slots, src, markerToken, slotMarker, 0)
	for _, m := range isoRe.FindAllSubmatchIndex(src, -1) {
		t, err := time.Parse(time.RFC3339Nano, string(src[m[0]:m[1]]))
		if err != nil || t.Before(epochLo) || t.After(epochHi) {
			continue
		}
		frac := 0
		if m[2] >= 0 {
			frac = m[3] - m[2]
		}
		slots = append(slots, slot{off: m[0], end: m[1], kind: slotISO, t: t, frac: frac})
	}
	if piNames {
		for _, m := range piTimeRe.FindAllIndex(src, -1) {
			if t, err := parsePiTime(string(src[m[0]:m[1]])); err == nil {
				slots = append(slots, slot{off: m[0], end: m[1], kind: slotPiTime, t: t})
			}
		}
	}
	for _, re := range []struct {
		re   *regexp.Regexp
		kind slotKind
		unit time.Duration
	}{{msRe, slotMillis, time.Millisecond}, {secRe, slotSeconds, time.Second}} {
		for _, m := range re.re.FindAllSubmatchIndex(src, -1) {
			n, err := strconv.ParseInt(string(src[m[2]:m[3]]), 10, 64)
			if err != nil {
				continue
			}
			if t := time.Unix(0, 0).Add(time.Duration(n) * re.unit); t.Before(epochLo) || t.After(epochHi) {
				continue
			}
			slots = append(slots, slot{off: m[2], end: m[3], kind: re.kind, n: n})
		}
	}
	return template{src: src, slots: settle(slots)}
}

// settle sorts slots and drops any that overlaps an earlier one.
func settle(slots []slot) []slot {
	sort.SliceStable(slots, func(i, j int) bool {
		if slots[i].off != slots[j].off {
			return slots[i].off < slots[j].off
		}
		return slots[i].end > slots[j].end
	})
	out := slots[:0]
	end := 0
	for _, s := range slots {
		if s.off < end {
			continue
		}
		out = append(out, s)
		end = s.end
	}
	return out
}

func appendLiteral(slots []slot, src []byte, lit string, kind slotKind, idx int) []slot {
	for from := 0; ; {
		i := bytes.Index(src[from:], []byte(lit))
		if i < 0 {
			return slots
		}
		slots = append(slots, slot{off: from + i, end: from + i + len(lit), kind: kind, idx: idx})
		from += i + len(lit)
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// piParent turns a Pi header's parentSession (an absolute path on the
// recording machine) into a slot naming the parent sample, so a copy points
// at its own copy of the parent. A parent that is not among the samples
// keeps its recorded path.
func piParent(tp template, relIdx map[string]int) template {
	nl := bytes.IndexByte(tp.src, '\n')
	if nl < 0 {
		nl = len(tp.src)
	}
	m := parentRe.FindSubmatchIndex(tp.src[:nl])
	if m == nil {
		return tp
	}
	var p string
	if json.Unmarshal(tp.src[m[2]-1:m[3]+1], &p) != nil {
		return tp
	}
	// The parent is <sessions>/<cwd folder>/<file>: the last two elements
	// name the sample.
	dir, file := path.Split(filepath.ToSlash(p))
	i, ok := relIdx[piH+"/"+path.Base(path.Clean(dir))+"/"+file]
	if !ok {
		return tp
	}
	tp.slots = settle(append(tp.slots, slot{off: m[2], end: m[3], kind: slotPiParent, idx: i}))
	return tp
}
