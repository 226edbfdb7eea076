package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cached lists the cache's entries and their total size.
func cached(t *testing.T, dir string) (map[string]int64, int64) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "circuit-*.params"))
	require.NoError(t, err)
	out := map[string]int64{}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = st.Size()
		total += st.Size()
	}
	return out, total
}

func names(m map[string]int64) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// demoInto runs the demo at n constraints against the cache in dir.
func demoInto(t *testing.T, dir string, n int, extra ...string) (code int, out, errs string) {
	t.Helper()
	return cli(t, append([]string{"demo", "--quiet", "--cache", dir, "--constraints", strconv.Itoa(n)}, extra...)...)
}

// TestCacheBoundAndEviction: the cache stays within its bound; the least
// recently used entry goes first (a hit counts as a use); an entry larger
// than the bound is used, not kept; the bound comes from --cache-max,
// else CUZK_CACHE_MAX, else the default.
func TestCacheBoundAndEviction(t *testing.T) {
	dir := t.TempDir()
	// The entries' sizes, one circuit at a time.
	sizes := map[int]int64{}
	entry := map[int]string{}
	for _, n := range []int{256, 512, 1024} {
		before, _ := cached(t, dir)
		code, out, errs := demoInto(t, dir, n)
		require.Equal(t, 0, code, errs)
		require.Contains(t, out, "development setup, kept in the cache")
		after, _ := cached(t, dir)
		require.Len(t, after, len(before)+1)
		for name, size := range after {
			if _, ok := before[name]; !ok {
				sizes[n], entry[n] = size, name
			}
		}
	}
	code, out, _ := demoInto(t, dir, 256)
	require.Equal(t, 0, code)
	require.Contains(t, out, "parameters loaded from the cache: "+filepath.Join(dir, entry[256]))

	// A bound that holds 256 and 512 but not all three: after 256, 512,
	// 256 again (used), 1024 evicts 512, the least recently used.
	code, _, _ = cli(t, "cache", "clear", "--cache", dir)
	require.Equal(t, 0, code)
	bound := strconv.FormatInt(sizes[256]+sizes[1024], 10)
	for _, n := range []int{256, 512, 256} {
		code, _, errs := demoInto(t, dir, n, "--cache-max", bound)
		require.Equal(t, 0, code, errs)
	}
	got, _ := cached(t, dir)
	require.ElementsMatch(t, []string{entry[256], entry[512]}, names(got))
	code, out, errs := demoInto(t, dir, 1024, "--cache-max", bound)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "evicted 1 least recently used: "+entry[512])
	got, total := cached(t, dir)
	require.ElementsMatch(t, []string{entry[256], entry[1024]}, names(got))
	require.LessOrEqual(t, total, sizes[256]+sizes[1024])

	// Larger than the bound (from the environment): used, not kept, and
	// the rest brought within the bound.
	t.Setenv(cacheMaxEnv, strconv.FormatInt(sizes[256], 10))
	code, out, errs = demoInto(t, dir, 2048)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "proof verified")
	require.Contains(t, errs, "exceed the cache's bound")
	require.Contains(t, errs, "used, not kept")
	_, total = cached(t, dir)
	require.LessOrEqual(t, total, sizes[256])
	// The flag beats the environment; a bad bound is bad input.
	code, out, errs = demoInto(t, dir, 2048, "--cache-max", "1GiB")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "kept in the cache")
	t.Setenv(cacheMaxEnv, "lots")
	code, _, errs = demoInto(t, dir, 256)
	require.Equal(t, exitBadInput, code)
	require.Contains(t, errs, cacheMaxEnv+": invalid size")
}

// TestCacheCommand: cuzk cache list shows the entries, least recently
// used first, with their circuit's shape and the bound; clear removes
// them and their temporaries, and leaves the validation record and other
// files alone. Without --cache it is the platform cache directory's.
func TestCacheCommand(t *testing.T) {
	dir := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "cuzk")
	code, _, errs := cli(t, "cache", "clear")
	require.Equal(t, 0, code, errs)
	for _, n := range []int{512, 256} {
		code, _, errs := cli(t, "demo", "--quiet", "--constraints", strconv.Itoa(n))
		require.Equal(t, 0, code, errs)
	}
	entries, total := cached(t, dir)
	require.Len(t, entries, 2)
	code, out, errs := cli(t, "cache", "list", "--cache-max", "3GiB")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, dir+": 2 cached parameter files, "+qty(total, "bytes")+" of 3 GiB", lines[0])
	require.Regexp(t, `^last used +size +public inputs +aux variables +domain +file$`, lines[1])
	require.Regexp(t, `  2\^9  +circuit-[0-9a-f]{16}\.params$`, lines[2], "the 512-constraint circuit, used first")
	require.Regexp(t, `  2\^8  +circuit-[0-9a-f]{16}\.params$`, lines[3])

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".circuit-0123.params.cuzk-tmp-1"), []byte("partial"), 0o644))
	if _, err := os.Stat(filepath.Join(dir, "validated-params.json")); err != nil {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "validated-params.json"), []byte("{}"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("keep"), 0o644))
	code, out, errs = cli(t, "cache", "clear")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "removed 2 cached parameter files")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	var kept []string
	for _, e := range left {
		kept = append(kept, e.Name())
	}
	require.ElementsMatch(t, []string{"validated-params.json", "mine.txt"}, kept)
	code, out, _ = cli(t, "cache", "list")
	require.Equal(t, 0, code)
	require.Equal(t, dir+": 0 cached parameter files, 0 B of 16 GiB\n", out)

	for _, args := range [][]string{{"cache"}, {"cache", "frob"}, {"cache", "list", "extra"}} {
		code, _, _ := cli(t, args...)
		require.Equal(t, exitBadInput, code, "%v", args)
	}
	code, out, _ = cli(t, "cache", "-h")
	require.Equal(t, 0, code)
	require.Contains(t, out, "usage: cuzk cache list|clear", "help asked for, on stdout")
}
