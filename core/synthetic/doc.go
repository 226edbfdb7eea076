// Package synthetic generates circuits with their witnesses in Go, with no
// downloads: the demo circuit, PoRep-shaped circuits for benchmarks, and
// random circuits of chosen shapes for tests.
//
// Filecoin's PoRep circuit is dominated by bit decompositions and boolean
// logic (±1 coefficients, witness values 0 or 1) around SHA-256 and Poseidon
// hashing (dense witness values). Generate mixes the two: a hash-chain
// section where every value is a uniformly random-looking field element,
// and a bit section of boolean constraints and packings.
package synthetic
