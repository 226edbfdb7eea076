// Package r1cs holds a compiled rank-1 constraint system in compressed
// sparse row form and evaluates it the way bellperson's prover does.
//
// Variables are [inputs | aux]; input 0 is the constant ONE. The matrices A,
// B and C hold the circuit's constraints only. Evaluation appends, after the
// last constraint, one row per input with A = x_i, B = 0, C = 0 (bellperson
// adds these so that the input polynomials are linearly independent), so a
// system with m constraints and n inputs has m + n rows.
//
// Duplicate terms within a row are merged and zero coefficients dropped when
// a system is built, so a variable's density bit (A-aux, B-input, B-aux) is
// set exactly when its QAP polynomial is non-zero — which is when bellperson's
// parameter generator keeps its point in the A and B queries.
//
// Coefficients are interned: each term stores an index into one coefficient
// table, with index 0 meaning 1 and index 1 meaning −1, so the evaluation's
// common case (±1 coefficients, as in Filecoin's boolean-heavy circuits) is
// an addition, not a multiplication.
//
// The package also reads circom's binary .r1cs and .wtns files (iden3
// format), for the BLS12-381 scalar field only.
package r1cs
