// Package filekind tells what a file of the Groth16 ecosystem is, and its
// sizes, without reading its body: bellperson parameter files and
// verifying keys, proof files, circom .r1cs and .wtns, cuzk circuit files,
// snarkjs JSON (verification_key.json, proof.json, public.json), and the
// snarkjs binaries cuzk does not read (.zkey, .ptau).
//
// One function, Sniff, decides, in this order:
//
//   - magic bytes: "r1cs", "wtns", "zkey", "ptau" (iden3 containers, whose
//     header sections give the counts and the field), "CUZKR1CS";
//   - JSON shape: an object with pi_a is a proof, one with nPublic a
//     verifying key; an array of decimal strings is public inputs;
//   - size arithmetic: a bellperson parameter file has no header, so its
//     seven section counts must add up to the file's size exactly (and
//     the verifying key's points carry uncompressed flags); a .vk ends
//     after ic; a proof file is a positive multiple of 192 bytes whose
//     points carry compressed flags.
//
// The header readers are the formats' own (r1cs.DecodeCircomHeader,
// params.DecodeLayout, ...), so a 9 GiB parameter file is sniffed by
// reading seven counts. The command line uses Sniff to describe files
// (cuzk info), and the command line and the library (Expect) to say, when
// a reader fails, what the file it was given is and what it takes.
package filekind
