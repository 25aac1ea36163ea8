#!/usr/bin/env python3
"""A Kafka offset-index reader that speaks kidx's "against" protocol, version 1 (docs/against.md).

    python3 kafka_index_reader.py [--seed-post] PARTITION_DIR  < request.json

The request is one JSON object on stdin; the answers are one JSON line per query on stdout:
{"start": S, "hit": H} (H = -1: no batch at or past the offset) or
{"error": MESSAGE, "file": NAME, "byte": B} for corrupt data.

By default it is a correct reader, written from Kafka's rules as kidx's docs state them
(docs/kafka.md sections 1.5, 4, 5 and 7.1; the valid entries of docs/logdirs.md): the valid
entries of the .index, Kafka's warm-section search (AbstractIndex.largestLowerBoundSlotFor),
then FileLogInputStream.nextBatch's walk over the .log. Standard library only.

With --seed-post it runs the seed post's reader (docs/background.md, seed post 000, "You can read
this yourself") as the post prints it, so that kidx can show where it goes wrong. The only change
is that its lookup also returns phase 1's start position; on hostile input it raises and this
process exits non-zero with a traceback, as the post's reader would.
"""

import bisect
import json
import os
import struct
import sys

PROTOCOL = 1
EXIT_REFUSED = 2

INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")
SLOT = struct.Struct(">ii")  # relative offset, position (OffsetIndex.ENTRY_SIZE = 8)
WARM_ENTRIES = 8192 // SLOT.size  # AbstractIndex.warmEntries
LOG_OVERHEAD = 12  # offset and size fields in front of every entry
HEADER_UP_TO_MAGIC = 17  # what FileLogInputStream reads per hop
MIN_RECORD_OVERHEAD = 14  # LegacyRecord.RECORD_OVERHEAD_V0, the smallest size field
V2_BATCH_OVERHEAD = 61  # DefaultRecordBatch.RECORD_BATCH_OVERHEAD
LAST_OFFSET_DELTA_AT = 23


def as_long(value):
    """Wraps an integer to Java's long, as Kafka's offset additions do."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def os_message(error):
    """An OSError without the path (the answer names the file)."""
    return error.strerror or str(error)


class CorruptData(Exception):
    def __init__(self, message, file, byte):
        super().__init__(message)
        self.message, self.file, self.byte = message, file, byte


# ---------------------------------------------------------------------------------------------
# The correct reader.

def valid_entries(raw, base):
    """The entries a running broker holds: the slots before the first slot i >= 1 whose relative
    offset is 0 (a preallocated index ends in zeros); none when that leaves only an all-zero
    slot 0 of a file of several slots. A partial slot at the end is ignored."""
    slot_count = len(raw) // SLOT.size
    entries = []
    # Stops at the zero tail: a live 10 MiB index is read up to its entries only.
    for i, (rel, position) in enumerate(SLOT.iter_unpack(raw[:slot_count * SLOT.size])):
        if i >= 1 and rel == 0:
            break
        entries.append((as_long(base + rel), position))
    if len(entries) == 1 and slot_count > 1 and SLOT.unpack_from(raw, 0) == (0, 0):
        return []
    return entries


class Segment:
    """One segment: its index read once, its log read header by header."""

    def __init__(self, directory, stem, base):
        if not stem or stem in (".", "..") or os.path.basename(stem) != stem:
            raise CorruptData("segment name is not a file stem in the partition directory", stem, -1)
        self.log_name = stem + ".log"
        index_name = stem + ".index"
        try:
            with open(os.path.join(directory, index_name), "rb") as f:
                self.entries = valid_entries(f.read(), base)
        except FileNotFoundError:
            self.entries = []  # no index: every lookup starts at byte 0
        except OSError as e:
            raise CorruptData(os_message(e), index_name, -1)
        self.log, self.log_error = None, None
        try:
            self.log = open(os.path.join(directory, self.log_name), "rb")
            self.log_size = os.fstat(self.log.fileno()).st_size
        except OSError as e:
            self.log_error = CorruptData(os_message(e), self.log_name, -1)

    def close(self):
        if self.log is not None:
            self.log.close()

    def start_position(self, target):
        """Phase 1, Kafka's search exactly (warm section first), so that entries out of order
        get the answer Kafka gives."""
        n = len(self.entries)
        if n == 0:
            return 0
        key = lambda i: self.entries[i][0]
        first = max(0, n - 1 - WARM_ENTRIES)
        if key(first) < target:
            lo, hi = first, n - 1
        elif key(0) > target:
            return 0
        else:
            lo, hi = 0, first
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if key(mid) > target:
                hi = mid - 1
            elif key(mid) < target:
                lo = mid
            else:
                lo = hi = mid
        return self.entries[lo][1]

    def read_at(self, at, size):
        self.log.seek(at)
        data = self.log.read(size)
        if len(data) != size:
            raise CorruptData("the file ended while reading %d bytes (it shrank while read)" % size,
                              self.log_name, at)
        return data

    def walk(self, pos, target):
        """Phase 2: the first batch from pos whose last offset reaches target, -1 at the end."""
        end = self.log_size
        while True:
            if pos >= end - HEADER_UP_TO_MAGIC:
                return -1  # fewer than 18 bytes left
            head = self.read_at(pos, HEADER_UP_TO_MAGIC)
            size = INT32.unpack_from(head, 8)[0]
            if size < MIN_RECORD_OVERHEAD:
                raise CorruptData("Found record size %d smaller than minimum record overhead (%d)"
                                  % (size, MIN_RECORD_OVERHEAD), self.log_name, pos + 8)
            if pos > end - LOG_OVERHEAD - size:
                return -1  # a torn tail: the end of the log, not an error
            total = LOG_OVERHEAD + size
            magic = struct.unpack_from(">b", head, 16)[0]
            if magic >= 2:
                if total < V2_BATCH_OVERHEAD:
                    raise CorruptData("Record batch is corrupt (the size %d is smaller than the minimum "
                                      "allowed overhead %d)" % (total, V2_BATCH_OVERHEAD),
                                      self.log_name, pos + 8)
                delta = INT32.unpack(self.read_at(pos + LAST_OFFSET_DELTA_AT, 4))[0]
                last = as_long(INT64.unpack_from(head, 0)[0] + delta)
            else:
                header = LOG_OVERHEAD + (14 if magic == 1 else 6)
                if total < header:
                    raise CorruptData("Legacy record (magic %d) of size %d is smaller than its header (%d)"
                                      % (magic, total, header), self.log_name, pos + 8)
                last = INT64.unpack_from(head, 0)[0]  # a legacy entry's offset is its last offset
            if last >= target:
                return pos
            pos += total

    def lookup(self, target):
        start = self.start_position(target)
        if self.log_error is not None:
            raise self.log_error
        return start, self.walk(max(start, 0), target)


def answer_correct(directory, queries):
    segments, failed = {}, {}
    try:
        for q in queries:
            key = (q["segment"], q["baseOffset"])
            try:
                if key in failed:
                    raise failed[key]
                if key not in segments:
                    try:
                        segments[key] = Segment(directory, q["segment"], q["baseOffset"])
                    except CorruptData as e:
                        failed[key] = e
                        raise
                start, hit = segments[key].lookup(q["offset"])
                yield {"start": start, "hit": hit}
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

def refuse(message):
    print("kafka_index_reader: " + message, file=sys.stderr)
    sys.exit(EXIT_REFUSED)


def is_int(value):
    return type(value) is int  # not bool, not float


def main(argv):
    args = argv[1:]
    seed_post = "--seed-post" in args
    args = [a for a in args if a != "--seed-post"]
    if not args:
        refuse("usage: kafka_index_reader.py [--seed-post] PARTITION_DIR  (request on stdin)")
    directory = args[-1]
    try:
        request = json.load(sys.stdin)
    except ValueError as e:
        refuse("bad request: %s" % e)
    if not isinstance(request, dict):
        refuse("bad request: not a JSON object")
    protocol = request.get("protocol")
    if not (is_int(protocol) and protocol == PROTOCOL):
        refuse("protocol %r refused: this reader speaks protocol %d" % (protocol, PROTOCOL))
    queries = request.get("queries", [])
    if not isinstance(queries, list):
        refuse("bad request: queries is not a list")
    for q in queries:
        if not (isinstance(q, dict) and isinstance(q.get("segment"), str)
                and is_int(q.get("baseOffset")) and is_int(q.get("offset"))):
            refuse("bad request: a query needs segment (string), baseOffset and offset (integers): %r" % (q,))
    answer = answer_seed_post if seed_post else answer_correct
    out = sys.stdout
    for line in answer(directory, queries):
        out.write(json.dumps(line) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
