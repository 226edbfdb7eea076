// Package service is the idiomatic layer under the C ABI (filecoin-ffi's
// two-layer pattern): one process-wide proving service that owns the engine,
// the circuits and parameter sets registered by id, the supraseal-c2 SRS
// cache, job handles, and the mapping of errors to the ABI's status codes;
// its status document and metrics, served over HTTP too when the
// configuration names metrics.listen. capi/ only marshals C values to and
// from these calls.
package service
