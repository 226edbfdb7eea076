// Package params reads and writes Groth16 parameter files in the format of
// bellperson (and so of Filecoin's published .params and .vk files), and the
// 192-byte proof encoding.
//
// A parameter file is, with no padding and no header:
//
//	alpha_g1, beta_g1           G1, uncompressed (96 bytes each)
//	beta_g2, gamma_g2           G2, uncompressed (192 bytes each)
//	delta_g1                    G1
//	delta_g2                    G2
//	ic                          u32 big-endian count, then G1 points
//	h, l, a, b_g1               u32 big-endian count, then G1 points each
//	b_g2                        u32 big-endian count, then G2 points
//
// A .vk file is the same up to and including ic. Points use the zcash/blst
// BLS12-381 serialisation: big-endian coordinates, G2 coordinates as
// (c1, c0), flag bits in the three top bits of the first byte
// (compressed, infinity, sign of y).
//
// Every point read is checked to lie on the curve and, unless the caller
// opts out for a trusted file, in the prime-order subgroup. Errors name the
// section and the index of the offending point, e.g.
// "params: h[1234]: point not on curve".
//
// The subgroup check costs ~65× the rest of a load on the CPU (a 9.6 GB
// file: >300 s against 4.5 s on 16 cores), so ReadProvingKey does it once
// per file contents: a content key (parallel SHA-256 over 8 MiB chunks,
// computed while the points decode; no measurable cost on a 96 MiB file
// in BenchmarkLoad) is looked up in a Record of contents that passed
// before; with each key it keeps the stamps (device, inode, size, mtime,
// ctime) of the files seen with it, so an unchanged file is not even
// hashed again (git's index does the same). A file Filecoin publishes is trusted when its BLAKE2b digest
// matches the embedded manifest; anything else goes through a
// SubgroupChecker (a GPU's where one exists, else CPUChecker), which checks
// each section as soon as it is decoded (a RangeChecker, as the GPU's is,
// each block of 2^18 points as soon as it is decoded, into the resident
// copy the MSMs use), and passing contents are recorded. A changed file
// has another key and is checked again. The stamp, the key and the points
// all come from one open descriptor, so a path that names another file
// meanwhile (a symlink flipped) cannot pair one file's stamp or key with
// another's points; a file written while it is read is checked. The record
// is trusted only if no other user could have written it (Record).
//
// A proof is compressed A (48 bytes) ‖ B (96) ‖ C (48); the proofs of
// several partitions are concatenated in partition order.
package params
