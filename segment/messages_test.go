package segment

import (
	"strings"
	"testing"
)

// TestJSONErrorsInWords pins issue 11, defect 5 for the JSON kidx reads besides workloads: a
// .kafka_cleanshutdown or a recipe of the wrong shape was refused with a Go type name.
func TestJSONErrorsInWords(t *testing.T) {
	if got := ParseCleanShutdown([]byte(`[1]`)).Unreadable; got != "the file must hold an object, not a list" {
		t.Errorf("clean-shutdown file holding a list: %q", got)
	}
	_, err := ParseRecipe([]byte(`{"appends": {}}`))
	if err == nil || err.Error() != "recipe: appends: expected a list, found an object" {
		t.Errorf("recipe with an object for appends: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "Go value") {
		t.Errorf("a Go type in the error: %v", err)
	}
}
