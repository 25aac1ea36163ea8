package codec_test

import (
	"bytes"
	"testing"

	"kidx/codec"
)

// Real Kafka 0.8 data (asayers/kafkalite's fixtures, /work/shared/realdata/kafkalite): the
// same 5382 v0 messages of Hamlet written three times by a broker, as 22 gzip wrappers, as
// 22 snappy (xerial) wrappers, and uncompressed. A magic-0 wrapper's value holds the inner
// entries (offset, size, message) exactly as an uncompressed log holds them, with absolute
// offsets (AbstractLegacyRecordBatch's deep iterator), so the decompressed values of all
// wrappers, concatenated, must be byte for byte the uncompressed log: the expected bytes
// are Kafka's own file, not this package's output.
func TestRealKafka08WrappersDecompressToTheUncompressedLog(t *testing.T) {
	none := legacyEntries(t, realdata(t, "kafkalite/hamlet-none-0/00000000000000000000.log"))
	var want []byte
	for _, m := range none {
		want = append(want, m.Entry...)
	}
	if len(none) != 5382 || len(want) != 309516 {
		t.Fatalf("hamlet-none-0: %d messages, %d bytes; the fixture says 5382 messages in 309516 bytes", len(none), len(want))
	}
	for _, c := range []struct {
		dir   string
		codec codec.Codec
	}{{"kafkalite/hamlet-gzip-0", codec.Gzip}, {"kafkalite/hamlet-snappy-0", codec.Snappy}} {
		wrappers := legacyEntries(t, realdata(t, c.dir+"/00000000000000000000.log"))
		if len(wrappers) != 22 {
			t.Fatalf("%s: %d wrappers, the fixture has 22", c.dir, len(wrappers))
		}
		var got []byte
		for i, w := range wrappers {
			if w.Magic != 0 || codec.Codec(w.Attr&7) != c.codec {
				t.Fatalf("%s wrapper %d: magic %d attributes %d", c.dir, i, w.Magic, w.Attr)
			}
			out, err := codec.Decompress(c.codec, 0, w.Value, 0)
			if err != nil {
				t.Fatalf("%s wrapper %d (offset %d): %v", c.dir, i, w.Offset, err)
			}
			// A prefix decode sees the first inner offset without decoding the rest.
			p, err := codec.DecompressPrefix(c.codec, 0, w.Value, 12)
			if err != nil || !bytes.Equal(p, out[:12]) {
				t.Fatalf("%s wrapper %d: prefix %x %v", c.dir, i, p, err)
			}
			got = append(got, out...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d decompressed bytes differ from the %d bytes of hamlet-none-0", c.dir, len(got), len(want))
		}
	}
}
