package corpus

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// gen is a session's deterministic source of ids and text.
type gen struct {
	r   *rand.Rand
	buf []byte
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// uuid returns a random version-4-shaped UUID.
func (g *gen) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(a>>32), uint16(a>>16), uint16(a)&0xfff, uint16(b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}

// hex returns n random hex digits.
func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

var words = strings.Fields(`the a to of and in is that for it with as on this be are
we not by or from at file function test build error value config handler request
response server client session cache index query token window branch commit module
package import return struct interface method field type string bytes buffer stream
decode encode parse render page limit offset cursor event record line path root
directory read write lock retry timeout context cancel deadline goroutine channel
mutex pointer slice map len append copy range loop check assert expect fixture
migration schema table column row transaction rollback deploy release version tag`)

// sentence returns n words of prose.
func (g *gen) sentence(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := words[g.r.IntN(len(words))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

// prose returns about n bytes of paragraphs.
func (g *gen) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			if g.r.IntN(4) == 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.sentence(5 + g.r.IntN(14)))
	}
	return b.String()
}

// Tool output line templates: compiler output, grep hits, test logs, source
// listings. Some carry what real tool output carries and JSON must escape:
// tabs, quotes, backslashes, ANSI colour codes, non-ASCII.
var outputLines = []func(g *gen) string{
	func(g *gen) string {
		return fmt.Sprintf("internal/%s/%s.go:%d:%d: undefined: %s", words[g.r.IntN(len(words))], words[g.r.IntN(len(words))], 1+g.r.IntN(900), 1+g.r.IntN(80), words[g.r.IntN(len(words))])
	},
	func(g *gen) string {
		return fmt.Sprintf("%d\tfunc (s *%s) %s(ctx context.Context, %s string) error {", 1+g.r.IntN(2000), strings.Title(words[g.r.IntN(len(words))]), strings.Title(words[g.r.IntN(len(words))]), words[g.r.IntN(len(words))])
	},
	func(g *gen) string {
		return fmt.Sprintf("\x1b[32m--- PASS\x1b[0m: Test%s%s (0.%02ds)", strings.Title(words[g.r.IntN(len(words))]), strings.Title(words[g.r.IntN(len(words))]), g.r.IntN(100))
	},
	func(g *gen) string {
		return fmt.Sprintf(`	log.Printf("%s %%s: %%v", %s, err) // \d+ matched`, g.sentence(4), words[g.r.IntN(len(words))])
	},
	func(g *gen) string {
		return fmt.Sprintf("drwxr-xr-x  %d dev dev  %5d Jun %2d 10:%02d %s", 1+g.r.IntN(9), g.r.IntN(99999), 1+g.r.IntN(30), g.r.IntN(60), words[g.r.IntN(len(words))])
	},
	func(g *gen) string { return "  → " + g.sentence(6) + " — résumé naïve café ✓" },
	func(g *gen) string { return g.sentence(8 + g.r.IntN(10)) },
}

// output returns about n bytes of tool output.
func (g *gen) output(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(outputLines[g.r.IntN(len(outputLines))](g))
		b.WriteByte('\n')
	}
	return b.String()
}

// commands are shell commands tool calls run.
var commands = []string{"go test ./...", "rg -n TODO", "ls -la", "cat README.md", "git status", "go build ./cmd/...", "sed -n 1,200p main.go", "grep -rn handler internal/", "make lint", "npm test"}

func (g *gen) command() string { return commands[g.r.IntN(len(commands))] }

// str appends s as a JSON string the way JSON.stringify and serde_json write
// it: quote, backslash and control characters escaped, everything else
// (non-ASCII included) literal.
func str(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string { return string(str(nil, s)) }

// stamp formats a time as the harnesses do (RFC 3339, milliseconds, Z).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
