package vfs

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// CrashPoint is what a crash keeps of one file's changes since its last Sync: the first
// Ops of them whole, then the first Bytes bytes of the next one when it is a write (a torn
// write), or the whole next one when it is a truncate and Bytes > 0 (a truncate is not
// torn). Values past the end are clamped.
type CrashPoint struct {
	Ops   int
	Bytes int
}

// CrashClone returns a new, independent MemFS holding what a crash of m at this instant
// could have left on disk: the directories and names as their directories were last
// synced, and in each file its synced contents plus a prefix, drawn from rng, of the
// changes made after its last sync (the prefix may end in the middle of a write). Files
// are visited in name order, so the same seed gives the same clone. m is unchanged and can
// go on (a clone can be taken at many points of one run); nothing written to m later
// reaches the clone.
func (m *MemFS) CrashClone(rng *rand.Rand) *MemFS { return m.CrashCloneFunc(drawCrashPoint(rng)) }

// drawCrashPoint draws, for each file, how many of its unsynced changes survive and how much
// of the next one.
func drawCrashPoint(rng *rand.Rand) func(string, []Change) CrashPoint {
	return func(_ string, unsynced []Change) CrashPoint {
		ops := rng.IntN(len(unsynced) + 1)
		if ops == len(unsynced) {
			return CrashPoint{Ops: ops}
		}
		size := 1
		if c := unsynced[ops]; !c.Truncate {
			size = len(c.Data)
		}
		return CrashPoint{Ops: ops, Bytes: rng.IntN(size + 1)}
	}
}

// CrashCloneEager is CrashClone on a filesystem that may also have written back directory
// entries no one synced, as POSIX allows (ext4 commits them with its journal, every few
// seconds or with an unrelated fsync): each name created, or renamed into its directory, since
// the directory's last sync survives or not, drawn from rng; a name removed since then is still
// there, as in CrashClone. A file whose name survives this way keeps its synced contents (none,
// if it was never synced) plus a drawn prefix of its later changes, like any other. This is the
// harsher model: a new segment's files can outlive the flush of the one before it.
func (m *MemFS) CrashCloneEager(rng *rand.Rand) *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &crashCloner{choose: drawCrashPoint(rng), done: map[*memNode]*memNode{}, newName: func(string) bool { return rng.IntN(2) == 0 }}
	return &MemFS{root: c.dir(m.root, nil)}
}

// CrashCloneFunc is CrashClone with the choice made by choose, called once for each
// surviving file that has unsynced changes, in name order, with the file's slash-separated
// name from the root ("/dir/file") and its changes (which choose must not modify). A node
// reachable by two names (a rename synced in one directory but not the other) is chosen
// for once, under the first name.
func (m *MemFS) CrashCloneFunc(choose func(name string, unsynced []Change) CrashPoint) *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &crashCloner{choose: choose, done: map[*memNode]*memNode{}}
	return &MemFS{root: c.dir(m.root, nil)}
}

type crashCloner struct {
	choose func(string, []Change) CrashPoint
	done   map[*memNode]*memNode
	// newName, when set, decides whether a name created or renamed in since its directory's
	// last sync survives (CrashCloneEager); nil keeps only synced names.
	newName func(path string) bool
}

func (c *crashCloner) dir(n *memNode, path []string) *memNode {
	out := newDir(n.mode)
	names := make([]string, 0, len(n.syncedChildren))
	for name := range n.syncedChildren {
		names = append(names, name)
	}
	if c.newName != nil {
		for name := range n.children {
			if _, ok := n.syncedChildren[name]; !ok {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		child, synced := n.syncedChildren[name]
		if cur, ok := n.children[name]; c.newName != nil && ok && (!synced || cur != child) {
			p := "/" + strings.Join(append(slices.Clip(path), name), "/")
			if c.newName(p) {
				child, synced = cur, true
			}
		}
		if !synced {
			continue
		}
		cp, ok := c.done[child]
		if !ok {
			p := append(slices.Clip(path), name)
			if child.dir {
				cp = c.dir(child, p)
			} else {
				cp = c.file(child, "/"+strings.Join(p, "/"))
			}
			c.done[child] = cp
		}
		out.children[name] = cp
		out.syncedChildren[name] = cp
	}
	return out
}

func (c *crashCloner) file(n *memNode, name string) *memNode {
	im := n.synced.clone()
	if len(n.unsynced) > 0 {
		p := c.choose(name, n.unsynced)
		ops := min(max(p.Ops, 0), len(n.unsynced))
		for _, ch := range n.unsynced[:ops] {
			ch.apply(&im)
		}
		if ops < len(n.unsynced) && p.Bytes > 0 {
			ch := n.unsynced[ops]
			if !ch.Truncate {
				ch.Data = ch.Data[:min(p.Bytes, len(ch.Data))]
			}
			ch.apply(&im)
		}
	}
	// After the crash, what is on disk is all there is: synced by definition.
	return &memNode{mode: n.mode, data: im, synced: im.clone()}
}
