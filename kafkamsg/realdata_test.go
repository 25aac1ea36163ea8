package kafkamsg

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kidx/codec"
	"kidx/internal/rawlog"
	"kidx/internal/realdata"
)

// The real partitions of ../shared/realdata. kafkamsg is layer 0, so its tests cannot read
// records through segment (layer 1): they walk the files with rawlog (the brute-force walk of
// the test layer) and split batches into records by hand below (DefaultRecord's layout),
// decompressing with codec (layer 0). The files are read where they are stored, read-only:
// MANIFEST.tsv says every .log and .checkpoint there is stored verbatim (only index files lose
// their zero tails), so the ~25 s restore.sh copy of everything is not needed here.

// rawRecord is one record of a batch: its key and value (nil: null) and whether the batch is
// a control batch.
type rawRecord struct {
	key, value []byte
	control    bool
}

// recordsOf splits every batch of a .log or .checkpoint file into records. v2 batches: the
// 61-byte header, then (decompressed) records of varint length, attributes, varlong
// timestamp delta, varint offset delta, varint key length and key, varint value length and
// value, headers. Legacy magic 0/1 messages: the key and value after the message header
// (inner messages of a compressed wrapper likewise).
func recordsOf(t testing.TB, path string) []rawRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	batches, _, err := rawlog.ParseLog(data, path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []rawRecord
	for _, b := range batches {
		entry := data[b.Position:b.End()]
		if b.Magic < 2 {
			out = append(out, legacyRecords(t, path, entry[12:], b.Codec, int8(b.Magic))...)
			continue
		}
		attrs := binary.BigEndian.Uint16(entry[21:])
		control := attrs&0x20 != 0
		count := int(int32(binary.BigEndian.Uint32(entry[57:])))
		section := entry[61:]
		if c := codec.Codec(attrs & 7); c != codec.None {
			if section, err = codec.Decompress(c, 2, section, 0); err != nil {
				t.Fatalf("%s at %d: %v", path, b.Position, err)
			}
		}
		r := &reader{buf: section}
		for i := 0; i < count; i++ {
			length := zigzag(r)
			start := r.pos
			r.take(1) // attributes
			zigzag(r) // timestamp delta
			zigzag(r) // offset delta
			key := varBytes(r)
			value := varBytes(r)
			if r.err != nil || r.pos-start > int(length) {
				t.Fatalf("%s at %d: record %d does not parse", path, b.Position, i)
			}
			r.pos = start + int(length) // headers are not needed
			out = append(out, rawRecord{key: key, value: value, control: control})
		}
	}
	return out
}

func legacyRecords(t testing.TB, path string, msg []byte, c byte, magic int8) []rawRecord {
	// crc(4) magic(1) attributes(1) [timestamp(8)] key value
	at := 6
	if magic == 1 {
		at = 14
	}
	r := &reader{buf: msg[at:]}
	key := int32Bytes(r)
	value := int32Bytes(r)
	if r.err != nil {
		t.Fatalf("%s: a legacy message does not parse", path)
	}
	if c == 0 {
		return []rawRecord{{key: key, value: value}}
	}
	inner, err := codec.Decompress(codec.Codec(c), magic, value, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []rawRecord
	for len(inner) >= 12 {
		size := int(binary.BigEndian.Uint32(inner[8:]))
		if 12+size > len(inner) {
			break
		}
		m := inner[12 : 12+size]
		out = append(out, legacyRecords(t, path, m, m[5]&7, int8(m[4]))...)
		inner = inner[12+size:]
	}
	return out
}

func zigzag(r *reader) int64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b := r.take(1)
		if b == nil {
			return 0
		}
		v |= uint64(b[0]&0x7f) << shift
		if b[0] < 0x80 {
			break
		}
	}
	return int64(v>>1) ^ -int64(v&1)
}

func varBytes(r *reader) []byte {
	n := zigzag(r)
	if n < 0 {
		return nil
	}
	if n > int64(r.remaining()) {
		r.fail(fmt.Errorf("length %d past the end", n))
		return nil
	}
	return r.take(int(n))
}

func int32Bytes(r *reader) []byte {
	n := r.readInt()
	if n < 0 {
		return nil
	}
	if int(n) > r.remaining() {
		r.fail(fmt.Errorf("length %d past the end", n))
		return nil
	}
	return r.take(int(n))
}

// filesOf is every .log and .checkpoint (a KRaft snapshot) of the partitions of root whose
// directory name starts with prefix, by partition.
func filesOf(t *testing.T, root, prefix string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	origins, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range origins {
		parts, _ := os.ReadDir(filepath.Join(root, o.Name()))
		for _, p := range parts {
			if !p.IsDir() || !strings.HasPrefix(p.Name(), prefix) {
				continue
			}
			dir := filepath.Join(root, o.Name(), p.Name())
			files, _ := os.ReadDir(dir)
			for _, f := range files {
				if strings.HasSuffix(f.Name(), ".log") || strings.HasSuffix(f.Name(), ".checkpoint") {
					out[o.Name()+"/"+p.Name()] = append(out[o.Name()+"/"+p.Name()], filepath.Join(dir, f.Name()))
				}
			}
		}
	}
	return out
}

// Every record of every real __cluster_metadata partition and KRaft snapshot decodes, and the
// decoder's record types agree with an independent count: the apiKey is the second byte of
// every value (frame version 1, then apiKey as an unsigned varint, one byte below 128), named
// by the table below (MetadataRecordType's names, written out by hand).
func TestRealClusterMetadataDecodes(t *testing.T) {
	root := realdata.Stored(t)
	names := map[byte]string{
		0: "REGISTER_BROKER_RECORD", 1: "UNREGISTER_BROKER_RECORD", 2: "TOPIC_RECORD", 3: "PARTITION_RECORD",
		4: "CONFIG_RECORD", 5: "PARTITION_CHANGE_RECORD", 7: "FENCE_BROKER_RECORD", 8: "UNFENCE_BROKER_RECORD",
		9: "REMOVE_TOPIC_RECORD", 10: "DELEGATION_TOKEN_RECORD", 11: "USER_SCRAM_CREDENTIAL_RECORD",
		12: "FEATURE_LEVEL_RECORD", 14: "CLIENT_QUOTA_RECORD", 15: "PRODUCER_IDS_RECORD",
		17: "BROKER_REGISTRATION_CHANGE_RECORD", 18: "ACCESS_CONTROL_ENTRY_RECORD",
		19: "REMOVE_ACCESS_CONTROL_ENTRY_RECORD", 20: "NO_OP_RECORD", 21: "ZK_MIGRATION_STATE_RECORD",
		22: "REMOVE_USER_SCRAM_CREDENTIAL_RECORD", 23: "BEGIN_TRANSACTION_RECORD", 24: "END_TRANSACTION_RECORD",
		25: "ABORT_TRANSACTION_RECORD", 26: "REMOVE_DELEGATION_TOKEN_RECORD", 27: "REGISTER_CONTROLLER_RECORD",
		28: "CLEAR_ELR_RECORD",
	}
	// Two partitions pinned: ldi-poc's 3.7 controller (4814 batches; the counts are those of
	// the byte scan above) and codecrafters-go's two test-tool batches (a FeatureLevelRecord,
	// a TopicRecord and a PartitionRecord, read off its hexdump).
	pinned := map[string]string{
		"ldi-poc/__cluster_metadata-0": "map[BEGIN_TRANSACTION_RECORD:1 BROKER_REGISTRATION_CHANGE_RECORD:3 CONFIG_RECORD:3 " +
			"END_TRANSACTION_RECORD:1 FEATURE_LEVEL_RECORD:1 NO_OP_RECORD:4801 PARTITION_CHANGE_RECORD:54 PARTITION_RECORD:54 " +
			"PRODUCER_IDS_RECORD:1 REGISTER_BROKER_RECORD:2 REGISTER_CONTROLLER_RECORD:1 TOPIC_RECORD:5 ZK_MIGRATION_STATE_RECORD:1]",
		"codecrafters-go/__cluster_metadata-0": "map[FEATURE_LEVEL_RECORD:1 PARTITION_RECORD:1 TOPIC_RECORD:1]",
	}
	parts := filesOf(t, root, "__cluster_metadata-")
	if len(parts) < 5 {
		t.Fatalf("%d __cluster_metadata partitions, want the 5 of the README", len(parts))
	}
	totals := map[string]map[string]int{}
	for part, files := range parts {
		decoded, independent := map[string]int{}, map[string]int{}
		for _, f := range files {
			for _, rec := range recordsOf(t, f) {
				if rec.control {
					continue // LeaderChange, SnapshotHeader/Footer, KRaftVersion, Voters
				}
				if len(rec.value) < 2 || rec.value[0] != 1 || rec.value[1] >= 0x80 {
					t.Fatalf("%s: a value that does not start with frame 1 and a one-byte apiKey: % x", f, rec.value[:min(8, len(rec.value))])
				}
				independent[names[rec.value[1]]]++
				obj, err := MetadataRecord(rec.value)
				if err != nil {
					t.Fatalf("%s: %v (value % x)", f, err, rec.value[:min(32, len(rec.value))])
				}
				text := JSON(obj)
				if !json.Valid([]byte(text)) {
					t.Fatalf("%s: invalid JSON %s", f, text)
				}
				typ := string(obj.Get("type").(String))
				decoded[typ]++
			}
		}
		if fmt.Sprint(decoded) != fmt.Sprint(independent) {
			t.Errorf("%s: decoded %v, independent count %v", part, decoded, independent)
		}
		if want, ok := pinned[part]; ok && fmt.Sprint(decoded) != want {
			t.Errorf("%s: decoded %v, want %s", part, decoded, want)
		}
		totals[part] = decoded
	}
	var lines []string
	for part, counts := range totals {
		lines = append(lines, fmt.Sprintf("%s: %v", part, counts))
	}
	sort.Strings(lines)
	t.Logf("record types:\n%s", strings.Join(lines, "\n"))
}

// Every record of every real __consumer_offsets and __transaction_state partition decodes
// through CoordinatorKey and CoordinatorValue (a null value is a tombstone: the key alone).
func TestRealCoordinatorRecordsDecode(t *testing.T) {
	root := realdata.Stored(t)
	for _, fam := range []struct {
		prefix string
		f      Family
	}{{"__consumer_offsets-", GroupCoordinator}, {"__transaction_state-", TransactionCoordinator}} {
		records, types := 0, map[string]int{}
		for part, files := range filesOf(t, root, fam.prefix) {
			for _, f := range files {
				for _, rec := range recordsOf(t, f) {
					if rec.control {
						continue // transaction markers of the coordinators' own writes
					}
					records++
					if len(rec.key) < 2 {
						t.Fatalf("%s: key % x", part, rec.key)
					}
					typ := int16(binary.BigEndian.Uint16(rec.key))
					k, err := CoordinatorKey(fam.f, typ, rec.key[2:])
					if err != nil {
						t.Fatalf("%s: key of type %d: %v", part, typ, err)
					}
					name, _ := RecordTypeName(fam.f, typ)
					types[name]++
					if !json.Valid([]byte(JSON(k))) {
						t.Fatalf("%s: invalid key JSON", part)
					}
					if rec.value == nil {
						continue
					}
					if len(rec.value) < 2 {
						t.Fatalf("%s: value % x", part, rec.value)
					}
					version := int16(binary.BigEndian.Uint16(rec.value))
					v, err := CoordinatorValue(fam.f, typ, version, rec.value[2:])
					if err != nil {
						t.Fatalf("%s: value of type %d version %d: %v", part, typ, version, err)
					}
					if !json.Valid([]byte(JSON(v))) {
						t.Fatalf("%s: invalid value JSON", part)
					}
				}
			}
		}
		if records == 0 {
			t.Errorf("no %s records found", fam.prefix)
		}
		t.Logf("%s: %d records, by type %v", fam.prefix, records, types)
	}
}
