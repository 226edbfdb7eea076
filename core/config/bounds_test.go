package config

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile texts are refused before the decoder sees them: deep dotted
// keys, deep inline tables and arrays (TOML and JSON), and texts over the
// size limit. Each of these exhausted a 6.5 GB process before the bound.
func TestHostileTextsRefused(t *testing.T) {
	for name, c := range map[string]struct{ text, msg string }{
		"100,000 nested dotted keys":      {strings.Repeat("a.", 100_000) + "a = 1\n", "nested deeper than 16"},
		"10,000 nested inline tables":     {"x = " + strings.Repeat("{a=", 10_000) + "1" + strings.Repeat("}", 10_000), "nested deeper than 16"},
		"250,000 nested inline tables":    {"x = " + strings.Repeat("{a=", 250_000) + "1", "nested deeper than 16"},
		"1,000,000 nested inline tables":  {"x = " + strings.Repeat("{a=", 1_000_000) + "1", "bytes, more than the 1048576 accepted"},
		"nested arrays":                   {"x = " + strings.Repeat("[", 5000), "nested deeper than 16"},
		"nested JSON":                     {strings.Repeat(`{"a":`, 100_000), "nested deeper than 16"},
		"a dotted table header":           {"[" + strings.Repeat("a.", 2000) + "a]\n", "nested deeper than 16"},
		"an array of tables, deep":        {"[[" + strings.Repeat("a.", 2000) + "a]]\n", "nested deeper than 16"},
		"deep after valid lines (line 3)": {"verify_proofs = true\n[memory]\nx = " + strings.Repeat("{a=", 20), "line 3: nested deeper"},
		"over the size limit":             {strings.Repeat("# comment\n", MaxTextBytes/10+1), "more than the 1048576 accepted"},
	} {
		_, err := Parse(c.text)
		require.ErrorContains(t, err, c.msg, name)
		require.Less(t, len(err.Error()), 300, name)
	}
}

// What looks deep inside strings and comments is not nesting; every text
// the product ships passes the bound.
func TestTextBoundSparesStringsAndComments(t *testing.T) {
	deep := strings.Repeat("{[.", 100)
	for _, text := range []string{
		"[metrics]\nlisten = \"" + deep + "\"\n",
		"[metrics]\nlisten = '" + deep + "'\n",
		"# " + deep + "\nverify_proofs = true\n",
		"[metrics]\nlisten = \"\"\"\n" + deep + "\n\"\"\"\n",
		"[metrics]\nlisten = '''" + deep + "'''\n",
		"[metrics]\nlisten = \"a\\\"" + deep + "\"\n",
		`{"metrics": {"listen": "` + deep + `"}}`,
	} {
		require.NoError(t, checkText(text), text)
	}
	for _, f := range []string{"example.toml", "testdata/reference-cuzk.toml"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, checkText(string(b)), f)
	}
	// Just inside the bound: 16 dotted segments decode (and are unknown).
	_, err := Parse(strings.Repeat("a.", 15) + "a = 1\n")
	require.ErrorContains(t, err, "unknown key a.a.a")
	_, err = Parse(strings.Repeat("a.", 16) + "a = 1\n")
	require.ErrorContains(t, err, "nested deeper")
}

// An unknown-key error lists a few keys, each shortened: a text of
// thousands of keys (or one 2,000 segments deep, before the depth bound)
// made a message of megabytes.
func TestUnknownKeyMessageBounded(t *testing.T) {
	_, err := Parse(strings.Repeat("k", 5000) + " = 1\n" + "[gpus]\n" + strings.Repeat("z", 300) + " = 2\n")
	require.ErrorContains(t, err, "unknown key kkkk")
	require.Less(t, len(err.Error()), 400)
	var many strings.Builder
	for i := 0; i < 30_000; i++ {
		fmt.Fprintf(&many, "k%d = 1\n", i)
	}
	_, err = Parse(many.String())
	require.Error(t, err)
	require.Contains(t, err.Error(), "unknown key")
	require.Contains(t, err.Error(), "more")
	require.Less(t, len(err.Error()), 1200, "bounded: %d bytes", len(err.Error()))
}

// A value echoed in an error is shortened: a 900 KB string made a 900 KB
// message.
func TestErrorValuesShortened(t *testing.T) {
	long := strings.Repeat("x", 900_000)
	for _, text := range []string{
		"[metrics]\nlisten = \"" + long + "\"\n",
		"[logging]\nlevel = \"" + long + "\"\n",
		"[logging]\nformat = \"" + long + "\"\n",
		"[gpus]\nmax_device_memory = \"" + long + "\"\n",
		"[memory]\nbudget = \"" + long + "\"\n",
		"[scheduler]\nbatch_wait = \"" + long + "\"\n",
		"[scheduler]\nmax_batch_wait_ms = \"" + long + "\"\n",
		long + " = 1\n",
	} {
		_, err := Parse(text)
		require.Error(t, err)
		require.Less(t, len(err.Error()), 400, "%.60s: %.200s", text, err)
	}
}
