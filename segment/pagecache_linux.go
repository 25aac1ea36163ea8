package segment

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentSamples is how many pages resident looks at.
const residentSamples = 64

// resident says whether the pages of [start, end) are in the page cache, from mincore(2) on
// residentSamples pages spread over the range, through a PROT_READ mapping that is never
// touched (so nothing is read or faulted in) and is unmapped at once: some 50 µs whatever the
// size. Every sampled page must be there; a file that is not an *os.File (bytes in memory,
// another filesystem), or one mincore cannot answer for, counts as resident.
func (l *LogFile) resident(start, end int64) bool {
	f, ok := l.f.(*os.File)
	if !ok || end <= start {
		return true
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(l.size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return true
	}
	defer syscall.Munmap(data)
	page := int64(os.Getpagesize())
	var vec [1]byte
	for i := int64(0); i < residentSamples; i++ {
		p := (start + (end-start)*i/residentSamples) / page * page
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&data[p])), uintptr(page), uintptr(unsafe.Pointer(&vec[0])))
		if errno != 0 {
			return true
		}
		if vec[0]&1 == 0 {
			return false
		}
	}
	return true
}

// adviseRun bounds one read-ahead request, so that a finished walk stops the advice soon.
const adviseRun = 1 << 20

// adviseHeaders asks the kernel to read, in the background, the pages that hold the headers
// at positions (sorted; batch starts), with posix_fadvise(WILLNEED): each request is queued
// without waiting for it, so the disk gets as many at once as its queue takes, where a reader
// blocked in pread has one. Adjacent pages go in one request; no other page is read. It runs
// on a goroutine of its own until done, or until stop; a file that is not an *os.File is left
// alone.
func (l *LogFile) adviseHeaders(positions []int64) (stop func()) {
	f, ok := l.f.(*os.File)
	if !ok || len(positions) == 0 {
		return func() {}
	}
	page := int64(os.Getpagesize())
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		fd := int(f.Fd())
		lo, hi := int64(-1), int64(-1) // the pending run of pages [lo, hi)
		flush := func() bool {
			if hi > lo {
				_ = unix.Fadvise(fd, lo, hi-lo, unix.FADV_WILLNEED) // advice: a failure only costs speed
			}
			select {
			case <-done:
				return false
			default:
				return true
			}
		}
		for _, p := range positions {
			first, last := p/page*page, (min(p+RecordBatchOverhead, l.size)+page-1)/page*page
			if first <= hi && last-lo <= adviseRun {
				hi = max(hi, last)
				continue
			}
			if !flush() {
				return
			}
			lo, hi = first, last
		}
		flush()
	}()
	return func() {
		close(done)
		<-exited
	}
}
