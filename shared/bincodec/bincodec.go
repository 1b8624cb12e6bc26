// Package bincodec is the binary layout notesoup's own cache files share:
// the search index's manifest, segments and kept answers, the search's
// per-query answer caches, and the session description cache. They are
// read by every search or listing, so they are flat layouts read in one
// call (JSON or gob decoding cost more than the rest of a warm run), and
// they are written without fsync, so every file ends in a checksum that a
// torn or foreign file fails.
//
// The layout: integers as unsigned or zig-zag varints (encoding/binary's),
// a string as its length then its bytes, a filekey.Key as size, mtime,
// ctime (varints), inode (uvarint) and tail hash (8 bytes, little endian),
// and a file as a magic, its payload and the CRC-32C of both (4 bytes,
// little endian). Each file's own fields, flags and format number stay
// with the code that owns that file; this package only knows the pieces,
// so a change here changes every file's bytes at once (and must bump every
// format number).
//
// It is its own package rather than part of shared/filekey: only the key's
// encoding is about keys, and filekey's one job is proving a file
// unchanged, not laying files out.
package bincodec

import (
	"encoding/binary"
	"errors"
	"hash"
	"hash/crc32"
	"unsafe"

	"github.com/notesoup/notesoup/shared/filekey"
)

// castagnoli is the CRC-32C table of every trailer.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ChecksumBytes is the length of the checksum trailer.
const ChecksumBytes = 4

// Checksum is the CRC-32C of b, as the trailers hold it.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// NewHash is a CRC-32C hash for a writer that streams a file out in
// pieces; its Sum32 is what AppendChecksum would append.
func NewHash() hash.Hash32 { return crc32.New(castagnoli) }

// AppendChecksum appends the trailer of b: the CRC-32C of all of b.
func AppendChecksum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, Checksum(b))
}

// Verify checks a whole file as a writer laid it out (magic, payload,
// AppendChecksum's trailer) and returns its payload, a slice of data.
// False means another file, or one torn or damaged: its content must not
// be trusted.
func Verify(data []byte, magic string) (payload []byte, ok bool) {
	if len(data) < len(magic)+ChecksumBytes || string(data[:len(magic)]) != magic {
		return nil, false
	}
	body := data[:len(data)-ChecksumBytes]
	if Checksum(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, false
	}
	return body[len(magic):], true
}

// AppendString appends s as its length (uvarint) then its bytes.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// AppendKey appends k as Reader.Key reads it.
func AppendKey(b []byte, k filekey.Key) []byte {
	b = binary.AppendVarint(b, k.Size)
	b = binary.AppendVarint(b, k.MTime)
	b = binary.AppendVarint(b, k.CTime)
	b = binary.AppendUvarint(b, k.Ino)
	return binary.LittleEndian.AppendUint64(b, k.Tail)
}

// ErrMalformed is a Reader's error: the bytes ran out or a varint was
// malformed. Callers report their own format error in its place.
var ErrMalformed = errors.New("bincodec: truncated or malformed data")

// Reader reads the pieces of the layout in turn. The first error sticks:
// every later read returns a zero value, so a decoder reads a whole record
// and checks Err once. The strings it returns are slices of its input, not
// an allocation each (a cache holds many thousands).
type Reader struct {
	s   string
	err error
}

// NewReader reads b. The strings it returns alias b: the caller must not
// write b while they are in use (the decoders read a file's bytes that
// nothing writes afterwards; a copy would touch as many fresh pages again).
func NewReader(b []byte) Reader {
	return Reader{s: unsafe.String(unsafe.SliceData(b), len(b))}
}

// NewStringReader reads s.
func NewStringReader(s string) Reader { return Reader{s: s} }

// Err is ErrMalformed once a read failed (or Fail was called), else nil.
func (r *Reader) Err() error { return r.err }

// Fail marks the input malformed, for a decoder that finds a value out of
// its range: every later read returns a zero value.
func (r *Reader) Fail() { r.err, r.s = ErrMalformed, "" }

// Len is how many bytes are left.
func (r *Reader) Len() int { return len(r.s) }

// Rest is what is left, unread.
func (r *Reader) Rest() string { return r.s }

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	v, n := uvarint(r.s)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.s = r.s[n:]
	return v
}

// Int reads a zig-zag varint, as binary.AppendVarint writes it.
func (r *Reader) Int() int64 {
	u := r.Uint()
	return int64(u>>1) ^ -int64(u&1)
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.s) < 1 {
		r.Fail()
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// Next reads the next n bytes.
func (r *Reader) Next(n uint64) string {
	if n > uint64(len(r.s)) {
		r.Fail()
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// Str reads a string AppendString wrote.
func (r *Reader) Str() string { return r.Next(r.Uint()) }

// Key reads a key AppendKey wrote.
func (r *Reader) Key() filekey.Key {
	k := filekey.Key{Size: r.Int(), MTime: r.Int(), CTime: r.Int(), Ino: r.Uint()}
	if t := r.Next(8); len(t) == 8 {
		for i := 7; i >= 0; i-- {
			k.Tail = k.Tail<<8 | uint64(t[i])
		}
	}
	return k
}

// uvarint is binary.Uvarint over a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -1
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
