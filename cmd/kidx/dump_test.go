package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"kidx/dump"
	"kidx/internal/segmenttest"
	"kidx/model"
)

const blogFiles = "../../testdata/kafka-golden/blog-i4096/files"

// copyGolden copies the named files of a Kafka-written golden directory into a fresh
// temporary directory, so that a test can damage them.
func copyGolden(t *testing.T, src string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Issue 11, defect 1: `kidx dump /nonexistent` printed "Ignoring unknown file" and exited 0.
// A path that does not exist is an input error: exit 2, nothing dumped.
func TestDumpMissingPathExits2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "00000000000000000000.index")
	for _, args := range [][]string{{"dump", missing}, {"dump", "--files", missing}} {
		out, errOut, code := runKidx(t, args...)
		if code != 2 || out != "" || errOut != "kidx: "+missing+": no such file or directory\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	if _, errOut, code := runKidx(t, "dump"); code != 2 || !strings.Contains(errOut, "name at least one file") {
		t.Errorf("no files: exit %d, %q", code, errOut)
	}
	// Values that mean nothing were read as the defaults.
	idx := filepath.Join(blogFiles, "00000000000000000000.index")
	for flag, want := range map[string]string{"--max-message-size=0": "--max-message-size 0: must be > 0", "--max-message-size=-1": "--max-message-size -1: must be > 0",
		"--max-bytes=-1": "--max-bytes -1: must be >= 0"} {
		if out, errOut, code := runKidx(t, "dump", flag, idx); code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
}

// Issue 11, defect 1: `kidx dump DIR` printed "Ignoring unknown file DIR" and exited 0. A
// directory stands for its files in name order (as DIR/* would), its subdirectories skipped
// with a note.
func TestDumpDirectoryDumpsItsFiles(t *testing.T) {
	dir := copyGolden(t, blogFiles, "00000000000000000316.index", "00000000000000000000.timeindex", "00000000000000000000.index")
	if err := os.Mkdir(filepath.Join(dir, "sub-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runKidx(t, "dump", "--index-sanity-check", dir)
	// Hand-written: the three files in name order, each passing Kafka's sanity check.
	var want strings.Builder
	for _, n := range []string{"00000000000000000000.index", "00000000000000000000.timeindex", "00000000000000000316.index"} {
		p := filepath.Join(dir, n)
		want.WriteString("Dumping " + p + "\n" + p + " passed sanity check.\n")
	}
	if code != 0 || out != want.String() {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", code, out, want.String(), errOut)
	}
	if errOut != "kidx: note: "+dir+": skipping subdirectory sub-0 (dump reads the files of one directory: name a partition directory, or the subdirectory itself)\n" {
		t.Errorf("stderr %q", errOut)
	}
	empty := t.TempDir()
	if _, errOut, code := runKidx(t, "dump", empty); code != 2 || !strings.Contains(errOut, "a directory with no files to dump") {
		t.Errorf("empty directory: exit %d, %q", code, errOut)
	}
}

// Issue 11, defect 1: `dump --index-sanity-check` on a corrupt index exited 2 (a usage
// error). The index failing Kafka's check is a problem found: exit 1, Kafka's exception text
// kept, a kidx line saying what it means, and the files after it still dumped.
func TestDumpIndexSanityCheckCorruptExits1(t *testing.T) {
	dir := copyGolden(t, blogFiles, "00000000000000000000.index", "00000000000000000316.index")
	bad := filepath.Join(dir, "00000000000000000000.index")
	f, err := os.OpenFile(bad, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{1}) // 25 bytes: not a multiple of the 8-byte entry
	f.Close()
	good := filepath.Join(dir, "00000000000000000316.index")
	out, errOut, code := runKidx(t, "dump", "--index-sanity-check", bad, good)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	if want := "Dumping " + bad + "\nDumping " + good + "\n" + good + " passed sanity check.\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	// AbstractIndex.sanityCheck's CorruptIndexException text (docs/kafka.md §4).
	kafka := "Index file " + bad + " is corrupt, found 25 bytes which is neither positive nor a multiple of 8"
	own := "kidx: " + bad + " fails Kafka's index sanity check (sanityCheck throws CorruptIndexException): the file is corrupt (a problem found: exit 1)\n"
	if !strings.Contains(errOut, kafka) || !strings.Contains(errOut, own) {
		t.Errorf("stderr %q", errOut)
	}
}

// Issue 11, defect 1: `dump --verify-index-only` on an index past a truncated .log aborted
// with "(java.util.NoSuchElementException)" and exit 2. It is a problem found: exit 1, with
// Kafka's words and kidx's own explanation.
func TestDumpVerifyIndexOnlyTruncatedLogExits1(t *testing.T) {
	dir := copyGolden(t, blogFiles, "00000000000000000000.index", "00000000000000000000.log")
	log := filepath.Join(dir, "00000000000000000000.log")
	if err := os.Truncate(log, 20000); err != nil { // the first entry points to byte 16350, a 16350-byte batch
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "00000000000000000000.index")
	out, errOut, code := runKidx(t, "dump", "--verify-index-only", idx)
	if code != 1 || out != "Dumping "+idx+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	kafka := "kidx: " + idx + ": entry 0: no batch at position 16350 of " + log + " (java.util.NoSuchElementException)\n"
	own := "kidx: " + idx + ": entry 0 (offset 157) points to byte 16350, where " + log + " holds no whole batch (20000 bytes)"
	if !strings.HasPrefix(errOut, kafka) || !strings.Contains(errOut, own) || !strings.HasSuffix(errOut, "(a problem found: exit 1)\n") {
		t.Errorf("stderr %q", errOut)
	}
	// Cut before the entry's byte: FileRecords.slice throws IllegalArgumentException first
	// ("Slice from position ... exceeds end position of FileRecords(...)"; docs/kafka.md §10).
	if err := os.Truncate(log, 10000); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runKidx(t, "dump", "--verify-index-only", idx)
	kafka = "kidx: " + idx + ": entry 0: no batch at position 16350 of " + log + " (java.lang.IllegalArgumentException: Slice from position 16350 exceeds end position of FileRecords(size=10000, file=" + log + ", start=0, end=2147483647))\n"
	if code != 1 || !strings.HasPrefix(errOut, kafka) || !strings.Contains(errOut, "points to byte 16350, at or past the end of "+log+" (10000 bytes)") {
		t.Errorf("past the end: exit %d, stderr %q", code, errOut)
	}
}

// Issue 11, build: kafka-dump-log's own flag names. --files takes a comma-separated list
// beside the arguments; --print-data-log prints each record's key and payload (and implies
// --deep-iteration). multibatch-append's records have a 4-byte key "kkkk" and a 6-byte
// value "vvvvvv" (its kafka-input.json, GOLDEN-README.md).
func TestDumpKafkaFlagNames(t *testing.T) {
	src := "../../testdata/kafka-golden/multibatch-append/files"
	idx, tidx := filepath.Join(src, "00000000000000000000.index"), filepath.Join(src, "00000000000000000000.timeindex")
	out, errOut, code := runKidx(t, "dump", "--index-sanity-check", "--files", idx+","+tidx)
	if want := "Dumping " + idx + "\n" + idx + " passed sanity check.\nDumping " + tidx + "\n" + tidx + " passed sanity check.\n"; code != 0 || out != want {
		t.Fatalf("--files: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runKidx(t, "dump", "--print-data-log", filepath.Join(src, "00000000000000000000.log"))
	want := "| offset: 0 CreateTime: 0 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] key: kkkk payload: vvvvvv\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("--print-data-log: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Issue 11, defect 1: `--max-map-count -1` was silently ignored. Any value below 1 is a usage
// error, on every command that takes the flag.
func TestMaxMapCountBelowOneExits2(t *testing.T) {
	for _, v := range []string{"-1", "0"} {
		for _, args := range [][]string{{"whatif", "--max-map-count", v}, {"analyze", t.TempDir(), "--max-map-count", v}} {
			out, errOut, code := runKidx(t, args...)
			if code != 2 || out != "" || !strings.Contains(errOut, "--max-map-count "+v+": must be > 0") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	}
}

// Issue 11, defect 1 (every dump error was exit 2): a .log whose batch header is corrupt
// (FileLogInputStream's CorruptRecordException: a size below the 14-byte minimum) is a
// problem found in the file, exit 1, with the batches before it dumped.
func TestDumpCorruptLogExits1(t *testing.T) {
	dir := copyGolden(t, blogFiles, "00000000000000000000.log")
	log := filepath.Join(dir, "00000000000000000000.log")
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0, 0, 0, 5}, 16350+8) // the second batch's length field
	f.Close()
	out, errOut, code := runKidx(t, "dump", log)
	if code != 1 || strings.Count(out, "baseOffset: ") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	want := "kidx: " + log + ": byte 16358: Found record size 5 smaller than minimum record overhead (14) in file " + log + ".\n" +
		"kidx: " + log + " could not be dumped to its end: its content is corrupt (a problem found: exit 1)\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// A FIFO named on the command line is an input error (exit 2, never opened: a read would
// block); inside a directory it is skipped with a note.
func TestDumpNonRegularFile(t *testing.T) {
	dir := copyGolden(t, blogFiles, "00000000000000000000.index")
	fifo := filepath.Join(dir, "00000000000000000000.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runKidx(t, "dump", fifo); code != 2 || errOut != "kidx: "+fifo+": not a regular file (a FIFO, socket or device): dump reads Kafka's files\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, errOut, code := runKidx(t, "dump", dir)
	if code != 0 || strings.Count(out, "Dumping ") != 1 ||
		!strings.HasPrefix(errOut, "kidx: note: "+dir+": skipping non-regular file 00000000000000000000.log (a FIFO, socket or device: no Kafka file, and never opened)\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Issue 11 review: verify read a FIFO named on the command line as an orphan index (exit 1)
// where dump refuses it (exit 2). Named paths that are neither files nor directories are an
// input error for both, and nothing is opened.
func TestVerifyRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "00000000000000000000.index")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runKidx(t, "verify", fifo); code != 2 || !strings.Contains(errOut, fifo+" is a FIFO, not a file or a directory: not read") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// Issue 26: kafka-dump-log's decoder flags. Each implies --print-data-log (and deep
// iteration); two are refused (kafka-dump-log's messageParser would silently take the first of
// offsets, transaction log, cluster metadata); --kafka-version selects a coordinator
// decoder's release and means nothing without one; an unknown record type is printed as
// Kafka prints it, with a kidx note on stderr holding its raw bytes.
func TestDumpDecoderFlags(t *testing.T) {
	out, _, code := runKidx(t, "dump", "--help")
	for _, flag := range []string{"--offsets-decoder", "--transaction-log-decoder", "--cluster-metadata-decoder", "--share-group-state-decoder", "--skip-record-metadata", "--kafka-version"} {
		if code != 0 || !strings.Contains(out, flag) {
			t.Errorf("--help does not name %s", flag)
		}
	}
	// A record of record type 0x7fff, its value version 0 and nothing else.
	log := writeDumpLog(t, []segmenttest.Rec{{Key: []byte{0x7f, 0xff}, Value: []byte{0, 0}}})
	for _, args := range [][]string{
		{"--offsets-decoder", "--transaction-log-decoder"},
		{"--transaction-log-decoder", "--cluster-metadata-decoder"},
		{"--cluster-metadata-decoder", "--share-group-state-decoder"},
	} {
		if _, errOut, code := runKidx(t, append(append([]string{"dump"}, args...), log)...); code != 2 || !strings.Contains(errOut, "give one decoder") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"--kafka-version", "3.7.0"}, {"--cluster-metadata-decoder", "--kafka-version", "3.7.0"}} {
		if _, errOut, code := runKidx(t, append(append([]string{"dump"}, args...), log)...); code != 2 || !strings.Contains(errOut, "selects the printed form of --offsets-decoder and --transaction-log-decoder") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	// The share decoder is 4.1 and later's parser only.
	if _, errOut, code := runKidx(t, "dump", "--share-group-state-decoder", "--kafka-version", "4.0.0", log); code != 2 || !strings.Contains(errOut, "prints 4.1 and later's form only") {
		t.Errorf("share decoder with --kafka-version: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runKidx(t, "dump", "--offsets-decoder", "--kafka-version", "x.y", log); code != 2 || !strings.Contains(errOut, "--kafka-version") {
		t.Errorf("bad version: exit %d, %q", code, errOut)
	}
	out, errOut, code := runKidx(t, "dump", "--transaction-log-decoder", "--skip-record-metadata", log)
	if code != 0 || !strings.HasSuffix(out, "\n| key: Unknown record type 32767 at offset 0, skipping.\n") ||
		errOut != "kidx: note: offset 0: unknown record type 32767; key 7fff, value 0000\n" {
		t.Errorf("unknown type: exit %d\n%s\n%q", code, out, errOut)
	}
	// The releases' printed forms: 3.x and 4.0 print the transaction log's key version 32767 as
	// "unknown::version=32767".
	for _, v := range []string{"4.0.0", "3.9.0", "2.1.0"} {
		out, _, code := runKidx(t, "dump", "--transaction-log-decoder", "--skip-record-metadata", "--kafka-version", v, log)
		if code != 0 || !strings.HasSuffix(out, "\n| key: unknown::version=32767\n") {
			t.Errorf("%s: exit %d\n%s", v, code, out)
		}
	}
	for v, want := range map[string]dump.DecoderEra{"4.2.0": dump.EraCoordinatorJSON, "4.1": dump.EraCoordinatorJSON, "4.0.1": dump.Era40, "3.9.1": dump.EraText, "0.10.2.1": dump.EraText} {
		ver, err := model.ParseKafkaVersion(v)
		if err != nil || dumpDecoderEra(ver) != want {
			t.Errorf("%s: %v %v", v, dumpDecoderEra(ver), err)
		}
	}
}
