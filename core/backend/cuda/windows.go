package cuda

import "fmt"

// maxWindows is cuzk_cuda.h's CUZK_CUDA_MAX_WINDOWS.
const maxWindows = 32

// windowSums is cuzk_cuda.h's MSM result block: Σ_w 2^(c·w)·w[w].
type windowSums[R any] struct {
	c, nw int32
	_     [2]int32
	w     [maxWindows]R
}

// combine returns Σ_w 2^(c·w)·w[w] by Horner's rule (on the CPU: the GPU
// would run these ~c·nw doublings on one thread for milliseconds).
func combine[R any, PR jacobian[R]](ws *windowSums[R]) (R, error) {
	var acc R // the zero Jacobian point has Z = 0: infinity
	if ws.nw < 0 || ws.nw > maxWindows || (ws.nw > 0 && (ws.c < 1 || ws.c > 31)) {
		return acc, fmt.Errorf("cuda: malformed MSM result (c %d, %d windows)", ws.c, ws.nw)
	}
	for w := int(ws.nw) - 1; w >= 0; w-- {
		if w < int(ws.nw)-1 {
			for range ws.c {
				PR(&acc).DoubleAssign()
			}
		}
		PR(&acc).AddAssign(&ws.w[w])
	}
	return acc, nil
}
