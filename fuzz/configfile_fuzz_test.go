package fuzz

import (
	"reflect"
	"strings"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/model"
)

// FuzzConfigFile: arbitrary bytes as a --config-file (model.ParseConfigFile: a Java properties
// file, or kafka-configs.sh --describe output). Checked: no panic, allocation linear in the
// input, and the settings of an accepted file, written back in the same format (properties
// with Properties.store-style escapes, or describe lines), parse to the same settings and
// entity. Applying them to a config never panics.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"log.segment.bytes=65536\nlog.index.interval.bytes : 4096\n# c\n! c\nlog.roll.hours 1\n",
		"segment.bytes=6553\\\n    6\nsegment.\\u0062ytes=1\nbroker.id=1\n",
		"All configs for topic t are:\n  segment.bytes=65536 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=65536, DEFAULT_CONFIG:log.segment.bytes=1073741824}\n  log.roll.ms=null sensitive=false synonyms={}\n",
		"Dynamic configs for broker 1 are:\n  log.roll.hours=2 sensitive=false synonyms={}\n",
		"All configs for topic a are:\nAll configs for topic b are:\n", "a=\\u12", "\\", "=", ":", "\r\n\r", "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cf model.ConfigFile
		var err error
		parsecheck.CheckAllocN(t, parsecheck.SampleOf(data, 0).Alloc, "model.ParseConfigFile", len(data), parsecheck.JSONAllocFactor, func() { cf, err = model.ParseConfigFile(data) })
		if err != nil {
			return
		}
		var out strings.Builder
		switch cf.Format {
		case "properties":
			for _, s := range cf.Settings {
				out.WriteString(escapeProperty(s.Name, true) + "=" + escapeProperty(s.Value, false) + "\n")
			}
		case "kafka-configs":
			out.WriteString("All configs for " + cf.Entity + " are:\n")
			for _, s := range cf.Settings {
				if strings.ContainsAny(s.Value, "\n\r") || strings.TrimSpace(s.Name+"="+s.Value) != s.Name+"="+s.Value {
					return // not a line ConfigCommand prints
				}
				out.WriteString("  " + s.Name + "=" + s.Value + " sensitive=false synonyms={}\n")
			}
		default:
			t.Fatalf("format %q", cf.Format)
		}
		back, err := model.ParseConfigFile([]byte(out.String()))
		if err != nil {
			t.Fatalf("%q written back as %q does not parse: %v", data, out.String(), err)
		}
		if back.Entity != cf.Entity || len(back.Settings) != len(cf.Settings) || len(cf.Settings) > 0 && !reflect.DeepEqual(back.Settings, cf.Settings) {
			t.Fatalf("%q: round trip changed %q %+v into %q %+v", data, cf.Entity, cf.Settings, back.Entity, back.Settings)
		}
		c := model.DefaultConfig()
		_, _ = c.ApplySettings(cf.Settings)
	})
}

// escapeProperty escapes a key or value so that Properties.load reads it back: a backslash
// before each separator or white space of a key, before a value's leading white space, before
// backslashes, "#" and "!"; line breaks as \n and \r.
func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\\' || c == '#' || c == '!':
			b.WriteByte('\\')
			b.WriteByte(c)
		case strings.IndexByte("=: \t\f", c) >= 0 && (key || (i == 0 && c != '=' && c != ':')):
			b.WriteByte('\\')
			b.WriteByte(c)
		case !key && i == 0 && (c == '=' || c == ':'):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
