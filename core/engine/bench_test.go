package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkEngine proves 8 proofs of 4 partitions (2^8 rows) through the
// engine with 1 or 4 in flight; ns/op is per proof. `cuzk bench` runs the
// same measurement at any size with a baseline and stage medians.
func BenchmarkEngine(b *testing.B) {
	f := testCircuit(b)
	for _, conc := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			e := newEngine(b, testConfig(), Options{})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				next := make(chan struct{}, 8)
				for j := 0; j < 8; j++ {
					next <- struct{}{}
				}
				close(next)
				for c := 0; c < conc; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range next {
							if _, _, err := e.Prove(context.Background(), f.request("", 4, Normal)); err != nil {
								b.Error(err)
							}
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(8*b.N), "ns/proof")
		})
	}
}
