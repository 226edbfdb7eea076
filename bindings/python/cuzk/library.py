"""Finding and loading libcuzk.so, and the ctypes declaration of every
function of include/cuzk.h and include/supraseal_c2.h.

The library is looked for in this order; the first rule that applies wins:

1. the `path` given to load_library() (Prover(lib_path=...));
2. the CUZK_LIB environment variable;
3. libcuzk.so inside this package's directory (bundled by `pip install`
   from a checkout where it was built, or by a distributor);
4. build/libcuzk.so of the repository, when this package is run from a
   checkout (bindings/python/cuzk beside include/cuzk.h);
5. PREFIX/lib/libcuzk.so, PREFIX being the prefix of `make install`
   recorded when the package was installed (cuzk/_install.py; /usr/local
   by default: `pip install --config-settings prefix=/opt/cuzk`);
6. the system loader (`libcuzk.so` through LD_LIBRARY_PATH, ld.so.cache).

A path given by rule 1 or 2 is used or refused: when it does not exist or
is not libcuzk (it does not load, or lacks cuzk_version), LibraryError names
it, and no other copy is tried in its place. Rules 3 to 5 move on only when
the file is absent: a bundled or built copy that is there but broken is an
error too.

The library writes its log (Go's slog text lines) to the process's stderr
at the level CUZK_LOG_LEVEL names, read once when the library loads. When
CUZK_LOG_LEVEL is unset, load_library() sets it from the effective level of
the Python logger "cuzk", so `logging.getLogger("cuzk").setLevel(logging.INFO)`
before the first Prover asks the library for its info lines.
"""

import ctypes
import logging
import os
import threading
from ctypes import (POINTER, Structure, c_bool, c_char_p, c_int, c_int32, c_size_t,
                    c_uint8, c_uint32, c_uint64, c_void_p)

from .errors import LibraryError

log = logging.getLogger("cuzk")

LIBRARY_NAME = "libcuzk.so"


# --- include/cuzk.h ---------------------------------------------------------

class Error(Structure):
    """cuzk_error."""
    _fields_ = [("code", c_int32), ("message", c_void_p)]


class Witness(Structure):
    """cuzk_witness."""
    _fields_ = [("inputs", POINTER(c_uint8)), ("num_inputs", c_size_t),
                ("aux", POINTER(c_uint8)), ("num_aux", c_size_t)]


WITNESS_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, c_size_t, POINTER(c_uint8), c_size_t,
                              POINTER(c_uint8), c_size_t)


class Request(Structure):
    """cuzk_request."""
    _fields_ = [("circuit_id", c_char_p), ("num_partitions", c_size_t),
                ("witnesses", POINTER(Witness)), ("witness_fn", WITNESS_FN),
                ("witness_user_data", c_void_p), ("flags", c_uint32), ("priority", c_int32),
                ("request_id", c_char_p), ("timeout_ms", c_uint64),
                ("r", POINTER(c_uint8)), ("s", POINTER(c_uint8))]


class Result(Structure):
    """cuzk_result."""
    _fields_ = [("proofs", POINTER(c_uint8)), ("proofs_len", c_size_t), ("report_json", c_void_p)]


class Matrix(Structure):
    """cuzk_matrix: one of A, B, C in compressed sparse row form."""
    _fields_ = [("row_ptr", POINTER(c_uint64)), ("col", POINTER(c_uint32)),
                ("coeff", POINTER(c_uint8))]


class Matrices(Structure):
    """cuzk_matrices."""
    _fields_ = [("num_inputs", c_size_t), ("num_aux", c_size_t), ("num_constraints", c_size_t),
                ("a", Matrix), ("b", Matrix), ("c", Matrix), ("flags", c_uint32)]


# --- include/supraseal_c2.h -------------------------------------------------

class RustError(Structure):
    """RustError; its message is released with libc's free()."""
    _fields_ = [("code", c_int32), ("message", c_void_p)]


class Fr(Structure):
    """fr_t: 4 little-endian u64 limbs, Montgomery form."""
    _fields_ = [("limbs", c_uint64 * 4)]


class Fp(Structure):
    """fp_t: 6 little-endian u64 limbs, Montgomery form."""
    _fields_ = [("limbs", c_uint64 * 6)]


class G1Affine(Structure):
    _fields_ = [("x", Fp), ("y", Fp)]


class G2Affine(Structure):
    _fields_ = [("x", Fp * 2), ("y", Fp * 2)]


class Groth16Proof(Structure):
    """groth16_proof: 384 bytes."""
    _fields_ = [("a", G1Affine), ("b", G2Affine), ("c", G1Affine)]


class SRS(Structure):
    _fields_ = [("ptr", c_void_p)]


class Assignment(Structure):
    """Assignment: one circuit's host-synthesized assignment (17 words)."""
    _fields_ = [("a_aux_density", POINTER(c_uint64)), ("a_aux_bit_len", c_size_t),
                ("a_aux_popcount", c_size_t),
                ("b_inp_density", POINTER(c_uint64)), ("b_inp_bit_len", c_size_t),
                ("b_inp_popcount", c_size_t),
                ("b_aux_density", POINTER(c_uint64)), ("b_aux_bit_len", c_size_t),
                ("b_aux_popcount", c_size_t),
                ("a", POINTER(Fr)), ("b", POINTER(Fr)), ("c", POINTER(Fr)), ("abc_size", c_size_t),
                ("inp_assignment_data", POINTER(Fr)), ("inp_assignment_size", c_size_t),
                ("aux_assignment_data", POINTER(Fr)), ("aux_assignment_size", c_size_t)]


# Every exported function: name -> (argtypes, restype), in header order.
SIGNATURES = {
    # cuzk.h
    "cuzk_version": ([], c_char_p),
    "cuzk_config": ([c_char_p], Error),
    "cuzk_register_circuit": ([c_char_p, c_char_p], Error),
    "cuzk_register_circuit_matrices": ([c_char_p, POINTER(Matrices)], Error),
    "cuzk_load_params": ([c_char_p, c_char_p, c_uint32], Error),
    "cuzk_evict_params": ([c_char_p], Error),
    "cuzk_prove": ([POINTER(Request), POINTER(Result)], Error),
    "cuzk_submit": ([POINTER(Request), POINTER(c_uint64)], Error),
    "cuzk_await": ([c_uint64, c_uint64, POINTER(Result)], Error),
    "cuzk_cancel": ([c_uint64], Error),
    "cuzk_result_free": ([POINTER(Result)], None),
    "cuzk_verify": ([c_char_p, POINTER(c_uint8), c_size_t, POINTER(c_uint8), c_size_t, c_uint32],
                    Error),
    "cuzk_proof_compress": ([c_void_p, c_size_t, POINTER(c_uint8)], Error),
    "cuzk_status_json": ([], c_void_p),
    "cuzk_metrics_text": ([], c_void_p),
    "cuzk_set_throttle": ([c_int], None),
    "cuzk_free": ([c_void_p], None),
    # supraseal_c2.h
    "create_gpu_mutex": ([], c_void_p),
    "destroy_gpu_mutex": ([c_void_p], None),
    "create_SRS": ([POINTER(SRS), c_char_p, c_bool], RustError),
    "evict_SRS": ([POINTER(SRS)], None),
    "drop_SRS": ([POINTER(SRS)], None),
    "clone_SRS": ([POINTER(SRS)], SRS),
    "generate_groth16_proofs_c": ([POINTER(Assignment), c_size_t, POINTER(Fr), POINTER(Fr),
                                   POINTER(Groth16Proof), POINTER(SRS), c_void_p, c_int],
                                  RustError),
    "generate_groth16_proofs_start_c": ([POINTER(Assignment), c_size_t, POINTER(Fr), POINTER(Fr),
                                         POINTER(SRS), c_void_p, c_int, POINTER(c_void_p)],
                                        RustError),
    "finalize_groth16_proof_c": ([c_void_p, POINTER(Groth16Proof)], RustError),
    "destroy_pending_proof": ([c_void_p], None),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _checkout_library(here):
    """build/libcuzk.so when `here` is bindings/python/cuzk of a checkout."""
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    if os.path.isfile(os.path.join(root, "include", "cuzk.h")):
        return os.path.join(root, "build", LIBRARY_NAME)
    return None


def candidates(path=None):
    """The (path, explicit) pairs load_library tries, in order. An explicit
    path is the only candidate."""
    if path:
        return [(path, True)]
    env = os.environ.get("CUZK_LIB")
    if env:
        return [(env, True)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [(os.path.join(here, LIBRARY_NAME), False)]
    checkout = _checkout_library(here)
    if checkout:
        out.append((checkout, False))
    out.append((os.path.join(install_prefix(), "lib", LIBRARY_NAME), False))
    out.append((LIBRARY_NAME, False))
    return out


def install_prefix():
    """The prefix of `make install` recorded at install, or /usr/local."""
    try:
        from . import _install
        return _install.PREFIX
    except ImportError:  # run from the checkout: nothing was installed
        return "/usr/local"


_LOG_LEVELS = [(logging.DEBUG, "debug"), (logging.INFO, "info"), (logging.WARNING, "warn")]


def log_level_name(level):
    """The CUZK_LOG_LEVEL word for a Python logging level."""
    for limit, word in _LOG_LEVELS:
        if level <= limit:
            return word
    return "error"


def _open(cand, explicit):
    if explicit or os.sep in cand:
        cand = os.path.abspath(cand)
        if not os.path.isfile(cand):
            raise LibraryError(f"cuzk: library {cand}: no such file", cand)
    try:
        lib = ctypes.CDLL(cand)
    except OSError as e:
        raise LibraryError(f"cuzk: library {cand} does not load: {e}", cand) from None
    if not hasattr(lib, "cuzk_version"):
        raise LibraryError(f"cuzk: library {cand} is not libcuzk (no cuzk_version)", cand)
    return lib, cand


def load_library(path=None):
    """Loads libcuzk once per process and declares every function's types.

    Raises LibraryError naming the path when an explicit path (argument or
    CUZK_LIB) is wrong, or when a later call asks for another file than the
    one already loaded."""
    global _lib, _lib_path
    with _lock:
        explicit = path or os.environ.get("CUZK_LIB")
        if _lib is not None:
            if explicit and os.path.abspath(explicit) != _lib_path:
                raise LibraryError(f"cuzk: library {os.path.abspath(explicit)} asked for, "
                                   f"but {_lib_path} is already loaded", os.path.abspath(explicit))
            return _lib
        if "CUZK_LOG_LEVEL" not in os.environ:
            os.environ["CUZK_LOG_LEVEL"] = log_level_name(log.getEffectiveLevel())
        tried = []
        lib = None
        for cand, is_explicit in candidates(path):
            # Only absence moves on to the next rule: a file that is there
            # but is not libcuzk is an error, never a reason to load another.
            if not is_explicit and os.sep in cand and not os.path.isfile(cand):
                tried.append(f"{cand}: no such file")
                continue
            try:
                lib, where = _open(cand, is_explicit)
                break
            except LibraryError as e:
                if is_explicit or os.sep in cand:
                    raise
                tried.append(str(e))
        if lib is None:
            raise LibraryError("cuzk: libcuzk.so not found (set CUZK_LIB to its path); tried: "
                               + "; ".join(tried))
        for name, (args, res) in SIGNATURES.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = res
        _lib, _lib_path = lib, where
        log.debug("loaded %s (CUZK_LOG_LEVEL=%s)", where, os.environ["CUZK_LOG_LEVEL"])
        return lib


def loaded_path():
    """The path of the loaded library, or None before load_library."""
    return _lib_path
