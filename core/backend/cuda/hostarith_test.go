package cuda

// The kernels' field and curve code (cuda/field/field.cuh,
// cuda/curve/curve.cuh) compiled for the host with g++ — the PTX carry
// chains replaced by an emulation of the carry flag — and every answer
// compared with gnark-crypto. This checks the arithmetic on machines
// without a GPU; the GPU tests check the compiled kernels on the GPU
// machine. The MSM's pass planning (cuda/msm/plan.h) is checked the same
// way.

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"math/big"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// hostArith builds cuda/hosttest.cpp and returns a function that runs it on
// one batch of requests.
func hostArith(t *testing.T) func(req []byte) []byte {
	t.Helper()
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not installed: the host build of the CUDA arithmetic needs it")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "cuda")
	src := filepath.Join(dir, "hosttest.cpp")
	bin := filepath.Join(t.TempDir(), "hosttest")
	// the kernels' headers name each other from cuda/ ("field/field.cuh")
	args := []string{"-O1", "-std=c++17", "-Wall", "-Wno-unknown-pragmas", "-Werror", "-I", dir, "-x", "c++", src, "-o", bin}
	out, err := exec.Command(cxx, args...).CombinedOutput()
	require.NoError(t, err, "building %s: %s", src, out)
	return func(req []byte) []byte {
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(req)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		resp, err := cmd.Output()
		require.NoError(t, err, "hosttest: %s", stderr.String())
		return resp
	}
}

func raw[T any](v *T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v)) }

func fromRaw[T any](b []byte) T {
	var v T
	copy(raw(&v), b)
	return v
}

func randFr(t *testing.T) fr.Element {
	var e fr.Element
	_, err := e.SetRandom()
	require.NoError(t, err)
	return e
}

func randFp(t *testing.T) fp.Element {
	var e fp.Element
	_, err := e.SetRandom()
	require.NoError(t, err)
	return e
}

func TestHostArithField(t *testing.T) { checkField(t, hostArith(t)) }

// TestHostArithLazy checks the accumulation's Fp operations (lazily
// reduced) on inputs anywhere below 2p (the canonical value or it plus p,
// edge values included) against big-integer arithmetic on the raw
// Montgomery limbs: products a·b·R⁻¹, sums and differences congruent mod p
// and below 2p, the canonical form below p and equal, zero recognised in
// both of its forms (0 and p).
func TestHostArithLazy(t *testing.T) { checkLazy(t, hostArith(t)) }

func checkLazy(t *testing.T, run func([]byte) []byte) {
	p := fp.Modulus()
	twoP := new(big.Int).Lsh(p, 1)
	rInv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 384), p)
	pm1 := new(big.Int).Sub(p, big.NewInt(1))
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), pm1, p, new(big.Int).Add(p, big.NewInt(1)), new(big.Int).Sub(twoP, big.NewInt(1))}
	for range 2000 {
		v, err := rand.Int(rand.Reader, twoP)
		require.NoError(t, err)
		vals = append(vals, v)
	}
	le := func(v *big.Int) []byte { // 48 bytes, little-endian
		b := make([]byte, fp.Bytes)
		v.FillBytes(b)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return b
	}
	var req bytes.Buffer
	for i, a := range vals {
		b := vals[(i*7+3)%len(vals)]
		req.WriteByte(13)
		req.Write(le(a))
		req.Write(le(b))
	}
	resp := run(req.Bytes())
	const size = 5*fp.Bytes + 4
	require.Len(t, resp, len(vals)*size)
	mod := func(v *big.Int) *big.Int { return new(big.Int).Mod(v, p) }
	for i, a := range vals {
		b := vals[(i*7+3)%len(vals)]
		r := resp[i*size:]
		want := []*big.Int{
			mod(new(big.Int).Mul(new(big.Int).Mul(a, b), rInv)),
			mod(new(big.Int).Mul(new(big.Int).Mul(a, a), rInv)),
			mod(new(big.Int).Add(a, b)),
			mod(new(big.Int).Sub(a, b)),
		}
		for k, w := range want {
			got := leInt(r[k*fp.Bytes : (k+1)*fp.Bytes])
			what := [...]string{"mul", "sqr", "add", "sub"}[k]
			require.True(t, got.Cmp(twoP) < 0, "%s(%v, %v) = %v is not below 2p", what, a, b, got)
			require.Zero(t, mod(got).Cmp(w), "%s(%v, %v) = %v, want %v mod p", what, a, b, got, w)
		}
		canon := leInt(r[4*fp.Bytes : 5*fp.Bytes])
		require.Zero(t, canon.Cmp(mod(a)), "canon(%v) = %v", a, canon)
		zero := binary.LittleEndian.Uint32(r[5*fp.Bytes:])
		require.Equal(t, mod(a).Sign() == 0, zero == 1, "is_zero(%v) = %d", a, zero)
	}
}

func checkField(t *testing.T, run func([]byte) []byte) {
	// edge values next to random ones: 0, 1, −1, and R mod p (1 in regular form)
	var frs []fr.Element
	var fps []fp.Element
	var frm1 fr.Element
	frm1.SetInt64(-1)
	var fpm1 fp.Element
	fpm1.SetInt64(-1)
	frs = append(frs, fr.Element{}, fr.One(), frm1, fr.Element{1})
	fps = append(fps, fp.Element{}, fp.One(), fpm1, fp.Element{1})
	for i := 0; i < 1000; i++ {
		frs = append(frs, randFr(t))
		fps = append(fps, randFp(t))
	}
	var req bytes.Buffer
	type want struct {
		size int
		val  []byte
		what string
	}
	var wants []want
	for i, a := range frs {
		b := frs[(i*7+3)%len(frs)]
		var m, s, d fr.Element
		m.Mul(&a, &b)
		s.Add(&a, &b)
		d.Sub(&a, &b)
		for op, r := range []fr.Element{m, s, d} {
			req.WriteByte(byte(op + 1))
			req.Write(raw(&a))
			req.Write(raw(&b))
			wants = append(wants, want{32, append([]byte(nil), raw(&r)...), [...]string{"fr mul", "fr add", "fr sub"}[op]})
		}
	}
	for i, a := range fps {
		b := fps[(i*5+1)%len(fps)]
		var m, s, d, n fp.Element
		m.Mul(&a, &b)
		s.Add(&a, &b)
		d.Sub(&a, &b)
		n.Neg(&a)
		for op, r := range []fp.Element{m, s, d, n} {
			req.WriteByte(byte(op + 4))
			req.Write(raw(&a))
			req.Write(raw(&b))
			wants = append(wants, want{48, append([]byte(nil), raw(&r)...), [...]string{"fp mul", "fp add", "fp sub", "fp neg"}[op]})
		}
		var sq fp.Element
		sq.Square(&a)
		req.WriteByte(14)
		req.Write(raw(&a))
		wants = append(wants, want{48, append([]byte(nil), raw(&sq)...), "fp sqr"})
	}
	for i := 0; i+3 < len(fps); i += 2 {
		a := bls.E2{A0: fps[i], A1: fps[i+1]}
		b := bls.E2{A0: fps[i+2], A1: fps[i+3]}
		var m, s bls.E2
		m.Mul(&a, &b)
		s.Square(&a)
		for op, r := range []bls.E2{m, s} {
			req.WriteByte(byte(op + 8))
			req.Write(raw(&a))
			req.Write(raw(&b))
			wants = append(wants, want{96, append([]byte(nil), raw(&r)...), [...]string{"fp2 mul", "fp2 sqr"}[op]})
		}
	}
	resp := run(req.Bytes())
	for i, w := range wants {
		require.GreaterOrEqual(t, len(resp), w.size, "answer %d (%s) missing", i, w.what)
		require.Equal(t, w.val, resp[:w.size], "answer %d (%s)", i, w.what)
		resp = resp[w.size:]
	}
	require.Empty(t, resp)
}

// affinePt and jacobianPt are what the curve checks need of gnark-crypto's
// G1 and G2 types.
type affinePt[A, J any] interface {
	*A
	Neg(*A) *A
	ScalarMultiplication(*A, *big.Int) *A
	FromJacobian(*J) *A
	Equal(*A) bool
}

type jacobianPt[A, J any] interface {
	*J
	AddMixed(*A) *J
	Double(*J) *J
}

// pointCases returns sequences of multiples of gen whose sums cover the
// special cases of the addition formulas: doubling (P + P), P + (−P),
// infinity inputs, and long random sums.
func pointCases[A, J any, PA affinePt[A, J]](t *testing.T, gen A) [][]A {
	random := func() A {
		k, err := rand.Int(rand.Reader, fr.Modulus())
		require.NoError(t, err)
		var p A
		PA(&p).ScalarMultiplication(&gen, k)
		return p
	}
	neg := func(p A) A {
		var n A
		PA(&n).Neg(&p)
		return n
	}
	var inf A // (0, 0)
	p, q := random(), random()
	cases := [][]A{{p}, {p, p}, {p, neg(p)}, {inf, p, inf}, {inf}, {p, q, neg(q), p}, {p, p, p, neg(p)}, {q, q, q, q}}
	// p plus r − r, then p or −p: the accumulator equals ±p in whatever
	// form its additions left it (lazily reduced: often not canonical),
	// so these reach the doubling and the infinity cases of the addition
	for range 8 {
		r := random()
		cases = append(cases, []A{p, r, neg(r), p}, []A{p, r, neg(r), neg(p)})
	}
	long := make([]A, 40)
	for i := range long {
		long[i] = random()
	}
	return append(cases, long)
}

// writeSums appends one sum request (op) per case.
func writeSums[A any](req *bytes.Buffer, op byte, cases [][]A) {
	for _, c := range cases {
		req.WriteByte(op)
		_ = binary.Write(req, binary.LittleEndian, uint32(len(c)))
		for i := range c {
			req.Write(raw(&c[i]))
		}
	}
}

// checkSums reads the answers to writeSums' requests — the XYZZ sum, the
// Jacobian sum and twice the sum, per case — compares them with
// gnark-crypto and returns the rest of resp.
func checkSums[A, J any, PA affinePt[A, J], PJ jacobianPt[A, J]](t *testing.T, name string, cases [][]A, resp []byte) []byte {
	size := int(unsafe.Sizeof(*new(J)))
	for ci, c := range cases {
		var want, want2 J
		for i := range c {
			PJ(&want).AddMixed(&c[i])
		}
		PJ(&want2).Double(&want)
		for k, w := range []J{want, want, want2} {
			requireCanonical(t, resp[:size], "%s case %d, output %d", name, ci, k)
			got := fromRaw[J](resp[:size])
			resp = resp[size:]
			var ga, wa A
			PA(&ga).FromJacobian(&got)
			PA(&wa).FromJacobian(&w)
			require.True(t, PA(&ga).Equal(&wa), "%s case %d (%d points), output %d", name, ci, len(c), k)
		}
	}
	return resp
}

// leInt reads a little-endian unsigned integer (the raw limbs of an
// element).
func leInt(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[i] = b[len(b)-1-i]
	}
	return new(big.Int).SetBytes(be)
}

// requireCanonical checks that every coordinate of a raw point (48-byte
// little-endian Fp elements, Montgomery form) is below p: what the GPU's
// own formulas (and the Go side) assume of the points they are given.
func requireCanonical(t *testing.T, b []byte, format string, args ...any) {
	t.Helper()
	for off := 0; off+fp.Bytes <= len(b); off += fp.Bytes {
		require.True(t, leInt(b[off:off+fp.Bytes]).Cmp(fp.Modulus()) < 0,
			append([]any{"coordinate at byte %d not below p: " + format, off}, args...)...)
	}
}

func TestHostArithCurve(t *testing.T) { checkCurve(t, hostArith(t)) }

func checkCurve(t *testing.T, run func([]byte) []byte) {
	_, _, g1, g2 := bls.Generators()
	g1cases := pointCases[bls.G1Affine, bls.G1Jac](t, g1)
	g2cases := pointCases[bls.G2Affine, bls.G2Jac](t, g2)
	var req bytes.Buffer
	writeSums(&req, 10, g1cases)
	writeSums(&req, 11, g2cases)
	resp := run(req.Bytes())
	resp = checkSums[bls.G1Affine, bls.G1Jac](t, "G1", g1cases, resp)
	resp = checkSums[bls.G2Affine, bls.G2Jac](t, "G2", g2cases, resp)
	require.Empty(t, resp)
}

// TestHostArithPowscale runs the NTT's coset scaling (fr_powscale_run, for
// every thread of a launch) and compares it with x[i]·base^i·c (or x[i]·c)
// from gnark-crypto, for run lengths that do and do not divide n and more
// threads than elements.
func TestHostArithPowscale(t *testing.T) {
	run := hostArith(t)
	type tc struct {
		n, T   int
		usePow bool
	}
	cases := []tc{{1, 1, true}, {5, 1, true}, {32, 1, true}, {33, 2, true}, {100, 7, true}, {1000, 32, true},
		{1024, 32, true}, {1024, 32, false}, {3, 5, true}}
	var req bytes.Buffer
	var wants [][]fr.Element
	for _, c := range cases {
		base, k := randFr(t), randFr(t)
		one := fr.One()
		x := make([]fr.Element, c.n)
		want := make([]fr.Element, c.n)
		var f fr.Element
		f.Set(&k)
		for i := range x {
			x[i] = randFr(t)
			want[i].Mul(&x[i], &f)
			if c.usePow {
				f.Mul(&f, &base)
			}
		}
		wants = append(wants, want)
		req.WriteByte(15)
		pow := uint32(0)
		if c.usePow {
			pow = 1
		}
		for _, v := range []uint32{uint32(c.n), uint32(c.T), pow} {
			_ = binary.Write(&req, binary.LittleEndian, v)
		}
		req.Write(raw(&base))
		req.Write(raw(&k))
		req.Write(raw(&one))
		for i := range x {
			req.Write(raw(&x[i]))
		}
	}
	resp := run(req.Bytes())
	for ci, c := range cases {
		for i := 0; i < c.n; i++ {
			got := fromRaw[fr.Element](resp[:fr.Bytes])
			resp = resp[fr.Bytes:]
			require.True(t, got.Equal(&wants[ci][i]), "case %d (n %d, %d threads, pow %v): element %d", ci, c.n, c.T, c.usePow, i)
		}
	}
	require.Empty(t, resp)
}

// TestHostArithRadix4 checks the NTT's two-stage pass (fr_radix4) against
// the radix-2 stages it replaces (fr_radix2 at m, then 2m — the butterfly
// the GPU's NTT checks validate), on random twiddle tables and inputs, for
// every pair of stages of several sizes.
func TestHostArithRadix4(t *testing.T) {
	run := hostArith(t)
	type tc struct{ n, m int }
	var cases []tc
	for _, n := range []int{4, 8, 64, 1024} {
		for m := 1; 2*m < n; m <<= 1 {
			cases = append(cases, tc{n, m})
		}
	}
	var req bytes.Buffer
	for _, c := range cases {
		req.WriteByte(16)
		_ = binary.Write(&req, binary.LittleEndian, uint32(c.n))
		_ = binary.Write(&req, binary.LittleEndian, uint32(c.m))
		for range c.n/2 + c.n {
			e := randFr(t)
			req.Write(raw(&e))
		}
	}
	resp := run(req.Bytes())
	for _, c := range cases {
		size := c.n * fr.Bytes
		require.GreaterOrEqual(t, len(resp), 2*size)
		require.Equal(t, resp[:size], resp[size:2*size], "n %d, stages %d and %d", c.n, c.m, 2*c.m)
		resp = resp[2*size:]
	}
	require.Empty(t, resp)
}

func TestHostArithSignedDigits(t *testing.T) {
	run := hostArith(t)
	r := fr.Modulus()
	half := new(big.Int).Rsh(new(big.Int).Sub(r, big.NewInt(1)), 1)
	ks := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Set(half),
		new(big.Int).Add(half, big.NewInt(1)), new(big.Int).Sub(r, big.NewInt(1)), new(big.Int).Sub(r, big.NewInt(2))}
	for i := 0; i < 60; i++ {
		k, err := rand.Int(rand.Reader, r)
		require.NoError(t, err)
		ks = append(ks, k)
	}
	// all-ones windows: the carry runs the whole way
	ks = append(ks, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 253), big.NewInt(1)))
	cs := []uint32{8, 9, 11, 12, 13, 15, 16, 17, 18, 24}
	var req bytes.Buffer
	for _, k := range ks {
		var e fr.Element
		e.SetBigInt(k)
		for _, c := range cs {
			req.WriteByte(12)
			req.Write(raw(&e))
			_ = binary.Write(&req, binary.LittleEndian, c)
		}
	}
	resp := run(req.Bytes())
	for _, k := range ks {
		for _, c := range cs {
			neg := binary.LittleEndian.Uint32(resp[0:])
			nw := binary.LittleEndian.Uint32(resp[4:])
			require.Equal(t, (255+c-1)/c, nw)
			sum := new(big.Int)
			bound := int64(1) << (c - 1)
			for w := int(nw) - 1; w >= 0; w-- {
				d := int64(int32(binary.LittleEndian.Uint32(resp[8+4*w:])))
				require.True(t, -bound < d && d <= bound, "k %v c %d: digit %d out of range", k, c, d)
				sum.Lsh(sum, uint(c)).Add(sum, big.NewInt(d))
			}
			resp = resp[8+4*32:]
			want := new(big.Int).Set(k)
			if k.Cmp(half) > 0 {
				want.Sub(r, k)
				require.Equal(t, uint32(1), neg, "k %v above (r−1)/2 is negated", k)
			} else {
				require.Equal(t, uint32(0), neg, "k %v", k)
			}
			require.Zero(t, want.Cmp(sum), "k %v c %d: digits sum to %v", k, c, sum)
		}
	}
	require.Empty(t, resp)
}

// TestHostArithPlanPasses checks the MSM's pass planning (cuda/msm/plan.h:
// the pairs a pass may hold and the windows a pass) on the host: the
// scenarios with their answers worked out by hand, then random sizes
// against planPassesRef.
func TestHostArithPlanPasses(t *testing.T) {
	run := hostArith(t)
	const limit = 1<<32 - 4*256 // a pass's pairs: the cells' (256 pairs) edges stay below 2^32
	type plan struct {
		dense, ones uint64
		nw          int
		avail       uint64
		capped      bool
		forced      uint64
	}
	cases := []struct {
		name  string
		p     plan
		per   int
		pairs uint64
	}{
		// 140 GiB·3/4 / 32 bytes a pair = 3,523,215,360 pairs: 2^24·16 fit
		{"plenty of memory: one pass", plan{1 << 24, 0, 16, 140 << 30, false, 0}, 16, 3523215360},
		// 134,435,328 bytes·3/4 / 32 = 3·2^20 + 5,000 + 100 pairs
		{"a cap with room for 3 windows", plan{1 << 20, 5000, 16, 134435328, true, 0}, 3, 3*(1<<20) + 5100},
		{"one pair short of 3 windows", plan{1 << 20, 5000, 16, 134435328, true, 3*(1<<20) + 4999}, 2, 3*(1<<20) + 4999},
		{"no room under a cap: one window a pass", plan{1 << 20, 10, 16, 0, true, 0}, 1, 0},
		{"room for the ones only: one window a pass", plan{1 << 20, 100000, 16, 1 << 20, true, 0}, 1, 24576},
		{"memory unknown without a cap: one pass", plan{1 << 24, 0, 16, 0, false, 0}, 16, limit},
		{"forced: 4 windows a pass", plan{1 << 16, 0, 32, 140 << 30, false, 4 << 16}, 4, 4 << 16},
		{"forced above the cap's room: the cap's", plan{1 << 20, 5000, 16, 134435328, true, 1 << 30}, 3, 3*(1<<20) + 5100},
		{"the 2^32 bound: 15 windows of 2^28", plan{1 << 28, 0, 16, 1 << 50, false, 0}, 15, limit},
		{"the 2^32 bound with 2^28 ones: 14", plan{1 << 28, 1 << 28, 16, 1 << 50, false, 0}, 14, limit},
		{"no dense scalars: every window in one pass", plan{0, 1000, 16, 0, true, 0}, 16, 0},
	}
	var plans []plan
	for _, c := range cases {
		per, pairs := planPassesRef(c.p.dense, c.p.ones, c.p.nw, c.p.avail, c.p.capped, c.p.forced)
		require.Equal(t, c.per, per, "%s: the reference's windows a pass", c.name)
		require.Equal(t, c.pairs, pairs, "%s: the reference's pairs", c.name)
		plans = append(plans, c.p)
	}
	randBelow := func(n uint64) uint64 {
		v, err := rand.Int(rand.Reader, new(big.Int).SetUint64(n))
		require.NoError(t, err)
		return v.Uint64()
	}
	for range 500 {
		p := plan{dense: randBelow(1 << 29), ones: randBelow(1 << 27), nw: 1 + int(randBelow(32)),
			avail: randBelow(1 << 38), capped: randBelow(2) == 1}
		switch randBelow(4) {
		case 0:
			p.avail = 0
		case 1:
			p.forced = randBelow(1 << 33)
		}
		plans = append(plans, p)
	}
	var req bytes.Buffer
	for _, p := range plans {
		req.WriteByte(20)
		capped := uint32(0)
		if p.capped {
			capped = 1
		}
		for _, v := range []any{p.dense, p.ones, uint32(p.nw), p.avail, capped, p.forced} {
			require.NoError(t, binary.Write(&req, binary.LittleEndian, v))
		}
	}
	resp := run(req.Bytes())
	require.Len(t, resp, 12*len(plans))
	for i, p := range plans {
		per := int(int32(binary.LittleEndian.Uint32(resp[12*i:])))
		pairs := binary.LittleEndian.Uint64(resp[12*i+4:])
		wantPer, wantPairs := planPassesRef(p.dense, p.ones, p.nw, p.avail, p.capped, p.forced)
		if i < len(cases) {
			require.Equal(t, cases[i].per, per, cases[i].name)
		}
		require.Equal(t, wantPairs, pairs, "%+v", p)
		require.Equal(t, wantPer, per, "%+v", p)
	}
}

// planPassesRef is the pass planning as cuda/DESIGN.md states it ("Passes
// when memory is short"): a pass holds at most the pairs whose 32 bytes
// each fit in 3/4 of the memory available (an available of 0 under a cap
// is no room, without one unknown: no limit), at most msm_max_pairs when
// forced, and fewer than 2^32 − 1024; its windows are the most that fit
// with the ones (searched, not divided), at least one, all of them when no
// scalar is dense.
func planPassesRef(dense, ones uint64, nw int, avail uint64, capped bool, forced uint64) (int, uint64) {
	pairs := uint64(1<<32 - 4*256)
	if avail > 0 || capped {
		quarter := avail / 4
		pairs = min(pairs, 3*quarter/32)
	}
	if forced > 0 {
		pairs = min(pairs, forced)
	}
	if dense == 0 {
		return nw, pairs
	}
	for k := nw; k > 1; k-- {
		if uint64(k)*dense+ones <= pairs {
			return k, pairs
		}
	}
	return 1, pairs
}

// TestHostArithFromFile converts points as a parameter file stores them
// (uncompressed, big-endian, the infinity flag; G2's c1 before c0) with
// curve/raw.cuh and compares each with gnark-crypto's decoding of the
// same bytes, in its memory layout: generators, random points, infinity.
func TestHostArithFromFile(t *testing.T) {
	run := hostArith(t)
	_, _, g1, g2 := bls.Generators()
	var g1s []bls.G1Affine
	var g2s []bls.G2Affine
	for _, c := range pointCases[bls.G1Affine, bls.G1Jac](t, g1) {
		g1s = append(g1s, c...)
	}
	for _, c := range pointCases[bls.G2Affine, bls.G2Jac](t, g2) {
		g2s = append(g2s, c...)
	}
	g1s, g2s = append(g1s, g1), append(g2s, g2)
	var req bytes.Buffer
	req.WriteByte(21)
	binary.Write(&req, binary.LittleEndian, uint32(len(g1s)))
	for i := range g1s {
		b := g1s[i].RawBytes()
		req.Write(b[:])
	}
	req.WriteByte(22)
	binary.Write(&req, binary.LittleEndian, uint32(len(g2s)))
	for i := range g2s {
		b := g2s[i].RawBytes()
		req.Write(b[:])
	}
	resp := run(req.Bytes())
	infs := 0
	for i := range g1s {
		b := g1s[i].RawBytes()
		var want bls.G1Affine
		_, err := want.SetBytes(b[:])
		require.NoError(t, err)
		got := fromRaw[bls.G1Affine](resp[:96])
		resp = resp[96:]
		require.Equal(t, raw(&want), raw(&got), "G1 point %d", i)
		if want.IsInfinity() {
			infs++
		}
	}
	for i := range g2s {
		b := g2s[i].RawBytes()
		var want bls.G2Affine
		_, err := want.SetBytes(b[:])
		require.NoError(t, err)
		got := fromRaw[bls.G2Affine](resp[:192])
		resp = resp[192:]
		require.Equal(t, raw(&want), raw(&got), "G2 point %d", i)
	}
	require.Empty(t, resp)
	require.NotZero(t, infs, "the cases hold a point at infinity")
}
