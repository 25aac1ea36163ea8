package kafkamsg

import (
	"math"
	"testing"
)

// Java's Double.toString, values written by hand from its documented rules (Double.toString's
// javadoc: decimal between 10^-3 and 10^7, computerized scientific notation outside).
func TestJavaDouble(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {100, "100.0"}, {0.5, "0.5"},
		{0.001, "0.001"}, {0.0001, "1.0E-4"}, {1234567, "1234567.0"}, {1e7, "1.0E7"},
		{12345678.5, "1.23456785E7"}, {-2.5e-5, "-2.5E-5"}, {0.1, "0.1"}, {1.5e300, "1.5E300"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := JavaDouble(c.d); got != c.want {
			t.Errorf("JavaDouble(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// Jackson's ObjectNode.toString: keys in insertion order, no spaces, CharTypes' escapes
// (\n, \t, \u00XX upper-case for other control characters), non-ASCII as itself, binary as
// padded standard base64, NaN quoted.
func TestJacksonText(t *testing.T) {
	o := &Object{}
	o.Set("b", Int(-3)).Set("a", String("x\"\\\n\t\x01\x1f/é")).Set("c", Bytes{0xff, 0x00}).
		Set("d", Array{Bool(true), Null{}, Float(math.NaN()), Float(2)})
	o.Set("b", Int(4)) // a key set again keeps its place
	want := `{"b":4,"a":"x\"\\\n\t\u0001\u001F/é","c":"/wA=","d":[true,null,"NaN",2.0]}`
	if got := JSON(o); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := JSON(String("a\xffb")); got != "\"a\uFFFDb\"" {
		t.Errorf("invalid UTF-8: got %q", got)
	}
}
