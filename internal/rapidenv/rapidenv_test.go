package rapidenv

import (
	"fmt"
	"testing"
)

// Every value rapid 1.3.0 would panic on is listed and unset; values it parses are left
// alone (its parsers: strconv.ParseInt base 0, ParseUint, ParseBool, time.ParseDuration).
func TestSanitize(t *testing.T) {
	env := map[string]string{
		"RAPID_CHECKS": "abc", "RAPID_STEPS": "0x10", "RAPID_SEED": "-1", "RAPID_V": "yes",
		"RAPID_SHRINKTIME": "30s", "RAPID_NOFAILFILE": "1", "RAPID_LOG": " true",
	}
	got := sanitize(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, func(k string) error { delete(env, k); return nil })
	want := `[{RAPID_CHECKS abc a whole number} {RAPID_SEED -1 a whole number >= 0} {RAPID_LOG  true true or false} {RAPID_V yes true or false}]`
	if fmt.Sprint(got) != want {
		t.Errorf("got %v\nwant %s", got, want)
	}
	for _, k := range []string{"RAPID_CHECKS", "RAPID_SEED", "RAPID_LOG", "RAPID_V"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s left set", k)
		}
	}
	for _, k := range []string{"RAPID_STEPS", "RAPID_SHRINKTIME", "RAPID_NOFAILFILE"} {
		if _, ok := env[k]; !ok {
			t.Errorf("%s (valid) unset", k)
		}
	}
}
