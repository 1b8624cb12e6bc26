package reset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
)

// Resolver is a harness's Thresholds function.
type Resolver func(ThresholdInput) NativePoint

// thresholdUsagePaths are the only parts of a usage report that feed a
// native point. Everything else in a usage report (tokens, percent, the
// category breakdown) measures fill, and fill alone must never invalidate
// resolved points.
var thresholdUsagePaths = [][]string{
	{"context", "window"},
	{"context", "breakdown", "autoCompactThreshold"},
	{"context", "breakdown", "rawMaxTokens"},
	{"context", "breakdown", "maxTokens"},
	{"context", "breakdown", "isAutoCompactEnabled"},
	{"context", "breakdown", "autocompactSource"},
	{"context", "breakdown", "model"},
	{"contextWindow"},
	{"model_context_window"},
}

// Memo reuses resolved limits while the model, cap, threshold inputs,
// settings and the settings files the harness consulted are unchanged.
// It is safe for concurrent use.
type Memo struct {
	resolve Resolver
	mu      sync.Mutex
	entries map[string]memoEntry
	// Resolves counts calls to the resolver, for tests and diagnostics.
	Resolves int
}

type memoEntry struct {
	limits Limits
	stamps []fileStamp
}

type fileStamp struct {
	Path    string
	Exists  bool
	Size    int64
	ModNano int64
}

// memoMaxEntries bounds the memo; a session sees a handful of models and
// caps, so dropping everything past this is cheaper than an LRU.
const memoMaxEntries = 64

// NewMemo returns a memo around one harness's resolver.
func NewMemo(resolve Resolver) *Memo {
	return &Memo{resolve: resolve, entries: map[string]memoEntry{}}
}

// Limits returns the limits for in, resolving the native point only when
// something that feeds it changed. Margins are read from the notesoup object
// of in.Settings. The error is ComputeLimits's (a cap too small).
func (m *Memo) Limits(in ThresholdInput) (Limits, error) {
	key := Fingerprint(in)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[key]; ok && stampsCurrent(e.stamps) {
		return e.limits, nil
	}
	m.Resolves++
	p := m.resolve(in)
	l, err := ComputeLimits(p, MarginsFromSettings(in.Settings), in.Cap)
	if err != nil {
		return l, err
	}
	if len(m.entries) >= memoMaxEntries {
		clear(m.entries)
	}
	m.entries[key] = memoEntry{limits: l, stamps: stamp(p.Files)}
	return l, nil
}

// Fingerprint hashes everything in a ThresholdInput that can move a native
// point: model, window, cap, settings, environment, overrides, directories
// and the threshold fields of the usage report, but not context fill.
func Fingerprint(in ThresholdInput) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s;", len(p), p)
		}
	}
	write("model", in.Model, "window", fmt.Sprint(in.ModelWindow), "cap", fmt.Sprint(in.Cap),
		"settings", string(in.Settings), "cwd", in.Cwd, "home", in.Home)
	keys := make([]string, 0, len(in.Env))
	for k := range in.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		write("env", k, in.Env[k])
	}
	for _, o := range in.Overrides {
		write("override", o)
	}
	usage, err := ParseJSONObject(in.Usage)
	if err != nil {
		write("usage-invalid", string(in.Usage))
	} else {
		for _, p := range thresholdUsagePaths {
			if v, ok := Lookup(usage, p...); ok {
				b, _ := json.Marshal(v)
				write("usage", fmt.Sprint(p), string(b))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func stamp(paths []string) []fileStamp {
	paths = slices.Clone(paths)
	sort.Strings(paths)
	out := make([]fileStamp, 0, len(paths))
	for _, p := range paths {
		fs := fileStamp{Path: p}
		if fi, err := os.Stat(p); err == nil {
			fs.Exists, fs.Size, fs.ModNano = true, fi.Size(), fi.ModTime().UnixNano()
		}
		out = append(out, fs)
	}
	return out
}

func stampsCurrent(old []fileStamp) bool {
	paths := make([]string, len(old))
	for i, s := range old {
		paths[i] = s.Path
	}
	return slices.Equal(old, stamp(paths))
}
