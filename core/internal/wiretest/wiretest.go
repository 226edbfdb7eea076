// Package wiretest holds the checks of the tests on what the library
// writes for other programs to read: its JSON documents (status, reports)
// and its Prometheus text.
package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

var snakeCase = regexp.MustCompile(`^[a-z0-9_]+$`)

// JSON checks a JSON document the way its readers rely on it: every key
// snake_case and unique in its object, no null anywhere (a list with
// nothing in it is []), no duration in nanoseconds (a key ending _ns), and
// every key ending _seconds a number. It returns the document decoded.
func JSON(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walk(dec, "$", ""); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("trailing data after the document: %v", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func walk(dec *json.Decoder, path, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if strings.HasSuffix(key, "_seconds") {
		if _, ok := tok.(json.Number); !ok {
			return fmt.Errorf("%s: a duration in seconds must be a number, got %v", path, tok)
		}
	}
	switch v := tok.(type) {
	case nil:
		return fmt.Errorf("%s is null", path)
	case json.Delim:
		switch v {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				k := kt.(string)
				switch {
				case !snakeCase.MatchString(k):
					return fmt.Errorf("%s: key %q is not snake_case", path, k)
				case seen[k]:
					return fmt.Errorf("%s: key %q twice", path, k)
				case strings.HasSuffix(k, "_ns"):
					return fmt.Errorf("%s: key %q: durations are in seconds", path, k)
				}
				seen[k] = true
				if err := walk(dec, path+"."+k, k); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(dec, fmt.Sprintf("%s[%d]", path, i), ""); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	}
	return nil
}

// Prometheus checks metrics in the text exposition format with promlint
// (the client library's linter: names, units, suffixes, help) and fails t
// on any problem it reports.
func Prometheus(t testing.TB, text string) {
	t.Helper()
	problems, err := promlint.New(strings.NewReader(text)).Lint()
	if err != nil {
		t.Fatalf("promlint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// Get is a value in a decoded document by its path of keys and indices.
func Get(t testing.TB, doc any, path ...any) any {
	t.Helper()
	v := doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("%v: no key %q", path, k)
			}
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no element %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}
