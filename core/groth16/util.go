package groth16

import (
	"math/big"
	"sync"
)

func bigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// parallelRange splits [0, n) into nbTasks contiguous ranges.
func parallelRange(n, nbTasks int, fn func(from, to int)) {
	nbTasks = max(1, min(nbTasks, n))
	var wg sync.WaitGroup
	for t := 0; t < nbTasks; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			fn(t*n/nbTasks, (t+1)*n/nbTasks)
		}(t)
	}
	wg.Wait()
}
