package logdir

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder reports the process holding a lock on path, from /proc/locks: Kafka's
// LogManager locks <log dir>/.lock with FileChannel.tryLock (a POSIX fcntl lock on Linux) for
// as long as the broker runs, and releases it at shutdown, leaving the file. Reading
// /proc/locks touches nothing in the log directory. known is false when it cannot be read.
func lockHolder(path string) (pid int, held, known bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, false, false
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	dev := uint64(st.Dev) // its type differs by architecture
	// The kernel prints the device as MAJOR:MINOR in hex (new_encode_dev's halves) and the
	// inode in decimal.
	want := fmt.Sprintf("%02x:%02x:%d", devMajor(dev), devMinor(dev), st.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pid, id, ok := parseProcLock(sc.Text())
		if ok && id == want {
			return pid, true, true
		}
	}
	return 0, false, sc.Err() == nil
}

// parseProcLock reads one /proc/locks line, "1: POSIX  ADVISORY  WRITE 1234 fd:00:56 0 EOF":
// the holder's pid and the file's device:inode. Waiters ("1: -> POSIX ...") hold nothing.
func parseProcLock(line string) (pid int, id string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || f[1] == "->" {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[4])
	if err != nil {
		return 0, "", false
	}
	return pid, f[5], true
}

// devMajor and devMinor split a Linux dev_t (glibc's gnu_dev_major and gnu_dev_minor).
func devMajor(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^0xfff }
func devMinor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^0xff }
