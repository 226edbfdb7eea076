package service

import (
	"sync/atomic"

	"github.com/cuzk/cuzk/core/params"
)

// SRS is a reference-counted parameter set opened by path: supraseal-c2's
// SRS handle. With cache, one loaded SRS is shared per path.
type SRS struct {
	path string
	pk   *params.ProvingKey
	refs atomic.Int64
}

// Path returns the file the SRS was read from.
func (h *SRS) Path() string { return h.path }

// OpenSRS loads the parameter file at path, or shares the cached one.
func (s *Service) OpenSRS(path string, cache bool) (*SRS, error) {
	if cache {
		s.mu.Lock()
		if h := s.srs[path]; h != nil {
			h.refs.Add(1)
			s.mu.Unlock()
			return h, nil
		}
		s.mu.Unlock()
	}
	pk, err := params.ReadProvingKey(path, params.Options{SkipSubgroupCheck: s.config().SRS.SkipSubgroupCheck})
	if err != nil {
		if CodeOf(err) == InvalidArgument {
			return nil, &Error{Code: BadFile, Err: err}
		}
		return nil, err
	}
	h := &SRS{path: path, pk: pk}
	h.refs.Store(1)
	if cache {
		s.mu.Lock()
		if old := s.srs[path]; old != nil { // loaded concurrently: share the first
			old.refs.Add(1)
			s.mu.Unlock()
			return old, nil
		}
		h.refs.Add(1) // the cache's own reference
		s.srs[path] = h
		s.mu.Unlock()
	}
	return h, nil
}

// CloneSRS adds a reference.
func (s *Service) CloneSRS(h *SRS) *SRS {
	h.refs.Add(1)
	return h
}

// DropSRS releases a reference; it reports whether the SRS is gone (no
// references and not cached).
func (s *Service) DropSRS(h *SRS) bool {
	return h.refs.Add(-1) <= 0
}

// EvictSRS removes h's path from the cache; open handles keep working.
// It reports whether the SRS is gone.
func (s *Service) EvictSRS(h *SRS) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srs[h.path] == h {
		delete(s.srs, h.path)
		return h.refs.Add(-1) <= 0
	}
	return false
}
