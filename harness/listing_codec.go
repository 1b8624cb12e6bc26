package harness

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"
	"unsafe"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/version"
)

// The description cache is read by every listing, so it is a flat binary
// layout read in one call (JSON decoding was most of a warm listing's
// time). Layout, integers as (u)varints:
//
//	magic "nsd\x00", format, version string, n, n × entry,
//	CRC-32C of everything before it (4 bytes, little endian)
//	entry: path string, key, flags (1 ok, 2 racy, 4 the session's path is
//	  the entry's), session: harness, id, [path], cwd, title strings,
//	  started, updated times, size
//	key: size, mtime, ctime, inode, tail (8 bytes, little endian)
//	time: length byte, then time.Time.MarshalBinary's bytes (length 0:
//	  the zero time); it keeps the zone offset, as JSON did
//	string: length, bytes
const descriptionMagic = "nsd\x00"

const (
	descOK = 1 << iota
	descRacy
	descOwnPath
)

// errDescriptionFormat is any cache file this build did not write.
var errDescriptionFormat = errors.New("session description cache: not this build's format")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeDescriptions lays files out as decodeDescriptions reads them.
func encodeDescriptions(files map[string]*cachedDescription) []byte {
	b := make([]byte, 0, 64+len(files)*256)
	b = append(b, descriptionMagic...)
	b = binary.AppendUvarint(b, descriptionFormat)
	b = appendStr(b, version.Version)
	b = binary.AppendUvarint(b, uint64(len(files)))
	for path, d := range files {
		b = appendStr(b, path)
		b = appendKey(b, d.Key)
		var flags byte
		if d.OK {
			flags |= descOK
		}
		if d.Racy {
			flags |= descRacy
		}
		s := &d.Session
		if s.Path == path {
			flags |= descOwnPath
		}
		b = append(b, flags)
		b = appendStr(b, s.Harness)
		b = appendStr(b, s.ID)
		if s.Path != path {
			b = appendStr(b, s.Path)
		}
		b = appendStr(b, s.Cwd)
		b = appendStr(b, s.Title)
		b = appendTime(b, s.Started)
		b = appendTime(b, s.Updated)
		b = binary.AppendVarint(b, s.Size)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeDescriptions parses a cache file; any damage, another format or
// another build's file is errDescriptionFormat.
func decodeDescriptions(data []byte) (map[string]*cachedDescription, error) {
	if len(data) < len(descriptionMagic)+4 || string(data[:len(descriptionMagic)]) != descriptionMagic {
		return nil, errDescriptionFormat
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errDescriptionFormat // torn or damaged
	}
	// Strings are slices of body, not an allocation each; nothing writes
	// data after this.
	r := &descReader{b: body[len(descriptionMagic):]}
	if r.uint() != descriptionFormat || r.str() != version.Version {
		return nil, errDescriptionFormat
	}
	n := r.uint()
	if r.err != nil || n > uint64(len(r.b)) {
		return nil, errDescriptionFormat
	}
	files := make(map[string]*cachedDescription, n)
	all := make([]cachedDescription, n) // one allocation for all
	for i := range all {
		d := &all[i]
		path := r.str()
		d.Key = r.key()
		flags := r.byte()
		d.OK, d.Racy = flags&descOK != 0, flags&descRacy != 0
		s := &d.Session
		s.Harness = r.str()
		s.ID = r.str()
		if flags&descOwnPath != 0 {
			s.Path = path
		} else {
			s.Path = r.str()
		}
		s.Cwd = r.str()
		s.Title = r.str()
		s.Started = r.time()
		s.Updated = r.time()
		s.Size = r.int()
		if r.err != nil {
			return nil, errDescriptionFormat
		}
		files[path] = d
	}
	if len(r.b) != 0 {
		return nil, errDescriptionFormat
	}
	return files, nil
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendKey(b []byte, k filekey.Key) []byte {
	b = binary.AppendVarint(b, k.Size)
	b = binary.AppendVarint(b, k.MTime)
	b = binary.AppendVarint(b, k.CTime)
	b = binary.AppendUvarint(b, k.Ino)
	return binary.LittleEndian.AppendUint64(b, k.Tail)
}

func appendTime(b []byte, t time.Time) []byte {
	if t == (time.Time{}) {
		return append(b, 0)
	}
	tb, err := t.MarshalBinary()
	if err != nil || len(tb) > 255 {
		// A zone offset MarshalBinary cannot keep (not whole minutes
		// before Go's format 2; never from a transcript): keep the
		// instant in UTC.
		tb, _ = t.UTC().MarshalBinary()
	}
	b = append(b, byte(len(tb)))
	return append(b, tb...)
}

// descReader reads decodeDescriptions' layout; the first error sticks.
type descReader struct {
	b   []byte
	err error
}

func (r *descReader) fail() { r.err, r.b = errDescriptionFormat, nil }

func (r *descReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *descReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *descReader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *descReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *descReader) str() string {
	s := r.bytes(r.uint())
	if len(s) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(s), len(s))
}

func (r *descReader) key() filekey.Key {
	k := filekey.Key{Size: r.int(), MTime: r.int(), CTime: r.int(), Ino: r.uint()}
	if t := r.bytes(8); t != nil {
		k.Tail = binary.LittleEndian.Uint64(t)
	}
	return k
}

func (r *descReader) time() time.Time {
	tb := r.bytes(uint64(r.byte()))
	if len(tb) == 0 {
		return time.Time{}
	}
	var t time.Time
	if err := t.UnmarshalBinary(tb); err != nil {
		r.fail()
	}
	return t
}
