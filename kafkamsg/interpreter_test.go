package kafkamsg

import (
	"strings"
	"testing"
)

// member is VersionConditional's compiled test. Each case is worked out from
// VersionConditional.generate: how possible (the versions the code can run at) sits against
// containing decides between a range check, one bound, or a constant.
func TestMemberIsVersionConditional(t *testing.T) {
	all := versionRange{0, 32767}
	for _, c := range []struct {
		name                 string
		containing, possible versionRange
		version              int16
		want                 bool
	}{
		{"lower bound only (3+ within 0-5): 2", versionRange{3, 32767}, versionRange{0, 5}, 2, false},
		{"lower bound only: 3", versionRange{3, 32767}, versionRange{0, 5}, 3, true},
		{"lower bound only: 9, outside possible, still member", versionRange{3, 32767}, versionRange{0, 5}, 9, true},
		{"upper bound only (0-1 within 0-3): 7", versionRange{0, 1}, versionRange{0, 3}, 7, false},
		{"upper bound only: 0", versionRange{0, 1}, versionRange{0, 3}, 0, true},
		{"full range (1-2 within 0-4): 3", versionRange{1, 2}, versionRange{0, 4}, 3, false},
		{"full range: 1", versionRange{1, 2}, versionRange{0, 4}, 1, true},
		{"always true (0+ over 0): 5", all, versionRange{0, 0}, 5, true},
		{"never (none)", noVersions, versionRange{0, 3}, 1, false},
		{"always false (5+ above 0-3): 7, though 7 is in 5+", versionRange{5, 32767}, versionRange{0, 3}, 7, false},
	} {
		if got := member(c.containing, c.possible, c.version); got != c.want {
			t.Errorf("%s: member = %v, want %v", c.name, got, c.want)
		}
	}
}

// The generator's golden table (internal/gen/testdata/widget_gen.golden), copied here so the
// interpreter's paths that Kafka's own definitions use rarely are read by hand-built bytes:
// a string kept non-compact in flexible versions, a nullable struct, zero-copy bytes, a field
// tagged in some versions and not in others.
var stWidgetPart = structDef{name: "Part", versions: versionRange{0, 32767}, parent: versionRange{0, 2}, messageFlexible: versionRange{1, 32767}, fields: []fieldDef{
	{name: "name", kind: kindString, versions: versionRange{0, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1},
	{name: "sizes", kind: kindArray, elem: kindInt16, versions: versionRange{1, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1},
}}

var stWidgetPerson = structDef{name: "Person", versions: versionRange{1, 32767}, parent: versionRange{1, 32767}, messageFlexible: versionRange{1, 32767}, fields: []fieldDef{
	{name: "nick", kind: kindString, versions: versionRange{1, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, def: fieldDefault{s: "anon"}},
	{name: "blob", kind: kindBytes, versions: versionRange{1, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, zeroCopy: true},
}}

var stWidget = structDef{name: "WidgetRecord", versions: versionRange{0, 2}, parent: versionRange{0, 2}, messageFlexible: versionRange{1, 32767}, fields: []fieldDef{
	{name: "id", kind: kindInt32, versions: versionRange{0, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, def: fieldDefault{i: 127}},
	{name: "label", kind: kindString, versions: versionRange{0, 32767}, nullable: versionRange{1, 32767}, tagged: noVersions, flexible: noVersions, tag: -1},
	{name: "weight", kind: kindFloat64, versions: versionRange{2, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, def: fieldDefault{f: -1.5}},
	{name: "parts", kind: kindArray, elem: kindStruct, strct: &stWidgetPart, versions: versionRange{0, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1},
	{name: "owner", kind: kindStruct, strct: &stWidgetPerson, versions: versionRange{1, 32767}, nullable: versionRange{1, 32767}, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, def: fieldDefault{isNull: true}},
	{name: "token", kind: kindUUID, versions: versionRange{1, 32767}, nullable: noVersions, tagged: versionRange{1, 32767}, flexible: versionRange{1, 32767}, tag: 0},
	{name: "flags", kind: kindArray, elem: kindString, versions: versionRange{1, 32767}, nullable: noVersions, tagged: versionRange{2, 32767}, flexible: versionRange{1, 32767}, tag: 1},
	{name: "enabled", kind: kindBool, versions: versionRange{0, 32767}, nullable: noVersions, tagged: noVersions, flexible: versionRange{1, 32767}, tag: -1, def: fieldDefault{b: true}},
}}

func widgetJSON(t *testing.T, version int16, body []byte) (string, error) {
	t.Helper()
	r := &reader{buf: body}
	sv := readStruct(r, &stWidget, version)
	if r.err != nil {
		return "", r.err
	}
	if r.remaining() != 0 {
		t.Fatalf("%d bytes left", r.remaining())
	}
	obj, err := writeStruct(sv, version)
	if err != nil {
		return "", err
	}
	return JSON(obj), nil
}

func TestInterpreterOnTheWidget(t *testing.T) {
	ff := strings.Repeat("_", 21) + "w"                           // 16 bytes of 0xff in base64url: "____" x 5, then "_w"
	v2 := bb{}.i32(1).str("x").raw(0x40, 0x04, 0, 0, 0, 0, 0, 0). // id, label (int16 length: flexibleVersions none), weight 2.5
									uv(2).cstr("p").uv(2).i16(5).uv(0).                       // parts [{p, [5]}]
									i8(1).cstr("n").uv(3).raw(0xaa, 0xbb).uv(0).              // owner present: nick, blob (aa bb -> "qrs=")
									i8(1).                                                    // enabled
									uv(2).uv(0).uv(16).uuid(0xff).uv(1).uv(3).uv(2).cstr("f") // token; flags ["f"] (tagged from 2)
	want2 := `{"id":1,"label":"x","weight":2.5,"parts":[{"name":"p","sizes":[5]}],"owner":{"nick":"n","blob":"qrs="},"token":"` + ff + `","flags":["f"],"enabled":true}`
	for _, c := range []struct {
		name    string
		version int16
		body    []byte
		want    string
	}{
		{"v2", 2, v2, want2},
		// v0: not flexible (int32 array length, int16 strings, no tagged section); weight,
		// owner, token and flags are absent and not written.
		{"v0", 0, bb{}.i32(1).str("x").i32(1).str("p").i8(0), `{"id":1,"label":"x","parts":[{"name":"p"}],"enabled":false}`},
		// v1: label null (int16 -1, nullable from 1), owner null (byte -1), flags untagged.
		{"v1", 1, bb{}.i32(1).i16(-1).uv(1).i8(-1).uv(1).i8(1).uv(0), `{"id":1,"label":null,"parts":[],"owner":null,"flags":[],"enabled":true}`},
	} {
		got, err := widgetJSON(t, c.version, c.body)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// Version 3 is outside validVersions 0-2. The message's class reads it as version 2
	// (weight's compiled test is "_version >= 2"; flags is untagged only where "_version == 1"),
	// but Part's class was generated for versions 0-2 with versions 0+, so its read starts with
	// "if (_version > 2) throw": a v3 widget with parts is refused, one without reads.
	if _, err := widgetJSON(t, 3, v2); err == nil || err.Error() != "Can't read version 3 of Part" {
		t.Errorf("v3 with parts: %v", err)
	}
	v3 := bb{}.i32(1).str("x").raw(0x40, 0x04, 0, 0, 0, 0, 0, 0).uv(1).i8(-1).i8(1).uv(0)
	if got, err := widgetJSON(t, 3, v3); err != nil || got != `{"id":1,"label":"x","weight":2.5,"parts":[],"owner":null,"enabled":true}` {
		t.Errorf("v3 without parts: %s %v", got, err)
	}
	// v0's label is not nullable.
	if _, err := widgetJSON(t, 0, bb{}.i32(1).i16(-1)); err == nil || err.Error() != "non-nullable field label was serialized as null" {
		t.Errorf("v0 null label: %v", err)
	}
	// A tagged field at its default is not written: token all zero (Uuid.ZERO_UUID).
	got, err := widgetJSON(t, 2, bb{}.i32(1).str("").raw(0, 0, 0, 0, 0, 0, 0, 0).uv(1).i8(-1).i8(0).uv(1).uv(0).uv(16).uuid(0))
	if err != nil || got != `{"id":1,"label":"","weight":0.0,"parts":[],"owner":null,"enabled":false}` {
		t.Errorf("zero token: %s %v", got, err)
	}
}
