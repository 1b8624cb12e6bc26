package search

// prover keeps a worker's io_uring and its buffers (see uring_linux.go).
type prover struct {
	ring    *uring
	tried   bool
	ks      []ringKey
	paths   []string
	tails   []byte
	answers []*fileAnswer
}

// proveBatch answers from the cache the files of a batch the ring proves
// unchanged; the others (nil) are for answer, which decides everything
// the ring did not. Files without a cached answer are not touched: a
// cold search gains nothing from proving.
func (w *worker) proveBatch(jobs []job) []*fileAnswer {
	p := &w.prov
	p.answers = append(p.answers[:0], make([]*fileAnswer, len(jobs))...)
	if len(jobs) > ringBatch || len(w.s.cache.Files) == 0 {
		return p.answers
	}
	if !p.tried {
		p.tried = true
		p.ring = newURing(2 * ringBatch)
		if p.ring != nil && p.ring.entries < 2*ringBatch {
			p.ring.close()
			p.ring = nil
		}
		p.ks = make([]ringKey, ringBatch)
		p.tails = make([]byte, ringBatch*tailBytes)
	}
	if p.ring == nil || p.ring.broken {
		return p.answers
	}
	// The files with an answer to prove, in batch order.
	p.paths = p.paths[:0]
	var idx [ringBatch]int
	cached := make([]*fileAnswer, 0, len(jobs))
	for i, j := range jobs {
		if a := w.s.cache.Files[j.sess.Path]; a != nil {
			idx[len(p.paths)] = i
			p.paths = append(p.paths, j.sess.Path)
			cached = append(cached, a)
		}
	}
	if len(p.paths) == 0 {
		return p.answers
	}
	ks := p.ks[:len(p.paths)]
	p.ring.ringKeys(p.paths, ks, p.tails, func(i int) (FileKey, bool) { return cached[i].Key, true })
	for i := range ks {
		if ks[i].ok && cached[i].fresh(ks[i].key, statKey) {
			p.answers[idx[i]] = cached[i]
		}
	}
	return p.answers
}

// closeRing releases the worker's ring.
func (w *worker) closeRing() { w.prov.ring.close() }
