package main

/*
#define CUZK_NO_PROTOTYPES
#include <stdlib.h>
#include <stdbool.h>
#include "supraseal_c2.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/cuzk/cuzk/core/service"
)

// handles maps the opaque pointers given to the host (one malloc'ed byte
// each, so that they are unique and never Go pointers) to Go objects.
var handles = struct {
	sync.Mutex
	m map[uintptr]any
}{m: map[uintptr]any{}}

func newHandle(v any) unsafe.Pointer {
	p := C.malloc(1)
	handles.Lock()
	handles.m[uintptr(p)] = v
	handles.Unlock()
	return p
}

func lookup(p unsafe.Pointer) any {
	handles.Lock()
	defer handles.Unlock()
	return handles.m[uintptr(p)]
}

func release(p unsafe.Pointer) {
	handles.Lock()
	_, ok := handles.m[uintptr(p)]
	delete(handles.m, uintptr(p))
	handles.Unlock()
	if ok {
		C.free(p)
	}
}

func rustError(err error) C.RustError {
	return C.RustError(toC(err))
}

//export create_gpu_mutex
func create_gpu_mutex() unsafe.Pointer { return newHandle(&sync.Mutex{}) }

//export destroy_gpu_mutex
func destroy_gpu_mutex(p unsafe.Pointer) {
	if _, ok := lookup(p).(*sync.Mutex); ok {
		release(p)
	}
}

func srsOf(s *C.SRS) (*service.SRS, error) {
	if s == nil || s.ptr == nil {
		return nil, invalid("SRS is NULL")
	}
	h, ok := lookup(unsafe.Pointer(s.ptr)).(*srsHandle)
	if !ok {
		return nil, invalid("SRS handle is not live (dropped, or not from create_SRS)")
	}
	return h.srs, nil
}

// srsHandle is one host reference to an SRS.
type srsHandle struct{ srs *service.SRS }

//export create_SRS
func create_SRS(ret *C.SRS, path *C.char, cache C.bool) C.RustError {
	return rustError(guard(func() error {
		if ret == nil {
			return invalid("ret is NULL")
		}
		p, err := goString(path, "srs_path")
		if err != nil {
			return err
		}
		h, err := get().OpenSRS(p, bool(cache))
		if err != nil {
			return err
		}
		ret.ptr = newHandle(&srsHandle{srs: h})
		return nil
	}))
}

//export evict_SRS
func evict_SRS(s *C.SRS) {
	_ = guard(func() error {
		h, err := srsOf(s)
		if err == nil {
			get().EvictSRS(h)
		}
		return err
	})
}

//export drop_SRS
func drop_SRS(s *C.SRS) {
	_ = guard(func() error {
		h, err := srsOf(s)
		if err == nil {
			get().DropSRS(h)
			release(unsafe.Pointer(s.ptr))
			s.ptr = nil
		}
		return err
	})
}

//export clone_SRS
func clone_SRS(s *C.SRS) C.SRS {
	var out C.SRS
	_ = guard(func() error {
		h, err := srsOf(s)
		if err == nil {
			out.ptr = newHandle(&srsHandle{srs: get().CloneSRS(h)})
		}
		return err
	})
	return out
}

// assignments converts the host's Assignment array without copying. Every
// size is bounded by the parameters before any of the host's memory is
// read: a bitmap's length must be its vector's, and a vector no longer
// than the parameters allow.
func assignments(provers *C.Assignment, n C.size_t, h *service.SRS) ([]*service.Assignment, error) {
	if provers == nil || n == 0 {
		return nil, invalid("no provers")
	}
	domain, maxInputs, maxAux := h.AssignmentLimits()
	if _, err := count("num_circuits", n, maxPartitions); err != nil {
		return nil, err
	}
	var out []*service.Assignment
	for i, p := range unsafe.Slice(provers, int(n)) {
		for _, sz := range []struct {
			name  string
			v     C.size_t
			limit int
		}{
			{"abc_size", p.abc_size, domain},
			{"inp_assignment_size", p.inp_assignment_size, maxInputs},
			{"aux_assignment_size", p.aux_assignment_size, maxAux},
			{"a_aux_bit_len", p.a_aux_bit_len, maxAux},
			{"b_aux_bit_len", p.b_aux_bit_len, maxAux},
			{"b_inp_bit_len", p.b_inp_bit_len, maxInputs},
			{"a_aux_popcount", p.a_aux_popcount, int(p.a_aux_bit_len)},
			{"b_aux_popcount", p.b_aux_popcount, int(p.b_aux_bit_len)},
			{"b_inp_popcount", p.b_inp_popcount, int(p.b_inp_bit_len)},
		} {
			if _, err := count(fmt.Sprintf("prover %d: %s", i, sz.name), sz.v, uint64(sz.limit)); err != nil {
				return nil, err
			}
		}
		if p.a_aux_bit_len != p.aux_assignment_size || p.b_aux_bit_len != p.aux_assignment_size || p.b_inp_bit_len != p.inp_assignment_size {
			return nil, invalid("prover %d: density bit lengths %d/%d/%d do not match aux_assignment_size %d and inp_assignment_size %d", i,
				uint64(p.a_aux_bit_len), uint64(p.b_aux_bit_len), uint64(p.b_inp_bit_len), uint64(p.aux_assignment_size), uint64(p.inp_assignment_size))
		}
		if p.a == nil || p.b == nil || p.c == nil || (p.inp_assignment_data == nil && p.inp_assignment_size > 0) ||
			(p.aux_assignment_data == nil && p.aux_assignment_size > 0) ||
			(p.a_aux_density == nil && p.a_aux_bit_len > 0) || (p.b_inp_density == nil && p.b_inp_bit_len > 0) ||
			(p.b_aux_density == nil && p.b_aux_bit_len > 0) {
			return nil, invalid("prover %d: NULL pointer with a non-zero size", i)
		}
		words := func(w *C.uint64_t, bits C.size_t) []uint64 {
			if w == nil {
				return nil
			}
			return unsafe.Slice((*uint64)(unsafe.Pointer(w)), (int(bits)+63)/64)
		}
		var d service.Density
		var err error
		if d.AAux, err = service.Bitmap("a_aux", words(p.a_aux_density, p.a_aux_bit_len), int(p.a_aux_bit_len), int(p.a_aux_popcount)); err != nil {
			return nil, err
		}
		if d.BInput, err = service.Bitmap("b_inp", words(p.b_inp_density, p.b_inp_bit_len), int(p.b_inp_bit_len), int(p.b_inp_popcount)); err != nil {
			return nil, err
		}
		if d.BAux, err = service.Bitmap("b_aux", words(p.b_aux_density, p.b_aux_bit_len), int(p.b_aux_bit_len), int(p.b_aux_popcount)); err != nil {
			return nil, err
		}
		out = append(out, &service.Assignment{
			A:       service.ElementsAt(unsafe.Pointer(p.a), int(p.abc_size)),
			B:       service.ElementsAt(unsafe.Pointer(p.b), int(p.abc_size)),
			C:       service.ElementsAt(unsafe.Pointer(p.c), int(p.abc_size)),
			Inputs:  service.ElementsAt(unsafe.Pointer(p.inp_assignment_data), int(p.inp_assignment_size)),
			Aux:     service.ElementsAt(unsafe.Pointer(p.aux_assignment_data), int(p.aux_assignment_size)),
			Density: &d,
		})
	}
	return out, nil
}

// lockOf is gpu_mtx's lock: none for NULL (each device's interlock
// already serializes its own kernels), else the mutex it names.
func lockOf(p unsafe.Pointer) (sync.Locker, error) {
	if p == nil {
		return nil, nil
	}
	m, ok := lookup(p).(*sync.Mutex)
	if !ok {
		return nil, invalid("gpu_mtx is not from create_gpu_mutex")
	}
	return m, nil
}

// prove validates and proves: synchronously (the proofs), or asynchronously
// (a pending handle).
func prove(provers *C.Assignment, n C.size_t, rs, ss *C.fr_t, srs *C.SRS, mtx unsafe.Pointer, gpuIndex C.int, sync bool) (*service.Pending, []service.Proof, error) {
	h, err := srsOf(srs)
	if err != nil {
		return nil, nil, err
	}
	asgs, err := assignments(provers, n, h)
	if err != nil {
		return nil, nil, err
	}
	if rs == nil || ss == nil {
		return nil, nil, invalid("r_s or s_s is NULL")
	}
	lock, err := lockOf(mtx)
	if err != nil {
		return nil, nil, err
	}
	r := service.ElementsAt(unsafe.Pointer(rs), int(n))
	s := service.ElementsAt(unsafe.Pointer(ss), int(n))
	if sync {
		proofs, err := get().ProveAssignments(h, asgs, r, s, lock, int(gpuIndex))
		return nil, proofs, err
	}
	p, err := get().StartAssignments(h, asgs, r, s, lock, int(gpuIndex))
	return p, nil, err
}

func writeProofs(dst *C.groth16_proof, proofs []service.Proof) {
	out := unsafe.Slice((*service.Proof)(unsafe.Pointer(dst)), len(proofs))
	copy(out, proofs)
}

//export generate_groth16_proofs_c
func generate_groth16_proofs_c(provers *C.Assignment, n C.size_t, rs, ss *C.fr_t, proofs *C.groth16_proof, srs *C.SRS, mtx unsafe.Pointer, gpuIndex C.int) C.RustError {
	return rustError(guard(func() error {
		if proofs == nil {
			return invalid("proofs is NULL")
		}
		_, out, err := prove(provers, n, rs, ss, srs, mtx, gpuIndex, true)
		if err != nil {
			return err
		}
		writeProofs(proofs, out)
		return nil
	}))
}

//export generate_groth16_proofs_start_c
func generate_groth16_proofs_start_c(provers *C.Assignment, n C.size_t, rs, ss *C.fr_t, srs *C.SRS, mtx unsafe.Pointer, gpuIndex C.int, pendingOut *unsafe.Pointer) C.RustError {
	return rustError(guard(func() error {
		if pendingOut == nil {
			return invalid("pending_out is NULL")
		}
		p, _, err := prove(provers, n, rs, ss, srs, mtx, gpuIndex, false)
		if err != nil {
			return err
		}
		*pendingOut = newHandle(p)
		return nil
	}))
}

//export finalize_groth16_proof_c
func finalize_groth16_proof_c(pending unsafe.Pointer, proofs *C.groth16_proof) C.RustError {
	return rustError(guard(func() error {
		p, ok := lookup(pending).(*service.Pending)
		if !ok {
			return invalid("pending is not a live handle from generate_groth16_proofs_start_c")
		}
		if proofs == nil {
			return invalid("proofs is NULL")
		}
		defer release(pending)
		out, err := p.Finalize()
		if err != nil {
			return err
		}
		writeProofs(proofs, out)
		return nil
	}))
}

//export destroy_pending_proof
func destroy_pending_proof(pending unsafe.Pointer) {
	_ = guard(func() error {
		if p, ok := lookup(pending).(*service.Pending); ok {
			p.Destroy()
			release(pending)
		}
		return nil
	})
}
