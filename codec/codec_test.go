package codec_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"kidx/codec"
)

// CompressionType (clients/.../record/CompressionType.java): NONE(0, "none"), GZIP(1,
// "gzip"), SNAPPY(2, "snappy"), LZ4(3, "lz4"), ZSTD(4, "zstd"); String is its name.
func TestCodecIDsAndNamesAreCompressionTypes(t *testing.T) {
	want := map[codec.Codec]string{0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
	for c, name := range want {
		if c.String() != name || !c.Known() {
			t.Errorf("codec %d: %q known=%v, want %q", int8(c), c.String(), c.Known(), name)
		}
	}
	if codec.None != 0 || codec.Gzip != 1 || codec.Snappy != 2 || codec.LZ4 != 3 || codec.Zstd != 4 {
		t.Fatal("constants are not CompressionType ids")
	}
	if codec.Codec(5).Known() || codec.Codec(5).String() != "unknown(5)" {
		t.Errorf("id 5: %q", codec.Codec(5))
	}
}

// CompressionType.forId: an id outside 0-4 is "Unknown compression type id: N".
func TestUnknownCodecIsAnError(t *testing.T) {
	for _, c := range []codec.Codec{5, 6, 7, -1} {
		_, err := codec.Decompress(c, 2, []byte{1, 2, 3}, 0)
		var ce *codec.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "Unknown compression type id") {
			t.Errorf("codec %d: %v", int8(c), err)
		}
	}
}

// none: the payload is the records themselves; the limit still applies.
func TestNoneIsIdentity(t *testing.T) {
	src := []byte("abc")
	out, err := codec.Decompress(codec.None, 2, src, 0)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("%q %v", out, err)
	}
	var le *codec.LimitError
	if _, err := codec.Decompress(codec.None, 2, src, 2); !errors.As(err, &le) {
		t.Fatalf("3 bytes with limit 2: %v", err)
	}
}

// Round trips through franz-go's producer compressor, the bytes a real Go Kafka client
// writes, at sizes around the codecs' block sizes (xerial 32 KiB chunks, lz4 64 KiB/4 MiB
// blocks) and for every magic (lz4's header checksum is checked for magic >= 1).
func TestRoundTripFranzGoCompressor(t *testing.T) {
	for _, c := range compressed {
		for _, n := range []int{0, 1, 100, 32 << 10, 32<<10 + 1, 100 << 10, 1 << 20, 5 << 20} {
			src := recordData(n)
			comp := franzCompress(t, c, src)
			for _, magic := range []int8{0, 1, 2} {
				if c == codec.Zstd && magic < 2 {
					continue // Kafka never wraps zstd in a legacy message
				}
				got, err := codec.Decompress(c, magic, comp, 0)
				if err != nil {
					t.Fatalf("%s magic %d, %d bytes: %v", c, magic, n, err)
				}
				if !bytes.Equal(got, src) {
					t.Fatalf("%s magic %d, %d bytes: got %d different bytes", c, magic, n, len(got))
				}
			}
			// The limit is inclusive: n bytes fit a limit of n, not one of n-1 (a limit of
			// 0 means DefaultLimit).
			if n > 1 {
				if _, err := codec.Decompress(c, 2, comp, int64(n)); err != nil {
					t.Fatalf("%s: %d bytes under limit %d: %v", c, n, n, err)
				}
				var le *codec.LimitError
				if _, err := codec.Decompress(c, 2, comp, int64(n-1)); !errors.As(err, &le) {
					t.Fatalf("%s: %d bytes under limit %d: %v, want a LimitError", c, n, n-1, err)
				}
			}
		}
	}
}

// DecompressPrefix returns the first n bytes of what Decompress returns.
func TestDecompressPrefix(t *testing.T) {
	src := recordData(300 << 10)
	for _, c := range compressed {
		comp := franzCompress(t, c, src)
		for _, n := range []int{1, 12, 26, 70 << 10, 400 << 10} {
			got, err := codec.DecompressPrefix(c, 1, comp, n)
			if err != nil || !bytes.Equal(got, src[:min(n, len(src))]) {
				t.Fatalf("%s prefix %d: %d bytes, %v", c, n, len(got), err)
			}
		}
	}
}

// Errors name the codec and never panic on any truncation or bit flip of real payloads.
func TestCorruptPayloadsAreErrorsNotPanics(t *testing.T) {
	src := recordData(70 << 10)
	for _, c := range compressed {
		comp := franzCompress(t, c, src)
		for cut := 0; cut < len(comp); cut += 1 + cut/8 {
			if _, err := codec.Decompress(c, 1, comp[:cut], 1<<20); err != nil && !strings.HasPrefix(err.Error(), c.String()+": ") {
				t.Fatalf("%s cut at %d: error %q does not name the codec", c, cut, err)
			}
		}
		for i := 0; i < len(comp); i += 1 + i/4 {
			flip := bytes.Clone(comp)
			flip[i] ^= 0x5a
			_, _ = codec.Decompress(c, 0, flip, 1<<20)
		}
	}
}
