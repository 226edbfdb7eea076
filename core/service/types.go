package service

import (
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// The values the C ABI marshals, named here so that capi reaches the core
// through this package alone (core/internal/layers checks it). They are the
// core's own types, not copies: a capi value goes to the engine unchanged.
type (
	// Witness is one partition's inputs and aux (r1cs.Witness).
	Witness = r1cs.Witness
	// Density is an assignment's density bitmaps (r1cs.Density).
	Density = r1cs.Density
	// Assignment is one partition's a, b, c, inputs, aux and densities,
	// as the supraseal-c2 symbols hand them over (groth16.Assignment).
	Assignment = groth16.Assignment
	// Proof is a Groth16 proof (params.Proof).
	Proof = params.Proof
	// Priority orders the queue (engine.Priority: Low 0 ... Critical 3).
	Priority = engine.Priority
	// CUDASearch is where New looks for libcuzk_cuda.so when a
	// configuration names none (config.CUDASearch).
	CUDASearch = config.CUDASearch
)

// MaxConfigTextBytes is the longest configuration text accepted
// (config.MaxTextBytes): the C ABI reads no further than one byte past it.
const MaxConfigTextBytes = config.MaxTextBytes

var (
	// NewLogHandler is the library's log handler (config.NewLogHandler),
	// which follows logging.format.
	NewLogHandler = config.NewLogHandler
	// CUDADirs lists the directories searched for libcuzk_cuda.so
	// (config.CUDADirs).
	CUDADirs = config.CUDADirs
)
