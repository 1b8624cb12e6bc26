package filekey

import (
	"testing"
	"time"
)

func TestRacyKeys(t *testing.T) {
	defer func(w time.Duration) { RacyWindow = w }(RacyWindow)
	RacyWindow = 3 * time.Second
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC).UnixNano()
	sec := int64(time.Second)
	for _, c := range []struct {
		name  string
		ctime int64
		racy  bool
	}{
		{"changed long before", now - 3600*sec, false},
		{"changed just past the window", now - 3*sec, false},
		{"changed within the window", now - 3*sec + 1, true},
		{"changed at the same instant", now, true},
		{"changed after the clock read (another clock)", now + sec, true},
		{"no change time from the system", 0, true},
	} {
		if got := Racy(Key{Size: 1, CTime: c.ctime}, now); got != c.racy {
			t.Errorf("%s: racy %v, want %v", c.name, got, c.racy)
		}
	}
}

func TestStatProves(t *testing.T) {
	k := Key{Size: 10, MTime: 5, CTime: 6, Ino: 7, Tail: 99}
	for _, c := range []struct {
		name string
		racy bool
		stat Key
		want bool
	}{
		{"settled, same stat (no tail read)", false, Key{Size: 10, MTime: 5, CTime: 6, Ino: 7}, true},
		{"racy: the tail must be read", true, Key{Size: 10, MTime: 5, CTime: 6, Ino: 7}, false},
		{"grown", false, Key{Size: 11, MTime: 5, CTime: 6, Ino: 7}, false},
		{"mtime set back after a rewrite: ctime moved", false, Key{Size: 10, MTime: 5, CTime: 8, Ino: 7}, false},
		{"replaced by a rename", false, Key{Size: 10, MTime: 5, CTime: 6, Ino: 8}, false},
	} {
		if got := StatProves(k, c.racy, c.stat); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
