package filekey

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestKeys: the key of a file is its stat and the hash of its last
// TailBytes, whichever way it is taken; only regular files have one.
func TestKeys(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, TailBytes - 1, TailBytes, TailBytes + 1, 3*TailBytes + 7} {
		data := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := Of(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if k.Size != int64(size) || k.MTime != fi.ModTime().UnixNano() {
			t.Errorf("size %d: key %+v, stat says size %d mtime %d", size, k, fi.Size(), fi.ModTime().UnixNano())
		}
		if want := TailHash(data[max(0, size-TailBytes):]); k.Tail != want {
			t.Errorf("size %d: tail %x, want the hash of the last %d bytes %x", size, k.Tail, TailBytes, want)
		}
		st, ok := Lstat(p)
		if !ok || !st.SameStat(k) || st.Tail != 0 {
			t.Errorf("size %d: Lstat %+v %v, want the stat of %+v and no tail", size, st, ok, k)
		}
	}
	if _, ok := Lstat(dir); ok {
		t.Errorf("a directory has a key")
	}
	if _, ok := Lstat(filepath.Join(dir, "missing")); ok {
		t.Errorf("a missing file has a key")
	}
	if _, err := Of(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("Of of a missing file: no error")
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "f"), link); err == nil {
		if _, ok := Lstat(link); ok {
			t.Errorf("Lstat followed a link")
		}
	}
}

// TestKeySeesChange: a same-size rewrite with the old modification time
// put back keeps the size and mtime; the change time or the tail differs.
func TestKeySeesChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("first version"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("FIRST VERSION"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := Of(p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Size != before.Size || after.MTime != before.MTime {
		t.Fatalf("the rewrite did not keep size and mtime: %+v, was %+v", after, before)
	}
	if after == before {
		t.Errorf("a rewrite in place kept the key %+v", after)
	}
	if after.Tail == before.Tail {
		t.Errorf("the tail hash did not move with the tail")
	}
}
