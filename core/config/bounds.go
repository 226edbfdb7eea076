package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on a configuration text, checked before any decoder sees it. The
// TOML decoder builds a table per dotted key segment and per inline table,
// recursively: 100,000 nested dotted keys or 10,000 to 1,000,000 nested
// inline tables (a few hundred KB of text) exhausted a 6.5 GB process. The
// deepest text these keys need is 3 levels ({"gpus": {"devices": [0]}});
// a reference example file is ~5 KB.
const (
	// MaxTextBytes is the largest configuration text accepted.
	MaxTextBytes = 1 << 20
	// MaxDepth bounds the nesting of a text: the tables, inline tables and
	// arrays open at any point plus the segments of the dotted key being
	// read there.
	MaxDepth = 16
	// maxListedKeys bounds the unknown keys an error lists (a text may
	// hold thousands), and maxKeyChars each key's length in it.
	maxListedKeys = 8
	maxKeyChars   = 80
)

// checkText refuses a text over MaxTextBytes or nested deeper than
// MaxDepth, in one pass that allocates nothing. It reads TOML's and JSON's
// lexical structure only (strings, comments, brackets, dots), so it
// counts conservatively: a float's point counts as a key segment.
func checkText(text string) error {
	if len(text) > MaxTextBytes {
		return fmt.Errorf("config: the text is %d bytes, more than the %d accepted", len(text), MaxTextBytes)
	}
	depth, dots, line := 0, 0, 1
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			line++
			dots = 0
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end, lines := skipString(text, i)
			line += lines
			i = end
		case '{', '[':
			depth++
			dots = 0
		case '}', ']':
			depth--
			dots = 0
		case '=', ',', ':':
			dots = 0
		case '.':
			dots++
		}
		if depth+dots+1 > MaxDepth {
			return fmt.Errorf("config: line %d: nested deeper than %d levels (tables, arrays and dotted key segments together)", line, MaxDepth)
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string starting at
// text[i] (a quote), and the newlines it spans; an unterminated string
// runs to the end (the decoder reports it).
func skipString(text string, i int) (int, int) {
	q := text[i]
	delim := text[i : i+1]
	if strings.HasPrefix(text[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	lines := 0
	for j := i + len(delim); j < len(text); j++ {
		switch text[j] {
		case '\\':
			if q == '"' {
				if j+1 < len(text) && text[j+1] == '\n' {
					lines++
				}
				j++
			}
		case '\n':
			lines++
			if len(delim) == 1 {
				return j - 1, lines - 1 // a one-line string ends at the line's end
			}
		default:
			if strings.HasPrefix(text[j:], delim) {
				return j + len(delim) - 1, lines
			}
		}
	}
	return len(text) - 1, lines
}

// shown is s for an error message, shortened to maxKeyChars: a value may
// be most of a megabyte.
func shown(s string) string {
	if len(s) <= maxKeyChars {
		return s
	}
	cut := maxKeyChars
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// listKeys joins keys for an error, at most maxListedKeys of them, each
// shortened to maxKeyChars.
func listKeys(keys []string) string {
	var b strings.Builder
	for i, k := range keys {
		if i == maxListedKeys {
			fmt.Fprintf(&b, " and %d more", len(keys)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(shown(k))
	}
	return b.String()
}
