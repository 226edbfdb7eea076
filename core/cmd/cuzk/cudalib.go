package main

import (
	"os"
	"path/filepath"

	"github.com/cuzk/cuzk/core/config"
)

// installPrefix is the prefix make install puts the libraries under
// (-ldflags -X main.installPrefix=...).
var installPrefix = "/usr/local"

// cudaSearch is where the command looks for libcuzk_cuda.so when the
// configuration names none: CUZK_CUDA_LIB, beside the command and in its
// ../build and ../lib (bin/cuzk of a build tree, or of an install), under
// the install prefix, then the loader's path.
func cudaSearch() config.CUDASearch {
	exe, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
	}
	return config.CUDASearch{Env: os.Getenv("CUZK_CUDA_LIB"), Dirs: config.CUDADirs("", exe, installPrefix), Loader: true}
}
