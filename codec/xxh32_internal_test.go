package codec

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// XXH32 (xxHash's specification): XXH32 of the empty input with seed 0 is 0x02CC5D05, the
// value the reference implementation's sanity check publishes. Every other length up to 100
// (all the stripe and tail paths) is checked against pierrec/lz4's XXH32: the block checksum
// it writes for a stored block (BlockChecksumOption; random bytes are incompressible).
func TestXXH32(t *testing.T) {
	if got := xxh32(nil); got != 0x02CC5D05 {
		t.Fatalf("XXH32(\"\") = %#08x, want 0x02cc5d05", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	compared := 0
	for n := 1; n <= 100; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		var out bytes.Buffer
		w := lz4.NewWriter(&out)
		if err := w.Apply(lz4.BlockChecksumOption(true), lz4.ChecksumOption(false), lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		w.Close()
		f := out.Bytes()
		size := binary.LittleEndian.Uint32(f[7:])
		if size&0x80000000 == 0 {
			continue // compressed after all: no stored bytes to compare
		}
		if want := binary.LittleEndian.Uint32(f[11+n:]); xxh32(b) != want {
			t.Fatalf("%d bytes: %#08x, pierrec %#08x", n, xxh32(b), want)
		}
		compared++
	}
	if compared < 90 {
		t.Fatalf("only %d lengths compared", compared)
	}
}
