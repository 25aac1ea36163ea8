package segment

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"kidx/internal/jsonwords"
	"kidx/internal/printsafe"
)

// The small text files of a log directory. Each parser reads its file as Kafka's reader does,
// rejects what Kafka rejects with Kafka's message, and returns a *FormatError whose Pos is the
// byte where the offending line starts and whose Msg starts with "line N: ". Where Kafka's
// message names the file, kidx puts the path as given (Kafka prints the absolute path).

// Fixed file names of a log directory (LeaderEpochCheckpointFile, LogManager, ReplicaManager,
// LogCleanerManager, PartitionMetadataFile, FileQuorumStateStore, MetaPropertiesEnsemble,
// CleanShutdownFileHandler, LogManager.LockFileName).
const (
	LeaderEpochCheckpointName       = "leader-epoch-checkpoint"
	RecoveryPointCheckpointName     = "recovery-point-offset-checkpoint"
	ReplicationCheckpointName       = "replication-offset-checkpoint"
	LogStartOffsetCheckpointName    = "log-start-offset-checkpoint"
	CleanerOffsetCheckpointName     = "cleaner-offset-checkpoint"
	PartitionMetadataName           = "partition.metadata"
	QuorumStateName                 = "quorum-state"
	MetaPropertiesName              = "meta.properties"
	CleanShutdownName               = ".kafka_cleanshutdown"
	LockFileName                    = ".lock"
	CheckpointFileVersion           = 0 // LeaderEpochCheckpointFile/OffsetCheckpointFile.CURRENT_VERSION
	partitionMetadataCurrentVersion = 0 // PartitionMetadataFile.CURRENT_VERSION
)

// lineErr is a problem on one line of a text file.
func lineErr(file string, l textLine, format string, args ...any) *FormatError {
	return formatErr(file, int64(l.pos), "line %d: %s", l.no, fmt.Sprintf(format, args...))
}

// textLine is one line as java.io.BufferedReader.readLine returns it: terminated by "\n", "\r"
// or "\r\n", the terminator not included; a last line without a terminator is a line.
type textLine struct {
	text string // the line (next), or "" (nextBytes)
	raw  []byte // the line, not copied
	no   int    // 1-based
	pos  int    // byte position of its first byte
}

// String is the line's text.
func (l textLine) String() string {
	if l.raw != nil {
		return string(l.raw)
	}
	return l.text
}

type lineReader struct {
	data []byte
	pos  int
	no   int
}

// next returns the next line, or ok == false at the end of the data (readLine's null).
func (r *lineReader) next() (l textLine, ok bool) {
	l, b, ok := r.nextBytes()
	l.text, l.raw = string(b), nil
	return l, ok
}

// nextBytes is next without copying the line: l.text is empty, the line is b.
func (r *lineReader) nextBytes() (l textLine, b []byte, ok bool) {
	if r.pos >= len(r.data) {
		return l, nil, false
	}
	start := r.pos
	end := start
	for end < len(r.data) && r.data[end] != '\n' && r.data[end] != '\r' {
		end++
	}
	r.pos = end
	if end < len(r.data) {
		r.pos++
		if r.data[end] == '\r' && r.pos < len(r.data) && r.data[r.pos] == '\n' {
			r.pos++
		}
	}
	r.no++
	return textLine{raw: r.data[start:end:end], no: r.no, pos: start}, r.data[start:end:end], true
}

// validUTF8 mirrors Files.newBufferedReader(UTF_8), which fails on bytes that are not UTF-8.
func (l textLine) validUTF8(file string) error {
	if !utf8.ValidString(l.text) || !utf8.Valid(l.raw) {
		return lineErr(file, l, "not valid UTF-8 (Kafka's reader fails with java.nio.charset.MalformedInputException)")
	}
	return nil
}

// javaParseInt is Integer.parseInt / Long.parseLong (radix 10) on ASCII digits: an optional
// '+' or '-', at least one digit, nothing else (no spaces), in range of a bits-bit signed
// integer. (Java also accepts non-ASCII Unicode digits; Kafka never writes them.)
func javaParseInt[T ~string | ~[]byte](s T, bits int) (int64, bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		i, neg = 1, s[0] == '-'
	}
	if i == len(s) {
		return 0, false
	}
	limit := uint64(1) << (bits - 1) // the magnitude of the most negative value
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || v > limit/10 {
			return 0, false
		}
		if v = v*10 + uint64(c-'0'); v > limit {
			return 0, false
		}
	}
	if neg {
		return -int64(v), true // -2^63 wraps to itself
	}
	if v == limit {
		return 0, false
	}
	return int64(v), true
}

// numberFormat is the message of the NumberFormatException Integer.parseInt/Long.parseLong throw.
// The input is cut to an excerpt (issue 27 item 6): a 50 MB field is not echoed whole.
func numberFormat[T ~string | ~[]byte](s T) string {
	return "For input string: " + printsafe.QuotedExcerpt(string(s))
}

// javaWhitespaceFields is String.split("\\s+") (limit 0) for a line without line terminators,
// as LeaderEpochCheckpointFile and OffsetCheckpointFile split entry lines: a line that starts
// with white space gives a leading empty field, trailing empty fields are dropped (so an
// all-white-space line gives no fields and an empty line one empty field). Java's \s is
// [ \t\n\x0B\f\r]. At most max+1 fields are appended to dst[:0] and returned: enough to tell
// a wrong field count.
func javaWhitespaceFields(dst [][]byte, line []byte, max int) [][]byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r' }
	out := dst[:0]
	if len(line) == 0 {
		return append(out, line)
	}
	if isSpace(line[0]) {
		out = append(out, line[:0])
	}
	tokens := 0
	for i := 0; i < len(line) && len(out) <= max; {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			out = append(out, line[i:j])
			tokens++
		}
		i = j
	}
	if tokens == 0 {
		return out[:0] // only white space: every field is empty and dropped
	}
	return out
}

// readCheckpoint is CheckpointFile.CheckpointReadBuffer.read (server-common; kafka.server.
// checkpoints.CheckpointFile before 3.x): a version line, an entry-count line, one line per
// entry. No line at all, or a version line alone, is an empty checkpoint. It returns the version
// read (-1 when the file is empty) and calls entry for each entry line; entry returns whether
// the line parsed (false: "Malformed line") or an error of its own.
func readCheckpoint(data []byte, file string, entry func(l textLine, fields [][]byte) (bool, error), fieldCount int) (int, error) {
	r := &lineReader{data: data}
	l, line, ok := r.nextBytes()
	if !ok {
		return -1, nil
	}
	malformed := func(l textLine) error {
		return lineErr(file, l, "Malformed line in checkpoint file [%s]: %s", file, printsafe.Excerpt(l.String()))
	}
	if err := l.validUTF8(file); err != nil {
		return -1, err
	}
	v, ok := javaParseInt(line, 32)
	if !ok {
		return -1, malformed(l)
	}
	if v != CheckpointFileVersion {
		return int(v), lineErr(file, l, "Unrecognised version:%d, expected version: %d in checkpoint file at: %s", v, CheckpointFileVersion, file)
	}
	l, line, ok = r.nextBytes()
	if !ok {
		return int(v), nil
	}
	if err := l.validUTF8(file); err != nil {
		return int(v), err
	}
	expected, ok := javaParseInt(line, 32)
	if !ok {
		return int(v), malformed(l)
	}
	if expected < 0 {
		// new ArrayList<>(expectedSize) with a negative capacity.
		return int(v), lineErr(file, l, "Illegal Capacity: %d", expected)
	}
	found := 0
	var buf [4][]byte
	for {
		l, line, ok = r.nextBytes()
		if !ok {
			break
		}
		if err := l.validUTF8(file); err != nil {
			return int(v), err
		}
		fields := javaWhitespaceFields(buf[:0], line, fieldCount)
		if len(fields) != fieldCount {
			return int(v), malformed(l)
		}
		good, err := entry(l, fields)
		if err != nil {
			return int(v), err
		}
		if !good {
			return int(v), malformed(l)
		}
		found++
	}
	if int64(found) != expected {
		return int(v), formatErr(file, int64(len(data)), "Expected [%d] entries in checkpoint file [%s], but found only [%d]", expected, file, found)
	}
	return int(v), nil
}

// entryCapacity is a capacity for the entries of a checkpoint: the count line, but never more
// than the lines the data can hold (a hostile count is not trusted).
func entryCapacity(data []byte, perLine int) int {
	return min(bytes.Count(data, []byte{'\n'})+bytes.Count(data, []byte{'\r'})+1, len(data)/perLine+1)
}

// EpochEntry is one line of a leader-epoch-checkpoint: the first offset written at a leader
// epoch (EpochEntry).
type EpochEntry struct {
	Epoch       int32 `json:"epoch"`
	StartOffset int64 `json:"startOffset"`
}

// ParseLeaderEpochCheckpoint decodes a leader-epoch-checkpoint (KIP-101, Kafka 0.11+;
// LeaderEpochCheckpointFile): "0", the entry count, then "epoch startOffset" lines. A field that
// is no number fails as Kafka's formatter does, with its NumberFormatException message. An empty
// file has no entries.
func ParseLeaderEpochCheckpoint(data []byte, file string) ([]EpochEntry, error) {
	var out []EpochEntry
	_, err := readCheckpoint(data, file, func(l textLine, f [][]byte) (bool, error) {
		if out == nil {
			out = make([]EpochEntry, 0, entryCapacity(data, 4))
		}
		epoch, ok := javaParseInt(f[0], 32)
		if !ok {
			return false, lineErr(file, l, "%s", numberFormat(f[0]))
		}
		start, ok := javaParseInt(f[1], 64)
		if !ok {
			return false, lineErr(file, l, "%s", numberFormat(f[1]))
		}
		out = append(out, EpochEntry{Epoch: int32(epoch), StartOffset: start})
		return true, nil
	}, 2)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadLeaderEpochCheckpoint reads and decodes a leader-epoch-checkpoint file.
func ReadLeaderEpochCheckpoint(path string) ([]EpochEntry, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return nil, err
	}
	return ParseLeaderEpochCheckpoint(data, path)
}

// OffsetCheckpointEntry is one line of an offset checkpoint: "topic partition offset".
type OffsetCheckpointEntry struct {
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
}

// ParseOffsetCheckpoint decodes one of the log-dir root's offset checkpoints
// (OffsetCheckpointFile): recovery-point-offset-checkpoint, replication-offset-checkpoint (the
// high watermarks), log-start-offset-checkpoint and cleaner-offset-checkpoint. Format: "0", the
// entry count, then "topic partition offset" lines. Entries come back in file order; Kafka reads
// them into a map, where a repeated partition keeps its last offset. An empty file has no
// entries.
func ParseOffsetCheckpoint(data []byte, file string) ([]OffsetCheckpointEntry, error) {
	out, _, err := parseOffsetCheckpoint(data, file, false)
	return out, err
}

// ParseOffsetCheckpointPlaced is ParseOffsetCheckpoint that also gives the byte position of
// each entry's line, for findings about one entry.
func ParseOffsetCheckpointPlaced(data []byte, file string) ([]OffsetCheckpointEntry, []int64, error) {
	return parseOffsetCheckpoint(data, file, true)
}

func parseOffsetCheckpoint(data []byte, file string, placed bool) ([]OffsetCheckpointEntry, []int64, error) {
	var out []OffsetCheckpointEntry
	var pos []int64
	_, err := readCheckpoint(data, file, func(l textLine, f [][]byte) (bool, error) {
		if out == nil {
			out = make([]OffsetCheckpointEntry, 0, entryCapacity(data, 6))
		}
		if placed {
			pos = append(pos, int64(l.pos))
		}
		p, ok := javaParseInt(f[1], 32)
		if !ok {
			return false, lineErr(file, l, "%s", numberFormat(f[1]))
		}
		off, ok := javaParseInt(f[2], 64)
		if !ok {
			return false, lineErr(file, l, "%s", numberFormat(f[2]))
		}
		out = append(out, OffsetCheckpointEntry{Topic: string(f[0]), Partition: int(p), Offset: off})
		return true, nil
	}, 3)
	if err != nil {
		return nil, nil, err
	}
	return out, pos, nil
}

// ReadOffsetCheckpoint reads and decodes an offset checkpoint file (recovery-point-offset-
// checkpoint and friends).
func ReadOffsetCheckpoint(path string) ([]OffsetCheckpointEntry, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return nil, err
	}
	return ParseOffsetCheckpoint(data, path)
}

// ReadOffsetCheckpointPlaced is ReadOffsetCheckpoint with each entry's byte position.
func ReadOffsetCheckpointPlaced(path string) ([]OffsetCheckpointEntry, []int64, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return nil, nil, err
	}
	return ParseOffsetCheckpointPlaced(data, path)
}

// KafkaUUID is a Kafka Uuid (topic ids, directory ids): 16 bytes, written as unpadded URL-safe
// base64 (Uuid.toString).
type KafkaUUID [16]byte

// String is Uuid.toString: 22 characters of unpadded URL-safe base64.
func (u KafkaUUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// Hex is the RFC 4122 form of the same 16 bytes (8-4-4-4-12 hex digits).
func (u KafkaUUID) Hex() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// IsZero says whether the id is Uuid.ZERO_UUID.
func (u KafkaUUID) IsZero() bool { return u == KafkaUUID{} }

// MarshalJSON writes the id as Kafka writes it (base64).
func (u KafkaUUID) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// ParseKafkaUUID is Uuid.fromString: at most 24 characters, URL-safe base64 (padding optional,
// as Base64.getUrlDecoder accepts), exactly 16 bytes. The messages are Uuid's; where Java's
// Base64 decoder itself fails the message is kidx's approximation of it.
func ParseKafkaUUID(s string) (KafkaUUID, error) {
	var u KafkaUUID
	if len(s) > 24 {
		return u, kafkaErr("Input string with prefix `%s` is too long to be decoded as a base64 UUID", s[:24])
	}
	// Go's decoder skips '\r' and '\n', Java's does not: check the alphabet first.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(alphabet, s[i]) < 0 {
			return u, kafkaErr("Illegal base64 character %x", s[i])
		}
	}
	enc := base64.RawURLEncoding
	if strings.HasSuffix(s, "=") {
		enc = base64.URLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return u, kafkaErr("Last unit does not have enough valid bits")
	}
	if len(b) != 16 {
		return u, kafkaErr("Input string `%s` decoded as %d bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID", s, len(b))
	}
	copy(u[:], b)
	return u, nil
}

// PartitionMetadata is a partition.metadata file (KIP-516, Kafka 2.8+; PartitionMetadataFile).
type PartitionMetadata struct {
	Version int       `json:"version"`
	TopicID KafkaUUID `json:"-"`
}

// MarshalJSON keeps the keys stable: version, topicId (base64, as written), topicUuid (hex).
func (m PartitionMetadata) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Version   int    `json:"version"`
		TopicID   string `json:"topicId"`
		TopicUUID string `json:"topicUuid"`
	}{m.Version, m.TopicID.String(), m.TopicID.Hex()})
}

// ParsePartitionMetadata decodes partition.metadata as PartitionMetadataReadBuffer.read does:
// "version: 0" then "topic_id: <base64 uuid>" (a key, ':' and at least one white-space
// character), a version of at least 0 (a later version is accepted, for downgrades), a topic id
// that is not the zero id. Lines after the second are not read. Messages are Kafka's ("Malformed
// line in partition metadata file [<file>]: <line>", "Unrecognized version of partition metadata
// file (<file>): -1", "Invalid topic ID in partition metadata file (<file>)").
func ParsePartitionMetadata(data []byte, file string) (PartitionMetadata, error) {
	var out PartitionMetadata
	r := &lineReader{data: data}
	malformed := func(l textLine, cause string) error {
		if cause != "" {
			// Kafka attaches the parse failure as the exception's cause.
			return lineErr(file, l, "Malformed line in partition metadata file [%s]: %s (caused by %s)", file, printsafe.Excerpt(l.text), cause)
		}
		return lineErr(file, l, "Malformed line in partition metadata file [%s]: %s", file, printsafe.Excerpt(l.text))
	}
	field := func(key string) (string, textLine, error) {
		l, ok := r.next()
		if !ok {
			at := textLine{no: r.no + 1, pos: len(data)}
			return "", at, lineErr(file, at, "Malformed line in partition metadata file [%s]: null", file)
		}
		if err := l.validUTF8(file); err != nil {
			return "", l, err
		}
		k, v, ok := splitColonSpace(l.text)
		if !ok || k != key {
			return "", l, malformed(l, "")
		}
		return v, l, nil
	}
	v, l, err := field("version")
	if err != nil {
		return out, err
	}
	version, ok := javaParseInt(v, 32)
	if !ok {
		return out, malformed(l, "java.lang.NumberFormatException: "+numberFormat(v))
	}
	if version < partitionMetadataCurrentVersion {
		return out, lineErr(file, l, "Unrecognized version of partition metadata file (%s): %d", file, version)
	}
	out.Version = int(version)
	id, l, err := field("topic_id")
	if err != nil {
		return out, err
	}
	u, uerr := ParseKafkaUUID(id)
	if uerr != nil {
		return out, malformed(l, "java.lang.IllegalArgumentException: "+uerr.Error())
	}
	if u.IsZero() {
		return out, lineErr(file, l, "Invalid topic ID in partition metadata file (%s)", file)
	}
	out.TopicID = u
	return out, nil
}

// splitColonSpace is line.split(":\\s+", 2) when it gives two parts: the text before the first
// ':' followed by white space, and the text after that white space.
func splitColonSpace(line string) (key, value string, ok bool) {
	for i := 0; i < len(line); i++ {
		if line[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(line) && strings.IndexByte(" \t\n\x0b\f\r", line[j]) >= 0 {
			j++
		}
		if j > i+1 {
			return line[:i], line[j:], true
		}
	}
	return "", "", false
}

// ReadPartitionMetadata reads and decodes a partition.metadata file.
func ReadPartitionMetadata(path string) (PartitionMetadata, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return PartitionMetadata{}, err
	}
	return ParsePartitionMetadata(data, path)
}

// Property is one key=value of a Java properties file, after Properties.load's unescaping.
type Property struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Line  int    `json:"line"` // the line where the key starts
}

// MetaProperties is a log directory's meta.properties (MetaProperties; kafka.server.
// BrokerMetadataCheckpoint in older releases). Version 0 is ZooKeeper mode (broker.id, cluster.id
// optional); version 1 is KRaft (node.id and cluster.id required); version 2 (Kafka 4.x) makes
// cluster.id optional and directory.id required. directory.id (KIP-858, 3.7+) names the log
// directory for JBOD in KRaft.
type MetaProperties struct {
	Version     int        `json:"version"`
	ClusterID   *string    `json:"clusterId"`   // cluster.id (a string, not checked as a Uuid), or null
	NodeID      *int32     `json:"nodeId"`      // node.id (v1, v2) or broker.id (v0), or null
	DirectoryID *KafkaUUID `json:"directoryId"` // directory.id, or null
	Properties  []Property `json:"properties"`  // every key in file order, duplicates included
}

// ParseMetaProperties decodes meta.properties as Properties.load (ISO-8859-1, '#'/'!' comments,
// '=' ':' or white space between key and value, backslash escapes and line continuations)
// followed by MetaProperties.Builder(Properties) and build(), with their messages ("Unknown
// meta.properties version number 3", "Failed to find node.id", "Unable to read broker.id as a
// base-10 number.", "cluster.id was not found.", "Unable to read directory.id as a Uuid: ...").
// Properties that fail are reported at the line of their key. For version 2 a missing
// directory.id gives "directory.id was not found.", kidx's wording after
// MetaPropertiesVersion's description of v2.
func ParseMetaProperties(data []byte, file string) (MetaProperties, error) {
	var out MetaProperties
	props, err := loadJavaProperties(data, file)
	if err != nil {
		return out, err
	}
	out.Properties = props
	get := func(key string) (Property, bool) {
		for i := len(props) - 1; i >= 0; i-- { // Properties keeps the last value of a key
			if props[i].Key == key {
				return props[i], true
			}
		}
		return Property{}, false
	}
	fail := func(p Property, format string, args ...any) error {
		pos := lineStart(data, p.Line)
		return formatErr(file, int64(pos), "line %d: %s", p.Line, fmt.Sprintf(format, args...))
	}
	failFile := func(format string, args ...any) error {
		return formatErr(file, 0, format, args...)
	}
	vp, hasVersion := get("version")
	version := int64(0)
	if hasVersion {
		var ok bool
		if version, ok = javaParseInt(strings.TrimFunc(vp.Value, func(c rune) bool { return c <= ' ' }), 32); !ok {
			return out, fail(vp, "Invalid meta.properties version string '%s'", printsafe.Excerpt(vp.Value))
		}
		if version < 0 || version > 2 {
			return out, fail(vp, "Unknown meta.properties version number %d", version)
		}
	}
	out.Version = int(version)
	idKey := "node.id"
	if version == 0 {
		idKey = "broker.id"
	}
	if p, ok := get(idKey); ok {
		id, ok := javaParseInt(p.Value, 32)
		if !ok {
			return out, fail(p, "Unable to read %s as a base-10 number.", idKey)
		}
		v := int32(id)
		out.NodeID = &v
	} else if version != 0 {
		return out, failFile("Failed to find %s", idKey)
	}
	if p, ok := get("cluster.id"); ok {
		v := p.Value
		out.ClusterID = &v
	}
	if p, ok := get("directory.id"); ok {
		u, err := ParseKafkaUUID(p.Value)
		if err != nil {
			return out, fail(p, "Unable to read directory.id as a Uuid: %v", err)
		}
		out.DirectoryID = &u
	}
	switch version {
	case 1:
		if out.ClusterID == nil {
			return out, failFile("cluster.id was not found.")
		}
	case 2:
		if out.DirectoryID == nil {
			return out, failFile("directory.id was not found.")
		}
	}
	return out, nil
}

// ReadMetaProperties reads and decodes a meta.properties file.
func ReadMetaProperties(path string) (MetaProperties, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return MetaProperties{}, err
	}
	return ParseMetaProperties(data, path)
}

// lineStart is the byte position where 1-based line n starts.
func lineStart(data []byte, n int) int {
	r := &lineReader{data: data}
	for {
		l, ok := r.next()
		if !ok || l.no == n {
			if !ok {
				return len(data)
			}
			return l.pos
		}
	}
}

// loadJavaProperties is java.util.Properties.load(InputStream): bytes are ISO-8859-1 (one byte,
// one character); a logical line is continued by an odd number of trailing backslashes; leading
// white space (space, \t, \f) is skipped; '#' or '!' starts a comment line; the key ends at the
// first unescaped '=', ':' or white space, then white space and one '=' or ':' are skipped;
// \t \n \r \f and \uXXXX are escapes and any other escaped character stands for itself.
func loadJavaProperties(data []byte, file string) ([]Property, error) {
	var out []Property
	if len(data) > 0 {
		out = make([]Property, 0, entryCapacity(data, 2)) // a property takes a line of 2 bytes or more
	}
	r := &lineReader{data: data}
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }
	trimLeft := func(b []byte) []byte {
		for len(b) > 0 && isWS(b[0]) {
			b = b[1:]
		}
		return b
	}
	oddBackslashes := func(b []byte) bool {
		n := 0
		for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
			n++
		}
		return n%2 == 1
	}
	var joined, scratch []byte
	for {
		first, line, ok := r.nextBytes()
		if !ok {
			break
		}
		line = trimLeft(line)
		if len(line) == 0 || line[0] == '#' || line[0] == '!' {
			continue
		}
		logical := line
		if oddBackslashes(line) {
			joined = joined[:0]
			for oddBackslashes(line) {
				joined = append(joined, line[:len(line)-1]...)
				_, next, ok := r.nextBytes()
				if !ok {
					line = nil
					break
				}
				line = trimLeft(next)
			}
			logical = append(joined, line...)
			joined = logical
		}
		// Split the key from the value (Properties.load0).
		keyEnd, valStart := len(logical), len(logical)
		hasSep := false
		for i := 0; i < len(logical); i++ {
			c := logical[i]
			if c == '\\' {
				i++
				continue
			}
			if c == '=' || c == ':' {
				keyEnd, valStart, hasSep = i, i+1, true
				break
			}
			if isWS(c) {
				keyEnd, valStart = i, i+1
				break
			}
		}
		for valStart < len(logical) && isWS(logical[valStart]) {
			valStart++
		}
		if !hasSep && valStart < len(logical) && (logical[valStart] == '=' || logical[valStart] == ':') {
			valStart++
			for valStart < len(logical) && isWS(logical[valStart]) {
				valStart++
			}
		}
		var key, val string
		var err error
		if key, scratch, err = javaUnescape(scratch, logical[:keyEnd]); err != nil {
			return nil, lineErr(file, first, "%v", err)
		}
		if val, scratch, err = javaUnescape(scratch, logical[min(valStart, len(logical)):]); err != nil {
			return nil, lineErr(file, first, "%v", err)
		}
		out = append(out, Property{Key: key, Value: val, Line: first.no})
	}
	return out, nil
}

// javaUnescape is Properties.loadConvert on ISO-8859-1 bytes; the result is UTF-8. buf is
// scratch space, returned for reuse.
func javaUnescape(buf, b []byte) (string, []byte, error) {
	buf = buf[:0]
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			buf = utf8.AppendRune(buf, rune(c))
			continue
		}
		i++
		if i >= len(b) {
			break
		}
		switch c = b[i]; c {
		case 'u':
			if i+4 >= len(b) {
				return "", buf, kafkaErr("Malformed \\uxxxx encoding.")
			}
			v, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 16)
			if err != nil {
				return "", buf, kafkaErr("Malformed \\uxxxx encoding.")
			}
			buf = utf8.AppendRune(buf, rune(v))
			i += 4
		case 't':
			buf = append(buf, '\t')
		case 'r':
			buf = append(buf, '\r')
		case 'n':
			buf = append(buf, '\n')
		case 'f':
			buf = append(buf, '\f')
		default:
			buf = utf8.AppendRune(buf, rune(c))
		}
	}
	return string(buf), buf, nil
}

// QuorumState is a KRaft quorum-state file (FileQuorumStateStore, QuorumStateData): the
// election state of the metadata log, one JSON object on the first line with a data_version.
// Version 0 (Kafka 2.8 to 3.x) has clusterId, appliedOffset and currentVoters; version 1
// (KIP-853, 3.8+) drops them and adds votedDirectoryId.
type QuorumState struct {
	DataVersion      int16    `json:"dataVersion"`
	ClusterID        *string  `json:"clusterId,omitempty"` // v0
	LeaderID         int32    `json:"leaderId"`
	LeaderEpoch      int32    `json:"leaderEpoch"`
	VotedID          int32    `json:"votedId"`
	VotedDirectoryID *string  `json:"votedDirectoryId,omitempty"` // v1
	AppliedOffset    *int64   `json:"appliedOffset,omitempty"`    // v0
	CurrentVoters    []int32  `json:"currentVoters,omitempty"`    // v0 (null in the file: nil)
	OtherKeys        []string `json:"otherKeys,omitempty"`        // keys QuorumStateData does not have
}

// ParseQuorumState decodes quorum-state as FileQuorumStateStore.readStateFromFile does: the first
// line must be a JSON object ("File ended prematurely.", "Deserialized node <line> is not an
// object node") with a data_version of 0 or 1 ("Deserialized node <line> does not have
// data_version field", "data_version (2) is not within the min (0) and max (1) supported
// version"; like JsonNode.shortValue, a data_version that is not a number reads as 0), then
// every field of that version must be there, as QuorumStateDataJsonConverter.read requires
// ("QuorumStateData: unable to locate field 'leaderId', which is mandatory in version 1"). The
// type checks after that are kidx's wording. Kafka wraps the I/O-level failures in "Error while
// reading the Quorum status from the file <file>", given here before the cause.
func ParseQuorumState(data []byte, file string) (QuorumState, error) {
	var out QuorumState
	wrapped := "Error while reading the Quorum status from the file " + file + ": "
	r := &lineReader{data: data}
	l, ok := r.next()
	if !ok {
		return out, formatErr(file, 0, "%sFile ended prematurely.", wrapped)
	}
	if err := l.validUTF8(file); err != nil {
		return out, err
	}
	fail := func(format string, args ...any) error { return lineErr(file, l, format, args...) }
	text := strings.TrimSpace(l.text)
	if text == "" {
		// ObjectMapper.readTree of nothing is a MissingNode, which prints as "".
		return out, fail("%sDeserialized node  is not an object node", wrapped)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return out, fail("%snot JSON (%v)", wrapped, printsafe.Line(err.Error()))
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(first, &obj) != nil || obj == nil {
		return out, fail("%sDeserialized node %s is not an object node", wrapped, printsafe.Excerpt(string(first)))
	}
	dv, ok := obj["data_version"]
	if !ok {
		return out, fail("%sDeserialized node %s does not have data_version field", wrapped, printsafe.Excerpt(string(first)))
	}
	var n json.Number
	if len(dv) > 0 && dv[0] != '"' && json.Unmarshal(dv, &n) == nil {
		if f, err := n.Float64(); err == nil && f > -1<<62 && f < 1<<62 {
			out.DataVersion = int16(int64(f))
		}
	}
	v := out.DataVersion
	if v < 0 || v > 1 {
		return out, fail("data_version (%d) is not within the min (%d) and max (%d) supported version", v, 0, 1)
	}
	mandatory := func(key string) (json.RawMessage, error) {
		raw, ok := obj[key]
		if !ok {
			return nil, fail("QuorumStateData: unable to locate field '%s', which is mandatory in version %d", key, v)
		}
		return raw, nil
	}
	intField := func(key string, bits int) (int64, error) {
		raw, err := mandatory(key)
		if err != nil {
			return 0, err
		}
		// A JSON number only (MessageUtil.jsonNodeToInt rejects text nodes).
		var n json.Number
		if len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &n) == nil {
			if x, err := strconv.ParseInt(n.String(), 10, bits); err == nil {
				return x, nil
			}
		}
		return 0, fail("quorum-state field '%s' is %s, not an int%d", key, printsafe.Excerpt(string(raw)), bits)
	}
	stringField := func(key string) (*string, error) {
		raw, err := mandatory(key)
		if err != nil {
			return nil, err
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, fail("quorum-state field '%s' is %s, not a string", key, printsafe.Excerpt(string(raw)))
		}
		return &s, nil
	}
	var err error
	if v == 0 {
		if out.ClusterID, err = stringField("clusterId"); err != nil {
			return out, err
		}
	}
	for _, f := range []struct {
		key string
		dst *int32
	}{{"leaderId", &out.LeaderID}, {"leaderEpoch", &out.LeaderEpoch}, {"votedId", &out.VotedID}} {
		x, err := intField(f.key, 32)
		if err != nil {
			return out, err
		}
		*f.dst = int32(x)
	}
	if v >= 1 {
		if out.VotedDirectoryID, err = stringField("votedDirectoryId"); err != nil {
			return out, err
		}
		if _, uerr := ParseKafkaUUID(*out.VotedDirectoryID); uerr != nil {
			return out, fail("quorum-state field 'votedDirectoryId': %v", uerr)
		}
	}
	if v == 0 {
		x, err := intField("appliedOffset", 64)
		if err != nil {
			return out, err
		}
		out.AppliedOffset = &x
		raw, err := mandatory("currentVoters")
		if err != nil {
			return out, err
		}
		if string(raw) != "null" {
			var voters []map[string]json.RawMessage
			if json.Unmarshal(raw, &voters) != nil {
				return out, fail("quorum-state field 'currentVoters' is %s, not an array of voters", printsafe.Excerpt(string(raw)))
			}
			out.CurrentVoters = make([]int32, 0, len(voters))
			for _, e := range voters {
				id, ok := e["voterId"]
				if !ok {
					return out, fail("Voter: unable to locate field 'voterId', which is mandatory in version %d", v)
				}
				var n json.Number
				x, perr := int64(0), fmt.Errorf("not a number")
				if len(id) > 0 && id[0] != '"' && json.Unmarshal(id, &n) == nil {
					x, perr = strconv.ParseInt(n.String(), 10, 32)
				}
				if perr != nil {
					return out, fail("quorum-state voterId %s is not an int32", printsafe.Excerpt(string(id)))
				}
				out.CurrentVoters = append(out.CurrentVoters, int32(x))
			}
		}
	}
	known := map[string]bool{"data_version": true, "clusterId": true, "leaderId": true, "leaderEpoch": true, "votedId": true,
		"votedDirectoryId": true, "appliedOffset": true, "currentVoters": true}
	for k := range obj {
		if !known[k] {
			out.OtherKeys = append(out.OtherKeys, k)
		}
	}
	sort.Strings(out.OtherKeys)
	return out, nil
}

// ReadQuorumState reads and decodes a quorum-state file.
func ReadQuorumState(path string) (QuorumState, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return QuorumState{}, err
	}
	return ParseQuorumState(data, path)
}

// CleanShutdown is the content of a .kafka_cleanshutdown marker. Its presence is what matters
// (LogManager skips recovery when it exists). Kafka 3.7+ (KIP-966, CleanShutdownFileHandler)
// writes {"version":0,"brokerEpoch":N}; earlier releases an empty file.
type CleanShutdown struct {
	Empty       bool   `json:"empty"`
	Version     *int   `json:"version,omitempty"`
	BrokerEpoch *int64 `json:"brokerEpoch,omitempty"`
	// Unreadable says why the content is not CleanShutdownFileHandler's JSON. Kafka then reads
	// no broker epoch (read() logs at debug level and returns empty); the shutdown still counts
	// as clean.
	Unreadable string `json:"unreadable,omitempty"`
}

// ParseCleanShutdown decodes a .kafka_cleanshutdown marker. It never fails: content Kafka
// cannot read is reported in Unreadable, as Kafka tolerates it.
func ParseCleanShutdown(data []byte) CleanShutdown {
	if len(data) == 0 {
		return CleanShutdown{Empty: true}
	}
	var c struct {
		Version     *json.Number `json:"version"`
		BrokerEpoch *json.Number `json:"brokerEpoch"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		// In words, never a Go type name (issue 11, defect 5).
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return CleanShutdown{Unreadable: "not JSON: " + err.Error()}
		}
		return CleanShutdown{Unreadable: jsonwords.Describe(err, "").Error()}
	}
	var out CleanShutdown
	if c.Version != nil {
		if v, err := strconv.ParseInt(c.Version.String(), 10, 32); err == nil {
			x := int(v)
			out.Version = &x
		} else {
			return CleanShutdown{Unreadable: fmt.Sprintf("version %s is not an int", c.Version)}
		}
	}
	if c.BrokerEpoch == nil {
		out.Unreadable = "no brokerEpoch"
		return out
	}
	e, err := strconv.ParseInt(c.BrokerEpoch.String(), 10, 64)
	if err != nil {
		out.Unreadable = fmt.Sprintf("brokerEpoch %s is not a long", c.BrokerEpoch)
		return out
	}
	out.BrokerEpoch = &e
	return out
}
