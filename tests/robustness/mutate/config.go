package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/cuzk/cuzk/core/config"
)

// configCorpus adds configuration texts (kind "config"): texts nested or
// sized to exhaust a decoder, every numeric key at the edges of its type,
// gpus.cuda_lib naming files that are not libraries, and byte mutations of
// the shipped example files. fifo is a path that will be a FIFO when the
// cases run.
func configCorpus(c *corpus, examples []string, fifo string, rng *rand.Rand, full bool) {
	rep := strings.Repeat
	add := func(what, text string) { c.add("config", what, []byte(text)) }
	for _, n := range []int{1_000, 100_000} {
		add(fmt.Sprintf("dotted-%d", n), rep("a.", n)+"a = 1\n")
		add(fmt.Sprintf("header-%d", n), "["+rep("a.", n)+"a]\n")
		add(fmt.Sprintf("array-tables-%d", n), "[["+rep("a.", n)+"a]]\n")
	}
	for _, n := range []int{2_000, 10_000, 100_000, 1_000_000} {
		add(fmt.Sprintf("inline-%d", n), "x = "+rep("{a=", n)+"1"+rep("}", n)+"\n")
		add(fmt.Sprintf("inline-open-%d", n), "x = "+rep("{a=", n))
		add(fmt.Sprintf("arrays-%d", n), "x = "+rep("[", n)+rep("]", n)+"\n")
		add(fmt.Sprintf("json-%d", n), rep(`{"a":`, n)+"1"+rep("}", n))
		add(fmt.Sprintf("json-arrays-%d", n), `{"gpus": {"devices": `+rep("[", n)+rep("]", n)+"}}")
	}
	add("deep-unknown-2000", "[synthesis]\n"+rep("k.", 2000)+"k = 1\n")
	var many strings.Builder
	for i := 0; many.Len() < 900_000; i++ {
		fmt.Fprintf(&many, "unknown_key_%d = %d\n", i, i)
	}
	add("unknown-keys-many", many.String())
	add("long-key", rep("k", 900_000)+" = 1\n")
	add("long-string", "[metrics]\nlisten = \""+rep("x", 900_000)+"\"\n")
	add("oversize-2MiB", rep("# a comment line\n", 2<<20/17))
	add("tables-many", rep("[[t]]\n", 170_000))
	add("devices-many", "[gpus]\ndevices = ["+rep("0,", 200_000)+"0]\n")
	add("unterminated-string", "[metrics]\nlisten = \"127.0.0.1:0\n")
	add("unterminated-multiline", "[metrics]\nlisten = '''"+rep("{", 5000))
	add("nul-bytes", "verify_proofs = true\n\x00\x00[gpus]\n")
	for what, path := range map[string]string{"fifo": fifo, "dir": filepath.Dir(fifo), "dev-zero": "/dev/zero", "missing": filepath.Join(filepath.Dir(fifo), "missing.so")} {
		add("cuda-lib-"+what, fmt.Sprintf("[gpus]\ncuda_lib = %q\n", path))
	}
	add("cuda-lib-fifo-required", fmt.Sprintf("[gpus]\nrequired = true\ncuda_lib = %q\n", fifo))

	// Every numeric key (found by walking the configuration's type) at
	// the edges of int64 and uint64, as an integer and as a string.
	edges := []string{"0", "-1", "2147483648", "9223372036854775807", "18446744073709551615"}
	for _, key := range numericKeys(reflect.TypeOf(config.Config{}), "") {
		sec, name, _ := strings.Cut(key, ".")
		for _, v := range edges {
			for _, l := range []struct{ how, lit string }{{"", v}, {"-string", `"` + v + `"`}, {"-list", "[" + v + "]"}, {"-frac", v + ".5"}} {
				add(fmt.Sprintf("numeric%s-%s=%s", l.how, key, v), fmt.Sprintf("[%s]\n%s = %s\n", sec, name, l.lit))
			}
			// With the engine's own verification off, a wrong proof
			// reaches the driver's check.
			add(fmt.Sprintf("numeric-noverify-%s=%s", key, v), fmt.Sprintf("verify_proofs = false\n[%s]\n%s = %s\n", sec, name, v))
		}
		add(fmt.Sprintf("numeric-json-%s", key), fmt.Sprintf(`{%q: {%q: 18446744073709551615}}`, sec, name))
	}

	// The shipped examples, and byte mutations of them.
	for _, path := range examples {
		base, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		name := filepath.Base(path)
		add("file-"+name, string(base))
		n := 20
		if full {
			n = 200
		}
		for i := 0; i < n; i++ {
			b := clone(base)
			o := rng.IntN(len(b))
			switch i % 4 {
			case 0:
				b = b[:o]
			case 1:
				b[o] = "{[]}.=\"'#\n"[rng.IntN(10)]
			case 2:
				b = append(b[:o:o], append([]byte(rep("{a=", 100)), b[o:]...)...)
			case 3:
				b[o] ^= 1 << rng.IntN(8)
			}
			c.add("config", fmt.Sprintf("%s-mut%d@%d", name, i, o), b)
		}
	}
}

// numericKeys lists the dotted keys of t whose values are numbers.
func numericKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := strings.TrimPrefix(prefix+"."+name, ".")
		ft := f.Type
		if ft.Kind() == reflect.Struct {
			keys = append(keys, numericKeys(ft, key)...)
			continue
		}
		if ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			keys = append(keys, key)
		}
	}
	return keys
}
