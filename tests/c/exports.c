/*
 * The hand-written headers against the library's exports. tests/c/run.sh
 * compiles this file with a copy of include/cuzk.h and supraseal_c2.h whose
 * `const` qualifiers are removed (a Go export cannot say const) first on the
 * include path, and Go's generated header of capi's exports
 * (build/cgo/libcuzk.h). Every exported function is then declared twice in
 * one translation unit, once by the headers and once by Go, and C requires
 * the two declarations to be compatible: a parameter, a result or a count
 * that differs between a header and capi fails the build. run.sh checks
 * that both declare the same set of functions, so none escapes the check.
 */
#include "cuzk.h"
#include "supraseal_c2.h"
#include "libcuzk.h"

int main(void) { return 0; }
