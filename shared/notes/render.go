package notes

import (
	"fmt"
	"strings"
)

// The Render methods give the text a model or a person sees for each
// result; the JSON form carries the same facts for programs.

// Render lists one note per line: name, size, date and first line.
func (r ListResult) Render() string {
	if len(r.Notes) == 0 {
		return "No notes.\n"
	}
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", n.Name, HumanSize(n.Size), n.Modified.Format("2006-01-02 15:04"), n.FirstLine)
	}
	return b.String()
}

// Render returns the numbered lines with a one-line header.
func (r ReadResult) Render() string {
	if r.Lines == 0 {
		return fmt.Sprintf("%s is empty.\n", r.Name)
	}
	head := fmt.Sprintf("%s (%s", r.Name, plural(r.Lines, "line"))
	if r.From != 1 || r.To != r.Lines || r.midLine || r.NextOffset != 0 {
		head += fmt.Sprintf(", showing %d-%d", r.From, r.To)
	}
	if r.midLine {
		head += fmt.Sprintf(", line %d from byte %d", r.From, r.Offset)
	}
	out := head + ")\n" + r.Text
	if r.NextOffset != 0 {
		out += fmt.Sprintf("[answer cut at %d KiB: the rest starts at line %d; continue with offset=%d]\n", MaxReadAnswerBytes>>10, r.nextLine(), r.NextOffset)
	}
	return out
}

// nextLine is the line the next page starts on: the last one shown when
// the cut fell inside it.
func (r ReadResult) nextLine() int {
	if strings.HasSuffix(r.Content, "\n") {
		return r.To + 1
	}
	return r.To
}

// Render says what was written.
func (r WriteResult) Render() string {
	verb := "Replaced"
	if r.Created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%s, %s).\n", verb, r.Name, HumanSize(r.Size), plural(r.Lines, "line"))
}

// Render says where the edit landed.
func (r EditResult) Render() string {
	return fmt.Sprintf("Edited %s at line %d (now %s).\n", r.Name, r.Line, HumanSize(r.Size))
}

// Render says what was deleted.
func (r DeleteResult) Render() string {
	return fmt.Sprintf("Deleted %s (%s).\n", r.Name, HumanSize(r.Size))
}

// plural writes "1 line", "2 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// HumanSize formats a byte count briefly: "512 B", "1.2 KB", "3.4 MB".
func HumanSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}
