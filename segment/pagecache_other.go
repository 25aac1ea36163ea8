//go:build !linux

package segment

// resident: without mincore's page-cache answer, every file counts as in memory, and header
// walks read with two chains as before.
func (l *LogFile) resident(start, end int64) bool { return true }

// adviseHeaders gives no read-ahead advice where posix_fadvise is not known to be there.
func (l *LogFile) adviseHeaders(positions []int64) (stop func()) { return func() {} }
