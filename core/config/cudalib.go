package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CUDALibFile is the file name of the CUDA kernel library, and its soname.
const CUDALibFile = "libcuzk_cuda.so"

// CUDASearch is where a host layer (the C library, the cuzk command)
// looks for the CUDA library when gpus.cuda_lib names none. The host layer
// fills it from what only it may read (the environment, its executable's
// and its own shared object's paths): packages below it read no variables.
type CUDASearch struct {
	// Env is the value of CUZK_CUDA_LIB.
	Env string
	// Dirs are directories that may hold CUDALibFile, in the order tried
	// (CUDADirs).
	Dirs []string
	// Loader, tried last, leaves CUDALibFile to the dynamic loader's own
	// search by soname (LD_LIBRARY_PATH, the ld.so cache, the system
	// directories).
	Loader bool
}

// CUDADirs lists the directories a host layer searches, in order: self's
// (the running libcuzk.so's, from dladdr), the executable's, the
// executable's ../build and ../lib (a build tree's bin/ beside build/, an
// installed bin/ beside lib/), and prefix/lib (make install's). Empty
// arguments are skipped, and a directory listed twice is tried once.
func CUDADirs(self, exe, prefix string) []string {
	var dirs []string
	add := func(d string) {
		d = filepath.Clean(d)
		for _, x := range dirs {
			if x == d {
				return
			}
		}
		dirs = append(dirs, d)
	}
	if self != "" {
		add(filepath.Dir(self))
	}
	if exe != "" {
		d := filepath.Dir(exe)
		add(d)
		add(filepath.Join(d, "..", "build"))
		add(filepath.Join(d, "..", "lib"))
	}
	if prefix != "" {
		add(filepath.Join(prefix, "lib"))
	}
	return dirs
}

// Resolve sets gpus.cuda_lib when c names no library: to s.Env, else to
// the first of s.Dirs that holds CUDALibFile as a regular file, else (with
// s.Loader) to the bare CUDALibFile for the loader's search; it stays
// empty when none applies (the engine then proves on the CPU, unless
// gpus.required). GPUs.CUDASearched records where it looked, up to the
// directory it took, for the message when no library loads. It is the one place the library's path
// is chosen: the engine loads what the configuration names.
func (s CUDASearch) Resolve(c *Config) {
	if c.GPUs.CUDALib != "" {
		return
	}
	var looked []string
	if s.Env != "" {
		if err := checkCUDALib(s.Env); err != nil {
			looked = append(looked, "CUZK_CUDA_LIB ("+err.Error()+")")
		} else {
			c.GPUs.CUDALib = s.Env
			return
		}
	}
	defer func() { c.GPUs.CUDASearched = looked }()
	for _, d := range s.Dirs {
		p := filepath.Join(d, CUDALibFile)
		looked = append(looked, d)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			c.GPUs.CUDALib = p
			return
		}
	}
	if s.Loader {
		c.GPUs.CUDALib = CUDALibFile
		looked = append(looked, "the dynamic loader's path ("+CUDALibFile+")")
	}
}

// checkCUDALib refuses a gpus.cuda_lib path that exists but is not a
// regular file (or a link to one): opening a FIFO blocks until a writer
// comes, and dlopen would wait forever. A missing file is left to the
// loader, whose error the engine reports (then proving on the CPU, or
// failing under gpus.required); a bare name is the loader's to search.
func checkCUDALib(path string) error {
	if path == "" || !strings.Contains(path, "/") {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s, not a regular file", shown(path), fileType(st.Mode()))
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file (" + m.Type().String() + ")"
}
