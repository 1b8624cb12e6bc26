package vault

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// The manifest is text, one transcript a line, because a sync at every
// session start reads it whole: for the 3,500 transcripts of the 1 GB
// benchmark corpus encoding/json took about 30 ms of CPU to parse it, this
// format a small fraction of that (BENCHMARKS.md, Vault).
//
//	notesoup-vault 1
//	<harness>\t<id>\t<root>\t<rel>\t<gen>\t<size>\t<clen>\t<mtime>\t<ino>\t<head>\t<tail>\t<state>\t<synced>\t<older>
//	...
//	end\t<entries>\t<crc32c of everything before this line, hex>
//
// Text fields are escaped (%, tab, newline and carriage return as %25,
// %09, %0A, %0D), so a hostile file name cannot add a field or a line;
// older is gen:size:clen,... or "-". The trailer proves the file whole.
const manifestMagic = "notesoup-vault"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var fieldEscaper = strings.NewReplacer("%", "%25", "\t", "%09", "\n", "%0A", "\r", "%0D")

func escapeField(s string) string {
	if !strings.ContainsAny(s, "%\t\n\r") {
		return s
	}
	return fieldEscaper.Replace(s)
}

func unescapeField(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("a cut escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("a bad escape in %q", s)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// encodeManifest writes entries (in order) in the manifest format.
func encodeManifest(entries []Entry) []byte {
	var b bytes.Buffer
	b.Grow(len(entries) * 320)
	fmt.Fprintf(&b, "%s %d\n", manifestMagic, manifestVersion)
	for _, e := range entries {
		for _, s := range []string{e.Harness, e.ID, e.Root, e.Rel} {
			b.WriteString(escapeField(s))
			b.WriteByte('\t')
		}
		b.WriteString(strconv.Itoa(e.Gen))
		for _, n := range []int64{e.Size, e.CLen, e.MTime} {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatInt(n, 10))
		}
		b.WriteByte('\t')
		b.WriteString(strconv.FormatUint(e.Ino, 10))
		for _, s := range []string{e.Head, e.Tail, e.State} {
			b.WriteByte('\t')
			b.WriteString(orDash(escapeField(s)))
		}
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(e.Synced, 10))
		b.WriteByte('\t')
		if len(e.Older) == 0 {
			b.WriteByte('-')
		}
		for i, g := range e.Older {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d:%d:%d", g.Gen, g.Size, g.CLen)
		}
		b.WriteByte('\n')
	}
	sum := crc32.Checksum(b.Bytes(), castagnoli)
	fmt.Fprintf(&b, "end\t%d\t%08x\n", len(entries), sum)
	return b.Bytes()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func dashEmpty(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// errNotManifest says the data is not a manifest this format can read.
var errNotManifest = errors.New("not a notesoup vault manifest")

// decodeManifest parses data written by encodeManifest. Entries are
// checked by the caller (Entry.check).
func decodeManifest(data []byte) ([]Entry, error) {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	magic, ver, _ := strings.Cut(string(head), " ")
	if !ok || magic != manifestMagic {
		return nil, errNotManifest
	}
	if v, err := strconv.Atoi(ver); err != nil || v != manifestVersion {
		return nil, fmt.Errorf("format %q, this notesoup reads %d; use a newer notesoup", ver, manifestVersion)
	}
	// The trailer is the last line; the checksum covers all before it.
	body := bytes.TrimSuffix(data, []byte{'\n'})
	cut := bytes.LastIndexByte(body, '\n')
	if cut < 0 {
		return nil, errors.New("no trailer: cut short")
	}
	trailer := strings.Split(string(body[cut+1:]), "\t")
	if len(trailer) != 3 || trailer[0] != "end" {
		return nil, errors.New("no trailer: cut short")
	}
	count, err := strconv.Atoi(trailer[1])
	if err != nil || count < 0 {
		return nil, fmt.Errorf("trailer count %q", trailer[1])
	}
	if fmt.Sprintf("%08x", crc32.Checksum(data[:cut+1], castagnoli)) != trailer[2] {
		return nil, errors.New("checksum mismatch")
	}
	rest = data[len(head)+1 : cut+1]
	out := make([]Entry, 0, count)
	roots := map[string]string{} // one string per root, not one per line
	var fields [14]string
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte{'\n'})
		rest = next
		s := string(line)
		n := 0
		for n < len(fields)-1 {
			i := strings.IndexByte(s, '\t')
			if i < 0 {
				break
			}
			fields[n], s = s[:i], s[i+1:]
			n++
		}
		fields[n] = s
		if n != len(fields)-1 || strings.IndexByte(s, '\t') >= 0 {
			return nil, fmt.Errorf("line %d has %d fields, want %d", len(out)+2, n+1, len(fields))
		}
		e, err := decodeEntry(fields[:], roots)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(out)+2, err)
		}
		out = append(out, e)
	}
	if len(out) != count {
		return nil, fmt.Errorf("%d entries, the trailer says %d", len(out), count)
	}
	return out, nil
}

func decodeEntry(f []string, roots map[string]string) (Entry, error) {
	var e Entry
	var err error
	strs := []*string{&e.Harness, &e.ID, &e.Root, &e.Rel}
	for i, p := range strs {
		if *p, err = unescapeField(f[i]); err != nil {
			return e, err
		}
	}
	if r, ok := roots[e.Root]; ok {
		e.Root = r
	} else {
		roots[e.Root] = e.Root
	}
	if e.Gen, err = strconv.Atoi(f[4]); err != nil {
		return e, fmt.Errorf("generation %q", f[4])
	}
	for i, p := range []*int64{&e.Size, &e.CLen, &e.MTime} {
		if *p, err = strconv.ParseInt(f[5+i], 10, 64); err != nil {
			return e, fmt.Errorf("number %q", f[5+i])
		}
	}
	if e.Ino, err = strconv.ParseUint(f[8], 10, 64); err != nil {
		return e, fmt.Errorf("inode %q", f[8])
	}
	for i, p := range []*string{&e.Head, &e.Tail, &e.State} {
		if *p, err = unescapeField(dashEmpty(f[9+i])); err != nil {
			return e, err
		}
	}
	if e.Synced, err = strconv.ParseInt(f[12], 10, 64); err != nil {
		return e, fmt.Errorf("time %q", f[12])
	}
	if f[13] != "-" {
		for _, g := range strings.Split(f[13], ",") {
			parts := strings.Split(g, ":")
			if len(parts) != 3 {
				return e, fmt.Errorf("older generation %q", g)
			}
			var og Generation
			og.Gen, err = strconv.Atoi(parts[0])
			if err == nil {
				og.Size, err = strconv.ParseInt(parts[1], 10, 64)
			}
			if err == nil {
				og.CLen, err = strconv.ParseInt(parts[2], 10, 64)
			}
			if err != nil || og.Gen < 1 || og.Size < 0 || og.CLen < 0 {
				return e, fmt.Errorf("older generation %q", g)
			}
			e.Older = append(e.Older, og)
		}
	}
	return e, nil
}
