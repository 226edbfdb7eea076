"""Python binding of libcuzk (ctypes; the standard library only).

    import cuzk
    with cuzk.Prover() as p:
        p.register_circuit("c", "c.r1cs")
        p.load_params("c", "c.params")
        w = cuzk.read_wtns("c.wtns")
        inputs, aux = w.split(cuzk.r1cs_num_inputs("c.r1cs"))
        proofs = p.prove("c", [(inputs, aux)], canonical=True)
        p.verify("c", proofs, [inputs[32:]], canonical=True)

Modules: library (finding libcuzk.so, the declaration of every C export),
errors (CuzkError and one subclass per status code), prover (Prover, Job),
circom (circom .wtns reader, .r1cs header), elements (field-element encodings).

The library is found through, in order: the lib_path argument, CUZK_LIB,
libcuzk.so beside this package, build/libcuzk.so of the repository when run
from a checkout, the system loader. A wrong explicit path raises
LibraryError naming it. The library's log goes to stderr at the level of
CUZK_LOG_LEVEL, which the binding sets from the "cuzk" logger's level when
it is unset (see cuzk.library); forward_library_log() (opt-in) turns those
lines into records of the logger "cuzk.lib" (see cuzk.logforward).
"""

from .elements import ELEMENT_SIZE, FIELD_MODULUS, decode, elements, to_montgomery
from .errors import (BAD_FILE, BUSY, CANCELLED, CONFIG, DEVICE, ERRORS, INTERNAL, INVALID_ARGUMENT,
                     INVALID_PROOF, NOT_FOUND, NOT_VERIFIED, OK, TIMEOUT, UNSATISFIED,
                     BadFileError, BusyError, CancelledError, ConfigError, CuzkError, DeviceError,
                     DeadlineError, InternalError, InvalidArgumentError, InvalidProofError,
                     LibraryError, NotFoundError, NotVerifiedError, UnsatisfiedError, error_for)
from .library import load_library, loaded_path
from .logforward import forward_library_log
from .prover import (CANONICAL, PRIORITY_CRITICAL, PRIORITY_HIGH, PRIORITY_LOW, PRIORITY_NORMAL,
                     PROOF_SIZE, TRUSTED_PARAMS, Job, Prover)
from .circom import Wtns, WtnsError, parse_wtns, r1cs_num_inputs, read_wtns

__version__ = "0.1.0"

__all__ = [
    "Prover", "Job", "load_library", "loaded_path", "forward_library_log", "read_wtns",
    "r1cs_num_inputs", "parse_wtns", "Wtns",
    "WtnsError", "elements", "to_montgomery", "decode", "ELEMENT_SIZE", "FIELD_MODULUS",
    "CANONICAL", "TRUSTED_PARAMS", "PRIORITY_LOW", "PRIORITY_NORMAL", "PRIORITY_HIGH",
    "PRIORITY_CRITICAL", "PROOF_SIZE", "CuzkError", "LibraryError", "ERRORS", "error_for",
    "InvalidArgumentError", "NotFoundError", "BadFileError", "UnsatisfiedError",
    "InvalidProofError", "CancelledError", "DeadlineError", "BusyError", "ConfigError",
    "NotVerifiedError", "InternalError", "DeviceError",
    "OK", "INVALID_ARGUMENT", "NOT_FOUND", "BAD_FILE", "UNSATISFIED", "INVALID_PROOF",
    "CANCELLED", "TIMEOUT", "BUSY", "CONFIG", "NOT_VERIFIED", "INTERNAL", "DEVICE",
]
