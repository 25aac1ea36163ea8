package codec

import (
	"encoding/binary"
	"math/bits"
)

// XXH32 primes (xxHash specification, "xxh32 algorithm description").
const (
	prime32x1 uint32 = 2654435761
	prime32x2 uint32 = 2246822519
	prime32x3 uint32 = 3266489917
	prime32x4 uint32 = 668265263
	prime32x5 uint32 = 374761393
)

// xxh32 is XXH32(b, seed 0), the hash the LZ4 frame format uses for the
// descriptor checksum (its second byte) and for block checksums. No library
// in the module graph exports it (pierrec/lz4 keeps its copy internal), and
// only 2..11-byte descriptors and block checksums need it here.
func xxh32(b []byte) uint32 {
	n := uint32(len(b))
	var h uint32
	if len(b) >= 16 {
		p1, p2 := prime32x1, prime32x2 // variables: the seeds wrap mod 2^32
		v1 := p1 + p2
		v2 := p2
		v3 := uint32(0)
		v4 := -p1
		for len(b) >= 16 {
			v1 = xxh32Round(v1, binary.LittleEndian.Uint32(b))
			v2 = xxh32Round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = xxh32Round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = xxh32Round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = prime32x5
	}
	h += n
	for len(b) >= 4 {
		h += binary.LittleEndian.Uint32(b) * prime32x3
		h = bits.RotateLeft32(h, 17) * prime32x4
		b = b[4:]
	}
	for _, c := range b {
		h += uint32(c) * prime32x5
		h = bits.RotateLeft32(h, 11) * prime32x1
	}
	h ^= h >> 15
	h *= prime32x2
	h ^= h >> 13
	h *= prime32x3
	h ^= h >> 16
	return h
}

func xxh32Round(acc, in uint32) uint32 {
	acc += in * prime32x2
	return bits.RotateLeft32(acc, 13) * prime32x1
}
