// Package rapidenv keeps a malformed RAPID_* environment variable from crashing kidx.
//
// pgregory.net/rapid reads its RAPID_* variables in its package initialization and panics on
// a value it cannot parse, so any program that links it (kidx does, for `kidx check`) dies
// with a goroutine dump before main runs, whatever the command (issue 11's review:
// `RAPID_CHECKS=abc kidx version` panicked). This package has no imports beyond the
// standard library, so Go initializes it before rapid (packages that do not depend on each
// other are initialized in import-path order, and "kidx/..." sorts before "pgregory.net/...").
// Its init parses each variable as rapid does and unsets the malformed ones, recording
// them in Malformed for kidx to report in its own words.
package rapidenv

import (
	"os"
	"strconv"
	"time"
)

// A Problem is one RAPID_* variable rapid could not have parsed.
type Problem struct {
	Name, Value, Want string
}

// Malformed lists the variables init unset, in rapid's order.
var Malformed []Problem

// parsers are rapid 1.3.0's variables (engine.go loadCmdlineDefaults) and how it parses each.
var parsers = []struct {
	name  string
	want  string
	parse func(string) error
}{
	{"RAPID_CHECKS", "a whole number", parseInt},
	{"RAPID_STEPS", "a whole number", parseInt},
	{"RAPID_NOFAILFILE", "true or false", parseBool},
	{"RAPID_SEED", "a whole number >= 0", parseUint},
	{"RAPID_LOG", "true or false", parseBool},
	{"RAPID_V", "true or false", parseBool},
	{"RAPID_DEBUG", "true or false", parseBool},
	{"RAPID_DEBUGVIS", "true or false", parseBool},
	{"RAPID_SHRINKTIME", "a duration such as 30s", parseDuration},
}

func parseInt(v string) error  { _, err := strconv.ParseInt(v, 0, strconv.IntSize); return err }
func parseUint(v string) error { _, err := strconv.ParseUint(v, 0, 64); return err }
func parseBool(v string) error { _, err := strconv.ParseBool(v); return err }
func parseDuration(v string) error {
	_, err := time.ParseDuration(v)
	return err
}

func init() { Malformed = sanitize(os.LookupEnv, os.Unsetenv) }

// sanitize unsets (through unset) every variable lookup finds malformed, and lists them.
func sanitize(lookup func(string) (string, bool), unset func(string) error) []Problem {
	var out []Problem
	for _, p := range parsers {
		v, ok := lookup(p.name)
		if !ok || p.parse(v) == nil {
			continue
		}
		_ = unset(p.name)
		out = append(out, Problem{Name: p.name, Value: v, Want: p.want})
	}
	return out
}
