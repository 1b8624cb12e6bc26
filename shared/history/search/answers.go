package search

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/bincodec"
)

// Answers kept beside the index: the same query again, over an index that
// has not changed, is answered without reading a block. Each answer is
// keyed on the manifest's generation (new at every write of the index), so
// any change retires every answer; it holds only what a search returns
// (masked sessions, masked entries) and a hash of the query in its name,
// never the query (which may itself be a secret). Their number is bounded.
const (
	answersDir = "answers"
	// maxAnswers bounds how many answers are kept; the oldest go first.
	maxAnswers = 64
	// maxAnswerBytes bounds one answer (--limit 0 over a common word can
	// be large: such an answer is not kept).
	maxAnswerBytes = 4 << 20
	answerMagic    = "nsa1"
)

// answerKey names a query's answer: a hash of what shapes it.
func answerKey(query string, per, limit int, scopes []string) string {
	h := sha256.New()
	h.Write([]byte(query))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(per) + "/" + strconv.Itoa(limit)))
	for _, c := range scopes { // the sources searched (Source.Scope)
		h.Write([]byte("/" + strconv.Itoa(len(c)) + ":" + c))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// kept is an answer as stored.
type kept struct {
	Sessions []SessionHits `json:"sessions"`
	Errors   []string      `json:"errors,omitempty"`
	More     int           `json:"more,omitempty"`
}

// loadAnswer returns the answer kept for key at generation gen.
func loadAnswer(dir, key string, gen uint64) (kept, bool) {
	data, err := rawread.ReadAll(filepath.Join(dir, answersDir, "a-"+key), maxAnswerBytes+64)
	if err != nil {
		return kept{}, false
	}
	payload, ok := bincodec.Verify(data, answerMagic)
	if !ok || len(payload) < 8 || binary.LittleEndian.Uint64(payload) != gen {
		return kept{}, false
	}
	var k kept
	if json.Unmarshal(payload[8:], &k) != nil {
		return kept{}, false
	}
	if k.Sessions == nil {
		k.Sessions = []SessionHits{}
	}
	return k, true
}

// storeAnswer keeps an answer (best effort: a search that cannot keep one
// still answers) and drops the oldest past maxAnswers.
func storeAnswer(dir, key string, gen uint64, k kept) {
	js, err := json.Marshal(k)
	if err != nil || len(js) > maxAnswerBytes {
		return
	}
	b := append([]byte(answerMagic), binary.LittleEndian.AppendUint64(nil, gen)...)
	b = append(b, js...)
	b = bincodec.AppendChecksum(b)
	ad := filepath.Join(dir, answersDir)
	if os.MkdirAll(ad, 0o700) != nil {
		return
	}
	if atomicfile.Write(filepath.Join(ad, "a-"+key), b, atomicfile.Options{TempPrefix: ".a-tmp-", NoSync: true}) != nil {
		return
	}
	ents, err := os.ReadDir(ad)
	if err != nil || len(ents) <= maxAnswers {
		return
	}
	type aged struct {
		name string
		t    time.Time
	}
	var all []aged
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			all = append(all, aged{e.Name(), fi.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return a.t.Compare(b.t) })
	for _, a := range all[:max(0, len(all)-maxAnswers)] {
		os.Remove(filepath.Join(ad, a.name))
	}
}
