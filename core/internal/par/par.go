// Package par holds the goroutine fan-outs the packages share.
package par

import (
	"runtime"
	"sync"
)

// Ranges runs fn on nbChunks contiguous ranges of [0, n), one goroutine
// each; the ranges are the same for the same arguments.
func Ranges(nbChunks, n int, fn func(t, from, to int)) {
	var wg sync.WaitGroup
	for t := range nbChunks {
		wg.Go(func() { fn(t, t*n/nbChunks, (t+1)*n/nbChunks) })
	}
	wg.Wait()
}

// For runs fn(0..n−1) on GOMAXPROCS goroutines, each taking the next index
// as it finishes one (for items of uneven cost).
func For(n int, fn func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// Touch writes a byte of every page of b, on every core: a fresh mapping's
// pages are then allocated (not the shared zero page), as page-locking or
// a first copy would fault them in one at a time on one thread.
func Touch(b []byte) {
	const page = 4096
	pages := (len(b) + page - 1) / page
	chunks := max(1, min(runtime.GOMAXPROCS(0), pages/256))
	Ranges(chunks, pages, func(_, from, to int) {
		for i := from; i < to; i++ {
			b[i*page] = 0
		}
	})
}
