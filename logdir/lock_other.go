//go:build !linux

package logdir

// lockHolder is only known on Linux (/proc/locks).
func lockHolder(path string) (pid int, held, known bool) { return 0, false, false }
