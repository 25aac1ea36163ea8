package model

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ConfigFile is what ParseConfigFile read from an operator's config file.
type ConfigFile struct {
	// Format is "properties" (a server.properties, or any Java properties file of configs,
	// as kafka-configs.sh --add-config-file takes) or "kafka-configs" (the output of
	// kafka-configs.sh --describe, with or without --all).
	Format string
	// Entity is the describe header's entity ("topic t", "broker 1"); "" for properties.
	Entity string
	// Settings are the names the model knows (KnownConfigName), in file order.
	Settings []ConfigSetting
	// Ignored are the other names, in file order: a broker's or topic's whole config holds
	// many that do not shape the index.
	Ignored []string
}

// maxConfigFileBytes bounds what ParseConfigFile reads: a broker's whole config is a few KiB.
const maxConfigFileBytes = 16 << 20

// ParseConfigFile reads a Java properties file or the output of kafka-configs.sh --describe.
// The second is recognised by its header line, "All configs for topic t are:" (--all) or
// "Dynamic configs for broker 1 are:", under which each config is a line
// "  name=value sensitive=false synonyms={SOURCE:name=value, ...}"; the value is what the
// entity uses, and "null" (a config with no value, or a sensitive one) sets nothing. Only one
// entity may be described.
func ParseConfigFile(data []byte) (ConfigFile, error) {
	if len(data) > maxConfigFileBytes {
		return ConfigFile{}, fmt.Errorf("%d bytes: more than a config file holds (at most %d)", len(data), maxConfigFileBytes)
	}
	if !utf8.Valid(data) {
		return ConfigFile{}, fmt.Errorf("not UTF-8 text")
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		if _, ok := describeHeader(l); ok {
			return parseDescribe(lines)
		}
	}
	return parseProperties(lines)
}

// describeHeader recognises ConfigCommand's header line, "<Kind> configs for <entity> are:",
// and returns the entity.
func describeHeader(line string) (string, bool) {
	l := strings.TrimSpace(line)
	_, rest, ok := strings.Cut(l, " configs for ")
	if !ok || !strings.HasSuffix(rest, " are:") || strings.Contains(l, "=") {
		return "", false
	}
	return strings.TrimSuffix(rest, " are:"), true
}

func parseDescribe(lines []string) (ConfigFile, error) {
	cf := ConfigFile{Format: "kafka-configs"}
	headers := 0
	for i, line := range lines {
		if e, ok := describeHeader(line); ok {
			headers++
			if headers > 1 {
				return cf, fmt.Errorf("line %d: a second entity (%s after %s): describe one topic or broker per file", i+1, e, cf.Entity)
			}
			cf.Entity = e
			continue
		}
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if headers == 0 {
			return cf, fmt.Errorf("line %d: %q before the \"configs for ... are:\" header", i+1, clip(l))
		}
		name, rest, ok := strings.Cut(l, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return cf, fmt.Errorf("line %d: %q is not a kafka-configs.sh line (name=value sensitive=... synonyms={...})", i+1, clip(l))
		}
		// ConfigCommand prints "name=value sensitive=B synonyms={...}": the value ends at the
		// last " sensitive=" (a value may hold spaces; the synonyms hold "=").
		value := rest
		if j := strings.LastIndex(rest, " sensitive="); j >= 0 {
			value = rest[:j]
		}
		cf.add(name, value, value == "null")
	}
	if headers == 0 {
		return cf, fmt.Errorf("no \"configs for ... are:\" header")
	}
	return cf, nil
}

// add records one name=value; skip drops a known name's value (describe's "null").
func (cf *ConfigFile) add(name, value string, skip bool) {
	switch {
	case !KnownConfigName(name):
		cf.Ignored = append(cf.Ignored, name)
	case !skip:
		cf.Settings = append(cf.Settings, ConfigSetting{Name: name, Value: value})
	}
}

// parseProperties reads java.util.Properties' line format (Properties.load): "#" and "!"
// start comment lines; a key ends at the first unescaped "=", ":" or white space, after
// which white space and one "=" or ":" are skipped; a line ending in an odd number of
// backslashes continues on the next, whose leading white space is dropped; \uXXXX, \t, \n,
// \r, \f are escapes and any other escaped character stands for itself.
func parseProperties(lines []string) (ConfigFile, error) {
	cf := ConfigFile{Format: "properties"}
	for i := 0; i < len(lines); i++ {
		first := i + 1
		l := strings.TrimLeft(lines[i], " \t\f")
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		if continues(l) {
			// A builder, not repeated concatenation: a chain of continued lines stays linear.
			var b strings.Builder
			b.WriteString(l[:len(l)-1])
			for i+1 < len(lines) {
				i++
				next := strings.TrimLeft(lines[i], " \t\f")
				if !continues(next) {
					b.WriteString(next)
					break
				}
				b.WriteString(next[:len(next)-1])
			}
			l = b.String()
		}
		key, value, err := splitProperty(l)
		if err != nil {
			return cf, fmt.Errorf("line %d: %v", first, err)
		}
		cf.add(key, value, false)
	}
	return cf, nil
}

// continues reports a line ending in an odd number of backslashes.
func continues(l string) bool {
	n := 0
	for n < len(l) && l[len(l)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

func splitProperty(l string) (key, value string, err error) {
	end := len(l)
	for j := 0; j < len(l); j++ {
		if l[j] == '\\' {
			j++
			continue
		}
		if strings.IndexByte("=: \t\f", l[j]) >= 0 {
			end = j
			break
		}
	}
	rest := strings.TrimLeft(l[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescapeProperty(l[:end]); err != nil {
		return "", "", err
	}
	if value, err = unescapeProperty(rest); err != nil {
		return "", "", err
	}
	return key, value, nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		if s[j] != '\\' || j+1 == len(s) {
			b.WriteByte(s[j])
			continue
		}
		j++
		switch s[j] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if j+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape")
			}
			v, err := strconv.ParseUint(s[j+1:j+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx escape %q", s[j-1:j+5])
			}
			b.WriteRune(rune(v))
			j += 4
		default:
			b.WriteByte(s[j])
		}
	}
	return b.String(), nil
}

// clip shortens a quoted line to 60 characters.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "..."
	}
	return s
}
