package groth16

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/r1cs"
)

// The parallel gather equals a plain loop over the bitmaps, across block
// boundaries (2^18 variables a block) and with recycled vectors.
func TestGatherMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 1 << 18, 1<<18 + 1, 3<<18 + 77} {
		for _, density := range []float64{0, 0.05, 0.5, 1} {
			aux := make([]fr.Element, n)
			for i := range aux {
				aux[i].SetUint64(uint64(i + 1))
			}
			inputs := []fr.Element{fr.One(), {7}, {9}}
			bm := func(m int) *r1cs.Bitmap {
				b := &r1cs.Bitmap{Len: m, Words: make([]uint64, (m+63)/64)}
				for i := 0; i < m; i++ {
					if rng.Float64() < density {
						b.Words[i/64] |= 1 << (i % 64)
					}
				}
				return b
			}
			inD, auxD := bm(len(inputs)), bm(n)
			for round := 0; round < 2; round++ { // the second round reuses vectors
				for _, in := range []*r1cs.Bitmap{nil, inD} {
					var want []fr.Element
					for i := range inputs {
						if in == nil || in.Get(i) {
							want = append(want, inputs[i])
						}
					}
					for j := range aux {
						if auxD.Get(j) {
							want = append(want, aux[j])
						}
					}
					got := gather(inputs, in, aux, auxD)
					require.Equal(t, len(want), len(got), "n %d density %g", n, density)
					for i := range want {
						require.True(t, want[i].Equal(&got[i]), "n %d density %g: element %d", n, density, i)
					}
					recycle.put(got)
				}
			}
		}
	}
}

// queriesBackend selects the query scalars itself (as a GPU does on the
// device), here with plain loops on the host, and counts its calls.
type queriesBackend struct {
	cpu.Backend
	queries, g2Out       int
	prefetches, releases int
	abcPrefetches        int  // the a, b, c part, made beside the query MSMs
	begins               int  // regions announced (Prefetch.BeginRegion)
	abcUnannounced       int  // a, b, c prefetches made before their region was announced
	hDone                bool // h computed: the query MSMs must come before it
}

func (b *queriesBackend) Capabilities() backend.Capabilities {
	c := b.Backend.Capabilities()
	c.Queries, c.Prefetch = b, b
	return c
}

func (b *queriesBackend) H(a, bb, c []fr.Element) ([]fr.Element, error) {
	b.hDone = true
	return b.Backend.H(a, bb, c)
}

// hostPrefetch is a copy of aux taken by Prefetch, which QueryMSMs proves
// with when it is handed over (as the GPU does with its early upload).
type hostPrefetch struct {
	b   *queriesBackend
	aux []fr.Element
}

func (b *queriesBackend) Prefetch(aux []fr.Element) backend.Prefetch {
	b.prefetches++
	return &hostPrefetch{b: b, aux: append([]fr.Element(nil), aux...)}
}

func (p *hostPrefetch) BeginRegion(inputs int) { p.b.begins++ }

func (p *hostPrefetch) ABC(a, bb, c []fr.Element) {
	p.b.abcPrefetches++
	if p.b.begins == 0 {
		p.b.abcUnannounced++
	}
}

func (p *hostPrefetch) Release() { p.b.releases++ }

func (b *queriesBackend) MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error) {
	b.g2Out++
	return b.Backend.MSMG2(points, scalars, threads)
}

func selectHost(head []fr.Element, headBits *r1cs.Bitmap, aux []fr.Element, bits *r1cs.Bitmap) []fr.Element {
	var out []fr.Element
	for i := range head {
		if headBits == nil || headBits.Get(i) {
			out = append(out, head[i])
		}
	}
	for i := range aux {
		if bits.Get(i) {
			out = append(out, aux[i])
		}
	}
	return out
}

func (b *queriesBackend) QueryMSMs(q *backend.QueryInput) (*backend.QueryOutput, error) {
	b.queries++
	out := &backend.QueryOutput{}
	var err error
	if b.hDone {
		return nil, errors.New("query MSMs after h: the copies of a, b, c would not overlap them")
	}
	pre, ok := q.Prefetch.(*hostPrefetch)
	if !ok || pre.b != b {
		return nil, fmt.Errorf("no prefetch of this device handed over (%T)", q.Prefetch)
	}
	if len(pre.aux) != len(q.Aux) {
		return nil, fmt.Errorf("aux of %d values prefetched, %d queried", len(pre.aux), len(q.Aux))
	}
	if out.L, _, err = b.Backend.MSMG1(q.L, pre.aux); err != nil {
		return nil, err
	}
	if out.A, _, err = b.Backend.MSMG1(q.A, selectHost(q.Inputs, nil, q.Aux, q.AAux)); err != nil {
		return nil, err
	}
	bs := selectHost(q.Inputs, q.BInput, q.Aux, q.BAux)
	if out.B1, _, err = b.Backend.MSMG1(q.BG1, bs); err != nil {
		return nil, err
	}
	if q.BG2 != nil {
		out.B2, _, err = b.Backend.MSMG2(q.BG2, bs, 0)
	}
	return out, err
}

// A backend doing its own prep gives the same proofs; with its G2 MSM on
// the device too, MSMG2 is not called apart.
func TestDevicePrepProofs(t *testing.T) {
	withReferenceProofs(t, rand.New(rand.NewPCG(5, 6)), func(c referenceCase) {
		for _, onGPU := range []bool{false, true} {
			be := &queriesBackend{}
			plan := NewPlan(Plan{Device: be, DevicePrep: true, G2OnGPU: onGPU})
			require.True(t, plan.DevicePrep && plan.Prefetch, "the backend's prep and prefetch are used")
			proof, _, err := Prove(c.pk, c.cs, c.w, Options{R: &c.r, S: &c.s, Plan: plan})
			require.NoError(t, err)
			require.Equal(t, c.want.Bytes(), proof.Bytes(), "%s, G2 on the GPU %v", c.shape, onGPU)
			require.Equal(t, 1, be.queries)
			require.Equal(t, 1, be.prefetches, "aux prefetched once, before the h stage")
			require.Equal(t, 1, be.abcPrefetches, "a, b, c prefetched once, beside the query MSMs")
			require.Equal(t, 1, be.releases, "the prefetch released after the query MSMs")
			if onGPU {
				require.Zero(t, be.g2Out, "B_G2 computed inside QueryMSMs, not again by MSMG2")
			} else {
				require.Equal(t, 1, be.g2Out, "B_G2 through MSMG2")
			}
		}
	})
}
