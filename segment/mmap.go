package segment

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
)

// fileBytes is a read-only view of a whole file: an mmap (PROT_READ,
// MAP_SHARED, so nothing can be written through it) when the file is not
// empty, else an empty slice. Only .log files are mapped, and mapped bytes are
// only touched under guardFault (copyMapped, updateCRCMapped, prefetch): a
// broker may truncate the file under us (follower truncation, recovery), which
// turns a read of the lost pages into SIGBUS.
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

// copyMapped copies b.data[pos:pos+len(dst)] into dst.
func (b *fileBytes) copyMapped(dst []byte, pos int64, path string) error {
	return guardFault(path, pos, func() { copy(dst, b.data[pos:pos+int64(len(dst))]) })
}

// updateCRCMapped folds b.data[pos:pos+n] into the running CRC c without
// copying it out of the mapping.
func (b *fileBytes) updateCRCMapped(c uint32, table *crc32.Table, pos int64, n int, path string) (uint32, error) {
	err := guardFault(path, pos, func() { c = crc32.Update(c, table, b.data[pos:pos+int64(n)]) })
	return c, err
}

// guardFault runs touch, which reads mapped memory. A memory fault (the file
// shrank while mapped) becomes an error naming the file and position instead
// of a crash: runtime/debug.SetPanicOnFault exists for this case.
func guardFault(path string, pos int64, touch func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				err = formatErr(path, pos, "the file shrank while it was being read (truncated by another process?)")
				return
			}
			panic(r)
		}
	}()
	touch()
	return nil
}

// fileRegion is a byte range of a file that holds data (not a hole).
type fileRegion struct{ off, len int64 }

// Linux lseek whence values (not in package syscall).
const (
	seekData = 3
	seekHole = 4
)

// readSparse reads an (index) file into memory, reading only its data regions: a broker
// preallocates an index with RandomAccessFile.setLength, which leaves a sparse file, and the
// holes read as zeros without being read (lseek SEEK_DATA/SEEK_HOLE). Index files are small
// (segment.index.bytes, 10 MiB by default) and reading them avoids mapping files a broker
// resizes on every roll. Where the filesystem cannot report holes, the whole file is read.
// The bytes returned end sparsePad bytes after the last data region (or at length, the bytes
// the file held): the hole after it is zeros that need no memory, and a live index's 10 MiB
// cost what its entries cost (a broker of 2,000 live segments allocated 14 GB otherwise).
func readSparse(f *os.File, size int64) (data []byte, length int64, regions []fileRegion, err error) {
	if size > maxIndexFile {
		return nil, 0, nil, fmt.Errorf("%s: %d bytes is larger than any Kafka index (segment.index.bytes is an int32)", f.Name(), size)
	}
	regions = dataRegions(f, size)
	dataEnd := int64(0)
	if n := len(regions); n > 0 {
		dataEnd = min(size, regions[n-1].off+regions[n-1].len+sparsePad)
	}
	buf := make([]byte, dataEnd)
	for _, r := range regions {
		n, err := f.ReadAt(buf[r.off:r.off+r.len], r.off)
		if err != nil && int64(n) < r.len {
			// The file shrank since it was opened: keep what was read.
			end := r.off + int64(n)
			return buf[:end], end, clipRegions(regions, end), nil
		}
	}
	return buf, size, regions, nil
}

// sparsePad is more than one index slot: a slot that begins inside the data regions ends
// inside the bytes readSparse keeps, and one that begins past them is all zeros.
const sparsePad = 16

// sourceRegions is dataRegions for a LogFile's source: a file of another filesystem, or bytes,
// is read whole.
func sourceRegions(src logSource, size int64) []fileRegion {
	if f, ok := src.(*os.File); ok {
		return dataRegions(f, size)
	}
	if size == 0 {
		return nil
	}
	return []fileRegion{{0, size}}
}

// dataRegions lists where a file holds data; the whole file when holes cannot be found.
func dataRegions(f *os.File, size int64) []fileRegion {
	whole := []fileRegion{{0, size}}
	if size == 0 {
		return nil
	}
	fd := int(f.Fd())
	var out []fileRegion
	for off := int64(0); off < size; {
		start, err := syscall.Seek(fd, off, seekData)
		if err == syscall.ENXIO {
			break // no data after off
		}
		if err != nil {
			return whole
		}
		end, err := syscall.Seek(fd, start, seekHole)
		if err != nil {
			return whole
		}
		end = min(end, size)
		if start >= end {
			break
		}
		out = append(out, fileRegion{start, end - start})
		off = end
	}
	return out
}

func clipRegions(rs []fileRegion, end int64) []fileRegion {
	var out []fileRegion
	for _, r := range rs {
		if r.off >= end {
			break
		}
		r.len = min(r.len, end-r.off)
		out = append(out, r)
	}
	return out
}

// maxIndexFile bounds an index file kidx reads into memory.
const maxIndexFile = 1<<31 - 1

func (b *fileBytes) unmap() error {
	if b.mapped {
		b.mapped = false
		d := b.data
		b.data = nil
		if len(d) >= asyncUnmapMin {
			// Tearing down a large mapping takes a while (about 20 ms per GiB mapped); it
			// overlaps with what comes next. Nothing touches it any more: the walks that map
			// ahead (prefetch) and the CRC workers have all stopped before their walk returns,
			// and a failed munmap of a read-only mapping costs nothing but address space.
			go syscall.Munmap(d)
			return nil
		}
		return syscall.Munmap(d)
	}
	b.data = nil
	return nil
}

// openReadOnly is the only way readers open files: O_RDONLY, no O_CREAT,
// no locks; O_NONBLOCK so that a FIFO with a segment's name cannot hang the
// open (it is then refused as not a regular file; on regular files the flag
// changes nothing).
func openReadOnly(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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

// prefetchMin is the smallest mapping worth prefetching or unmapping in the background: below
// it the walk's own faults cost less than starting a goroutine.
const prefetchMin = 8 << 20

// asyncUnmapMin is the smallest mapping unmapped in the background.
const asyncUnmapMin = 8 << 20

// prefetchSink keeps the prefetch loads from being optimized away.
var prefetchSink atomic.Uint32

// prefetch maps the pages of [from, end) ahead of a walk, on the other cores: goroutines touch
// one byte per 64 KiB of their part (the kernel's fault-around maps the neighbouring pages
// already in the page cache, and starts reading the rest), so that the walk itself, which
// reads one header per batch, finds its pages mapped (docs/logdirs.md, "Reading only what is
// needed"). The returned stop ends them early. They never write, and stop quietly if the file
// shrinks under them.
func (b *fileBytes) prefetch(from, end int64) (stop func()) {
	workers := min(2, runtime.GOMAXPROCS(0))
	if !b.mapped || end-from < prefetchMin || workers < 2 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	part := (end - from + int64(workers) - 1) / int64(workers)
	for w := 0; w < workers; w++ {
		lo, hi := from+int64(w)*part, min(end, from+int64(w+1)*part)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = guardFault("", lo, func() {
				var sink byte
				for i, p := 0, lo; p < hi; i, p = i+1, p+64<<10 {
					if i%256 == 0 { // every 16 MiB
						select {
						case <-done:
							return
						default:
						}
					}
					sink += b.data[p]
				}
				prefetchSink.Add(uint32(sink))
			})
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// ZerosFrom reports whether the file holds only zeros from pos to its end (and how many
// bytes), reading only its data regions: a preallocated .log is a sparse file past its
// batches.
func (lf *LogFile) ZerosFrom(pos int64) (int64, bool) {
	size := lf.Size()
	if pos >= size {
		return 0, true
	}
	buf := make([]byte, 1<<16)
	for _, r := range sourceRegions(lf.f, size) {
		lo, hi := max(r.off, pos), r.off+r.len
		for p := lo; p < hi; {
			n := min(hi-p, int64(len(buf)))
			got, err := lf.f.ReadAt(buf[:n], p)
			if !allZero(buf[:got]) {
				return 0, false
			}
			if err != nil {
				// Shorter than the size taken at the open: the file shrank under the reader (a
				// follower's LogSegment.truncateTo). Those bytes are gone, not zeros: no
				// preallocation to report, the walk's error stands.
				return 0, false
			}
			p += n
		}
	}
	// Past the last data region the file reads as zeros only if it still reaches size: a
	// hole does, a file cut since the open does not (the regions are listed on the file as
	// it is now).
	var last [1]byte
	if _, err := lf.f.ReadAt(last[:], size-1); err != nil {
		return 0, false
	}
	return size - pos, true
}
