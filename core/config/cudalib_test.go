package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CUDA library's search, in its order: the configuration's own path,
// the variable's, then each directory (the C library's, the command's, its
// ../build and ../lib, the install prefix's lib), then the loader by
// soname; a file that is not a regular one is passed over.
func TestCUDASearchOrder(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		d := filepath.Join(append([]string{root}, parts...)...)
		require.NoError(t, os.MkdirAll(d, 0o755))
		return d
	}
	lib, bin, build, instLib, prefix := mk("libdir"), mk("tree", "bin"), mk("tree", "build"), mk("tree", "lib"), mk("usr")
	mk("usr", "lib")
	dirs := CUDADirs(filepath.Join(lib, "libcuzk.so"), filepath.Join(bin, "cuzk"), prefix)
	require.Equal(t, []string{lib, bin, build, instLib, filepath.Join(prefix, "lib")}, dirs)
	require.Equal(t, []string{bin, build, filepath.Join(root, "tree", "lib")}, CUDADirs("", filepath.Join(bin, "cuzk"), ""), "no library path, no prefix")
	require.Equal(t, []string{bin, build, instLib}, CUDADirs(filepath.Join(bin, "x.so"), filepath.Join(bin, "cuzk"), ""), "a directory once")

	resolve := func(configured string, s CUDASearch) Config {
		c := Default()
		c.GPUs.CUDALib = configured
		s.Resolve(&c)
		return c
	}
	search := CUDASearch{Dirs: dirs, Loader: true}
	// None present: the loader's search, and the list of where it looked.
	c := resolve("", search)
	require.Equal(t, CUDALibFile, c.GPUs.CUDALib)
	require.Equal(t, append(append([]string{}, dirs...), "the dynamic loader's path (libcuzk_cuda.so)"), c.GPUs.CUDASearched)
	require.Empty(t, resolve("", CUDASearch{Dirs: dirs}).GPUs.CUDALib, "no loader: none")

	// Each directory wins over those after it: fill them from the last.
	for i := len(dirs) - 1; i >= 0; i-- {
		p := filepath.Join(dirs[i], CUDALibFile)
		require.NoError(t, os.WriteFile(p, []byte("not a library"), 0o644))
		c := resolve("", search)
		require.Equal(t, p, c.GPUs.CUDALib, "dir %d", i)
		require.Equal(t, dirs[:i+1], c.GPUs.CUDASearched, "where it looked, up to where it found one")
	}
	first := filepath.Join(dirs[0], CUDALibFile)
	env := filepath.Join(root, "env.so")
	require.NoError(t, os.WriteFile(env, nil, 0o644))
	require.Equal(t, env, resolve("", CUDASearch{Env: env, Dirs: dirs}).GPUs.CUDALib, "the variable before the directories")
	require.Equal(t, "/conf/lib.so", resolve("/conf/lib.so", CUDASearch{Env: env, Dirs: dirs}).GPUs.CUDALib, "the configuration first")

	// A FIFO named by the variable is passed over (dlopen would block).
	fifo := filepath.Join(root, "fifo.so")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	c = resolve("", CUDASearch{Env: fifo, Dirs: dirs})
	require.Equal(t, first, c.GPUs.CUDALib)
	require.Contains(t, c.GPUs.CUDASearched[0], "named pipe")
	// A directory named libcuzk_cuda.so is no library either.
	require.NoError(t, os.Remove(first))
	require.NoError(t, os.Mkdir(first, 0o755))
	require.Equal(t, filepath.Join(dirs[1], CUDALibFile), resolve("", search).GPUs.CUDALib)
	require.Empty(t, resolve("", CUDASearch{}).GPUs.CUDALib)
}

// gpus.cuda_lib must name a regular file when it names a path: a FIFO
// (which made cuzk_config hang), a directory or a device is a clear error
// before anything opens it; a missing file is the loader's to report.
func TestCUDALibRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for path, msg := range map[string]string{fifo: "a named pipe (FIFO), not a regular file", dir: "a directory", "/dev/null": "a device"} {
		_, err := Parse("[gpus]\ncuda_lib = \"" + path + "\"\n")
		require.ErrorContains(t, err, "gpus.cuda_lib: "+path+" is "+msg)
	}
	regular := filepath.Join(dir, "lib.so")
	require.NoError(t, os.WriteFile(regular, nil, 0o644))
	link := filepath.Join(dir, "link.so")
	require.NoError(t, os.Symlink(regular, link))
	for _, ok := range []string{regular, link, filepath.Join(dir, "missing.so"), "libc.so.6"} {
		_, err := Parse("[gpus]\ncuda_lib = \"" + ok + "\"\n")
		require.NoError(t, err, ok)
	}
}
