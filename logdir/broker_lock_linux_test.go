package logdir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"kidx/segment"
)

// LogManager.lockLogDirs holds a FileChannel.tryLock on .lock (a POSIX fcntl lock on Linux)
// while the broker runs: /proc/locks names the holder. The test takes the same kind of lock.
func TestLockHeldByARunningProcess(t *testing.T) {
	root := brokerDir(t, 0, map[string]string{segment.LockFileName: ""})
	f, err := os.OpenFile(filepath.Join(root, segment.LockFileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Before the lock: the file is there, nobody holds it, and nothing is said.
	if r := verifyDirs(t, root); r.LogDirs[0].LockedBy != 0 || !r.LogDirs[0].LockKnown || len(findingsOf(r, CheckLock)) != 0 {
		t.Fatalf("unlocked: %+v %+v", r.LogDirs[0], findingsOf(r, CheckLock))
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		t.Fatalf("fcntl F_SETLK: %v", err)
	}
	r := verifyDirs(t, root)
	got := findingsOf(r, CheckLock)
	if r.LogDirs[0].LockedBy != os.Getpid() || len(got) != 1 || got[0].Severity != SeverityInfo ||
		!strings.Contains(got[0].Message, "Failed to acquire lock on file .lock in "+root+". A Kafka instance in another process or thread is using this directory.") {
		t.Fatalf("locked: %+v %+v", r.LogDirs[0], got)
	}
	// While a broker runs, no marker is expected: the finding says what an unclean stop would do.
	if cs := findingsOf(r, CheckCleanShutdown); len(cs) != 1 || cs[0].Kafka != "" || !strings.Contains(cs[0].Message, "if it stopped now without a clean shutdown, the next start recovers its one partition") {
		t.Fatalf("clean-shutdown: %+v", cs)
	}
}

// /proc/locks lines: a holder, and a waiter ("->") that holds nothing.
func TestParseProcLock(t *testing.T) {
	pid, id, ok := parseProcLock("1: POSIX  ADVISORY  WRITE 1234 fd:00:5678 0 EOF")
	if !ok || pid != 1234 || id != "fd:00:5678" {
		t.Fatalf("%d %q %v", pid, id, ok)
	}
	if _, _, ok := parseProcLock("1: -> POSIX  ADVISORY  WRITE 99 fd:00:5678 0 EOF"); ok {
		t.Fatal("a waiter read as a holder")
	}
	if devMajor(0xfd00) != 0xfd || devMinor(0xfd00) != 0 || devMajor(0x10300001) != 0 || devMinor(0x10300001) != 0x10301 {
		t.Fatal("dev split")
	}
}
