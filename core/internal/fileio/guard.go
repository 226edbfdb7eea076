package fileio

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"
)

// ErrShrank is wrapped by the error of a read of a mapped file that faulted
// because the file was truncated underneath (by another process): the pages
// past the new end raise SIGBUS, which would kill the process unguarded.
var ErrShrank = errors.New("the file shrank while it was read (truncated by another process?)")

// shrankError is the fault Guard recovers, or re-raises from a goroutine;
// or, found after a failed read, a file shorter than its mapping (the
// bytes past the new end of the last page read as zeros, which decode as
// garbage rather than fault).
type shrankError struct {
	off         uintptr // where the read faulted, or
	mapped, now int64   // the sizes when mapped and after the failure
}

func (e *shrankError) detail() string {
	if e.mapped > 0 {
		return fmt.Sprintf("%d bytes when mapped, %d after", e.mapped, e.now)
	}
	return fmt.Sprintf("fault at offset %d", e.off)
}

func (e *shrankError) Error() string { return fmt.Sprintf("%v: %s", ErrShrank, e.detail()) }
func (e *shrankError) Unwrap() error { return ErrShrank }

// Guard runs fn in the calling goroutine with memory faults turned into
// panics (debug.SetPanicOnFault) and returns a fault inside data, the
// mapping fn reads, as an error wrapping ErrShrank. The switch is per
// goroutine: every goroutine that reads a mapping must read it inside its
// own Guard. A fault outside data, or any other panic, is not a shrunken
// file and is raised again.
//
// Guarding costs a deferred call per fn, nothing per byte read, so it
// keeps the mapping's speed; reading a 45 GiB file into memory instead
// would need 45 GiB of RAM beside the decoded points.
func Guard(data []byte, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		r := recover()
		if r == nil {
			return
		}
		if e, ok := r.(*shrankError); ok { // re-raised by Reraise
			err = e
			return
		}
		if f, ok := r.(interface{ Addr() uintptr }); ok && len(data) > 0 {
			base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
			if a := f.Addr(); a >= base && a < base+uintptr(len(data)) {
				err = &shrankError{off: a - base}
				return
			}
		}
		panic(r)
	}()
	return fn()
}

// Reraise panics with err if it is a fault Guard returned, so that a
// function that cannot return an error (a worker pool's result) passes a
// worker's fault to the Guard of its caller; other errors are ignored.
func Reraise(err error) {
	var e *shrankError
	if errors.As(err, &e) {
		panic(e)
	}
}
