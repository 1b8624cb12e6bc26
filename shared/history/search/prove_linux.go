package search

import (
	"path/filepath"
	"syscall"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
)

// prover keeps a worker's io_uring and its buffers (see uring_linux.go).
type prover struct {
	ring    *uring
	tried   bool
	ks      []ringKey
	paths   []string
	dirfds  []int32
	dirs    []openDir
	answers []*fileAnswer
}

// proveBatch answers from the cache the files of a batch the ring proves
// unchanged; the others (nil) are for answer, which decides everything
// the ring did not. Files without a cached answer are not touched: a
// cold search gains nothing from proving.
func (w *worker) proveBatch(sessions []history.Session) []*fileAnswer {
	p := &w.prov
	p.answers = append(p.answers[:0], make([]*fileAnswer, len(sessions))...)
	if len(sessions) > ringBatch || len(w.s.cache.Files) == 0 {
		return p.answers
	}
	// The files with a tail to read, in batch order, each relative to
	// its directory (opened once per batch: the kernel then resolves one
	// name per file, not the whole path).
	p.paths, p.dirfds = p.paths[:0], p.dirfds[:0]
	defer p.closeDirs()
	var idx [ringBatch]int
	cached := make([]*fileAnswer, 0, len(sessions))
	for i, sess := range sessions {
		if a := w.s.cache.Files[sess.Path]; a != nil {
			if a.ent != nil && !a.ent.Racy {
				// An index entry that is not racy: a stat proves it, or
				// it changed (and is for indexFile). The worker's
				// directory handle outlives the batch, so a directory
				// is opened once, not once per batch.
				if k, ok := w.dir.Lstat(sess.Path); ok && w.provenByStat(a.ent, k) {
					p.answers[i] = a
				}
				continue
			}
			dirfd, name := p.relative(sess.Path)
			idx[len(p.paths)] = i
			p.paths = append(p.paths, name)
			p.dirfds = append(p.dirfds, dirfd)
			cached = append(cached, a)
		}
	}
	if len(p.paths) == 0 {
		return p.answers
	}
	// The ring is made by the first batch with a tail to read (most
	// searches over an index have none).
	if !p.tried {
		p.tried = true
		p.ring = newURing(2 * ringBatch)
		if p.ring != nil && p.ring.entries < 2*ringBatch {
			p.ring.close()
			p.ring = nil
		}
		p.ks = make([]ringKey, ringBatch)
	}
	if p.ring == nil || p.ring.broken {
		return p.answers
	}
	ks := p.ks[:len(p.paths)]
	now := time.Now().UnixNano() // before the keys: see settle
	p.ring.ringKeys(p.dirfds, p.paths, ks, func(i int) (filekey.Key, bool) { return cached[i].Key, true })
	for i := range ks {
		if ks[i].ok && cached[i].fresh(ks[i].key, w.depKey) {
			p.answers[idx[i]] = cached[i]
			w.settle(sessions[idx[i]].Path, cached[i].ent, now)
		}
	}
	return p.answers
}

// closeRing releases the worker's ring.
func (w *worker) closeRing() { w.prov.ring.close() }

// openDir is a directory opened for one batch.
type openDir struct {
	path string
	fd   int32
}

// relative returns a directory descriptor and the name to open path
// relative to it; the whole path and AT_FDCWD where the directory cannot
// be opened.
func (p *prover) relative(path string) (int32, string) {
	dir, base := filepath.Split(path)
	if dir == "" || base == "" {
		return atFDCWD, path
	}
	for _, d := range p.dirs {
		if d.path == dir {
			return d.fd, base
		}
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return atFDCWD, path
	}
	p.dirs = append(p.dirs, openDir{dir, int32(fd)})
	return int32(fd), base
}

// closeDirs closes the batch's directories.
func (p *prover) closeDirs() {
	for _, d := range p.dirs {
		syscall.Close(int(d.fd))
	}
	p.dirs = p.dirs[:0]
}
