#!/usr/bin/env python3
"""A Kafka offset-index reader that speaks kidx's "against" protocol, versions 1 and 2 (docs/against.md).

    python3 kafka_index_reader.py [--seed-post] PARTITION_DIR  < request.json
    python3 kafka_index_reader.py -                             < one request per line

The request is one JSON object on stdin; the answers are one JSON line per query on stdout:
{"start": S, "hit": H} for an offset query (H = -1: no batch), {"start": S, "offset": O,
"timestamp": T} for a timestamp query (protocol 2), {"baseOffset": B} for a segment query
(protocol 2), or {"error": MESSAGE, "file": NAME, "byte": B} for corrupt data. With "-" as the
partition argument it is the long-lived mode: one request per stdin line, each naming its
partition, the answers to each flushed before the next line is read, exit 0 at the end of stdin.

By default it is a correct reader, written from Kafka's source release line by release line
(the request's "release": 0.8-0.10.0, 0.10.1, 0.10.2, 0.11-2.0, 2.1-3.9 (the default), 4.0,
4.1+) and in the index view the request names ("indexView": running, the default, or
reopened). Standard library only: gzip'd batches and wrappers are inflated with zlib; snappy,
lz4 and zstd are not in the standard library (see examples/README.md for what that leaves out).

With --seed-post it runs the seed post's reader (docs/background.md, seed post 000, "You can read
this yourself") as the post prints it, so that kidx can show where it goes wrong. The only change
is that its lookup also returns phase 1's start position; on hostile input it raises and this
process exits non-zero with a traceback, as the post's reader would. It speaks protocol 1 only.
"""

import bisect
import json
import os
import re
import struct
import sys
import zlib

EXIT_REFUSED = 2

INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")
INT16 = struct.Struct(">H")
SLOT = struct.Struct(">ii")  # relative offset, position (OffsetIndex.ENTRY_SIZE = 8)
TIME_SLOT = struct.Struct(">qi")  # timestamp, relative offset (TimeIndex.ENTRY_SIZE = 12)
WARM_INDEX_BYTES = 8192  # AbstractIndex.warmEntries: the last 8192 / entry size entries
LOG_OVERHEAD = 12  # offset and size fields in front of every entry
HEADER_UP_TO_MAGIC = 17  # what FileLogInputStream reads per hop
MIN_RECORD_OVERHEAD = 14  # LegacyRecord.RECORD_OVERHEAD_V0, the smallest size field
V2_BATCH_OVERHEAD = 61  # DefaultRecordBatch.RECORD_BATCH_OVERHEAD
LAST_OFFSET_DELTA_AT = 23
V2_ATTRIBUTES_AT, V2_BASE_TIMESTAMP_AT, V2_MAX_TIMESTAMP_AT, V2_RECORDS_COUNT_AT = 21, 27, 35, 57
LOG_APPEND_TIME = 0x08  # the timestamp-type bit, legacy and v2 attributes alike
CODEC_MASK, CODEC_GZIP, CODEC_ZSTD = 0x07, 1, 4
NO_TIMESTAMP = -1
MAX_INT32 = (1 << 31) - 1
MAX_DECOMPRESSED = 64 << 20  # this reader's cap on what a wrapper or batch inflates to

# Release lines, oldest first; the protocol's default is 2.1-3.9.
RELEASES = ["0.8-0.10.0", "0.10.1", "0.10.2", "0.11-2.0", "2.1-3.9", "4.0", "4.1+"]
DEFAULT_RELEASE = "2.1-3.9"
VIEWS = ["running", "reopened"]


def as_long(value):
    """Wraps an integer to Java's long, as Kafka's offset additions do."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def as_int(value):
    """Wraps an integer to Java's int."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def os_message(error):
    """An OSError without the path (the answer names the file)."""
    return error.strerror or str(error)


class CorruptData(Exception):
    def __init__(self, message, file, byte):
        super().__init__(message)
        self.message, self.file, self.byte = message, file, byte


class Refused(Exception):
    """A request this reader does not answer (exit 2)."""

# ---------------------------------------------------------------------------------------------
# The correct reader.

def valid_entries(raw, slot_size, rel_at):
    """How many entries a running broker holds: the slots before the first slot i >= 1 whose
    relative offset (at rel_at in the slot) is 0 (a preallocated index ends in zeros); none when
    that leaves only an all-zero slot 0 of a file of several slots."""
    slots = len(raw) // slot_size
    n = slots
    for i in range(1, slots):
        if INT32.unpack_from(raw, i * slot_size + rel_at)[0] == 0:
            n = i
            break
    if n == 1 and slots > 1 and not any(raw[:slot_size]):
        return 0
    return n


def largest_lower_bound(n, warm, target, key):
    """AbstractIndex.largestLowerBoundSlotFor over n keys: the slot of the largest key <= target,
    -1 when none. warm > 0: 2.1's warm section first (KAFKA-6432); warm 0: the plain search of
    the releases before. The upper middle, and an equal key ends the search, as Kafka's."""
    if n == 0:
        return -1
    lo, hi = 0, n - 1
    if warm > 0:
        first = max(0, n - 1 - warm)
        if key(first) < target:
            lo = first
            return binary_search(lo, hi, target, key)
        hi = first
    if key(0) > target:
        return -1
    return binary_search(lo, hi, target, key)


def binary_search(lo, hi, target, key):
    while lo < hi:
        mid = (lo + hi + 1) // 2
        k = key(mid)
        if k > target:
            hi = mid - 1
        elif k < target:
            lo = mid
        else:
            return mid
    return lo


def read_index_file(directory, name, slot_size):
    """An index file rounded down to whole slots; a missing file has none."""
    try:
        with open(os.path.join(directory, name), "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return b""
    except OSError as e:
        raise CorruptData(os_message(e), name, -1)
    return raw[:len(raw) // slot_size * slot_size]


class Batch:
    """What FileLogInputStream.nextBatch learns from a batch's first 17 bytes."""
    __slots__ = ("pos", "total", "offset", "magic")

    def __init__(self, pos, total, offset, magic):
        self.pos, self.total, self.offset, self.magic = pos, total, offset, magic


class Segment:
    """One segment: its index files read once, its log read header by header."""

    def __init__(self, directory, stem, base):
        if not stem or stem in (".", "..") or os.path.basename(stem) != stem:
            raise CorruptData("segment name is not a file stem in the partition directory", stem, -1)
        self.base = base
        self.stem = stem
        self.log_name = stem + ".log"
        self.offset_raw = read_index_file(directory, stem + ".index", SLOT.size)
        self.time_raw = read_index_file(directory, stem + ".timeindex", TIME_SLOT.size)
        self.offset_valid = valid_entries(self.offset_raw, SLOT.size, 0)
        self.time_valid = valid_entries(self.time_raw, TIME_SLOT.size, 8)
        self.log, self.log_error = None, None
        try:
            self.log = open(os.path.join(directory, self.log_name), "rb")
            self.log_size = os.fstat(self.log.fileno()).st_size
        except OSError as e:
            self.log_error = CorruptData(os_message(e), self.log_name, -1)

    def close(self):
        if self.log is not None:
            self.log.close()

    def corrupt(self, at, message):
        return CorruptData(message, self.log_name, at)

    # Phase 1 ----------------------------------------------------------------------------------

    @staticmethod
    def entries(raw, valid, slot_size, view):
        """The valid entries (running) or every whole slot (reopened: AbstractIndex's
        entries = length / entry size, a zero slot reading as (base offset, 0))."""
        return len(raw) // slot_size if view == "reopened" else valid

    @staticmethod
    def warm(slot_size, release):
        return 0 if RELEASES.index(release) < RELEASES.index("2.1-3.9") else WARM_INDEX_BYTES // slot_size

    def offset_start(self, target, release, view):
        """OffsetIndex.lookup's position, 0 when no entry is at or below target, and its slot
        (-1 for none)."""
        raw = self.offset_raw
        n = self.entries(raw, self.offset_valid, SLOT.size, view)
        if release == "0.8-0.10.0":
            # 0.8's indexSlotFor compares relative offsets with target - base (a long).
            slot = largest_lower_bound(n, 0, as_long(target - self.base),
                                       lambda i: INT32.unpack_from(raw, i * 8)[0])
        else:
            base = self.base
            slot = largest_lower_bound(n, self.warm(SLOT.size, release), target,
                                       lambda i: as_long(base + INT32.unpack_from(raw, i * 8)[0]))
        return (0, -1) if slot < 0 else (INT32.unpack_from(raw, slot * 8 + 4)[0], slot)

    # Phase 2 ----------------------------------------------------------------------------------

    def read_at(self, at, size):
        self.log.seek(at)
        data = self.log.read(size)
        if len(data) != size:
            raise self.corrupt(at, "the file ended while reading %d bytes (it shrank while read)" % size)
        return data

    def walk(self, pos, target, release):
        if release in ("0.8-0.10.0", "0.10.1"):
            return self.walk_message_set(pos, target, release)
        if release == "0.10.2":
            return self.walk_entries(pos, target)
        if release == "4.1+":
            return self.walk_from_position(pos, target)
        return self.walk_last_offset(pos, target, release)

    def walk_message_set(self, pos, target, release):
        """0.8's FileMessageSet.searchFor (the offset compared before the size is read) and
        0.10.1's searchForOffsetWithSize (the size first); no end-of-entry check. Java int
        positions: a size carrying the next one past 2^31-1 makes it negative, and the next
        read throws (blamed on that size field)."""
        while pos + LOG_OVERHEAD < self.log_size:
            head = self.read_at(pos, LOG_OVERHEAD)
            offset, size = INT64.unpack_from(head, 0)[0], INT32.unpack_from(head, 8)[0]
            if release == "0.8-0.10.0" and offset >= target:
                return pos
            if size < MIN_RECORD_OVERHEAD:
                raise self.corrupt(pos + 8, "IllegalStateException: Invalid message size: %d" % size)
            if release == "0.10.1" and offset >= target:
                return pos
            if pos + LOG_OVERHEAD + size > MAX_INT32:
                raise self.corrupt(pos + 8, "IllegalArgumentException: Negative position (the size %d "
                                            "carries the next position past 2^31-1)" % size)
            pos += LOG_OVERHEAD + size
        return -1

    def walk_entries(self, pos, target):
        """0.10.2's searchForOffsetWithSize over FileLogInputStream.nextEntry: the end when 12
        bytes or fewer are left or at an entry past the end of the file (an int test that a
        size past 2^31-1 wraps, letting the entry pass); a size under 14 an error; the offset
        field decides."""
        while pos + LOG_OVERHEAD < self.log_size:
            head = self.read_at(pos, LOG_OVERHEAD)
            offset, size = INT64.unpack_from(head, 0)[0], INT32.unpack_from(head, 8)[0]
            if size < MIN_RECORD_OVERHEAD:
                raise self.corrupt(pos + 8, "CorruptRecordException: Record size is smaller than "
                                            "minimum record overhead (%d)." % MIN_RECORD_OVERHEAD)
            nxt = pos + LOG_OVERHEAD + size
            if nxt <= MAX_INT32 and nxt > self.log_size:
                return -1
            if offset >= target:
                return pos
            if nxt > MAX_INT32:
                raise self.corrupt(pos + 8, "IllegalArgumentException: Negative position (the size %d "
                                            "carries the next position past 2^31-1)" % size)
            pos = nxt
        return -1

    def next_batch(self, pos):
        """FileLogInputStream.nextBatch (0.11 on): None at the end of the log (17 bytes or fewer
        left, or an entry past the end of the file); a size under 14 is an error."""
        if pos >= self.log_size - HEADER_UP_TO_MAGIC:
            return None
        head = self.read_at(pos, HEADER_UP_TO_MAGIC)
        size = INT32.unpack_from(head, 8)[0]
        if size < MIN_RECORD_OVERHEAD:
            raise self.corrupt(pos + 8, "CorruptRecordException: Found record size %d smaller than minimum "
                                        "record overhead (%d) in file %s." % (size, MIN_RECORD_OVERHEAD, self.log_name))
        if pos > self.log_size - LOG_OVERHEAD - size:
            return None
        return Batch(pos, LOG_OVERHEAD + size, INT64.unpack_from(head, 0)[0], struct.unpack_from(">b", head, 16)[0])

    def load_batch_header(self, b):
        """A v2 loadBatchHeader: 61 bytes at the batch whatever its size; KafkaException when the
        file ends first."""
        if b.pos > self.log_size - V2_BATCH_OVERHEAD:
            raise self.corrupt(b.pos, "KafkaException: Failed to load record batch at position %d "
                                      "from FileRecords(file=%s)" % (b.pos, self.log_name))
        return self.read_at(b.pos, V2_BATCH_OVERHEAD)

    def last_offset(self, b):
        if b.magic < 2:
            return b.offset
        header = self.load_batch_header(b)
        return as_long(b.offset + INT32.unpack_from(header, LAST_OFFSET_DELTA_AT)[0])

    def base_offset(self, b):
        """A v2 batch's offset field; for a batch read as legacy, loadFullBatch().baseOffset():
        the first record its iterator gives (a deep iteration of a compressed wrapper)."""
        if b.magic >= 2:
            return b.offset
        records, fail, unsupported = legacy_records(self.read_at(b.pos, b.total))
        if fail:
            raise self.corrupt(b.pos, fail)
        if unsupported:
            # snappy or lz4: assumed valid; a valid wrapper's base offset answers as its
            # offset field (its last offset) does.
            return b.offset
        if records[0][2]:
            raise self.corrupt(b.pos, records[0][2])
        return records[0][0]

    def walk_last_offset(self, pos, target, release):
        """searchForOffsetWithSize, 0.11 to 4.0: the first batch whose lastOffset() reaches the
        target; 4.0 then takes the hit's baseOffset() (KAFKA-17803)."""
        while True:
            b = self.next_batch(pos)
            if b is None:
                return -1
            if self.last_offset(b) >= target:
                if release == "4.0":
                    self.base_offset(b)
                return b.pos
            pos += b.total

    def walk_from_position(self, pos, target):
        """4.1's searchForOffsetFromPosition (KAFKA-18989)."""
        prev = None
        while True:
            b = self.next_batch(pos)
            if b is None:
                return prev.pos if prev is not None and self.last_offset(prev) >= target else -1
            base = self.base_offset(b)
            if base == target:
                return b.pos
            if base > target:
                return prev.pos if prev is not None and self.last_offset(prev) >= target else b.pos
            prev = b
            pos += b.total

    def lookup(self, target, release, view):
        start, _ = self.offset_start(target, release, view)
        if self.log_error is not None:
            raise self.log_error
        return start, self.walk(max(start, 0), target, release)

    # Timestamps -------------------------------------------------------------------------------

    def lookup_timestamp(self, ts, release, view):
        """LogSegment.findOffsetByTimestamp(ts, base offset): the time index's largest lower
        bound, the offset index's lookup of max(its offset, base) (a negative position is an
        error at the .index slot), then FileRecords.searchForTimestamp (0.11's nextBatch walk
        in every line)."""
        raw = self.time_raw
        n = self.entries(raw, self.time_valid, TIME_SLOT.size, view)
        slot = largest_lower_bound(n, self.warm(TIME_SLOT.size, release), ts,
                                   lambda i: INT64.unpack_from(raw, i * 12)[0])
        offset = self.base if slot < 0 else as_long(self.base + INT32.unpack_from(raw, slot * 12 + 8)[0])
        start, start_slot = self.offset_start(max(offset, self.base), release, view)
        if self.log_error is not None:
            raise self.log_error
        if start < 0:
            # findOffsetByTimestamp passes the position on as it is: the walk's first read throws.
            raise CorruptData("IllegalArgumentException: Negative position (the offset index's position %d)" % start,
                              self.stem + ".index", start_slot * SLOT.size + 4)
        pos = start
        while True:
            b = self.next_batch(pos)
            if b is None:
                return start, -1, -1
            if self.max_timestamp(b) >= ts:
                for offset, timestamp, error in self.records(b):
                    if error:
                        raise self.corrupt(b.pos, error)
                    if timestamp >= ts and offset >= self.base:
                        return start, offset, timestamp
            pos += b.total

    def max_timestamp(self, b):
        if b.magic >= 2:
            return INT64.unpack_from(self.load_batch_header(b), V2_MAX_TIMESTAMP_AT)[0]
        if b.magic == 0:
            return NO_TIMESTAMP
        if b.magic == 1:
            return INT64.unpack(self.read_at(b.pos + LOG_OVERHEAD + 6, 8))[0]
        raise self.corrupt(b.pos, "IllegalArgumentException: Invalid magic used in LegacyRecord: %d" % b.magic)

    def records(self, b):
        full = self.read_at(b.pos, b.total)
        records, fail, unsupported = (legacy_records if b.magic < 2 else v2_records)(full)
        if fail:
            raise self.corrupt(b.pos, fail)
        if unsupported:
            raise self.corrupt(b.pos, "unsupported by this reader: " + unsupported)
        return records


# Records: (offset, timestamp, error), error being the exception Kafka's iterator throws when it
# reaches that record ("" for none).

def gunzip_as_java(data):
    """Inflates as java.util.zip.GZIPInputStream reads: member after member, each header read as
    GZIPInputStream.readHeader reads it (reserved flags and long names are no error), each
    trailer checked (CRC-32 and length); after a member, bytes that do not start a readable
    header are ignored (GZIPInputStream.readTrailer stops quietly there)."""
    out = bytearray()
    first = True
    while True:
        header = java_gzip_header(data)
        if header < 0:
            if first:
                raise IOError("corrupt gzip data")
            return bytes(out)
        first = False
        d = zlib.decompressobj(wbits=-15)  # raw deflate: the header and trailer are read here
        try:
            inflated = d.decompress(data[header:], MAX_DECOMPRESSED + 1 - len(out))
        except zlib.error:
            raise IOError("corrupt gzip data")
        if len(out) + len(inflated) > MAX_DECOMPRESSED:
            raise IOError("inflates past %d bytes, this reader's cap" % MAX_DECOMPRESSED)
        if not d.eof:
            raise IOError("unexpected end of ZLIB input stream")
        rest = d.unused_data
        if len(rest) < 8:
            raise IOError("unexpected end of ZLIB input stream")
        crc, size = struct.unpack_from("<II", rest, 0)
        if crc != zlib.crc32(inflated) or size != len(inflated) & 0xffffffff:
            raise IOError("corrupt gzip data")
        out += inflated
        data = rest[8:]
        if not data:
            return bytes(out)


def java_gzip_header(data):
    """The length of the gzip header data starts with, as GZIPInputStream.readHeader reads it;
    -1 when it would throw."""
    if len(data) < 10 or data[0] != 0x1f or data[1] != 0x8b or data[2] != 8:
        return -1
    flags, at = data[3], 10
    if flags & 4:  # FEXTRA
        if len(data) < at + 2:
            return -1
        at += 2 + (data[at] | data[at + 1] << 8)
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            if at > len(data):
                return -1
            end = data.find(b"\0", at)
            if end < 0:
                return -1
            at = end + 1
    if flags & 2:  # FHCRC
        if len(data) < at + 2 or (zlib.crc32(data[:at]) & 0xffff) != (data[at] | data[at + 1] << 8):
            return -1
        at += 2
    return at if at <= len(data) else -1


def legacy_timestamp(rec, wrapper_time):
    """LegacyRecord.timestamp: none for magic 0, the wrapper's log-append time when given, else
    the record's own field."""
    if struct.unpack_from(">b", rec, 4)[0] == 0:
        return NO_TIMESTAMP
    if wrapper_time is not None:
        return wrapper_time
    return INT64.unpack_from(rec, 6)[0]


def legacy_value(rec, magic):
    """LegacyRecord.value(): (value, is_null, failure)."""
    key_size_at = 6 if magic == 0 else 14
    n = len(rec)
    if key_size_at + 4 > n:
        return None, False, "IndexOutOfBoundsException: the key size is past the record"
    value_size_at = key_size_at + 4 + max(0, INT32.unpack_from(rec, key_size_at)[0])
    if value_size_at + 4 > n:
        return None, False, "IndexOutOfBoundsException: the value size is past the record"
    size = INT32.unpack_from(rec, value_size_at)[0]
    if size < 0:
        return None, True, ""
    if value_size_at + 4 + size > n:
        return None, False, "IllegalArgumentException: the value runs past the record"
    return rec[value_size_at + 4:value_size_at + 4 + size], False, ""


def legacy_records(entry):
    """loadFullBatch().iterator() of an entry read as legacy: (records, failure, unsupported).
    An uncompressed record is its own single record; a compressed wrapper goes through
    AbstractLegacyRecordBatch.DeepRecordsIterator."""
    offset_field = INT64.unpack_from(entry, 0)[0]
    rec = entry[LOG_OVERHEAD:]
    magic = struct.unpack_from(">b", rec, 4)[0]
    attributes = rec[5]
    codec = attributes & CODEC_MASK
    if codec > CODEC_ZSTD:
        return None, "IllegalArgumentException: Unknown compression type id: %d" % codec, ""
    if codec == 0:
        return [(offset_field, legacy_timestamp(rec, None), "")], "", ""
    if magic not in (0, 1):
        return None, "InvalidRecordException: Invalid wrapper magic found in legacy deep record iterator %d" % magic, ""
    if codec == CODEC_ZSTD:
        return None, "InvalidRecordException: Invalid wrapper compressionType found in legacy deep record iterator %d" % magic, ""
    value, is_null, fail = legacy_value(rec, magic)
    if fail:
        return None, fail, ""
    if is_null:
        return None, "InvalidRecordException: Found invalid compressed record set with null value (magic = %d)" % magic, ""
    if codec != CODEC_GZIP:
        return None, "", "compression codec %d (snappy or lz4) is not in the standard library" % codec
    try:
        plain = gunzip_as_java(value)
    except IOError as e:
        return None, "KafkaException: java.io.IOException: %s" % e, ""
    inners, at = [], 0
    while len(plain) - at >= LOG_OVERHEAD:
        offset, size = INT64.unpack_from(plain, at)[0], INT32.unpack_from(plain, at + 8)[0]
        if size < MIN_RECORD_OVERHEAD:
            return None, "CorruptRecordException: Record size is less than the minimum record overhead (14)", ""
        if len(plain) - at - LOG_OVERHEAD < size:
            break
        inners.append((offset, plain[at + LOG_OVERHEAD:at + LOG_OVERHEAD + size]))
        at += LOG_OVERHEAD + size
    if not inners:
        return None, "InvalidRecordException: Found invalid compressed record set with no inner records", ""
    absolute_base = -1
    if magic == 1:
        if offset_field != 0:
            last_inner = inners[-1][0]
            if offset_field < last_inner:
                return None, ("InvalidRecordException: Found invalid wrapper offset in compressed v1 message set, "
                              "wrapper offset '%d' is less than the last inner message offset '%d' and it is not "
                              "zero." % (offset_field, last_inner)), ""
            absolute_base = offset_field - last_inner
        else:
            absolute_base = 0
    wrapper_time = INT64.unpack_from(rec, 6)[0] if magic == 1 and attributes & LOG_APPEND_TIME else None
    records = []
    for offset, inner in inners:
        if magic == 1:
            offset = as_long(absolute_base + offset)
        inner_codec = inner[5] & CODEC_MASK
        error = ""
        if inner_codec > CODEC_ZSTD:
            error = "IllegalArgumentException: Unknown compression type id: %d" % inner_codec
        elif inner_codec != 0:
            error = "InvalidRecordException: Inner messages must not be compressed"
        inner_magic = struct.unpack_from(">b", inner, 4)[0]
        records.append((offset, legacy_timestamp(inner, wrapper_time if inner_magic == 1 else None), error))
        if error:
            break
    return records, "", ""


class Underflow(Exception):
    pass


class VarintReader:
    """Kafka's zigzag varints (ByteUtils.readVarint, readVarlong) over bytes."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def byte(self):
        if self.at >= len(self.data):
            raise Underflow()
        self.at += 1
        return self.data[self.at - 1]

    def varint(self, bits=32):
        value, shift = 0, 0
        limit = 28 if bits == 32 else 63
        while True:
            b = self.byte()
            if not b & 0x80:
                value |= b << shift
                value &= (1 << bits) - 1
                return (value >> 1) ^ -(value & 1)
            value |= (b & 0x7f) << shift
            shift += 7
            if shift > limit:
                raise Underflow()

    def skip(self, n):
        """Utils.readBytes: a negative length is null, a length past the end fails."""
        if n < 0:
            return
        if n > len(self.data) - self.at:
            raise Underflow()
        self.at += n


def read_record(buf, base_offset, base_time, log_append_time):
    """DefaultRecord.readFrom: (offset, timestamp) or raises CorruptData-free failures as str."""
    structure = "InvalidRecordException: Found invalid record structure"
    try:
        size = buf.varint()
    except Underflow:
        return None, "InvalidRecordException: Incorrect declared batch size, premature EOF reached"
    remaining = len(buf.data) - buf.at
    if remaining < size:
        return None, ("InvalidRecordException: Invalid record size: expected %d bytes in record payload, but "
                      "instead the buffer has only %d remaining bytes." % (size, remaining))
    start = buf.at
    try:
        buf.byte()
        time_delta = buf.varint(64)
        offset_delta = buf.varint()
        for _ in range(2):  # key, value
            buf.skip(buf.varint())
        headers = buf.varint()
        if headers < 0:
            return None, "InvalidRecordException: Found invalid number of record headers %d" % headers
        if headers > len(buf.data) - buf.at:
            return None, ("InvalidRecordException: Found invalid number of record headers. %d is larger than the "
                          "remaining size of the buffer" % headers)
        for _ in range(headers):
            key_size = buf.varint()
            if key_size < 0:
                return None, "InvalidRecordException: Invalid negative header key size %d" % key_size
            buf.skip(key_size)
            buf.skip(buf.varint())
    except Underflow:
        return None, structure
    if buf.at - start != size:
        return None, ("InvalidRecordException: Invalid record size: expected to read %d bytes in record payload, "
                      "but instead read %d" % (size, buf.at - start))
    timestamp = log_append_time if log_append_time is not None else as_long(base_time + time_delta)
    return (as_long(base_offset + offset_delta), timestamp), ""


def v2_records(batch):
    """DefaultRecordBatch.iterator over a whole batch: (records, failure, unsupported)."""
    if len(batch) < V2_BATCH_OVERHEAD:
        return None, "IndexOutOfBoundsException: the batch is shorter than its 61-byte header", ""
    count = INT32.unpack_from(batch, V2_RECORDS_COUNT_AT)[0]
    if count == 0:
        return [], "", ""
    attributes = INT16.unpack_from(batch, V2_ATTRIBUTES_AT)[0]
    codec = attributes & CODEC_MASK
    if codec > CODEC_ZSTD:
        return None, "IllegalArgumentException: Unknown compression type id: %d" % codec, ""
    if count < 0:
        return None, "InvalidRecordException: Found invalid record count %d in magic v2 batch" % count, ""
    if codec not in (0, CODEC_GZIP):
        return None, "", "compression codec %d (snappy, lz4 or zstd) in a v2 batch is not in the standard library" % codec
    base_offset, base_time = INT64.unpack_from(batch, 0)[0], INT64.unpack_from(batch, V2_BASE_TIMESTAMP_AT)[0]
    log_append_time = INT64.unpack_from(batch, V2_MAX_TIMESTAMP_AT)[0] if attributes & LOG_APPEND_TIME else None
    body = batch[V2_BATCH_OVERHEAD:]
    if codec == CODEC_GZIP:
        try:
            body = gunzip_as_java(body)
        except IOError as e:
            return None, "KafkaException: java.io.IOException: %s" % e, ""
    buf = VarintReader(body)
    records = []
    for i in range(count):
        record, error = read_record(buf, base_offset, base_time, log_append_time)
        if not error and i == count - 1 and buf.at != len(buf.data):
            error = "InvalidRecordException: Incorrect declared batch size, records still remaining in file"
        if error:
            if codec == CODEC_GZIP:
                return None, error, ""  # the compressed iterator reads every record first
            records.append((0, 0, error))
            return records, "", ""
        records.append((record[0], record[1], ""))
    return records, "", ""


SEGMENT_STEM = re.compile(r"[0-9]+")


def floor_segment(directory, offset):
    """LogSegments.floorSegment over the partition's segments (regular files ending in .log,
    the base offset their name up to the first dot; names of other than decimal digits are
    skipped): the greatest base offset <= offset, -1 when none."""
    try:
        names = os.listdir(directory)
    except OSError as e:
        raise CorruptData(os_message(e), ".", -1)
    floor = -1
    for name in names:
        if not name.endswith(".log") or not os.path.isfile(os.path.join(directory, name)) \
                or os.path.islink(os.path.join(directory, name)):
            continue
        stem = name.split(".", 1)[0]
        if not SEGMENT_STEM.fullmatch(stem) or int(stem) > (1 << 63) - 1:
            continue
        base = int(stem)
        if floor < base <= offset:
            floor = base
    return floor


def answer_correct(directory, queries, protocol, release, view):
    segments, failed = {}, {}
    try:
        for q in queries:
            kind = "offset" if protocol == 1 else q.get("kind")
            try:
                if kind == "segment":
                    yield {"baseOffset": floor_segment(directory, q["offset"])}
                    continue
                if kind not in ("offset", "timestamp"):
                    yield {"error": "unknown query kind %r (this reader knows offset, timestamp and segment)" % (kind,)}
                    continue
                key = (q["segment"], q["baseOffset"])
                if key in failed:
                    raise failed[key]
                if key not in segments:
                    try:
                        segments[key] = Segment(directory, q["segment"], q["baseOffset"])
                    except CorruptData as e:
                        failed[key] = e
                        raise
                if kind == "offset":
                    start, hit = segments[key].lookup(q["offset"], release, view)
                    yield {"start": start, "hit": hit}
                else:
                    start, offset, timestamp = segments[key].lookup_timestamp(q["timestamp"], release, view)
                    yield {"start": start, "offset": offset, "timestamp": timestamp}
            except CorruptData as e:
                line = {"error": e.message, "byte": e.byte}
                if e.file:
                    line["file"] = e.file
                yield line
    finally:
        for s in segments.values():
            s.close()


# ---------------------------------------------------------------------------------------------
# The seed post's reader (docs/background.md, seed post 000), as the post prints it. Changed:
# lookup returns (phase 1's start, the hit) instead of the hit alone. Nothing else: it still
# stops the index at the first zero position, re-reads the index on every lookup, searches with
# bisect_right, walks 61-byte v2 headers whatever the magic, and reports no error ever.

HEADER = struct.Struct(">qiibIhiqqqhii")   # the 61-byte batch header
ENTRY  = struct.Struct(">ii")              # relative offset, position

def read_index(path, base):
    with open(path, "rb") as f:
        while (buf := f.read(8)) and len(buf) == 8:
            rel, pos = ENTRY.unpack(buf)
            if pos == 0: return            # preallocated zero tail
            yield base + rel, pos

def lookup(log, index, base, target):
    entries = list(read_index(index, base))
    i = bisect.bisect_right([o for o, _ in entries], target) - 1   # phase 1
    pos = entries[i][1] if i >= 0 else 0
    start = pos                                                    # (added: phase 1's start)
    with open(log, "rb") as f:                                     # phase 2
        f.seek(pos)
        while (buf := f.read(61)) and len(buf) == 61:
            base_offset, length, *_, last_delta = HEADER.unpack(buf)[:7]
            if target <= base_offset + last_delta:
                return start, pos
            pos += 12 + length             # skip the payload
            f.seek(pos)
    return start, None                                             # (added: the post returns None)


def answer_seed_post(directory, queries):
    for q in queries:
        stem = os.path.join(directory, q["segment"])
        start, hit = lookup(stem + ".log", stem + ".index", q["baseOffset"], q["offset"])
        yield {"start": start, "hit": -1 if hit is None else hit}


# ---------------------------------------------------------------------------------------------
# The protocol.

def is_int(value):
    return type(value) is int  # not bool, not float


def check_request(request, seed_post):
    """The request's protocol, release line and view, or Refused."""
    if not isinstance(request, dict):
        raise Refused("bad request: not a JSON object")
    protocol = request.get("protocol")
    protocols = (1,) if seed_post else (1, 2)
    if not (is_int(protocol) and protocol in protocols):
        raise Refused("protocol %r refused: this reader speaks protocol%s %s"
                      % (protocol, "" if seed_post else "s", " and ".join(map(str, protocols))))
    release = request.get("release") or DEFAULT_RELEASE
    if release not in RELEASES:
        raise Refused("unknown release line %r (known: %s)" % (release, ", ".join(RELEASES)))
    view = request.get("indexView") or "running"
    if view not in VIEWS:
        raise Refused("unknown index view %r (known: running, reopened)" % (view,))
    queries = request.get("queries", [])
    if not isinstance(queries, list):
        raise Refused("bad request: queries is not a list")
    for q in queries:
        kind = "offset" if protocol == 1 else (q.get("kind") if isinstance(q, dict) else None)
        if not isinstance(q, dict) or not is_int(q.get("offset", 0)):
            raise Refused("bad request: a query needs integer fields: %r" % (q,))
        if kind in ("offset", "timestamp") and not (isinstance(q.get("segment"), str) and is_int(q.get("baseOffset"))
                                                    and is_int(q.get("offset" if kind == "offset" else "timestamp"))):
            raise Refused("bad request: an %s query needs segment (string), baseOffset and %s (integers): %r"
                          % (kind, "offset" if kind == "offset" else "timestamp", q))
        if kind == "segment" and not is_int(q.get("offset")):
            raise Refused("bad request: a segment query needs offset (an integer): %r" % (q,))
    return protocol, release, view, queries


def answer_request(request, directory, seed_post, out):
    protocol, release, view, queries = check_request(request, seed_post)
    if directory is None:
        directory = request.get("partition")
        if not isinstance(directory, str) or not directory:
            raise Refused("a request of the long-lived mode must name its partition")
    if seed_post:
        lines = answer_seed_post(directory, queries)
    else:
        lines = answer_correct(directory, queries, protocol, release, view)
    for line in lines:
        out.write(json.dumps(line) + "\n")
    out.flush()


def serve(seed_post):
    """The long-lived mode: one request per line, its answers flushed before the next is read."""
    for text in sys.stdin:
        if not text.strip():
            continue
        try:
            request = json.loads(text)
        except ValueError as e:
            raise Refused("bad request: %s" % e)
        answer_request(request, None, seed_post, sys.stdout)
    return 0


def main(argv):
    args = argv[1:]
    seed_post = "--seed-post" in args
    args = [a for a in args if a != "--seed-post"]
    try:
        if not args:
            raise Refused("usage: kafka_index_reader.py [--seed-post] PARTITION_DIR|-  (request on stdin)")
        directory = args[-1]
        if directory == "-":
            return serve(seed_post)
        try:
            request = json.load(sys.stdin)
        except ValueError as e:
            raise Refused("bad request: %s" % e)
        answer_request(request, directory, seed_post, sys.stdout)
    except Refused as e:
        print("kafka_index_reader: %s" % e, file=sys.stderr)
        return EXIT_REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
