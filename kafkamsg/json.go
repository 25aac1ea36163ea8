package kafkamsg

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is one node of a JSON tree as Kafka's JSON converters build it (Jackson's JsonNode):
// objects keep the order their fields were set in, which is the order of the message's
// schema. JSON gives the text Jackson's ObjectNode.toString gives.
type Value interface {
	writeJSON(b *strings.Builder)
}

// Object is Jackson's ObjectNode: fields in the order they were first set.
type Object struct {
	keys []string
	vals []Value
}

// Set sets key to v; a key set again keeps its first place (ObjectNode.set replaces in place).
func (o *Object) Set(key string, v Value) *Object {
	for i, k := range o.keys {
		if k == key {
			o.vals[i] = v
			return o
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	return o
}

// Get is the value of key, or nil.
func (o *Object) Get(key string) Value {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i]
		}
	}
	return nil
}

// Keys are the object's keys in order.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// Array is Jackson's ArrayNode.
type Array []Value

// String is a TextNode. Text that is not valid UTF-8 is printed with U+FFFD in place of
// each invalid byte (Java decodes a string's bytes with replacement).
type String string

// Int is any integer node (ShortNode, IntNode, LongNode): Jackson prints each in decimal.
type Int int64

// Float is a DoubleNode (a float64 field).
type Float float64

// Bool is a BooleanNode.
type Bool bool

// Bytes is a BinaryNode: Jackson prints it as a base64 string (Base64Variants.MIME_NO_LINEFEEDS:
// the standard alphabet with padding, no line feeds).
type Bytes []byte

// Null is NullNode.
type Null struct{}

// JSON is v as Jackson's JsonNode.toString prints it: no spaces, keys in order.
func JSON(v Value) string {
	var b strings.Builder
	v.writeJSON(&b)
	return b.String()
}

func (o *Object) writeJSON(b *strings.Builder) {
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		o.vals[i].writeJSON(b)
	}
	b.WriteByte('}')
}

func (a Array) writeJSON(b *strings.Builder) {
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		v.writeJSON(b)
	}
	b.WriteByte(']')
}

func (s String) writeJSON(b *strings.Builder) { writeJSONString(b, string(s)) }
func (n Int) writeJSON(b *strings.Builder)    { b.WriteString(strconv.FormatInt(int64(n), 10)) }
func (f Float) writeJSON(b *strings.Builder) {
	d := float64(f)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		// Jackson's WRITE_NAN_AS_STRINGS (on by default) quotes what JSON has no number for.
		writeJSONString(b, JavaDouble(d))
		return
	}
	b.WriteString(JavaDouble(d))
}
func (v Bool) writeJSON(b *strings.Builder) { b.WriteString(strconv.FormatBool(bool(v))) }
func (v Bytes) writeJSON(b *strings.Builder) {
	b.WriteByte('"')
	b.WriteString(base64.StdEncoding.EncodeToString(v))
	b.WriteByte('"')
}
func (Null) writeJSON(b *strings.Builder) { b.WriteString("null") }

// writeJSONString writes s quoted as Jackson does: '"' and '\\' escaped, the control
// characters below 0x20 as \b \t \n \f \r or \u00XX (upper-case hex, CharTypes'
// HEX_CHARS), everything else, non-ASCII included, as itself.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r < 0x20:
			switch r {
			case '\b':
				b.WriteString(`\b`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			case '\f':
				b.WriteString(`\f`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xF])
			}
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	b.WriteByte('"')
}

// JavaDouble is d as Java's Double.toString prints it: "NaN", "Infinity", "-0.0"; plain
// decimal with at least one fraction digit for 1e-3 <= |d| < 1e7 ("100.0", "0.001");
// otherwise computerized scientific notation ("1.0E7", "1.5E-5"). The digits are the
// shortest that read back as d (Java 19 and later, JDK-4511638; older JDKs print a few
// values with one digit more).
func JavaDouble(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	// Shortest digits and the decimal exponent: d = 0.DIGITS × 10^exp10.
	e := strconv.FormatFloat(d, 'e', -1, 64) // "d.dddde±XX"
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if d >= 1e-3 && d < 1e7 {
		var s string
		switch {
		case exp < 0:
			s = "0." + strings.Repeat("0", -exp-1) + digits
		case len(digits) <= exp+1:
			s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		default:
			s = digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + s
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
