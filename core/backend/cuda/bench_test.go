package cuda

import (
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/synthetic"
)

// The GPU benchmarks: go test -bench selects the kernels and sizes (e.g.
// -bench 'MSMG1/2\^24'); they need the library (CUZK_CUDA_LIB) and a GPU,
// and are skipped without them. The tables the device script prints
// (TestBenchTable, TestBenchMSM, TestBenchSubgroup, TestBenchPartition)
// time the same calls with the CPU beside them.

// BenchmarkNTT times forward NTTs on device-resident data; device-ms/op is
// the kernel time alone (ns/op adds the set-up of the data).
func BenchmarkNTT(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{20, 24, 26} {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			var total float64
			for b.Loop() {
				ms, err := be.BenchNTT(1<<k, 1)
				skipNoBench(b, err)
				if err != nil {
					b.Fatal(err)
				}
				total += ms
			}
			b.ReportMetric(total/float64(b.N), "device-ms/op")
		})
	}
}

// BenchmarkH times h (seven NTTs and the pointwise step) host to host.
func BenchmarkH(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{20, 24} {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			n := 1 << k
			x, y, z := random(b, n), random(b, n), random(b, n)
			for b.Loop() {
				if _, err := be.H(x, y, z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMSMG1 times G1 MSMs of uniform scalars over resident points
// (the upload runs before the timer), scalars copied from the host.
func BenchmarkMSMG1(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{20, 22, 24, 26} {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			defer be.Close() // this size's points leave the device
			pts, sc := testPoints(b, 1<<k), random(b, 1<<k)
			timeMSM(b, func() error { _, _, err := be.MSMG1(pts, sc); return err })
		})
	}
}

// BenchmarkMSMG2 is BenchmarkMSMG1 in G2.
func BenchmarkMSMG2(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{20, 22, 24} {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			defer be.Close()
			pts, sc := testPointsG2(b, 1<<k), random(b, 1<<k)
			timeMSM(b, func() error { _, _, err := be.MSMG2(pts, sc, 0); return err })
		})
	}
}

// timeMSM runs msm once untimed (it uploads the points), then times it.
func timeMSM(b *testing.B, msm func() error) {
	if err := msm(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := msm(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSubgroup times the subgroup check over a resident set.
func BenchmarkSubgroup(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{20, 24} {
		b.Run(fmt.Sprintf("G1/2^%d", k), func(b *testing.B) {
			defer be.Close()
			pts := testPoints(b, 1<<k)
			benchCheck(b, func() (int, error) { return be.CheckSubgroupG1(pts) })
		})
		b.Run(fmt.Sprintf("G2/2^%d", k), func(b *testing.B) {
			defer be.Close()
			pts := testPointsG2(b, 1<<k)
			benchCheck(b, func() (int, error) { return be.CheckSubgroupG2(pts) })
		})
	}
}

func benchCheck(b *testing.B, check func() (int, error)) {
	if _, err := check(); err != nil { // the upload
		b.Fatal(err)
	}
	for b.Loop() {
		if first, err := check(); err != nil || first != -1 {
			b.Fatalf("first point outside the subgroup %d, error %v", first, err)
		}
	}
}

// BenchmarkPartition times a whole partition of the synthetic PoRep-shaped
// circuit from its assignment to its proof (groth16.ProveAssignment), with
// a, b, c and aux in page-locked buffers as the engine's, under a tiled
// key (synthetic.TiledKey: the MSMs cost what they cost for any valid
// points), for 3% and 20% dense constraints and the prep on the device or
// on the host. The first proof (the upload of the key) runs untimed.
func BenchmarkPartition(b *testing.B) {
	be := gpu(b)
	defer be.Close()
	for _, k := range []int{24, 26} {
		for _, dense := range []float64{0.03, 0.2} {
			for _, devicePrep := range []bool{true, false} {
				prep := "host-prep"
				if devicePrep {
					prep = "device-prep"
				}
				b.Run(fmt.Sprintf("2^%d/dense=%g/%s", k, dense, prep), func(b *testing.B) {
					defer be.Close() // this circuit's points leave the device
					benchPartition(b, be, k, dense, devicePrep)
				})
			}
		}
	}
}

func benchPartition(b *testing.B, be *Backend, k int, dense float64, devicePrep bool) {
	cs, w, err := synthetic.Generate(synthetic.Spec{Constraints: 1 << k, DenseFraction: dense, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	pk := synthetic.TiledKey(cs, 11)
	n := cs.DomainSize()
	a, bb, c := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := cs.Eval(w, a, bb, c, r1cs.EvalOptions{}); err != nil {
		b.Fatal(err)
	}
	bufs := [3][]fr.Element{pinnedBuffer(b, be, n), pinnedBuffer(b, be, n), pinnedBuffer(b, be, n)}
	aux := pinnedBuffer(b, be, len(w.Aux))
	copy(aux, w.Aux)
	plan := groth16.NewPlan(groth16.Plan{Device: be, CPU: &cpu.Backend{}, DevicePrep: devicePrep, G2OnGPU: true})
	var r, s fr.Element
	r.SetUint64(17)
	s.SetUint64(19)
	// the assignment afresh: the proof overwrites a, b, c
	assignment := func() *groth16.Assignment {
		copy(bufs[0], a)
		copy(bufs[1], bb)
		copy(bufs[2], c)
		return &groth16.Assignment{A: bufs[0], B: bufs[1], C: bufs[2], Inputs: w.Inputs, Aux: aux, Density: &cs.Density}
	}
	prove := func(asg *groth16.Assignment) {
		if _, _, err := groth16.ProveAssignment(pk, asg, groth16.Options{R: &r, S: &s, Plan: plan}); err != nil {
			b.Fatal(err)
		}
	}
	prove(assignment())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		asg := assignment()
		b.StartTimer()
		prove(asg)
	}
}

// skipNoBench skips a bench with a library built without the bench entry
// points (make -C cuda BENCH=1 has them).
func skipNoBench(tb testing.TB, err error) {
	if errors.Is(err, ErrNoBench) {
		tb.Skip(err)
	}
}
