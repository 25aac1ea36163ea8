// Package english writes counts in words for kidx's reports: "1 entry", "2 entries".
package english

import (
	"strconv"
	"strings"
)

// Plural writes n and the noun, in the plural unless n is 1 (or -1): "1 batch", "2 batches",
// "3 entries", "2 keys", "0 bytes". The noun is the singular; a phrase ("byte-counter
// restart", ".index entry") is pluralized on its last word.
func Plural(n int64, noun string) string {
	s := strconv.FormatInt(n, 10) + " "
	if n == 1 || n == -1 {
		return s + noun
	}
	return s + PluralNoun(noun)
}

// PluralNoun is the plural of a singular noun by the regular English rules: -s; -es after
// s, x, z, ch, sh; -ies for a consonant before y (entry, but key and day take -s).
func PluralNoun(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
