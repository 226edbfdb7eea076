// Package ntt computes the quotient polynomial h of the Groth16 prover with
// gnark-crypto's radix-2 NTTs, on bellperson's domain and coset:
//
//	ω = fr.Generator(N), the field's 2^32-th root 7^((r−1)/2^32) squared
//	    down to order N; coset shift g = 7.
//	a, b, c → inverse NTT → NTT on the coset gω^i → t = (a·b − c)/(g^N − 1)
//	→ inverse coset NTT → h, of which the first N−1 coefficients are used.
package ntt
