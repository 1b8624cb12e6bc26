package harness

import (
	"encoding/binary"
	"errors"
	"time"
	"unsafe"

	"github.com/notesoup/notesoup/shared/bincodec"
	"github.com/notesoup/notesoup/version"
)

// The description cache is read by every listing, so it is a flat binary
// layout read in one call (JSON decoding was most of a warm listing's
// time). Layout (its pieces are shared/bincodec's), integers as
// (u)varints:
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

// encodeDescriptions lays files out as decodeDescriptions reads them.
func encodeDescriptions(files map[string]*cachedDescription) []byte {
	b := make([]byte, 0, 64+len(files)*256)
	b = append(b, descriptionMagic...)
	b = binary.AppendUvarint(b, descriptionFormat)
	b = bincodec.AppendString(b, version.Version)
	b = binary.AppendUvarint(b, uint64(len(files)))
	for path, d := range files {
		b = bincodec.AppendString(b, path)
		b = bincodec.AppendKey(b, d.Key)
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
		b = bincodec.AppendString(b, s.Harness)
		b = bincodec.AppendString(b, s.ID)
		if s.Path != path {
			b = bincodec.AppendString(b, s.Path)
		}
		b = bincodec.AppendString(b, s.Cwd)
		b = bincodec.AppendString(b, s.Title)
		b = appendTime(b, s.Started)
		b = appendTime(b, s.Updated)
		b = binary.AppendVarint(b, s.Size)
	}
	return bincodec.AppendChecksum(b)
}

// decodeDescriptions parses a cache file; any damage, another format or
// another build's file is errDescriptionFormat.
func decodeDescriptions(data []byte) (map[string]*cachedDescription, error) {
	payload, ok := bincodec.Verify(data, descriptionMagic)
	if !ok {
		return nil, errDescriptionFormat // torn, damaged or foreign
	}
	// Strings are slices of data, not an allocation each; nothing writes
	// data after this.
	r := bincodec.NewReader(payload)
	if r.Uint() != descriptionFormat || r.Str() != version.Version {
		return nil, errDescriptionFormat
	}
	n := r.Uint()
	if r.Err() != nil || n > uint64(r.Len()) {
		return nil, errDescriptionFormat
	}
	files := make(map[string]*cachedDescription, n)
	all := make([]cachedDescription, n) // one allocation for all
	for i := range all {
		d := &all[i]
		path := r.Str()
		d.Key = r.Key()
		flags := r.Byte()
		d.OK, d.Racy = flags&descOK != 0, flags&descRacy != 0
		s := &d.Session
		s.Harness = r.Str()
		s.ID = r.Str()
		if flags&descOwnPath != 0 {
			s.Path = path
		} else {
			s.Path = r.Str()
		}
		s.Cwd = r.Str()
		s.Title = r.Str()
		s.Started = readTime(&r)
		s.Updated = readTime(&r)
		s.Size = r.Int()
		if r.Err() != nil {
			return nil, errDescriptionFormat
		}
		files[path] = d
	}
	if r.Len() != 0 {
		return nil, errDescriptionFormat
	}
	return files, nil
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

// readTime reads what appendTime wrote.
func readTime(r *bincodec.Reader) time.Time {
	tb := r.Next(uint64(r.Byte()))
	if len(tb) == 0 {
		return time.Time{}
	}
	var t time.Time
	// UnmarshalBinary neither keeps nor writes its argument: it may
	// alias the file's bytes rather than copy them.
	if err := t.UnmarshalBinary(unsafe.Slice(unsafe.StringData(tb), len(tb))); err != nil {
		r.Fail()
	}
	return t
}
