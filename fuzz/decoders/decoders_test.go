package decoders

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"kidx/dump"
	"kidx/fuzz/internal/parsecheck"
)

// TestMain removes the scratch directory of the inputs when the process ends.
func TestMain(m *testing.M) {
	code := m.Run()
	parsecheck.RemoveScratch()
	os.Exit(code)
}

// record is one v2 record (DefaultRecord) with the key and value given (nil: null).
func record(delta int64, key, value []byte) []byte {
	b := []byte{0, 0}
	b = binary.AppendVarint(b, delta)
	for _, kv := range [][]byte{key, value} {
		if kv == nil {
			b = binary.AppendVarint(b, -1)
			continue
		}
		b = binary.AppendVarint(b, int64(len(kv)))
		b = append(b, kv...)
	}
	b = binary.AppendVarint(b, 0)
	return append(binary.AppendVarint(nil, int64(len(b))), b...)
}

// FuzzDumpDecoders: a key and a value (a leading byte says which is null) as one record of a
// .log dumped with each decoder in each release's printed form, text and JSON. Checked: no
// panic; the dump either ends with the record's line or stops with an error naming its offset
// (a text era's parser that throws in Kafka); the JSON is one valid document whose
// keyJson/payloadJson, when present, are JSON.
func FuzzDumpDecoders(f *testing.F) {
	for _, s := range [][2]string{
		{"000100016700017400000000", "000300000000000000230000ffffffff00000000016b6452fa07"}, // offset commit v3
		{"000200016700", "0004000008636f6e73756d6572000000020005"},                           // group metadata, cut short
		{"00000008646566617566745f", "0001000000000000000000000000ea6001ffffffff"},           // transaction log v1
		{"7fff", "0000"}, // unknown record type
		{"", "010c00116d657461646174612e76657273696f6e001400"}, // FEATURE_LEVEL_RECORD
		{"", "904e904e"}, // no metadata record
		{"00020003677270", "000300086a6f6e73756d6572000000010000ffffffff000000000000000100000000"}, // a member whose bytes are no consumer protocol
	} {
		f.Add(byte(0), parsecheck.MustUnhex(f, s[0]), parsecheck.MustUnhex(f, s[1]))
	}
	f.Fuzz(func(t *testing.T, nulls byte, key, value []byte) {
		if nulls&1 != 0 {
			key = nil
		}
		if nulls&2 != 0 {
			value = nil
		}
		path := parsecheck.WriteScratch(t, "decoders", "00000000000000000000.log",
			parsecheck.SeedV2Batch(0, 0, 1, record(0, key, value)))
		for _, dec := range []dump.Decoder{dump.DecodeOffsets, dump.DecodeTransactionLog, dump.DecodeClusterMetadata, dump.DecodeShareGroupState} {
			for _, era := range []dump.DecoderEra{dump.EraCoordinatorJSON, dump.Era40, dump.EraText} {
				var out, errb bytes.Buffer
				err := dump.File(&out, path, dump.Options{Decoder: dec, DecoderEra: era, Stderr: &errb})
				text := out.String()
				switch {
				case err == nil && !strings.Contains(text, "\n| offset: 0 "):
					t.Fatalf("%s %s: no record line:\n%s", dec, era, text)
				case err != nil && !strings.Contains(err.Error(), "record at offset 0: "):
					t.Fatalf("%s %s: %v", dec, era, err)
				}
				out.Reset()
				jerr := dump.File(&out, path, dump.Options{JSON: true, Decoder: dec, DecoderEra: era})
				if (jerr == nil) != (err == nil) {
					t.Fatalf("%s %s: text %v, JSON %v", dec, era, err, jerr)
				}
				var res struct {
					Batches []struct {
						Records []struct {
							KeyJSON, PayloadJSON json.RawMessage
						}
					}
				}
				if e := json.Unmarshal(out.Bytes(), &res); e != nil {
					t.Fatalf("%s %s: not JSON: %v\n%s", dec, era, e, out.String())
				}
			}
		}
	})
}
