package service

import (
	"sync/atomic"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/params"
)

// maxCachedSRS is the SRS cache's size, the existing library's: a PoRep
// SRS is ~45 GiB, so four are already more than most hosts hold.
const maxCachedSRS = 4

// SRS is a reference-counted parameter set opened by path: supraseal-c2's
// SRS handle. With cache, one loaded SRS is shared per path.
type SRS struct {
	path  string
	pk    *params.ProvingKey
	stamp fileio.Stamp // the file's version when it was read
	refs  atomic.Int64 // handles, plus one while cached
	used  uint64       // last use on the cache's clock; guarded by Service.mu
}

// Path returns the file the SRS was read from.
func (h *SRS) Path() string { return h.path }

// OpenSRS loads the parameter file at path, or shares the cached one. A
// cached SRS whose file has changed since (size, times or inode) is
// replaced by a fresh load; at most maxCachedSRS stay cached, the least
// recently opened leaving first.
func (s *Service) OpenSRS(path string, cache bool) (*SRS, error) {
	var gone []*SRS
	defer func() { s.release(gone) }()
	if cache {
		stamp, statErr := fileio.StampOf(path)
		s.mu.Lock()
		if h := s.srs[path]; h != nil {
			if statErr == nil && stamp == h.stamp {
				h.refs.Add(1)
				s.touchLocked(h)
				s.mu.Unlock()
				return h, nil
			}
			gone = s.uncacheLocked(h, gone)
		}
		s.mu.Unlock()
	}
	// The stamp of the descriptor read, taken when it was opened: a change
	// during the read makes the next open reload rather than serve what
	// was read, and a path that named another file meanwhile (a symlink
	// flipped) cannot pair that file's stamp with these points.
	pk, stamp, err := s.readKey(createSRSIn, path, s.loadOptions(path, false))
	if err != nil {
		return nil, err
	}
	h := &SRS{path: path, pk: pk, stamp: stamp}
	h.refs.Store(1)
	if !cache {
		return h, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.srs[path]; old != nil {
		if old.stamp == stamp { // loaded concurrently: share the first
			old.refs.Add(1)
			s.touchLocked(old)
			return old, nil
		}
		gone = s.uncacheLocked(old, gone)
	}
	h.refs.Add(1) // the cache's own reference
	s.srs[path] = h
	s.touchLocked(h)
	for len(s.srs) > maxCachedSRS {
		var lru *SRS
		for _, c := range s.srs {
			if lru == nil || c.used < lru.used {
				lru = c
			}
		}
		gone = s.uncacheLocked(lru, gone)
	}
	return h, nil
}

func (s *Service) touchLocked(h *SRS) {
	s.srsTick++
	h.used = s.srsTick
}

// uncacheLocked removes h from the cache and drops the cache's reference;
// h is appended to gone when that was the last one.
func (s *Service) uncacheLocked(h *SRS, gone []*SRS) []*SRS {
	delete(s.srs, h.path)
	if h.refs.Add(-1) == 0 {
		gone = append(gone, h)
	}
	return gone
}

// release frees the device memory of SRSs no handle names any more.
func (s *Service) release(gone []*SRS) {
	if len(gone) == 0 {
		return
	}
	s.mu.Lock()
	eng := s.eng
	s.mu.Unlock()
	if eng == nil {
		return // no engine, no device memory
	}
	for _, h := range gone {
		eng.ReleaseKey(h.pk)
	}
}

// CloneSRS adds a reference.
func (s *Service) CloneSRS(h *SRS) *SRS {
	h.refs.Add(1)
	return h
}

// DropSRS releases a reference; it reports whether the SRS is gone (no
// references and not cached), its device memory then freed.
func (s *Service) DropSRS(h *SRS) bool {
	n := h.refs.Add(-1)
	if n == 0 {
		s.release([]*SRS{h})
	}
	return n <= 0
}

// EvictSRS removes h's path from the cache, whichever SRS is cached there
// (h may be an uncached handle of the same path); open handles keep
// working. It reports whether the evicted SRS is gone.
func (s *Service) EvictSRS(h *SRS) bool {
	s.mu.Lock()
	var gone []*SRS
	if c := s.srs[h.path]; c != nil {
		gone = s.uncacheLocked(c, nil)
	}
	s.mu.Unlock()
	s.release(gone)
	return len(gone) > 0
}
