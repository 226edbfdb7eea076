pragma circom 2.0.0;

// SHA-256 of a 64-byte message (512 bits in, 256 bits out), from circomlib.
include "circomlib/circuits/sha256/sha256.circom";

component main = Sha256(512);
