package service

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// Code is a status code of the C ABI (include/cuzk.h, cuzk_code).
type Code int32

// Status codes; keep in step with include/cuzk.h.
const (
	OK              Code = 0
	InvalidArgument Code = 1
	NotFound        Code = 2
	BadFile         Code = 3
	Unsatisfied     Code = 4
	InvalidProof    Code = 5
	Cancelled       Code = 6
	Timeout         Code = 7
	Busy            Code = 8
	BadConfig       Code = 9
	NotVerified     Code = 10
	Internal        Code = 11
	DeviceFailed    Code = 12
)

// Error carries a status code with the error.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// CodeOf classifies err for the C ABI.
func CodeOf(err error) Code {
	var se *Error
	switch {
	case err == nil:
		return OK
	case errors.As(err, &se):
		return se.Code
	case errors.Is(err, engine.ErrNotVerified):
		return NotVerified
	case errors.Is(err, r1cs.ErrUnsatisfied):
		return Unsatisfied
	case errors.Is(err, groth16.ErrInvalidProof):
		return InvalidProof
	case errors.Is(err, engine.ErrCancelled), errors.Is(err, engine.ErrClosed):
		return Cancelled
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, engine.ErrDuplicateID):
		return Busy
	case errors.Is(err, backend.ErrDevice), errors.Is(err, backend.ErrDeviceFailed):
		// Before the file and request classes: a device's failure (out of
		// memory, a CUDA error) says nothing of the file or the request
		// that met it.
		return DeviceFailed
	case errors.Is(err, engine.ErrUnknownJob), errors.Is(err, os.ErrNotExist):
		return NotFound
	case errors.Is(err, r1cs.ErrFormat), errors.Is(err, r1cs.ErrWrongPrime),
		errors.Is(err, params.ErrTruncated), errors.Is(err, params.ErrNotOnCurve), errors.Is(err, params.ErrNotInGroup),
		errors.Is(err, params.ErrFlags), errors.Is(err, params.ErrCoordinate), errors.Is(err, params.ErrTrailingData),
		errors.Is(err, params.ErrBadInfinity):
		return BadFile
	case errors.Is(err, engine.ErrTooLarge):
		return InvalidArgument
	}
	// What is left are request problems the engine or the prover refused
	// (wrong sizes, mismatched parameters); a recovered panic is marked
	// Internal where it is caught.
	return InvalidArgument
}
