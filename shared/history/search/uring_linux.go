package search

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/notesoup/notesoup/shared/filekey"
)

// The warm path proves every file unchanged: open, stat, read the last
// 4 KiB, close. On the machines measured a system call costs 2 µs or more
// before it does anything, four per file, so a warm search of a few
// thousand sessions spent most of its time entering the kernel. An
// io_uring submits the calls of a whole batch of files at once: the
// opens, then (after a plain fstat each) each tail read linked to its
// close: two entries into the ring per batch and one short call per file
// instead of four calls per file. The ring is
// an optimisation only: where io_uring is missing or refused (old kernels,
// seccomp filters in containers), or any step fails, the file is answered
// by the plain system calls, which decide every error.

// io_uring constants (include/uapi/linux/io_uring.h).
const (
	sysIOURingSetup = 425
	sysIOURingEnter = 426

	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringEnterGetEvents = 1
	ioringFeatSingleMmap = 1

	ioringOpOpenat = 18
	ioringOpClose  = 19
	ioringOpRead   = 22

	// iosqeIOHardlink runs the next SQE (the close) even when this one
	// (the read) fails or reads short.
	iosqeIOHardlink = 1 << 3

	atFDCWD = -100

	sqeSize = 64
	cqeSize = 16
)

// ioURingParams is struct io_uring_params.
type ioURingParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// ioSQE is struct io_uring_sqe as the calls used here fill it.
type ioSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off           uint64 // file offset
	addr          uint64 // buffer or path
	len           uint32 // buffer length; for openat the mode
	opFlags       uint32 // open flags
	userData      uint64
	bufIndex      uint16
	personality   uint16
	fileIndex     uint32
	addr3, pad    uint64
}

var (
	_ [sqeSize - unsafe.Sizeof(ioSQE{})]struct{}
	_ [unsafe.Sizeof(ioSQE{}) - sqeSize]struct{}
	_ [120 - unsafe.Sizeof(ioURingParams{})]struct{}
)

// uring is one worker's ring; nil where io_uring is unavailable.
type uring struct {
	fd                      int
	ringMem, sqeMem         []byte
	sqHead, sqTail, sqArray unsafe.Pointer
	sqMask                  uint32
	cqHead, cqTail, cqes    unsafe.Pointer
	cqMask                  uint32
	entries                 uint32
	pending                 uint32 // SQEs filled but not submitted
	// tails is where the kernel writes a batch's tails: memory of the
	// ring's own, on the heap, so no pointer the kernel holds can be to a
	// goroutine stack that moves.
	tails [ringBatch * filekey.TailBytes]byte
	// broken is set when an io_uring_enter failed: completions of that
	// batch may still arrive, so the ring is not used again nor freed (a
	// file it opened and never reported stays open until the process
	// exits).
	broken bool
}

// uringDisabled is set once setting up a ring failed: later workers do
// not try again.
var uringDisabled atomic.Bool

// newURing sets up a ring of the given size, or returns nil.
func newURing(entries uint32) *uring {
	if uringDisabled.Load() {
		return nil
	}
	var p ioURingParams
	fd, _, errno := syscall.Syscall(sysIOURingSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		uringDisabled.Store(true)
		return nil
	}
	r := &uring{fd: int(fd), entries: p.sqEntries}
	if p.features&ioringFeatSingleMmap == 0 {
		syscall.Close(r.fd)
		uringDisabled.Store(true)
		return nil
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*cqeSize)
	mem, err := syscall.Mmap(r.fd, ioringOffSQRing, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		syscall.Close(r.fd)
		uringDisabled.Store(true)
		return nil
	}
	sqes, err := syscall.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries*sqeSize), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		syscall.Munmap(mem)
		syscall.Close(r.fd)
		uringDisabled.Store(true)
		return nil
	}
	base := unsafe.Pointer(&mem[0])
	r.ringMem, r.sqeMem = mem, sqes
	r.sqHead = unsafe.Add(base, p.sqOff.head)
	r.sqTail = unsafe.Add(base, p.sqOff.tail)
	r.sqArray = unsafe.Add(base, p.sqOff.array)
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.cqHead = unsafe.Add(base, p.cqOff.head)
	r.cqTail = unsafe.Add(base, p.cqOff.tail)
	r.cqes = unsafe.Add(base, p.cqOff.cqes)
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	return r
}

// keptRings holds broken rings for the life of the process: the kernel
// may still finish a request of theirs and write into their memory (a
// tail), which must never be reused meanwhile.
var keptRings struct {
	sync.Mutex
	rings []*uring
}

// close releases the ring; a broken one is kept (see keptRings).
func (r *uring) close() {
	if r == nil {
		return
	}
	if r.broken {
		keptRings.Lock()
		keptRings.rings = append(keptRings.rings, r)
		keptRings.Unlock()
		return
	}
	syscall.Munmap(r.sqeMem)
	syscall.Munmap(r.ringMem)
	syscall.Close(r.fd)
}

// next returns a zeroed SQE to fill, or nil when the ring is full.
func (r *uring) next() *ioSQE {
	if r.pending >= r.entries {
		return nil
	}
	tail := atomic.LoadUint32((*uint32)(r.sqTail)) + r.pending
	idx := tail & r.sqMask
	sqe := (*ioSQE)(unsafe.Pointer(&r.sqeMem[uintptr(idx)*sqeSize]))
	*sqe = ioSQE{}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(idx)*4)) = idx
	r.pending++
	return sqe
}

// run submits the filled SQEs, waits for all of their completions and
// calls done for each (its user data and result: a value, or -errno).
func (r *uring) run(done func(userData uint64, res int32)) error {
	n := r.pending
	if n == 0 {
		return nil
	}
	atomic.StoreUint32((*uint32)(r.sqTail), atomic.LoadUint32((*uint32)(r.sqTail))+n)
	r.pending = 0
	for submitted, completed := uint32(0), uint32(0); completed < n; {
		toSubmit := n - submitted
		got, _, errno := syscall.Syscall6(sysIOURingEnter, uintptr(r.fd), uintptr(toSubmit), uintptr(n-completed), ioringEnterGetEvents, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		submitted += uint32(got)
		head := atomic.LoadUint32((*uint32)(r.cqHead))
		tail := atomic.LoadUint32((*uint32)(r.cqTail))
		for ; head != tail; head++ {
			cqe := unsafe.Add(r.cqes, uintptr(head&r.cqMask)*cqeSize)
			done(*(*uint64)(cqe), *(*int32)(unsafe.Add(cqe, 8)))
			completed++
		}
		atomic.StoreUint32((*uint32)(r.cqHead), head)
		if submitted < n && got == 0 {
			return errors.New("io_uring: submission stalled")
		}
	}
	return nil
}

// ringKey is one file's key as the ring computes it.
type ringKey struct {
	dirfd int32 // what path is relative to (AT_FDCWD: the working directory)
	// path is NUL-terminated, on the heap (append makes it), and kept
	// alive by ks while the ring reads it.
	path  []byte
	fd    int32
	key   filekey.Key
	ok    bool // every step succeeded and key is complete
	valid bool // the stat matches the cached answer's: tail read
}

// ringBatch is the most files ringKeys takes: each takes up to two SQEs.
const ringBatch = 32

// ringKeys proves a batch of files (at most ringBatch) unchanged against
// their cached answers with the ring. ks[i].ok says whether file i's key
// was computed; for the others (and on any error) the caller falls back
// to system calls. want(i) says what stat (filekey.Key.sameStat) file i must have for
// its tail to be worth reading.
//
// dirfds[i] is the directory paths[i] is relative to (atFDCWD for the
// working directory); it must stay open until ringKeys returns.
func (r *uring) ringKeys(dirfds []int32, paths []string, ks []ringKey, want func(i int) (filekey.Key, bool)) {
	if len(ks) > ringBatch || r.entries < 2*uint32(len(ks)) {
		return // no key: the system calls answer
	}
	tails := r.tails[:]
	for i := range ks {
		ks[i] = ringKey{dirfd: dirfds[i], path: append(ks[i].path[:0], paths[i]...), fd: -1}
		ks[i].path = append(ks[i].path, 0)
	}
	// 1: open every file.
	for i := range ks {
		sqe := r.next()
		sqe.opcode = ioringOpOpenat
		sqe.fd = ks[i].dirfd
		sqe.addr = uint64(uintptr(unsafe.Pointer(&ks[i].path[0])))
		sqe.opFlags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK // see openFile
		sqe.userData = uint64(i)
	}
	if err := r.run(func(u uint64, res int32) {
		if res >= 0 {
			ks[u].fd = res
		}
	}); err != nil {
		r.broken = true
		r.closeAll(ks)
		return
	}
	// 2: stat every open file. fstat, not the ring's statx: the ring
	// hands statx to a kernel worker thread, and waking it and waiting
	// for it cost more than the call (measured: some 600 more context
	// switches per warm search, more CPU in all). A raw call: it is short
	// and never waits.
	statOK := make([]bool, len(ks))
	for i := range ks {
		if ks[i].fd < 0 {
			continue
		}
		var st syscall.Stat_t
		if _, _, errno := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(ks[i].fd), uintptr(unsafe.Pointer(&st)), 0); errno == 0 {
			ks[i].key = filekey.OfStat(&st)
			statOK[i] = true
		}
	}
	// 3: read the tail of each file whose size and mtime match its answer,
	// then close it; close the rest.
	for i := range ks {
		if ks[i].fd < 0 {
			continue
		}
		k := &ks[i]
		if statOK[i] {
			if w, ok := want(i); ok && w.SameStat(k.key) {
				k.valid = true
				n := min(int64(filekey.TailBytes), k.key.Size)
				sqe := r.next()
				sqe.opcode = ioringOpRead
				sqe.flags = iosqeIOHardlink
				sqe.fd = k.fd
				sqe.addr = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(tails[i*filekey.TailBytes:]))))
				sqe.len = uint32(n)
				sqe.off = uint64(k.key.Size - n)
				sqe.userData = uint64(i)
			}
		}
		sqe := r.next()
		sqe.opcode = ioringOpClose
		sqe.fd = k.fd
		sqe.userData = 1<<63 | uint64(i)
	}
	readRes := make([]int32, len(ks))
	closed := make([]bool, len(ks))
	if err := r.run(func(u uint64, res int32) {
		if u&(1<<63) == 0 {
			readRes[u] = res
		} else {
			closed[u&^(1<<63)] = res == 0
		}
	}); err != nil {
		r.broken = true
		return
	}
	for i := range ks {
		if !closed[i] && ks[i].fd >= 0 {
			syscall.Close(int(ks[i].fd)) // the ring's close did not run
		}
		ks[i].fd = -1
	}
	for i := range ks {
		k := &ks[i]
		if !k.valid {
			continue
		}
		n := min(int64(filekey.TailBytes), k.key.Size)
		if int64(readRes[i]) != n {
			continue // short or failed: the system calls decide
		}
		k.key.Tail = filekey.TailHash(tails[i*filekey.TailBytes : i*filekey.TailBytes+int(n)])
		k.ok = true
	}
}

// closeAll closes the files a failed batch left open.
func (r *uring) closeAll(ks []ringKey) {
	for i := range ks {
		if ks[i].fd >= 0 {
			syscall.Close(int(ks[i].fd))
			ks[i].fd = -1
		}
	}
}
