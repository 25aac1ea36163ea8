// Package vfs is the small filesystem interface under kidx's storage code, so that the
// same segment writer and readers can run on real files, in memory, and under injected
// faults and crashes (issue 13, item 1; docs/vfs.md).
//
// The package, one file per idea:
//
//   - fs.go: the interfaces, [FS] (open read-only, create, open read-write, rename, remove,
//     stat, list, mkdir-all, directory sync) and [File] (read at, write at, write, truncate,
//     sync, stat, close).
//   - osfs.go: [OS], the default, a thin wrapper over package os. Readers of users'
//     directories only ever call its read-only half ([FS.Open], [FS.Stat], [FS.ReadDir]).
//   - memfs.go: [MemFS], directories and files in maps, safe for concurrent use; each file
//     keeps its synced contents apart from its current contents and the changes made since
//     its last sync, each directory its synced entries apart from its current ones.
//   - crash.go: [MemFS.CrashClone] and [MemFS.CrashCloneFunc], a new MemFS holding what a
//     crash would have kept: per file its synced contents plus a prefix of the later changes,
//     possibly ending in the middle of a write; names only as their directory was last synced.
//   - faultfs.go: [FaultFS] over any FS, asking an [Injector] before every operation;
//     [Nth] fails the n-th operation of a kind with an I/O error ([EIO]), a short write
//     ([ShortWrite]) or a full disk ([NoSpace]); every error names the operation and the file.
//   - errors.go: the path errors the in-memory filesystem returns, shaped as package os's.
//
// Every random choice (the crash's) comes from a *rand.Rand the caller seeds, so a run is
// reproducible from its seed.
package vfs
