package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/units"
)

// The parameter cache of demo and bench: the development setup of each
// circuit they prove, written once and loaded on later runs. Entries are
// files circuit-HASH.params (HASH from the circuit's encoding) in one
// directory: the platform cache directory's cuzk/ by default (beside the
// validation record, which the cache leaves alone). The cache holds at most
// its bound in bytes; using an entry sets its modification time, and the
// least recently used entries are evicted first to make room. An entry
// larger than the bound is used but not kept.
//
// The default bound holds a 2^23-constraint circuit's parameters (~600
// bytes a constraint: 40 MB for the demo's 2^16, ~5 GB at 2^23) and many
// smaller ones; CUZK_CACHE_MAX or --cache-max changes it.
const defaultCacheMax = 16 << 30

// cacheMaxEnv names the environment variable of the bound.
const cacheMaxEnv = "CUZK_CACHE_MAX"

// Patterns of the cache's files: its entries, and the temporaries of
// their writes (fileio.WriteAtomic) that a killed run may leave.
const (
	cachePrefix = "circuit-"
	cacheSuffix = ".params"
	cacheTemps  = "." + cachePrefix + "*" + cacheSuffix + ".cuzk-tmp-*"
)

// defaultCache is the cache's default directory.
func defaultCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cuzk")
	}
	return filepath.Join(os.TempDir(), "cuzk-cache")
}

// cacheMaxHelp is --cache-max's help: "" takes CUZK_CACHE_MAX, else the
// default.
const cacheMaxHelp = "bound of the parameter cache (e.g. 4GiB; default $" + cacheMaxEnv + ", else 16GiB); least recently used entries are evicted"

// paramCache is an open cache.
type paramCache struct {
	dir string
	max int64
}

// openCache returns the cache in dir with the bound flag gives, else the
// environment's, else the default.
func openCache(dir, flag string) (*paramCache, error) {
	c := &paramCache{dir: dir, max: defaultCacheMax}
	src, s := "--cache-max", flag
	if s == "" {
		src, s = cacheMaxEnv, os.Getenv(cacheMaxEnv)
	}
	if s != "" {
		v, err := config.ParseSize(s)
		if err != nil {
			return nil, inputErr(fmt.Errorf("%s: %w", src, err))
		}
		c.max = int64(v)
	}
	return c, nil
}

// cacheEntry is one file of the cache.
type cacheEntry struct {
	name string
	size int64
	used time.Time
}

// entries lists the cache's entries, least recently used first.
func (c *paramCache) entries() ([]cacheEntry, error) {
	des, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []cacheEntry
	for _, de := range des {
		name := de.Name()
		if !strings.HasPrefix(name, cachePrefix) || !strings.HasSuffix(name, cacheSuffix) || !de.Type().IsRegular() {
			continue
		}
		st, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, cacheEntry{name: name, size: st.Size(), used: st.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].used.Equal(out[j].used) {
			return out[i].used.Before(out[j].used)
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// makeRoom evicts the least recently used entries other than keep until
// extra more bytes fit under the bound; it returns the names evicted.
func (c *paramCache) makeRoom(keep string, extra int64) ([]string, error) {
	es, err := c.entries()
	if err != nil {
		return nil, err
	}
	total := extra
	for _, e := range es {
		total += e.size
	}
	var evicted []string
	for _, e := range es {
		if total <= c.max {
			break
		}
		if e.name == keep {
			continue
		}
		if err := os.Remove(filepath.Join(c.dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return evicted, err
		}
		total -= e.size
		evicted = append(evicted, e.name)
	}
	return evicted, nil
}

// keyFileSize is the size of pk's file: the verifying key's six points,
// six counts, and the sections.
func keyFileSize(pk *params.ProvingKey) int64 {
	g1 := int64(len(pk.IC) + len(pk.H) + len(pk.L) + len(pk.A) + len(pk.BG1))
	return 3*params.G1Uncompressed + 3*params.G2Uncompressed + 6*4 + g1*params.G1Uncompressed + int64(len(pk.BG2))*params.G2Uncompressed
}

// cacheResult says how params came by its key.
type cacheResult struct {
	path    string
	hit     bool
	kept    bool     // a new key was written to the cache
	evicted []string // entries evicted to make room
}

// params returns the development parameters of cs: the cached entry if it
// fits cs, else a fresh setup (seed 1), kept if it fits under the bound.
// The meter shows and times the load, or the setup and the write.
func (c *paramCache) params(m *meter, cs *r1cs.R1CS) (*params.ProvingKey, cacheResult, error) {
	h := sha256.New()
	if _, err := cs.WriteTo(h); err != nil {
		return nil, cacheResult{}, err
	}
	name := fmt.Sprintf("%s%x%s", cachePrefix, h.Sum(nil)[:8], cacheSuffix)
	res := cacheResult{path: filepath.Join(c.dir, name)}
	if _, err := os.Stat(res.path); err == nil {
		// The file is this program's own output: keep the curve checks,
		// skip the (slow) subgroup checks.
		var pk *params.ProvingKey
		err := m.stage(stageLoadParams, func() (err error) {
			pk, err = params.ReadProvingKey(res.path, params.Options{SkipSubgroupCheck: true, Progress: m.events(stageLoadParams)})
			if err == nil {
				err = groth16.CheckKey(pk, cs)
			}
			return err
		})
		if err == nil {
			now := time.Now()
			os.Chtimes(res.path, now, now) // used: last to be evicted
			res.hit = true
			res.evicted, err = c.makeRoom(name, 0)
			return pk, res, err
		}
		// unreadable or another circuit's: set up again, replacing it
	}
	var pk *params.ProvingKey
	err := m.stage(groth16.StageSetup, func() (err error) {
		pk, err = groth16.SetupWith(cs, 1, groth16.SetupOptions{Progress: m.events("")})
		return err
	})
	if err != nil {
		return nil, res, err
	}
	size := keyFileSize(pk)
	if size > c.max {
		m.warnf("cuzk: the parameters (%s) exceed the cache's bound (%s, --cache-max or $%s): used, not kept\n", qty(size, "bytes"), qty(c.max, "bytes"), cacheMaxEnv)
		res.evicted, err = c.makeRoom("", 0) // the bound holds whatever it was before
		return pk, res, err
	}
	if res.evicted, err = c.makeRoom(name, size); err != nil {
		return nil, res, inputErr(err)
	}
	err = m.stage("write params", func() error {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			return err
		}
		return pk.WriteFile(res.path)
	})
	if err != nil {
		return nil, res, inputErr(err)
	}
	res.kept = true
	return pk, res, nil
}

// describe says how the parameters came, for the command's output.
func (r cacheResult) describe() string {
	var s string
	switch {
	case r.hit:
		s = "parameters loaded from the cache: " + r.path
	case r.kept:
		s = "development setup, kept in the cache: " + r.path
	default:
		s = "development setup, not kept (larger than the cache's bound)"
	}
	if len(r.evicted) > 0 {
		s += fmt.Sprintf(" (evicted %d least recently used: %s)", len(r.evicted), strings.Join(r.evicted, ", "))
	}
	return s
}

// runCache lists or clears the cache.
func runCache(args []string, stdout io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: cuzk cache list|clear [--cache DIR] [--cache-max SIZE]\n\n"+
			"  list   the cached parameters of demo and bench, least recently used first, with the bound\n"+
			"  clear  remove them (the validation record stays)\n")
	}
	if len(args) == 0 {
		usage(progressOut)
		return inputErr(errors.New("list or clear is required"))
	}
	sub := args[0]
	if sub == "-h" || sub == "--help" || sub == "help" {
		usage(stdout)
		return nil
	}
	if sub != "list" && sub != "clear" {
		usage(progressOut)
		return inputErr(fmt.Errorf("unknown cache command %q", sub))
	}
	inv := command("cache " + sub)
	inv.withCache("the cache's directory")
	defer inv.close()
	if err := inv.start(args[1:], stdout); err != nil {
		return err
	}
	c, stdout := inv.pc, inv.stdout
	es, err := c.entries()
	if err != nil {
		return inputErr(err)
	}
	var total int64
	for _, e := range es {
		total += e.size
	}
	if sub == "clear" {
		for _, e := range es {
			if err := os.Remove(filepath.Join(c.dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return inputErr(err)
			}
		}
		temps, _ := filepath.Glob(filepath.Join(c.dir, cacheTemps))
		for _, t := range temps {
			os.Remove(t)
		}
		fmt.Fprintf(stdout, "removed %d cached parameter files (%s) from %s\n", len(es), units.Bytes(uint64(total)), c.dir)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %d cached parameter files, %s of %s\n", c.dir, len(es), qty(total, "bytes"), qty(c.max, "bytes"))
	if len(es) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "last used\tsize\tpublic inputs\taux variables\tdomain\tfile")
	for _, e := range es {
		inputs, aux, domain := "?", "?", "?"
		if info, err := filekind.SniffFile(filepath.Join(c.dir, e.name)); err == nil && info.Kind == filekind.Params && len(info.Problems) == 0 {
			n, _ := info.Count("public inputs")
			a, _ := info.Count("aux variables")
			d, _ := info.Count("rows in the domain")
			inputs, aux, domain = fmt.Sprint(n), fmt.Sprint(a), fmt.Sprintf("2^%d", log2(int(d)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.used.Format("2006-01-02 15:04:05"), qty(e.size, "bytes"), inputs, aux, domain, e.name)
	}
	return tw.Flush()
}
