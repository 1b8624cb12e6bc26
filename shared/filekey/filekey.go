// Package filekey proves a file unchanged since it was last read, without
// reading it again when it can: a Key is what a stat gives (size,
// modification time, change time, inode) and a hash of the file's tail.
// The search index and the session listing's description cache both keep
// what they learned from a file under its key, and both trust it again
// only when a new key matches, by the same rule (see Racy and StatProves).
package filekey

import (
	"errors"
	"hash/crc32"
	"io"
)

// TailBytes is how much of a file's end is hashed into its key. A
// transcript grows at the end, so its tail changes with every write even
// when a rewrite keeps the size and the clock is coarse.
const TailBytes = 4 << 10

// Key is what proves a file unchanged since an answer was computed: its
// size, modification time, inode and change time, and a hash of its last
// TailBytes. The modification time can be set back (a rewrite in place at
// the same size, then touch -d): the change time cannot, and a file
// replaced by a rename has another inode.
type Key struct {
	Size  int64
	MTime int64 // UnixNano
	CTime int64 // UnixNano; 0 where the system does not say
	Ino   uint64
	// Tail is the CRC-32C of the tail in the high half and its CRC-32
	// (IEEE) in the low half (see TailHash).
	Tail uint64
}

// SameStat reports whether two keys agree on everything a stat gives:
// only then is a tail worth reading.
func (k Key) SameStat(o Key) bool {
	return k.Size == o.Size && k.MTime == o.MTime && k.CTime == o.CTime && k.Ino == o.Ino
}

// TailHash hashes a file's tail for its key. It detects change; it is not
// a security boundary (whoever can write the transcript can change the
// answer anyway). Two CRCs of different polynomials are together a 64-bit
// CRC with their product polynomial: every change confined to 64
// consecutive bits is caught, any other change is missed with probability
// about 2^-64, and size and modification time must match as well. Both run
// on CRC instructions (SSE 4.2, PCLMULQDQ; ARMv8 CRC32), an order of
// magnitude faster than SHA-256 over the 4 KiB of every file a warm
// search reads.
func TailHash(b []byte) uint64 {
	return uint64(crc32.Checksum(b, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(b))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// TailHashAt reads the last TailBytes of a file of the given size into buf
// (at least TailBytes long) and hashes them.
func TailHashAt(f File, size int64, buf []byte) (uint64, error) {
	n := min(int64(TailBytes), size)
	got, err := f.ReadAt(buf[:n], size-n)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	// A file truncated under us hashes what is there; its next stat
	// differs anyway.
	return TailHash(buf[:got]), nil
}

// Of computes a file's key from its stat and a read of its tail. It
// follows a link, as opening the file does.
func Of(path string) (Key, error) { return With(path, make([]byte, TailBytes)) }

// With is Of reading the tail into buf (at least TailBytes long), for
// callers that take many keys.
func With(path string, buf []byte) (Key, error) {
	f, st, err := Open(path)
	return keyOfOpened(f, st, err, buf)
}

// Key is With for path opened relative to its directory's handle (see
// Dir), for callers that take the keys of many files of few directories.
func (d *Dir) Key(path string, buf []byte) (Key, error) {
	f, st, err := d.Open(path)
	return keyOfOpened(f, st, err, buf)
}

// keyOfOpened is the key of a file just opened (Open's results), which it
// closes.
func keyOfOpened(f File, st Stat, err error, buf []byte) (Key, error) {
	if err != nil {
		return Key{}, err
	}
	defer f.Close()
	k := st.Key()
	k.Tail, err = TailHashAt(f, k.Size, buf)
	return k, err
}
