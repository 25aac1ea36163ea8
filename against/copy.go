package against

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"kidx/segment"
)

// CopyingReader is `--copy`: before each run of Reader it copies the partition directory into
// a private directory under Scratch and gives Reader the copy; the copy is removed when the
// run ends, whatever its end. Real storage layers open segment files read-write, create
// missing index files or rebuild them (Kafka's own LogLoader does), and must not do so in
// kidx's case or in a user's directory.
//
// The copy keeps the partition directory's name (a reader may parse "topic-partition" from
// it). Regular files are copied byte for byte; a 64 KiB block of zeros is skipped rather than
// written, so a preallocated index's zero tail (10 MiB by default) stays sparse in the copy
// whether or not it was in the original. Subdirectories are copied; symbolic links are
// followed (the copy holds what they point to); other files (sockets, pipes, devices) are left
// out. Files are made writable by their owner in the copy.
//
// A Command reader that hangs is killed with its whole process group before Answer returns
// (Command.Answer), so the copy is removed only once nothing of the reader runs.
type CopyingReader struct {
	Reader  Reader
	Scratch string // where copies are made ("": os.TempDir())
}

// protocolVersion is the wrapped reader's: a copy changes where it reads, not what it is asked.
func (r *CopyingReader) protocolVersion() int { return readerProtocol(r.Reader) }

// Answer copies partition, asks r.Reader about the copy, and removes the copy.
func (r *CopyingReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	root := r.Scratch
	if root == "" {
		root = os.TempDir()
	}
	tmp, err := os.MkdirTemp(root, "kidx-copy-")
	if err != nil {
		return nil, fmt.Errorf("--copy: %w", err)
	}
	defer func() {
		// A reader may leave files read-only or directories unwritable: make them removable.
		_ = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
		_ = os.RemoveAll(tmp)
	}()
	cp := filepath.Join(tmp, filepath.Base(partition))
	if err := CopyPartition(partition, cp); err != nil {
		return nil, fmt.Errorf("--copy: %w", err)
	}
	return r.Reader.Answer(ctx, cp, rules, qs)
}

// copyBlock is the unit CopyPartition compares with zeros: a block of zeros is a hole.
const copyBlock = 64 << 10

// CopyPartition copies directory src to dst (which must not exist) as CopyingReader does.
// Nothing in src is written.
func CopyPartition(src, dst string) error {
	// A partition given as a link to a directory: WalkDir would not enter it.
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		st, err := os.Stat(p) // follows a symbolic link
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && d.Type()&fs.ModeSymlink != 0 {
				return nil // a dangling link: nothing to copy
			}
			return err
		}
		switch {
		case st.IsDir():
			if d.Type()&fs.ModeSymlink != 0 {
				return nil // a link to a directory: not walked, not copied
			}
			return os.Mkdir(to, st.Mode().Perm()|0o700)
		case st.Mode().IsRegular():
			return copySparse(p, to, st.Mode().Perm()|0o600)
		}
		return nil
	})
}

// copySparse copies regular file src to a new file dst, seeking over blocks of zeros.
func copySparse(src, dst string, perm fs.FileMode) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	buf := make([]byte, copyBlock)
	var zeros [copyBlock]byte
	var size int64
	for {
		n, rerr := io.ReadFull(in, buf)
		if n > 0 {
			if bytes.Equal(buf[:n], zeros[:n]) {
				if _, err := out.Seek(int64(n), io.SeekCurrent); err != nil {
					return err
				}
			} else if _, err := out.Write(buf[:n]); err != nil {
				return err
			}
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	// A file ending in a hole gets its size from Truncate.
	return out.Truncate(size)
}
