package filekey

import "time"

// A file's change time (ctime) moves with every write and cannot be set
// back, so once a file has been quiet for a while, a stat that finds the
// same size, modification time, change time and inode proves it unchanged
// without reading it: any later write would have moved the change time
// past the one recorded. Not so for a file written just before its key was
// taken: a write in the same tick of the file system's clock (a jiffy on
// Linux, seconds on some file systems) can leave every stat field as it
// was. Such a key is racy, as git calls the same case of its index: it is
// proven by the hash of its tail as well, until a proof taken when it is no
// longer racy settles it. Where the system gives no change time, every key
// is racy and every proof reads the tail.

// RacyWindow is how long after a file's change time its key stays racy:
// far above any file system's timestamp tick and small beside how long a
// transcript stays untouched between sessions. A variable for tests.
var RacyWindow = 3 * time.Second

// Racy says whether a key taken at now (UnixNano, read before the key was
// taken) is racy.
func Racy(k Key, now int64) bool {
	return k.CTime == 0 || now-k.CTime < int64(RacyWindow)
}

// StatProves says whether a stat-only key (no tail) proves the file
// unchanged since the key recorded was taken: only when the recorded key
// is not racy (settled), and only when every stat field agrees.
func StatProves(recorded Key, racy bool, stat Key) bool {
	return !racy && recorded.SameStat(stat)
}
