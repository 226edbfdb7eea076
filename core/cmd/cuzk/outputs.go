package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// checkOutputs refuses, before any work, an output that cannot be
// written or would destroy what the command reads: an output naming an
// input of the same command (the same path, the same file through a
// symbolic link, another hard link to it: os.SameFile), or another
// output; an output that is a directory; an output whose directory is
// missing or not writable. A slip of the hand (--public c.params) used
// to replace the 2 MiB parameter file by 165 bytes of JSON, and a missing
// directory was found only after minutes of work.
func checkOutputs(inputs, outputs []pathFlag) error {
	type named struct{ flag, path string }
	var ins []named
	for _, in := range inputs {
		for _, p := range in.paths() {
			ins = append(ins, named{in.flag, p})
		}
	}
	var outs []named // the files written, for the checks between outputs
	for _, out := range outputs {
		if *out.value == "" {
			continue
		}
		files := []string{*out.value}
		if out.files != nil {
			if err := checkOutputDir(out.flag, *out.value); err != nil {
				return err
			}
			files = files[:0]
			for _, f := range out.files {
				files = append(files, filepath.Join(*out.value, f))
			}
		} else if err := checkOutputFile(out.flag, *out.value); err != nil {
			return err
		}
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && st.IsDir() {
				return inputErr(fmt.Errorf("%s: %s is a directory; %s writes a file there", out.flag, f, out.flag))
			}
			for _, in := range ins {
				if samePath(f, in.path) {
					return inputErr(fmt.Errorf("%s: %s is the %s file read by this command; an output never replaces an input (name another file)", out.flag, f, in.flag))
				}
			}
			for _, o := range outs {
				// one path written twice (two links to one file are two
				// entries, each replaced by its own write)
				if absPath(f) == absPath(o.path) {
					return inputErr(fmt.Errorf("%s: %s is also written as %s; give each output its own file", out.flag, f, o.flag))
				}
			}
			outs = append(outs, named{out.flag, f})
		}
	}
	return nil
}

// samePath reports whether a and b name one file: the same path once
// cleaned, or one existing file (through links, or hard links).
func samePath(a, b string) bool {
	if absPath(a) == absPath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// checkOutputFile checks that path can be written as a file: not a
// directory, in a directory that exists and is writable.
func checkOutputFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return inputErr(fmt.Errorf("%s: %s is a directory; %s takes the path of a file to write", flag, path, flag))
	}
	return writableDir(flag, filepath.Dir(path), path)
}

// checkOutputDir checks that dir is a directory the command can write
// files in, or can be made: its nearest existing ancestor is a writable
// directory.
func checkOutputDir(flag, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return inputErr(fmt.Errorf("%s: %s is a file; %s takes a directory to write files in", flag, dir, flag))
	case err == nil:
		return writableDir(flag, dir, dir)
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.ENOTDIR):
		return inputErr(fmt.Errorf("%s: %w", flag, err))
	}
	// made with its missing parents: the nearest existing one must take
	// them
	up := filepath.Dir(filepath.Clean(dir))
	for {
		st, err := os.Stat(up)
		if err == nil {
			if !st.IsDir() {
				return inputErr(fmt.Errorf("%s: %s cannot be made: %s is a file", flag, dir, up))
			}
			return writableDir(flag, up, dir)
		}
		next := filepath.Dir(up)
		if next == up {
			return inputErr(fmt.Errorf("%s: %w", flag, err))
		}
		up = next
	}
}

// writableDir checks that dir, where path is to be written, exists and
// can take new files.
func writableDir(flag, dir, path string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return inputErr(fmt.Errorf("%s: cannot write %s: the directory %s does not exist", flag, path, dir))
	case err != nil:
		return inputErr(fmt.Errorf("%s: cannot write %s: %w", flag, path, err))
	case !st.IsDir():
		return inputErr(fmt.Errorf("%s: cannot write %s: %s is not a directory", flag, path, dir))
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return inputErr(fmt.Errorf("%s: cannot write %s: the directory %s is not writable (%v)", flag, path, dir, err))
	}
	return nil
}
