package main

/*
#define CUZK_NO_PROTOTYPES
#include <stdlib.h>
#include <string.h>
#include "cuzk.h"

static inline int32_t cuzk_call_witness2(cuzk_witness_fn f, void* u, size_t p,
		uint8_t* in, size_t nin, uint8_t* aux, size_t naux) {
	return f(u, p, in, nin, aux, naux);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/service"
)

var cVersion = C.CString(Version)

//export cuzk_version
func cuzk_version() *C.char { return cVersion }

//export cuzk_free
func cuzk_free(p unsafe.Pointer) { C.free(p) }

//export cuzk_config
func cuzk_config(text *C.char) C.cuzk_error {
	return toC(guard(func() error {
		s := ""
		if text != nil {
			// Bounded before it is read whole: a text without its NUL
			// would otherwise be read to wherever memory ends.
			n := C.strnlen(text, service.MaxConfigTextBytes+1)
			if n > service.MaxConfigTextBytes {
				return &service.Error{Code: service.BadConfig, Err: fmt.Errorf("config: the text is more than the %d bytes accepted", service.MaxConfigTextBytes)}
			}
			s = C.GoStringN(text, C.int(n))
		}
		return get().Configure(s)
	}))
}

//export cuzk_register_circuit
func cuzk_register_circuit(id, path *C.char) C.cuzk_error {
	return toC(guard(func() error {
		cid, err := goString(id, "circuit_id")
		if err != nil {
			return err
		}
		p, err := goString(path, "r1cs_path")
		if err != nil {
			return err
		}
		return get().RegisterCircuit(cid, p)
	}))
}

//export cuzk_register_circuit_matrices
func cuzk_register_circuit_matrices(id *C.char, m *C.cuzk_matrices) C.cuzk_error {
	return toC(guard(func() error {
		cid, err := goString(id, "circuit_id")
		if err != nil {
			return err
		}
		if m == nil {
			return invalid("matrices is NULL")
		}
		if err := checkFlags("matrices flags", m.flags, C.CUZK_FLAG_CANONICAL); err != nil {
			return err
		}
		canonical := m.flags&C.CUZK_FLAG_CANONICAL != 0
		if m.num_inputs == 0 {
			return invalid("num_inputs is 0 (it counts the constant ONE)")
		}
		ni, err := count("num_inputs", m.num_inputs, maxVariables)
		if err != nil {
			return err
		}
		na, err := count("num_aux", m.num_aux, maxVariables-uint64(ni))
		if err != nil {
			return err
		}
		nc, err := count("num_constraints", m.num_constraints, maxConstraints)
		if err != nil {
			return err
		}
		var ms [3]service.CSR
		for i, cm := range []*C.cuzk_matrix{&m.a, &m.b, &m.c} {
			if cm.row_ptr == nil {
				return invalid("matrix %c: row_ptr is NULL", "abc"[i])
			}
			rows := unsafe.Slice((*uint64)(unsafe.Pointer(cm.row_ptr)), nc+1)
			if err := checkRows("abc"[i], rows, uint64(ni+na)); err != nil {
				return err
			}
			nnz := rows[nc]
			if nnz > 0 && (cm.col == nil || cm.coeff == nil) {
				return invalid("matrix %c: col or coeff is NULL", "abc"[i])
			}
			ms[i] = service.CSR{RowPtr: rows, Col: unsafe.Slice((*uint32)(unsafe.Pointer(cm.col)), int(nnz)),
				Coeff: bytesAt(unsafe.Pointer(cm.coeff), C.size_t(32*nnz))}
		}
		cs, err := service.BuildSystem(ni, na, nc, ms, canonical)
		if err != nil {
			return err
		}
		return get().RegisterSystem(cid, cs)
	}))
}

// checkRows bounds a matrix's row pointers before col and coeff are read:
// they start at 0, never decrease, a row has at most one term per variable,
// and the total is at most maxTerms; so row_ptr[num_constraints] is bounded
// by num_constraints · variables as well.
func checkRows(matrix byte, rows []uint64, variables uint64) error {
	if rows[0] != 0 {
		return invalid("matrix %c: row_ptr[0] is %d, not 0", matrix, rows[0])
	}
	for k := 1; k < len(rows); k++ {
		if rows[k] < rows[k-1] || rows[k]-rows[k-1] > variables {
			return invalid("matrix %c: row_ptr[%d] = %d after %d: a row holds 0 to %d terms (one per variable)",
				matrix, k, rows[k], rows[k-1], variables)
		}
		if rows[k] > maxTerms {
			return invalid("matrix %c: row_ptr[%d] = %d terms, more than %d", matrix, k, rows[k], uint64(maxTerms))
		}
	}
	return nil
}

//export cuzk_load_params
func cuzk_load_params(id, path *C.char, flags C.uint32_t) C.cuzk_error {
	return toC(guard(func() error {
		cid, err := goString(id, "circuit_id")
		if err != nil {
			return err
		}
		p, err := goString(path, "params_path")
		if err != nil {
			return err
		}
		if err := checkFlags("flags", flags, C.CUZK_FLAG_TRUSTED_PARAMS); err != nil {
			return err
		}
		return get().LoadParams(cid, p, flags&C.CUZK_FLAG_TRUSTED_PARAMS != 0)
	}))
}

//export cuzk_evict_params
func cuzk_evict_params(id *C.char) C.cuzk_error {
	return toC(guard(func() error {
		cid, err := goString(id, "circuit_id")
		if err != nil {
			return err
		}
		return get().EvictParams(cid)
	}))
}

// request converts a cuzk_request; witnesses are copied.
func request(req *C.cuzk_request) (service.Request, error) {
	var r service.Request
	if req == nil {
		return r, invalid("request is NULL")
	}
	id, err := goString(req.circuit_id, "circuit_id")
	if err != nil {
		return r, err
	}
	r.CircuitID = id
	if req.num_partitions == 0 {
		return r, invalid("num_partitions is 0")
	}
	n, err := count("num_partitions", req.num_partitions, maxPartitions)
	if err != nil {
		return r, err
	}
	if err := checkFlags("request flags", req.flags, C.CUZK_FLAG_CANONICAL); err != nil {
		return r, err
	}
	canonical := req.flags&C.CUZK_FLAG_CANONICAL != 0
	switch p := int(req.priority); p {
	case C.CUZK_PRIORITY_LOW, C.CUZK_PRIORITY_NORMAL, C.CUZK_PRIORITY_HIGH, C.CUZK_PRIORITY_CRITICAL:
		r.Priority = service.Priority(p + 1) // LOW -1 → engine.Low 0
	default:
		return r, invalid("unknown priority %d", p)
	}
	if req.request_id != nil {
		r.RequestID = C.GoString(req.request_id)
	}
	r.Timeout = durationMS(req.timeout_ms)
	switch {
	case req.witnesses != nil && req.witness_fn != nil:
		return r, invalid("give witnesses or witness_fn, not both")
	case req.witnesses != nil:
		// Each witness's sizes must be the circuit's before its data is read.
		ni, na, err := get().CircuitSize(r.CircuitID)
		if err != nil {
			return r, err
		}
		ws := unsafe.Slice(req.witnesses, n)
		for i := range ws {
			if uint64(ws[i].num_inputs) != uint64(ni) || uint64(ws[i].num_aux) != uint64(na) {
				return r, invalid("witness %d: num_inputs %d and num_aux %d, circuit %q has %d and %d",
					i, uint64(ws[i].num_inputs), uint64(ws[i].num_aux), r.CircuitID, ni, na)
			}
			w, err := witness(i, ws[i].inputs, ws[i].num_inputs, ws[i].aux, ws[i].num_aux, canonical)
			if err != nil {
				return r, err
			}
			r.Witnesses = append(r.Witnesses, w)
		}
	case req.witness_fn != nil:
		fn, user := req.witness_fn, req.witness_user_data
		r.Partitions = n
		r.WitnessFunc = func(i int) (*service.Witness, error) { return callWitness(fn, user, i, r.CircuitID, canonical) }
	default:
		return r, invalid("no witnesses and no witness_fn")
	}
	if (req.r == nil) != (req.s == nil) {
		return r, invalid("r and s must be given together")
	}
	if req.r != nil {
		if r.R, err = service.DecodeElements("r", bytesAt(unsafe.Pointer(req.r), C.size_t(32*n)), canonical); err != nil {
			return r, err
		}
		if r.S, err = service.DecodeElements("s", bytesAt(unsafe.Pointer(req.s), C.size_t(32*n)), canonical); err != nil {
			return r, err
		}
	}
	return r, nil
}

func witness(i int, in *C.uint8_t, nin C.size_t, aux *C.uint8_t, naux C.size_t, canonical bool) (*service.Witness, error) {
	if (in == nil && nin > 0) || (aux == nil && naux > 0) {
		return nil, invalid("witness %d: NULL data with a non-zero size", i)
	}
	inputs, err := service.DecodeElements(fmt.Sprintf("witness %d inputs", i), bytesAt(unsafe.Pointer(in), 32*nin), canonical)
	if err != nil {
		return nil, err
	}
	auxv, err := service.DecodeElements(fmt.Sprintf("witness %d aux", i), bytesAt(unsafe.Pointer(aux), 32*naux), canonical)
	if err != nil {
		return nil, err
	}
	return &service.Witness{Inputs: inputs, Aux: auxv}, nil
}

// callWitness asks the host's callback for partition i's witness, into
// C buffers sized for the circuit.
func callWitness(fn C.cuzk_witness_fn, user unsafe.Pointer, i int, circuit string, canonical bool) (*service.Witness, error) {
	ni, na, err := get().CircuitSize(circuit)
	if err != nil {
		return nil, err
	}
	in := C.malloc(C.size_t(32 * max(1, ni)))
	aux := C.malloc(C.size_t(32 * max(1, na)))
	defer C.free(in)
	defer C.free(aux)
	if rc := C.cuzk_call_witness2(fn, user, C.size_t(i), (*C.uint8_t)(in), C.size_t(ni), (*C.uint8_t)(aux), C.size_t(na)); rc != 0 {
		return nil, fmt.Errorf("host callback returned %d for partition %d", int32(rc), i)
	}
	return witness(i, (*C.uint8_t)(in), C.size_t(ni), (*C.uint8_t)(aux), C.size_t(na), canonical)
}

func fillResult(out *C.cuzk_result, res *service.Result) {
	out.proofs = cBytes(res.Proofs)
	out.proofs_len = C.size_t(len(res.Proofs))
	out.report_json = C.CString(string(res.Report))
}

//export cuzk_prove
func cuzk_prove(req *C.cuzk_request, out *C.cuzk_result) C.cuzk_error {
	return toC(guard(func() error {
		if out == nil {
			return invalid("out is NULL")
		}
		r, err := request(req)
		if err != nil {
			return err
		}
		res, err := get().Prove(r)
		if err != nil {
			return err
		}
		fillResult(out, res)
		return nil
	}))
}

//export cuzk_submit
func cuzk_submit(req *C.cuzk_request, job *C.uint64_t) C.cuzk_error {
	return toC(guard(func() error {
		if job == nil {
			return invalid("job_out is NULL")
		}
		r, err := request(req)
		if err != nil {
			return err
		}
		id, err := get().Submit(r)
		if err != nil {
			return err
		}
		*job = C.uint64_t(id)
		return nil
	}))
}

//export cuzk_await
func cuzk_await(job C.uint64_t, timeoutMS C.uint64_t, out *C.cuzk_result) C.cuzk_error {
	return toC(guard(func() error {
		if out == nil {
			return invalid("out is NULL")
		}
		res, err := get().Await(uint64(job), durationMS(timeoutMS))
		if err != nil {
			return err
		}
		fillResult(out, res)
		return nil
	}))
}

//export cuzk_cancel
func cuzk_cancel(job C.uint64_t) C.cuzk_error {
	return toC(guard(func() error { return get().Cancel(uint64(job)) }))
}

//export cuzk_result_free
func cuzk_result_free(r *C.cuzk_result) {
	if r == nil {
		return
	}
	C.free(unsafe.Pointer(r.proofs))
	C.free(unsafe.Pointer(r.report_json))
	*r = C.cuzk_result{}
}

//export cuzk_verify
func cuzk_verify(id *C.char, proofs *C.uint8_t, proofsLen C.size_t, public *C.uint8_t, numPublic C.size_t, flags C.uint32_t) C.cuzk_error {
	return toC(guard(func() error {
		cid, err := goString(id, "circuit_id")
		if err != nil {
			return err
		}
		if err := checkFlags("flags", flags, C.CUZK_FLAG_CANONICAL); err != nil {
			return err
		}
		if proofs == nil || proofsLen == 0 {
			return invalid("no proofs (proofs NULL or proofs_len 0)")
		}
		if proofsLen%192 != 0 {
			return invalid("proofs_len %d is not a whole number of 192-byte proofs", uint64(proofsLen))
		}
		if uint64(proofsLen) > 192*maxPartitions {
			return invalid("proofs_len %d is more than %d proofs", uint64(proofsLen), maxPartitions)
		}
		n := int(proofsLen / 192)
		// num_public is the circuit's public inputs where it is registered,
		// and at most the variables any circuit has otherwise.
		limit := uint64(maxVariables)
		if ni, _, err := get().CircuitSize(cid); err == nil {
			limit = uint64(ni - 1)
		}
		if _, err := count("num_public", numPublic, limit); err != nil {
			return err
		}
		if public == nil && numPublic > 0 {
			return invalid("public_inputs is NULL")
		}
		all, err := service.DecodeElements("public input", bytesAt(unsafe.Pointer(public), C.size_t(32*n)*numPublic), flags&C.CUZK_FLAG_CANONICAL != 0)
		if err != nil {
			return err
		}
		pub := make([][]fr.Element, n)
		for i := range pub {
			pub[i] = all[i*int(numPublic) : (i+1)*int(numPublic)]
		}
		return get().Verify(cid, C.GoBytes(unsafe.Pointer(proofs), C.int(proofsLen)), pub)
	}))
}

//export cuzk_status_json
func cuzk_status_json() *C.char {
	var out *C.char
	_ = guard(func() error {
		js, err := get().StatusJSON()
		if err == nil {
			out = C.CString(string(js))
		}
		return err
	})
	return out
}

//export cuzk_metrics_text
func cuzk_metrics_text() *C.char {
	var out *C.char
	_ = guard(func() error {
		text, err := get().MetricsText()
		if err == nil {
			out = C.CString(text)
		}
		return err
	})
	return out
}

//export cuzk_set_throttle
func cuzk_set_throttle(raised C.int) {
	_ = guard(func() error { get().Throttle().SetHost(raised != 0); return nil })
}

//export cuzk_proof_compress
func cuzk_proof_compress(in unsafe.Pointer, n C.size_t, out *C.uint8_t) C.cuzk_error {
	return toC(guard(func() error {
		if in == nil || out == nil || n == 0 {
			return invalid("NULL proofs or output, or num_proofs 0")
		}
		num, err := count("num_proofs", n, maxPartitions)
		if err != nil {
			return err
		}
		enc, err := service.CompressProofs(unsafe.Slice((*service.Proof)(in), num))
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*byte)(unsafe.Pointer(out)), len(enc)), enc)
		return nil
	}))
}
