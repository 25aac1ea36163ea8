package codec_test

import (
	"bytes"
	"compress/gzip"
	"fmt"

	"kidx/codec"
)

// A gzip payload (here made with the standard library) decompressed as a Kafka reader
// would, with a 1 MiB bound on the output.
func ExampleDecompress() {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte("records section"))
	w.Close()
	out, err := codec.Decompress(codec.Gzip, 2, b.Bytes(), 1<<20)
	fmt.Println(string(out), err)
	_, err = codec.Decompress(codec.Gzip, 2, b.Bytes(), 4)
	fmt.Println(err)
	// Output:
	// records section <nil>
	// gzip: decompressed output (at least 15 bytes) exceeds the limit of 4 bytes (decompression bomb?)
}
