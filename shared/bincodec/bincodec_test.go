package bincodec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"testing"

	"github.com/notesoup/notesoup/shared/filekey"
)

// TestLayoutBytes pins the bytes every cache file is made of: a change
// here changes every format at once and must bump their format numbers.
func TestLayoutBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"empty string", AppendString(nil, ""), []byte{0}},
		{"string", AppendString(nil, "ab"), []byte{2, 'a', 'b'}},
		{"key", AppendKey(nil, filekey.Key{Size: 1, MTime: -1, CTime: 64, Ino: 300, Tail: 0x0807060504030201}),
			[]byte{2, 1, 0x80, 1, 0xac, 2, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"checksum", AppendChecksum([]byte("nsq\x00x")),
			binary.LittleEndian.AppendUint32([]byte("nsq\x00x"), crc32.Checksum([]byte("nsq\x00x"), crc32.MakeTable(crc32.Castagnoli)))},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: % x, want % x", c.name, c.got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	keys := []filekey.Key{{}, {Size: math.MaxInt64, MTime: math.MinInt64, CTime: -5, Ino: math.MaxUint64, Tail: math.MaxUint64}}
	var b []byte
	b = binary.AppendUvarint(b, math.MaxUint64)
	b = binary.AppendVarint(b, math.MinInt64)
	b = append(b, 7)
	b = AppendString(b, "päth")
	for _, k := range keys {
		b = AppendKey(b, k)
	}
	b = append(b, "tail"...)
	r := NewReader(b)
	if u, i, c, s := r.Uint(), r.Int(), r.Byte(), r.Str(); u != math.MaxUint64 || i != math.MinInt64 || c != 7 || s != "päth" {
		t.Errorf("read %d %d %d %q", u, i, c, s)
	}
	for _, want := range keys {
		if got := r.Key(); got != want {
			t.Errorf("key %+v, want %+v", got, want)
		}
	}
	if r.Err() != nil || r.Len() != 4 || r.Rest() != "tail" {
		t.Errorf("after the reads: err %v, rest %q", r.Err(), r.Rest())
	}
}

// TestReaderRefuses: every truncated or malformed input is an error that
// sticks, never a panic or a value read past the end.
func TestReaderRefuses(t *testing.T) {
	full := AppendKey(AppendString(nil, "hello"), filekey.Key{Size: 1 << 40, Ino: 9, Tail: 3})
	for _, c := range []struct {
		name string
		in   []byte
		read func(r *Reader)
	}{
		{"empty uint", nil, func(r *Reader) { r.Uint() }},
		{"unterminated varint", []byte{0x80, 0x80}, func(r *Reader) { r.Int() }},
		{"varint over 64 bits", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, func(r *Reader) { r.Uint() }},
		{"empty byte", nil, func(r *Reader) { r.Byte() }},
		{"string longer than the input", []byte{9, 'a'}, func(r *Reader) { r.Str() }},
		{"huge string length", binary.AppendUvarint(nil, math.MaxUint64), func(r *Reader) { r.Str() }},
		{"key without its tail", full[:len(full)-3], func(r *Reader) { r.Str(); r.Key() }},
		{"failed by the decoder", full, func(r *Reader) { r.Fail() }},
	} {
		r := NewReader(c.in)
		c.read(&r)
		if r.Err() != ErrMalformed {
			t.Errorf("%s: err %v, want ErrMalformed", c.name, r.Err())
		}
		if r.Str() != "" || r.Uint() != 0 || r.Len() != 0 {
			t.Errorf("%s: reads after the error return values", c.name)
		}
	}
}

func TestVerify(t *testing.T) {
	good := AppendChecksum(append([]byte("nsd\x00"), "payload"...))
	flipped := bytes.Clone(good)
	flipped[5] ^= 1
	for _, c := range []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"whole", good, true},
		{"torn", good[:len(good)-1], false},
		{"a bit flipped", flipped, false},
		{"another magic", AppendChecksum(append([]byte("nsq\x00"), "payload"...)), false},
		{"shorter than magic and trailer", []byte("nsd"), false},
		{"nothing", nil, false},
	} {
		p, ok := Verify(c.in, "nsd\x00")
		if ok != c.ok || (ok && string(p) != "payload") {
			t.Errorf("%s: %q %v, want ok %v", c.name, p, ok, c.ok)
		}
	}
	// A writer streaming through NewHash ends in the same trailer.
	h := NewHash()
	h.Write([]byte("nsd\x00"))
	h.Write([]byte("payload"))
	if got := binary.LittleEndian.AppendUint32([]byte("nsd\x00payload"), h.Sum32()); !bytes.Equal(got, good) {
		t.Errorf("streamed %x, want %x", got, good)
	}
}
