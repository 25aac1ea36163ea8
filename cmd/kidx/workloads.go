package main

import (
	"io"

	"github.com/spf13/cobra"
)

func init() { registerCommand(newWorkloadsTopic) }

// newWorkloadsTopic is `kidx help workloads`: the generator spec syntax of sim.NewGenerator
// (docs/workloads.md has the same text with the reasoning).
func newWorkloadsTopic(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "workloads",
		Short: "Generator specs: batch-size distributions, the producer model, follower catch-up, restarts, replay",
		Long: `A generator spec is KIND[:key=value,...] (or KIND(key=value,...) when nested), bounded by
--records, --batches or --duration (the producer's clock) and deterministic from --seed.
Sizes take K/M/G (1024-based) or k/m/g (1000-based) suffixes.

Batch-size distributions (one batch per append, as a leader sees them; a batch holds
max(1, (bytes-61)/record.bytes) records, record.bytes default 207, at most as many as its
size holds; max timestamp ts.start + its base offset, ts.start default 1700000000000):
  fixed:bytes=16350[,records=79]
  uniform:min=68,max=16384
  lognormal:median=16384,sigma=0.6[,max=1048588]     gonum distuv.LogNormal, mu = ln(median)
  tiny:records.max=3,value.min=10,value.max=100       linger.ms=0 low traffic: 1-3 small records
  mixture:0.9*lognormal(median=16384,sigma=0.3)+0.1*tiny
  bursty:burst=fixed(bytes=16384),quiet=tiny,burst.batches=100,quiet.batches=900

Producer batching model (Poisson arrivals, v2 record encoding, Kafka producer defaults):
  producer:rate=2000/s,record=lognormal:median=300,batch.size=16384,linger.ms=5
  keys: rate (records per /ms, /s, /min, /h), record (value-size distribution, default
  lognormal(median=300,sigma=0.5)), batch.size (16384), linger.ms (5, the 4.x default; 0
  before 4.0), max.request.size (1048576), compression.ratio (1), key.bytes (-1: null key),
  ts.start. A nested spec without parentheses takes the following keys it knows.

Wrappers (their keys, then the spec they wrap):
  follower:fetch=1048576,<spec>            consecutive batches grouped into fetch-sized appends
  restarts:every=1000,recover=0.5,<spec>   a restart after an append with probability 1/every,
                                           unclean (recover) with probability recover

Replay:
  workload:path=FILE                       a docs/contract.md §3 workload file
  logdir:path=DIR[,topic=T,partition=N]    a real partition's .log files, read-only

Every batch can exist in a file: at least the 61-byte header plus the smallest record of
each offset delta (7 bytes for records 0-63, 8 up to 8191, then 9, 10, 11), so 68 bytes for
1 record and 629 for 79, and no 1-record batch of 126 bytes (no record is 65 bytes). An
explicit size below that (fixed's bytes, uniform's min and max, lognormal's max) is an error
naming the minimum; drawn sizes below it (a lognormal's low tail, the last batch cut to
--records, a small compression.ratio) are raised to it.

Errors name the kind, the key and the bad value.`,
		Example: `  lognormal:median=16384,sigma=0.6 --records 10M
  producer:rate=2000/s,record=lognormal:median=300,batch.size=16384,linger.ms=5 --duration 1h
  restarts:every=500,follower:fetch=1M,producer:rate=50/ms --duration 10m`,
	}
}
