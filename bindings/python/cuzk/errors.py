"""The exceptions of the binding: one class per cuzk_code of include/cuzk.h.

Every failed library call raises the subclass of CuzkError mapped to its
status code (ERRORS); an unknown code raises CuzkError itself, so a newer
library's codes still surface with their message.
"""

# Status codes (enum cuzk_code in include/cuzk.h).
OK = 0
INVALID_ARGUMENT = 1
NOT_FOUND = 2
BAD_FILE = 3
UNSATISFIED = 4
INVALID_PROOF = 5
CANCELLED = 6
TIMEOUT = 7
BUSY = 8
CONFIG = 9
NOT_VERIFIED = 10
INTERNAL = 11
DEVICE = 12


class CuzkError(Exception):
    """An error returned by libcuzk: .code (a cuzk_code) and .message (the
    library's text)."""

    code = None
    name = "error"

    def __init__(self, code, message):
        super().__init__(f"{message} [{self.name}]")
        self.code = code
        self.message = message


class InvalidArgumentError(CuzkError):
    """CUZK_ERR_INVALID_ARGUMENT: null pointer, wrong size, bad value or flag."""
    code, name = INVALID_ARGUMENT, "invalid argument"


class NotFoundError(CuzkError):
    """CUZK_ERR_NOT_FOUND: unknown circuit or job, missing file."""
    code, name = NOT_FOUND, "not found"


class BadFileError(CuzkError):
    """CUZK_ERR_BAD_FILE: corrupt, truncated or foreign params / r1cs file."""
    code, name = BAD_FILE, "bad file"


class UnsatisfiedError(CuzkError):
    """CUZK_ERR_UNSATISFIED: the witness does not satisfy the circuit."""
    code, name = UNSATISFIED, "unsatisfied"


class InvalidProofError(CuzkError):
    """CUZK_ERR_INVALID_PROOF: a well-formed proof that does not verify."""
    code, name = INVALID_PROOF, "invalid proof"


class CancelledError(CuzkError):
    """CUZK_ERR_CANCELLED: the job was cancelled."""
    code, name = CANCELLED, "cancelled"


class DeadlineError(CuzkError):
    """CUZK_ERR_TIMEOUT: the request's deadline passed, or Job.wait timed
    out (the job keeps running). Not named TimeoutError so that it does not
    shadow the builtin."""
    code, name = TIMEOUT, "timeout"


class BusyError(CuzkError):
    """CUZK_ERR_BUSY: reconfiguration with jobs in flight; request id in use."""
    code, name = BUSY, "busy"


class ConfigError(CuzkError):
    """CUZK_ERR_CONFIG: invalid configuration (the message names the key)."""
    code, name = CONFIG, "bad config"


class NotVerifiedError(CuzkError):
    """CUZK_ERR_NOT_VERIFIED: a produced proof failed verification."""
    code, name = NOT_VERIFIED, "not verified"


class InternalError(CuzkError):
    """CUZK_ERR_INTERNAL: a fault inside the library (a bug: please report)."""
    code, name = INTERNAL, "internal"


class DeviceError(CuzkError):
    """CUZK_ERR_DEVICE: a GPU call failed (out of memory or another CUDA error,
    named in the message); after a sticky one the GPU is out of service."""
    code, name = DEVICE, "device failed"


# code -> class, one entry per non-OK cuzk_code.
ERRORS = {cls.code: cls for cls in (
    InvalidArgumentError, NotFoundError, BadFileError, UnsatisfiedError, InvalidProofError,
    CancelledError, DeadlineError, BusyError, ConfigError, NotVerifiedError, InternalError,
    DeviceError)}


def error_for(code, message):
    """The exception for a status code: its mapped subclass, else CuzkError."""
    cls = ERRORS.get(code)
    if cls is None:
        err = CuzkError(code, message)
        err.args = (f"{message} [code {code}]",)
        return err
    return cls(code, message)


class LibraryError(OSError):
    """libcuzk could not be loaded: .path names the file that was tried (or
    None when no candidate was found)."""

    def __init__(self, message, path=None):
        super().__init__(message)
        self.path = path
