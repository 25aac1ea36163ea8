package vfs_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"

	"kidx/segment/vfs"
)

// The OS filesystem is package os: a file written and read back through the interface.
func Example() {
	dir, err := os.MkdirTemp("", "vfs-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "00000000000000000000.log")
	f, err := vfs.OS.Create(name)
	if err != nil {
		fmt.Println(err)
		return
	}
	f.WriteAt([]byte("batch"), 0)
	f.Sync()
	f.Close()
	fi, _ := vfs.OS.Stat(name)
	_, err = vfs.OS.Open(filepath.Join(dir, "missing.index"))
	fmt.Println(fi.Size(), errors.Is(err, os.ErrNotExist))
	// Output: 5 true
}

// A crash keeps the synced bytes and a seeded prefix of the later ones.
func ExampleMemFS_CrashClone() {
	mem := vfs.NewMemFS()
	mem.MkdirAll("/t-0", 0o755)
	mem.SyncDir("/")
	f, _ := mem.Create("/t-0/00.log")
	mem.SyncDir("/t-0") // the name is durable
	f.Write([]byte("synced|"))
	f.Sync() // the bytes are durable
	f.Write([]byte("01234"))
	f.Write([]byte("56789"))
	for seed := range uint64(5) {
		crashed := mem.CrashClone(rand.New(rand.NewPCG(seed, 0)))
		g, _ := crashed.Open("/t-0/00.log")
		b := make([]byte, 32)
		n, _ := g.ReadAt(b, 0)
		fmt.Printf("seed %d: %q\n", seed, b[:n])
	}
	// Output:
	// seed 0: "synced|0123"
	// seed 1: "synced|01234"
	// seed 2: "synced|0123456789"
	// seed 3: "synced|01234"
	// seed 4: "synced|01234"
}

// A short write at the second write: three bytes land, the error names the operation and
// the file.
func ExampleNth() {
	fsys := vfs.NewFaultFS(vfs.NewMemFS(), vfs.Nth(vfs.OpWrite, 2, vfs.ShortWrite(3)))
	f, _ := fsys.Create("/00.index")
	f.Write([]byte("entry-1|"))
	n, err := f.Write([]byte("entry-2|"))
	fmt.Println(n, err, errors.Is(err, io.ErrShortWrite))
	fsys.Injector = vfs.Nth(vfs.OpSync, 1, vfs.NoSpace(0))
	err = f.Sync()
	fmt.Println(err, errors.Is(err, syscall.ENOSPC))
	// Output:
	// 3 write /00.index: short write true
	// sync /00.index: injected: no space left on device true
}
