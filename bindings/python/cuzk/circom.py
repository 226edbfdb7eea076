"""Readers of circom's binary files: the witness (.wtns) and the header of
a constraint system (.r1cs), which says how many of the witness's values are
public inputs.

Both files are (all integers little-endian):

    magic ("wtns" or "r1cs")  u32 version  u32 number of sections
    then each section: u32 type  u64 byte length  body

.wtns: section 1 (header): u32 n8 (bytes per field element), the prime (n8
       bytes), u32 number of witness values;
       section 2 (values): number-of-values elements of n8 bytes each.
.r1cs: section 1 (header): u32 n8, the prime, u32 wires, u32 public
       outputs, u32 public inputs, u32 private inputs, u64 labels,
       u32 constraints (the constraints, section 2, are not read here).

The values are canonical integers below the prime, wire 0 being the
constant ONE, then circom's public wires (outputs, public inputs), then the
rest. Only BLS12-381's scalar field is accepted (circom --prime bls12381).
"""

import struct

from .elements import ELEMENT_SIZE, FIELD_MODULUS

HEADER_SECTION, VALUES_SECTION = 1, 2


class WtnsError(ValueError):
    """A file that is not a readable BLS12-381 circom file (.wtns, or the
    .r1cs header); the message names the file."""


class Wtns:
    """A circom witness: .values (ints, wire order), .version, .path."""

    def __init__(self, values, version, path=None):
        self.values = values
        self.version = version
        self.path = path

    def __len__(self):
        return len(self.values)

    def split(self, num_inputs):
        """(inputs, aux) as bytes of canonical 32-byte elements, the first
        num_inputs values (ONE and the public wires) being the inputs: pass
        them to Prover.prove with canonical=True. num_inputs is the
        circuit's public wires plus one (circom's nOutputs + nPubInputs + 1)."""
        if not 1 <= num_inputs <= len(self.values):
            raise ValueError(f"num_inputs {num_inputs} not in 1..{len(self.values)}")
        enc = b"".join(v.to_bytes(ELEMENT_SIZE, "little") for v in self.values)
        cut = num_inputs * ELEMENT_SIZE
        return enc[:cut], enc[cut:]


def read_wtns(path):
    """Reads a .wtns file; raises WtnsError naming the file for a bad one."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_wtns(data, name=str(path))


def _sections(data, magic, name, want):
    """The sections of a circom binary file by type, checked against its length."""
    def bad(msg):
        return WtnsError(f"{name}: {msg}")

    kind = magic.decode()
    if len(data) < 12:
        raise bad(f"{len(data)} bytes is too short for a .{kind} file")
    if data[:4] != magic:
        raise bad(f"bad magic {data[:4]!r}: not a circom .{kind} file")
    version, nsections = struct.unpack_from("<II", data, 4)
    if version not in (1, 2):
        raise bad(f"unsupported .{kind} version {version}")
    sections = {}
    off = 12
    for i in range(nsections):
        if off + 12 > len(data):
            raise bad(f"section {i} header at byte {off} past the end ({len(data)} bytes)")
        typ, size = struct.unpack_from("<IQ", data, off)
        off += 12
        if size > len(data) - off:
            raise bad(f"section {i} (type {typ}) is {size} bytes but only {len(data) - off} remain")
        if typ in sections:
            raise bad(f"section type {typ} appears twice")
        sections[typ] = data[off:off + size]
        off += size
    if off != len(data):
        raise bad(f"{len(data) - off} bytes after the last section")
    for typ in want:
        if typ not in sections:
            raise bad(f"no section of type {typ}")
    return version, sections


def _field(hdr, name):
    """n8 of a header section whose field is BLS12-381's scalar field."""
    if len(hdr) < 4:
        raise WtnsError(f"{name}: header section shorter than 4 bytes")
    (n8,) = struct.unpack_from("<I", hdr, 0)
    prime = int.from_bytes(hdr[4:4 + n8], "little")
    if n8 != ELEMENT_SIZE or prime != FIELD_MODULUS:
        raise WtnsError(f"{name}: field of {n8}-byte elements with prime {prime:#x} is not "
                        f"BLS12-381's scalar field (compile with circom --prime bls12381)")
    return n8


def r1cs_num_inputs(path):
    """The number of inputs of a circom .r1cs (ONE, public outputs and
    public inputs): the num_inputs of Wtns.split."""
    with open(path, "rb") as f:
        data = f.read()
    name = str(path)
    _, sections = _sections(data, b"r1cs", name, (HEADER_SECTION,))
    hdr = sections[HEADER_SECTION]
    n8 = _field(hdr, name)
    if len(hdr) != 4 + n8 + 28:
        raise WtnsError(f"{name}: header section is {len(hdr)} bytes, want {4 + n8 + 28}")
    wires, outputs, public, _ = struct.unpack_from("<IIII", hdr, 4 + n8)
    if 1 + outputs + public > wires:
        raise WtnsError(f"{name}: {outputs} outputs and {public} public inputs, {wires} wires")
    return 1 + outputs + public


def parse_wtns(data, name="wtns"):
    """Parses the bytes of a .wtns file (see the module doc)."""
    def bad(msg):
        return WtnsError(f"{name}: {msg}")

    version, sections = _sections(data, b"wtns", name, (HEADER_SECTION, VALUES_SECTION))
    hdr = sections[HEADER_SECTION]
    n8 = _field(hdr, name)
    if len(hdr) != 4 + n8 + 4:
        raise bad(f"header section is {len(hdr)} bytes, want {4 + n8 + 4} for {n8}-byte elements")
    prime = FIELD_MODULUS
    (count,) = struct.unpack_from("<I", hdr, 4 + n8)
    body = sections[VALUES_SECTION]
    if len(body) != count * n8:
        raise bad(f"values section is {len(body)} bytes, want {count * n8} for {count} values")
    values = []
    for i in range(count):
        v = int.from_bytes(body[i * n8:(i + 1) * n8], "little")
        if v >= prime:
            raise bad(f"value {i} is not below the prime")
        values.append(v)
    if count and values[0] != 1:
        raise bad(f"wire 0 is {values[0]}, not the constant 1")
    return Wtns(values, version, name)
