package config

import (
	"os"
	"path/filepath"
)

// CUDALibFile is the file name of the CUDA kernel library.
const CUDALibFile = "libcuzk_cuda.so"

// CUDASearch is where a host layer (the C library, the cuzk command)
// looks for the CUDA library when gpus.cuda_lib names none: Env is the
// value of CUZK_CUDA_LIB, which the host layer reads (packages below it
// read no variables), and Dir a directory that may hold CUDALibFile (the
// C library's own).
type CUDASearch struct {
	Env, Dir string
}

// Resolve sets gpus.cuda_lib, when c names no library, to s.Env, else to
// CUDALibFile in s.Dir when it exists there; it stays empty when neither
// gives one (the engine then proves on the CPU, unless gpus.required).
// It is the one place the library's path is chosen: the engine loads what
// the configuration names.
func (s CUDASearch) Resolve(c *Config) {
	if c.GPUs.CUDALib != "" {
		return
	}
	if s.Env != "" {
		c.GPUs.CUDALib = s.Env
		return
	}
	if s.Dir != "" {
		p := filepath.Join(s.Dir, CUDALibFile)
		if _, err := os.Stat(p); err == nil {
			c.GPUs.CUDALib = p
		}
	}
}
