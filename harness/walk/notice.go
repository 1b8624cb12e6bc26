package walk

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Notice says on stderr, in go-hclog's line format, that something under a
// harness's roots was left out and why: a person missing sessions can see
// it, and the answer on stdout stays clean. It is written here rather than
// through hclog because the light build of notesoup, which runs every
// listing, links no logging library (cmd/notesoup's TestLightBuild), and
// every harness already imports this package. NOTESOUP_LOG=error or off
// silences it, as it would an hclog warning.
func Notice(harness, msg string, kv ...any) {
	if quiet() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s [WARN]  %s: %s:", time.Now().Format("2006-01-02T15:04:05.000Z0700"), harness, msg)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " %v=%q", kv[i], fmt.Sprint(kv[i+1]))
	}
	b.WriteByte('\n')
	noticeMu.Lock()
	defer noticeMu.Unlock()
	io.WriteString(noticeOut, b.String())
}

var (
	noticeMu  sync.Mutex
	noticeOut io.Writer = os.Stderr
)

// quiet reports whether NOTESOUP_LOG asks for less than warnings.
func quiet() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("NOTESOUP_LOG"))) {
	case "error", "off":
		return true
	}
	return false
}
