/* Reports the C layouts of the public structs, for the Rust layout tests. */
#include <stddef.h>
#include "cuzk.h"
#include "supraseal_c2.h"

#define PROBE(name, value) size_t cuzk_probe_##name(void) { return (value); }

PROBE(assignment_size, sizeof(Assignment))
PROBE(assignment_a, offsetof(Assignment, a))
PROBE(assignment_abc_size, offsetof(Assignment, abc_size))
PROBE(assignment_aux_size, offsetof(Assignment, aux_assignment_size))
PROBE(proof_size, sizeof(groth16_proof))
PROBE(proof_b, offsetof(groth16_proof, b))
PROBE(proof_c, offsetof(groth16_proof, c))
PROBE(fr_size, sizeof(fr_t))
PROBE(srs_size, sizeof(SRS))
PROBE(rust_error_size, sizeof(RustError))
PROBE(rust_error_message, offsetof(RustError, message))
PROBE(request_size, sizeof(cuzk_request))
PROBE(request_flags, offsetof(cuzk_request, flags))
PROBE(request_timeout, offsetof(cuzk_request, timeout_ms))
PROBE(request_s, offsetof(cuzk_request, s))
PROBE(witness_size, sizeof(cuzk_witness))
PROBE(result_size, sizeof(cuzk_result))
PROBE(result_report, offsetof(cuzk_result, report_json))
PROBE(error_size, sizeof(cuzk_error))
