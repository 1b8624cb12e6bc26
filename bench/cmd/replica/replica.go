package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesoup/notesoup/testkit/corpus"
)

// Options say what to write.
type Options struct {
	// Samples is the repository's samples/ directory.
	Samples string
	// Dir receives home/ (the corpus.Layout of testkit/corpus).
	Dir string
	// TotalBytes is the size to reach: copies are added until the
	// samples' bytes times the copies reach it.
	TotalBytes int64
	// Seed selects the new ids and the needle's copy.
	Seed uint64
	// PerProject is how many copies share a project (a Claude project
	// folder, a Pi cwd folder): each scenario's folder then holds this
	// many sessions, twice that for a fork's.
	PerProject int
	// Step is how far back in time each copy lies from the one before
	// (its records, file names and UUIDv7 times), so Codex's day folders
	// spread over many days.
	Step time.Duration
}

// File is one written file.
type File struct {
	Harness string `json:"harness"`
	// Session is the new session id ("" for a subagent transcript or its
	// meta file, which belong to their session).
	Session string `json:"session,omitempty"`
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	Copy    int    `json:"copy"`
	// Sample is the recorded file it copies, relative to its harness's
	// root under samples/.
	Sample string `json:"sample"`
}

// Result describes a written replica.
type Result struct {
	Layout corpus.Layout
	Copies int
	Files  []File
	Bytes  int64
	// Needle is the marker of NeedleCopy: event text of that copy only.
	Needle     string
	NeedleCopy int
}

// marker is copy's name for markerToken: the same length.
func marker(c int) string { return fmt.Sprintf("n%05d.md", c) }

// project is the group's replacement of projectToken: the same length.
func project(group int) string { return fmt.Sprintf("notesoup-p%05d", group) }

// Write writes the replica. Copies are written in parallel; each file's
// bytes depend only on the options, so the result is the same every time.
func Write(o Options) (Result, error) {
	if o.TotalBytes <= 0 {
		return Result{}, fmt.Errorf("replica: the size must be positive (e.g. 1G), got %d", o.TotalBytes)
	}
	if o.PerProject <= 0 {
		return Result{}, fmt.Errorf("replica: -per-project must be positive, got %d", o.PerProject)
	}
	u, err := loadUnit(o.Samples)
	if err != nil {
		return Result{}, err
	}
	copies := int((o.TotalBytes + u.bytes - 1) / u.bytes)
	if copies > maxCopies {
		return Result{}, fmt.Errorf("replica: %d bytes need %d copies of the %d sample bytes; at most %d fit the copy number (ask for less)", o.TotalBytes, copies, u.bytes, maxCopies)
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return Result{}, fmt.Errorf("replica: -dir %s: %w", o.Dir, err)
	}
	lay := corpus.NewLayout(dir)
	if _, err := os.Lstat(lay.Home); err == nil {
		return Result{}, fmt.Errorf("replica: %s already exists; remove it (or pick another -dir) so copies are not mixed with other files", lay.Home)
	}
	res := Result{Layout: lay, Copies: copies, NeedleCopy: int(mix(o.Seed^0x6e6565646c65) % uint64(copies))}
	res.Needle = marker(res.NeedleCopy)
	w := &writer{o: o, u: u, lay: lay}
	perCopy := make([][]File, copies)
	errs := make([]error, copies)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for c := range jobs {
				perCopy[c], buf, errs[c] = w.copy(c, buf)
			}
		}()
	}
	for c := range copies {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	seen := map[string]string{}
	for c := range copies {
		if errs[c] != nil {
			return res, errs[c]
		}
		for _, f := range perCopy[c] {
			if f.Session != "" {
				key := f.Harness + ":" + f.Session
				if p, dup := seen[key]; dup {
					return res, fmt.Errorf("replica: session id %s of %s is also %s's; try another -seed", key, f.Path, p)
				}
				seen[key] = f.Path
			}
			res.Files = append(res.Files, f)
			res.Bytes += f.Bytes
		}
	}
	return res, nil
}

// writer writes copies of one unit.
type writer struct {
	o    Options
	u    *unit
	lay  corpus.Layout
	dirs sync.Map // folders made
}

// fill is what one copy puts in the slots.
type fill struct {
	copy, group int
	shift       time.Duration
	uuids       []string
	agents      []string
	paths       []string // each sample's new absolute path
}

// copy writes copy c; buf is a reusable buffer.
func (w *writer) copy(c int, buf []byte) ([]File, []byte, error) {
	f := &fill{copy: c, group: c / w.o.PerProject, shift: -time.Duration(c) * w.o.Step}
	f.uuids = make([]string, len(w.u.uuids))
	for i, id := range w.u.uuids {
		f.uuids[i] = newUUID(id, w.o.Seed, c, f.shift)
	}
	f.agents = make([]string, len(w.u.agents))
	for i, a := range w.u.agents {
		f.agents[i] = newHexID(a, w.o.Seed, c)
	}
	f.paths = make([]string, len(w.u.samples))
	for i, s := range w.u.samples {
		rel := string(f.render(nil, s.path))
		f.paths[i] = filepath.Join(w.root(s.harness), filepath.FromSlash(rel))
	}
	files := make([]File, 0, len(w.u.samples))
	for i, s := range w.u.samples {
		buf = f.render(buf[:0], s.body)
		if s.harness == codexH && len(buf) != len(s.body.src) {
			// history_base's end_byte_offset counts bytes of the parent.
			return nil, buf, fmt.Errorf("replica: copy %d of codex sample %s changed length (%d to %d bytes), so fork byte offsets would be wrong", c, s.rel, len(s.body.src), len(buf))
		}
		p := f.paths[i]
		if err := w.mkdir(filepath.Dir(p)); err != nil {
			return nil, buf, err
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return nil, buf, fmt.Errorf("replica: %w", err)
		}
		out := File{Harness: s.harness, Path: p, Bytes: int64(len(buf)), Copy: c, Sample: s.rel}
		if s.session != "" {
			out.Session = string(f.render(nil, template{src: []byte(s.session), slots: idSlots(s)}))
		}
		files = append(files, out)
	}
	return files, buf, nil
}

// idSlots are the slots of a sample's session id alone (a UUID).
func idSlots(s sample) []slot {
	for _, sl := range s.path.slots {
		if sl.kind == slotUUID && string(s.path.src[sl.off:sl.end]) == s.session {
			return []slot{{off: 0, end: len(s.session), kind: slotUUID, idx: sl.idx}}
		}
	}
	return nil
}

func (w *writer) root(h string) string {
	switch h {
	case claudeH:
		return w.lay.Claude
	case piH:
		return w.lay.Pi
	}
	return w.lay.Codex
}

func (w *writer) mkdir(d string) error {
	if _, ok := w.dirs.Load(d); ok {
		return nil
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	w.dirs.Store(d, true)
	return nil
}

// render appends tp with f's values in its slots to dst.
func (f *fill) render(dst []byte, tp template) []byte {
	prev := 0
	for _, s := range tp.slots {
		dst = append(dst, tp.src[prev:s.off]...)
		prev = s.end
		switch s.kind {
		case slotUUID:
			dst = append(dst, f.uuids[s.idx]...)
		case slotAgent:
			dst = append(dst, f.agents[s.idx]...)
		case slotProject:
			dst = append(dst, project(f.group)...)
		case slotMarker:
			dst = append(dst, marker(f.copy)...)
		case slotISO:
			layout := "2006-01-02T15:04:05"
			if s.frac > 0 {
				layout += "." + strings.Repeat("0", s.frac)
			}
			dst = s.t.Add(f.shift).UTC().AppendFormat(dst, layout+"Z")
		case slotPiTime:
			dst = appendPiTime(dst, s.t.Add(f.shift))
		case slotCodexDay:
			dst = s.t.Add(f.shift).UTC().AppendFormat(dst, codexDayLayout)
		case slotCodexTime:
			dst = s.t.Add(f.shift).UTC().AppendFormat(dst, codexNameLayout)
		case slotMillis:
			dst = strconv.AppendInt(dst, s.n+f.shift.Milliseconds(), 10)
		case slotSeconds:
			dst = strconv.AppendInt(dst, s.n+int64(f.shift/time.Second), 10)
		case slotPiParent:
			dst = appendJSONString(dst, f.paths[s.idx])
		}
	}
	return append(dst, tp.src[prev:]...)
}

// appendJSONString appends s escaped as the inside of a JSON string.
func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b[1:len(b)-1]...)
}

// mix is SplitMix64's finalizer: a well-spread 64-bit hash step.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// hash64 is FNV-1a of s.
func hash64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// random128 is 16 bytes drawn from (seed, copy, orig).
func random128(orig string, seed uint64, c int) [16]byte {
	a := mix(seed ^ mix(uint64(c)+1) ^ hash64(orig))
	b := mix(a ^ 0xda942042e4dd58b5)
	var r [16]byte
	binary.BigEndian.PutUint64(r[:8], a)
	binary.BigEndian.PutUint64(r[8:], b)
	return r
}

// newUUID is copy's replacement of the UUID orig: random bits from the
// seed, orig's version and variant nibbles kept, and for a UUIDv7 its
// millisecond time moved by shift, so the id still dates its session.
func newUUID(orig string, seed uint64, c int, shift time.Duration) string {
	r := random128(orig, seed, c)
	ob, _ := hex.DecodeString(strings.ReplaceAll(orig, "-", "")) // orig matched uuidRe
	if ob[6]>>4 == 7 {
		ms := int64(binary.BigEndian.Uint64(append([]byte{0, 0}, ob[:6]...)))
		if t := time.UnixMilli(ms); !t.Before(epochLo) && !t.After(epochHi) {
			ms += shift.Milliseconds()
			var ts [8]byte
			binary.BigEndian.PutUint64(ts[:], uint64(ms))
			copy(r[:6], ts[2:])
		}
	}
	r[6] = ob[6]&0xf0 | r[6]&0x0f
	r[8] = ob[8]&0xf0 | r[8]&0x0f
	h := hex.EncodeToString(r[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newHexID is copy's replacement of a hex id such as a Claude subagent's
// ("af3812e71ad0e91b6"): its first character kept, the rest random hex of
// the same length.
func newHexID(orig string, seed uint64, c int) string {
	r := random128(orig, seed, c)
	h := hex.EncodeToString(r[:])
	for len(h) < len(orig) {
		r = random128(h, seed, c)
		h += hex.EncodeToString(r[:])
	}
	return orig[:1] + h[:len(orig)-1]
}
