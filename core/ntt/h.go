package ntt

import (
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/utils"
)

// Domain returns the evaluation domain of size n (a power of two) with the
// coset shift g = 7, bellperson's choice (Fr's multiplicative generator).
// Domains are cached by gnark-crypto while in use.
func Domain(n int) *fft.Domain {
	var g fr.Element
	g.SetUint64(7)
	return fft.NewDomain(uint64(n), fft.WithShift(g), fft.WithCache())
}

// DomainConstants is Domain without its twiddle and coset tables (~4n
// elements: 17 GB at 2^27), for a caller that needs only its generators
// and inverses (a GPU computes its own tables).
func DomainConstants(n int) *fft.Domain {
	var g fr.Element
	g.SetUint64(7)
	return fft.NewDomain(uint64(n), fft.WithShift(g), fft.WithoutPrecompute())
}

// H returns the N−1 coefficients of h = (a·b − c)/(x^N − 1), given a, b, c
// as evaluations over the domain (len N each, N a power of two). It
// overwrites a, b, c and returns a slice of a's storage.
func H(a, b, c []fr.Element, nbTasks int) []fr.Element {
	n := len(a)
	dom := Domain(n)
	var wg sync.WaitGroup
	for _, v := range [][]fr.Element{a, b, c} {
		wg.Add(1)
		go func(v []fr.Element) {
			defer wg.Done()
			// evaluations → coefficients (bit-reversed) → coset evaluations (natural order)
			dom.FFTInverse(v, fft.DIF, fft.WithNbTasks(nbTasks))
			dom.FFT(v, fft.DIT, fft.OnCoset(), fft.WithNbTasks(nbTasks))
		}(v)
	}
	wg.Wait()

	// Z(g·ω^i) = g^N − 1 for every i: one inversion.
	var den fr.Element
	den.Exp(dom.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(n)))
	one := fr.One()
	den.Sub(&den, &one).Inverse(&den)
	nbTasks = max(1, min(nbTasks, n))
	for t := 0; t < nbTasks; t++ {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			for i := from; i < to; i++ {
				a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &den)
			}
		}(t*n/nbTasks, (t+1)*n/nbTasks)
	}
	wg.Wait()
	dom.FFTInverse(a, fft.DIF, fft.OnCoset(), fft.WithNbTasks(nbTasks))
	utils.BitReverse(a)
	return a[:n-1]
}
