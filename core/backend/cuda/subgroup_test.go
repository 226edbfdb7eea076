package cuda

// The subgroup check (cuda/subgroup/subgroup.cuh): its per-point function
// compiled for the host and compared with gnark-crypto's IsInSubGroup on
// points in the subgroups, at infinity, and on the curve but outside them
// (random curve points, points of the cofactor's small orders, subgroup
// points plus those); then the kernels on the GPU over resident sets of
// 2^10-2^20 points, and their timing at 2^20 and 2^24.

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"sync"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
)

var _ backend.SubgroupChecker = (*Backend)(nil)

// blsX is BLS12-381's parameter x = −0xd201000000010000.
var blsX = new(big.Int).Neg(new(big.Int).SetUint64(0xd201000000010000))

// cofactors returns h1 = (x − 1)²/3 and h2 = (x⁸ − 4x⁷ + 5x⁶ − 4x⁴ +
// 6x³ − 4x² − 4x + 13)/9, the orders of E(Fp) and of the twist E'(Fp2)
// divided by r (Budroni and Pintore, eprint 2017/419; the tests check
// [h·r]R = infinity on random curve points).
func cofactors() (h1, h2 *big.Int) {
	x := blsX
	pow := func(k int64) *big.Int { return new(big.Int).Exp(x, big.NewInt(k), nil) }
	xm1 := new(big.Int).Sub(x, big.NewInt(1))
	h1 = new(big.Int).Div(new(big.Int).Mul(xm1, xm1), big.NewInt(3))
	h2 = big.NewInt(13)
	for _, term := range []struct{ c, k int64 }{{1, 8}, {-4, 7}, {5, 6}, {-4, 4}, {6, 3}, {-4, 2}, {-4, 1}} {
		h2.Add(h2, new(big.Int).Mul(big.NewInt(term.c), pow(term.k)))
	}
	return h1, h2.Div(h2, big.NewInt(9))
}

// jacobianOps is what mulPlain needs of gnark-crypto's G1Jac and G2Jac.
type jacobianOps[J any] interface {
	*J
	DoubleAssign() *J
	AddAssign(*J) *J
}

// mulPlain is [k]p by double-and-add with gnark-crypto's general additions:
// unlike ScalarMultiplication (GLV, scalars reduced mod r) it is right for
// points outside the subgroup.
func mulPlain[J any, PJ jacobianOps[J]](p J, k *big.Int) J {
	var r J // Z = 0: infinity
	for i := k.BitLen() - 1; i >= 0; i-- {
		PJ(&r).DoubleAssign()
		if k.Bit(i) == 1 {
			PJ(&r).AddAssign(&p)
		}
	}
	return r
}

// smallOrders returns the primes q < 2^20 dividing h, and q² where it
// divides h too.
func smallOrders(h *big.Int) []*big.Int {
	var out []*big.Int
	rest, m := new(big.Int).Set(h), new(big.Int)
	for q := int64(2); q < 1<<20; q++ {
		bq := big.NewInt(q)
		if m.Mod(rest, bq).Sign() != 0 {
			continue
		}
		out = append(out, bq)
		rest.Div(rest, bq)
		if m.Mod(rest, bq).Sign() == 0 {
			out = append(out, new(big.Int).Mul(bq, bq))
		}
		for m.Mod(rest, bq).Sign() == 0 {
			rest.Div(rest, bq)
		}
	}
	return out
}

// randomCurveG1 is a random point of E(Fp) (x random, y a square root),
// without cofactor clearing: outside G1 but with probability 1/h1.
func randomCurveG1(t *testing.T) bls.G1Affine {
	var four fp.Element
	four.SetUint64(4)
	for {
		p := bls.G1Affine{X: randFp(t)}
		var rhs fp.Element
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &four)
		if rhs.Legendre() == 1 {
			p.Y.Sqrt(&rhs)
			require.True(t, p.IsOnCurve())
			return p
		}
	}
}

// randomCurveG2 is randomCurveG1 on the twist y² = x³ + 4(1 + u).
func randomCurveG2(t *testing.T) bls.G2Affine {
	var b bls.E2
	b.A0.SetUint64(4)
	b.A1.SetUint64(4)
	for {
		p := bls.G2Affine{X: bls.E2{A0: randFp(t), A1: randFp(t)}}
		var rhs bls.E2
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &b)
		if rhs.Legendre() == 1 {
			p.Y.Sqrt(&rhs)
			require.True(t, p.IsOnCurve())
			return p
		}
	}
}

// subgroupCases holds points of one group, each classified by gnark-crypto.
type subgroupCases[A any] struct {
	valid, invalid []A
	what           []string // of the invalid ones
}

// affineOps is what the case builders need of G1Affine and G2Affine.
type affineOps[A, J any] interface {
	*A
	FromJacobian(*J) *A
	IsInSubGroup() bool
	IsOnCurve() bool
}

type jacFromAffine[A, J any] interface {
	jacobianOps[J]
	FromAffine(*A) *J
}

// torsionCases adds, for each small order q of the cofactor h, a point T of
// order dividing q (not 1) and T plus a subgroup point. A q² the group has
// no element of (its q-part Z/q × Z/q) is left out.
func torsionCases[A, J any, PA affineOps[A, J], PJ jacFromAffine[A, J]](t *testing.T, c *subgroupCases[A], h *big.Int,
	random func(*testing.T) A) {
	hr := new(big.Int).Mul(h, fr.Modulus())
	for _, q := range smallOrders(h) {
		for try := 0; try < 4; try++ {
			var rj J
			r := random(t)
			PJ(&rj).FromAffine(&r)
			require.True(t, isInf[A, J, PA](mulPlain[J, PJ](rj, hr)), "[h·r]R is infinity: h is the cofactor")
			tq := mulPlain[J, PJ](rj, new(big.Int).Div(hr, q))
			if isInf[A, J, PA](tq) {
				continue // R had no component of this order
			}
			require.True(t, isInf[A, J, PA](mulPlain[J, PJ](tq, q)), "order %v", q)
			sum := tq
			var g J
			v := c.valid[len(c.valid)-1]
			PJ(&g).FromAffine(&v)
			PJ(&sum).AddAssign(&g)
			c.add(t, toAffine[A, J, PA](tq), fmt.Sprintf("order %v", q))
			c.add(t, toAffine[A, J, PA](sum), fmt.Sprintf("G plus order %v", q))
			break
		}
	}
}

func toAffine[A, J any, PA affineOps[A, J]](j J) A {
	var a A
	PA(&a).FromJacobian(&j)
	return a
}

func isInf[A, J any, PA affineOps[A, J]](j J) bool {
	a := toAffine[A, J, PA](j) // (0, 0) for infinity
	var zero A
	return bytes.Equal(raw(&a), raw(&zero))
}

// add records an invalid point (checkCases then checks that gnark-crypto
// agrees).
func (c *subgroupCases[A]) add(t *testing.T, p A, what string) {
	t.Helper()
	c.invalid = append(c.invalid, p)
	c.what = append(c.what, what)
}

// all returns the valid points, then the invalid ones.
func (c *subgroupCases[A]) all() []A { return append(append([]A(nil), c.valid...), c.invalid...) }

// label names point i of all().
func (c *subgroupCases[A]) label(i int) string {
	if i < len(c.valid) {
		return "valid"
	}
	return c.what[i-len(c.valid)]
}

// compareSubgroup reads the host build's answers for c.all() (one byte a
// point) and compares each with gnark-crypto's IsInSubGroup; it returns the
// rest of resp.
func compareSubgroup[A any, PA interface {
	*A
	IsInSubGroup() bool
}](t *testing.T, group string, c *subgroupCases[A], resp []byte) []byte {
	pts := c.all()
	for i := range pts {
		require.Equal(t, PA(&pts[i]).IsInSubGroup(), resp[i] == 1, "%s case %d (%s)", group, i, c.label(i))
	}
	return resp[len(pts):]
}

func subgroupCasesG1(t *testing.T) *subgroupCases[bls.G1Affine] {
	c := &subgroupCases[bls.G1Affine]{}
	_, _, g1, _ := bls.Generators()
	var inf bls.G1Affine
	c.valid = append(c.valid, inf, g1)
	c.valid = append(c.valid, testPoints(t, 8)...)
	var t3 bls.G1Affine // (0, ±2): order 3
	t3.Y.SetUint64(2)
	c.add(t, t3, "(0, 2)")
	var t3n bls.G1Affine
	t3n.Neg(&t3)
	c.add(t, t3n, "(0, -2)")
	for range 8 {
		c.add(t, randomCurveG1(t), "random curve point")
	}
	for range 2 {
		j := bls.GeneratePointNotInG1(randFp(t))
		c.add(t, toAffine[bls.G1Affine, bls.G1Jac](j), "gnark-crypto's GeneratePointNotInG1")
	}
	h1, _ := cofactors()
	torsionCases[bls.G1Affine, bls.G1Jac](t, c, h1, randomCurveG1)
	checkCases(t, c)
	return c
}

func subgroupCasesG2(t *testing.T) *subgroupCases[bls.G2Affine] {
	c := &subgroupCases[bls.G2Affine]{}
	_, _, _, g2 := bls.Generators()
	var inf bls.G2Affine
	c.valid = append(c.valid, inf, g2)
	c.valid = append(c.valid, testPointsG2(t, 4)...)
	for range 6 {
		c.add(t, randomCurveG2(t), "random twist point")
	}
	for range 2 {
		j := bls.GeneratePointNotInG2(bls.E2{A0: randFp(t), A1: randFp(t)})
		c.add(t, toAffine[bls.G2Affine, bls.G2Jac](j), "gnark-crypto's GeneratePointNotInG2")
	}
	_, h2 := cofactors()
	torsionCases[bls.G2Affine, bls.G2Jac](t, c, h2, randomCurveG2)
	checkCases(t, c)
	return c
}

// checkCases makes sure gnark-crypto classifies the cases as built.
func checkCases[A any, PA interface {
	*A
	IsInSubGroup() bool
	IsOnCurve() bool
}](t *testing.T, c *subgroupCases[A]) {
	for i := range c.valid {
		require.True(t, PA(&c.valid[i]).IsInSubGroup(), "valid case %d", i)
	}
	for i := range c.invalid {
		require.True(t, PA(&c.invalid[i]).IsOnCurve(), "invalid case %d (%s) is on the curve", i, c.what[i])
		require.False(t, PA(&c.invalid[i]).IsInSubGroup(), "invalid case %d (%s)", i, c.what[i])
	}
}

// TestHostArithSubgroup runs subgroup.cuh's in_subgroup on the host for
// every case and compares with gnark-crypto; and checks its constants
// against their definitions: β a primitive cube root of unity, ψ's factors
// ξ^(−(p−1)/3) and ξ^(−(p−1)/2) for ξ = 1 + u.
func TestHostArithSubgroup(t *testing.T) {
	g1, g2 := subgroupCasesG1(t), subgroupCasesG2(t)
	t.Logf("G1: %d valid, %d invalid; G2: %d valid, %d invalid", len(g1.valid), len(g1.invalid), len(g2.valid), len(g2.invalid))
	var req bytes.Buffer
	writeSums(&req, 17, [][]bls.G1Affine{g1.all()})
	writeSums(&req, 18, [][]bls.G2Affine{g2.all()})
	req.WriteByte(19)
	resp := hostArith(t)(req.Bytes())
	require.Len(t, resp, len(g1.all())+len(g2.all())+4*fp.Bytes)
	resp = compareSubgroup(t, "G1", g1, resp)
	resp = compareSubgroup(t, "G2", g2, resp)

	k := make([]fp.Element, 4)
	for i := range k {
		k[i] = fromRaw[fp.Element](resp[i*fp.Bytes:])
	}
	var beta3, one fp.Element
	one.SetOne()
	beta3.Square(&k[0]).Mul(&beta3, &k[0])
	require.True(t, beta3.Equal(&one) && !k[0].Equal(&one), "β is a primitive cube root of unity")
	pm1 := new(big.Int).Sub(fp.Modulus(), big.NewInt(1))
	xi := bls.E2{A0: one, A1: one}
	var wantX, wantY bls.E2
	wantX.Exp(xi, new(big.Int).Div(pm1, big.NewInt(3))).Inverse(&wantX)
	wantY.Exp(xi, new(big.Int).Div(pm1, big.NewInt(2))).Inverse(&wantY)
	require.True(t, wantX.A0.IsZero() && wantX.A1.Equal(&k[1]), "ψ's x factor is ξ^(−(p−1)/3)")
	require.True(t, wantY.A0.Equal(&k[2]) && wantY.A1.Equal(&k[3]), "ψ's y factor is ξ^(−(p−1)/2)")
}

// A set for the GPU check: n valid points (tiled, every 13th at infinity)
// with the invalid cases written at positions bad (cycling through them).
func subgroupSet[A any](valid []A, n int, invalid []A, bad []int) []A {
	out := make([]A, n)
	for i := range out {
		if i%13 != 5 {
			out[i] = valid[i%len(valid)]
		}
	}
	for j, at := range bad {
		out[at] = invalid[j%len(invalid)]
	}
	return out
}

// badPositions returns a few positions in [0, n), always n − 1 (the last
// block's tail), sorted by nothing: the check must find the least.
func badPositions(t *testing.T, n int) []int {
	out := []int{n - 1}
	for range min(63, n/16) {
		v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
		require.NoError(t, err)
		out = append(out, int(v.Int64()))
	}
	return out
}

// expectBad returns the number of distinct positions and the least one.
func expectBad(bad []int) (count, first int) {
	seen := map[int]bool{}
	first = -1
	for _, at := range bad {
		if !seen[at] {
			seen[at] = true
			if first < 0 || at < first {
				first = at
			}
		}
	}
	return len(seen), first
}

// TestSubgroupCheckMatchesCPU checks the GPU's subgroup check (G1 and G2)
// on resident sets of 2^10-2^20 points: all in the subgroup (infinity
// among them), then with the invalid cases at random positions and at the
// last one; the count and the first index equal gnark-crypto's
// classification (each case was classified by it; at 2^10 the CPU backend
// checks the whole set too). The set stays resident and an MSM over it
// still equals the CPU's.
func TestSubgroupCheckMatchesCPU(t *testing.T) {
	be := gpu(t)
	defer be.Close()
	g1, g2 := subgroupCasesG1(t), subgroupCasesG2(t)
	ref := &cpu.Backend{}
	for _, k := range sizes(t) {
		if k > 20 {
			continue
		}
		n := 1 << k
		valid1, valid2 := testPoints(t, min(n, 4096)), testPointsG2(t, min(n, 1024))
		for _, bad := range [][]int{nil, badPositions(t, n)} {
			wantCount, wantFirst := expectBad(bad)
			// fresh slices each time: a resident set is known by its address
			pts1 := subgroupSet(valid1, n, g1.invalid, bad)
			checkOnGPU(t, fmt.Sprintf("G1 2^%d", k), be.g1, be.CheckSubgroupG1, pts1, wantCount, wantFirst)
			pts2 := subgroupSet(valid2, n, g2.invalid, bad)
			checkOnGPU(t, fmt.Sprintf("G2 2^%d", k), be.g2, be.CheckSubgroupG2, pts2, wantCount, wantFirst)
			if k <= 10 { // the CPU backend on the whole set; the set stays usable for MSMs
				cf, err := ref.CheckSubgroupG1(pts1)
				require.NoError(t, err)
				require.Equal(t, wantFirst, cf, "G1 2^%d: the CPU backend", k)
				cf, err = ref.CheckSubgroupG2(pts2)
				require.NoError(t, err)
				require.Equal(t, wantFirst, cf, "G2 2^%d: the CPU backend", k)
			}
			if k <= 10 && bad == nil {
				sc := random(t, n)
				got, _, err := be.MSMG1(pts1, sc)
				require.NoError(t, err)
				want := cpuG1(t, pts1, sc)
				require.True(t, want.Equal(&got), "G1 MSM over the checked set")
			}
		}
		t.Logf("subgroup checks 2^%d (G1, G2): all valid and %d invalid cases equal gnark-crypto's IsInSubGroup", k, len(g1.invalid)+len(g2.invalid))
	}
}

// checkOnGPU checks pts on the GPU through the residency (count and first)
// and through the Backend's method (first, the set now resident).
func checkOnGPU[P comparable, R any, PR jacobian[R]](t *testing.T, what string, r *residency[P, R, PR],
	api func([]P) (int, error), pts []P, wantCount, wantFirst int) {
	count, first, err := r.checkSubgroup(pts)
	require.NoError(t, err)
	require.Equal(t, wantCount, count, "%s: points outside the subgroup", what)
	require.Equal(t, wantFirst, first, "%s: the first point outside the subgroup", what)
	first, err = api(pts)
	require.NoError(t, err)
	require.Equal(t, wantFirst, first, "%s through the Backend's method", what)
	checkInRanges(t, what, r, pts, wantCount, wantFirst)
}

// checkInRanges checks a copy of pts range by range as a parameter
// file's decoder hands them over (cuzk_cuda_g1_alloc / _put, the check at
// an offset): ranges filled and checked out of order, from two goroutines;
// the count and the first index equal the whole set's.
func checkInRanges[P comparable, R any, PR jacobian[R]](t *testing.T, what string, r *residency[P, R, PR], pts []P, wantCount, wantFirst int) {
	decoded := make([]P, len(pts))
	c := r.beginCheck(decoded)
	defer c.done(false)
	n := len(pts)
	parts := [][2]int{{n / 2, n * 3 / 4}, {0, n / 4}, {n * 3 / 4, n}, {n / 4, n / 2}}
	var mu sync.Mutex
	count, first := 0, -1
	var errs []error
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Go(func() {
			copy(decoded[p[0]:p[1]], pts[p[0]:p[1]])
			b, f, err := c.check(p[0], p[1])
			mu.Lock()
			defer mu.Unlock()
			count += b
			if f >= 0 && (first < 0 || f < first) {
				first = f
			}
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	require.Equal(t, wantCount, count, "%s in ranges: points outside the subgroup", what)
	require.Equal(t, wantFirst, first, "%s in ranges: the first point outside the subgroup", what)
}

// TestBenchSubgroup prints the subgroup check's table (CUZK_CUDA_BENCH=1):
// the kernel over a resident set (the upload timed apart), with the CPU
// backend's check at 2^20 for comparison, and the projection to a 2^24-row
// PoRep-shaped parameter file (~60 M G1 and ~16 M G2 points).
func TestBenchSubgroup(t *testing.T) {
	if os.Getenv("CUZK_CUDA_BENCH") == "" {
		t.Skip("CUZK_CUDA_BENCH not set")
	}
	be := gpu(t)
	defer be.Close()
	ref := &cpu.Backend{}
	fmt.Printf("\n| subgroup check | upload (ms) | GPU check (ms, median of 3, resident) | ns a point | CPU %d cores (ms) | projected |\n|---|---:|---:|---:|---:|---|\n", runtime.GOMAXPROCS(0))
	for _, k := range []int{20, 24} {
		n := 1 << k
		row := func(group string, upload, check func() error, cpuCheck func() error, perFile float64) {
			defer be.Close()
			up := elapsedMs(t, upload)
			var ms []float64
			for range 3 {
				ms = append(ms, elapsedMs(t, check))
			}
			med := median3(ms)
			cpuCol := "—"
			if k == 20 && benchCPU() {
				cpuCol = fmt.Sprintf("%.0f", elapsedMs(t, cpuCheck))
			}
			fmt.Printf("| %s 2^%d | %.1f | %.1f | %.2f | %s | %.2f s for %.0f M points |\n", group, k, up, med,
				med*1e6/float64(n), cpuCol, med/1e3*perFile/float64(n), perFile/1e6)
		}
		pts1 := testPoints(t, n)
		one := func(f func() (int, error)) func() error {
			return func() error {
				first, err := f()
				if err == nil && first != -1 {
					err = fmt.Errorf("point %d reported outside the subgroup", first)
				}
				return err
			}
		}
		row("G1", func() error { _, err := be.g1.handle(pts1); return err },
			one(func() (int, error) { return be.CheckSubgroupG1(pts1) }),
			one(func() (int, error) { return ref.CheckSubgroupG1(pts1) }), 60e6)
		pts2 := testPointsG2(t, n)
		row("G2", func() error { _, err := be.g2.handle(pts2); return err },
			one(func() (int, error) { return be.CheckSubgroupG2(pts2) }),
			one(func() (int, error) { return ref.CheckSubgroupG2(pts2) }), 16e6)
	}
}

func median3(v []float64) float64 {
	a, b, c := v[0], v[1], v[2]
	return max(min(a, b), min(max(a, b), c))
}
