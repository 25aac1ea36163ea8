package segment

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// fileBytes is a read-only view of a whole file: an mmap (PROT_READ,
// MAP_SHARED, so nothing can be written through it) when the file is not
// empty, else an empty slice. Kafka maps its indexes the same way.
type fileBytes struct {
	data   []byte
	mapped bool
}

// maxInMemory bounds the fallback copy when mmap is unavailable.
const maxInMemory = 64 << 20

func mapFile(f *os.File, size int64) (fileBytes, error) {
	if size == 0 {
		return fileBytes{}, nil
	}
	if size > 1<<40 {
		return fileBytes{}, fmt.Errorf("%s: file of %d bytes is too large to map", f.Name(), size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err == nil {
		return fileBytes{data: data, mapped: true}, nil
	}
	if size > maxInMemory {
		return fileBytes{}, fmt.Errorf("%s: mmap failed (%v) and the file is too large to read into memory", f.Name(), err)
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), buf); err != nil {
		return fileBytes{}, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return fileBytes{data: buf}, nil
}

func (b *fileBytes) unmap() error {
	if b.mapped {
		b.mapped = false
		d := b.data
		b.data = nil
		return syscall.Munmap(d)
	}
	b.data = nil
	return nil
}

// openReadOnly is the only way readers open files: O_RDONLY, no O_CREAT,
// no locks.
func openReadOnly(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: not a regular file", path)
	}
	return f, st.Size(), nil
}
