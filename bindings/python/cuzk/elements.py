"""BLS12-381 scalar-field elements as the library takes them: 32 bytes,
little-endian, canonical (CUZK_FLAG_CANONICAL) or Montgomery form (R = 2^256)."""

ELEMENT_SIZE = 32
FIELD_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
_R = pow(2, 256, FIELD_MODULUS)
_R_INV = pow(_R, -1, FIELD_MODULUS)


def elements(values):
    """Encodes Python ints as canonical 32-byte little-endian elements (use
    with canonical=True)."""
    out = bytearray()
    for v in values:
        if not 0 <= v < FIELD_MODULUS:
            raise ValueError(f"{v} is not a field element")
        out += v.to_bytes(ELEMENT_SIZE, "little")
    return bytes(out)


def to_montgomery(values):
    """Encodes Python ints in Montgomery form (the library's default)."""
    return elements(v * _R % FIELD_MODULUS for v in values)


def decode(data, montgomery=False):
    """The ints of a bytes object of 32-byte elements."""
    if len(data) % ELEMENT_SIZE:
        raise ValueError(f"{len(data)} bytes is not a whole number of 32-byte elements")
    vals = [int.from_bytes(data[i:i + ELEMENT_SIZE], "little")
            for i in range(0, len(data), ELEMENT_SIZE)]
    if montgomery:
        vals = [v * _R_INV % FIELD_MODULUS for v in vals]
    return vals
