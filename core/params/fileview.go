package params

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// A parameter file in memory (tmpfs, ramfs: /dev/shm, where a 2^27-domain
// key's ~71 GB go on a host with a small disk) need not be read at all to
// stream a section given back to it: its pages are the section's points
// as stored (the encoding ReadEncoded reads), so a read-only mapping of
// them can be page-locked and copied to a device as it is, costing no
// memory (the pages are the file's) and no host copy. A file on a disk
// keeps to ReadEncoded: locking its pages would hold the whole file in
// RAM.

// ErrNotInMemory is MapEncoded's error for a file that lives on a disk,
// or is no longer open.
var ErrNotInMemory = errors.New("params: the parameter file is not in memory (tmpfs or ramfs)")

// The file systems whose pages are the file's memory (statfs f_type).
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// inMemoryFS reports whether fs is a file system whose pages are its
// files' memory.
func inMemoryFS(fs *syscall.Statfs_t) bool {
	t := uint32(fs.Type)
	return t == tmpfsMagic || t == ramfsMagic
}

// InMemory reports whether path lies on a file system whose pages are
// its files' memory (tmpfs, ramfs): a parameter file there streams from
// its own pages (MapEncoded).
func InMemory(path string) bool {
	var fs syscall.Statfs_t
	return syscall.Statfs(path, &fs) == nil && inMemoryFS(&fs)
}

// FileView is the bytes a section's points are stored as in their file,
// mapped read-only from a file in memory (MapEncoded). Close unmaps it.
type FileView struct {
	mem []byte // the mapping, from a page boundary
	at  int    // the first byte of the points in mem
	n   int
	src source
}

// MapEncoded maps the bytes the file stores the points at [p, p+n) of an
// off-heap section as (n bytes, whole points, as ReadEncoded reads them),
// read-only and shared, when the file loaded is in memory and unchanged;
// ErrNotInMemory when it is on a disk or its descriptor was closed
// (ProvingKey.CloseFile). Its pages are mapped in now.
func MapEncoded(p unsafe.Pointer, n uintptr) (*FileView, error) {
	r, lo, hi := regionRange(p, n)
	switch {
	case r == nil:
		return nil, fmt.Errorf("params: %d bytes at %p are not a section read from a file", n, p)
	case lo%r.size != 0 || (hi-lo)%r.size != 0:
		return nil, fmt.Errorf("params: %d bytes at offset %d of a section of %d-byte points: not whole points", hi-lo, lo, r.size)
	}
	v := &FileView{n: hi - lo, src: r.src}
	err := r.src.kept.withOpen(func(f *os.File) error {
		if err := r.src.unchanged(f); err != nil {
			return err
		}
		var fs syscall.Statfs_t
		if err := syscall.Fstatfs(int(f.Fd()), &fs); err != nil {
			return fmt.Errorf("params: %s: %w", r.src.path, err)
		}
		if !inMemoryFS(&fs) {
			return ErrNotInMemory
		}
		off := int64(r.off) + int64(lo)
		base := off &^ (pageSize - 1)
		v.at = int(off - base)
		mem, err := syscall.Mmap(int(f.Fd()), base, v.at+v.n, syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
		if err != nil {
			return fmt.Errorf("params: %s: mapping %d bytes: %w", r.src.path, v.n, err)
		}
		v.mem = mem
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Bytes is the points' bytes as the file stores them.
func (v *FileView) Bytes() []byte { return v.mem[v.at : v.at+v.n] }

// Unchanged reports, as an error, a file written since it was loaded:
// its mapped pages would no longer be the points the key checked.
func (v *FileView) Unchanged() error {
	return v.src.kept.withOpen(v.src.unchanged)
}

// Close unmaps the view; nothing may read its bytes after.
func (v *FileView) Close() error {
	if v.mem == nil {
		return nil
	}
	err := syscall.Munmap(v.mem)
	v.mem = nil
	return err
}

// withOpen runs fn on the kept descriptor; ErrNotInMemory once closed
// (a view needs the file loaded, not whatever its path names now).
func (k *keptFile) withOpen(fn func(f *os.File) error) error {
	if k == nil {
		return ErrNotInMemory
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	if k.f == nil {
		return ErrNotInMemory
	}
	return fn(k.f)
}

// unchanged compares the stamp of f, the descriptor kept since the load,
// with the one loaded (fileio.Stamp.Unwritten).
func (s source) unchanged(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("params: reading points again: %w", err)
	}
	if !s.stamp.Unwritten(fileio.StampOfInfo(st)) {
		return s.changed()
	}
	return nil
}
