package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"kidx/corpus"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/segment"
)

func init() { registerCommand(newCorpusCmd) }

// corpusOptions is kidx corpus's flags.
type corpusOptions struct {
	out, version string
	indexView    string
	damage       string // --damage: "" every kind, none, or kinds
	content      string
	count        int
	workers      int
	seed         uint64

	seedDrawn bool           // Complete: no --seed, so kidx drew one (Run says it)
	opts      corpus.Options // what the flags ask of corpus.Generate
}

func newCorpusCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &corpusOptions{}
	cmd := &cobra.Command{
		Use:   "corpus --out DIR [--count N] [--seed S] [--kafka-version V] [--content realistic|plain]",
		Short: "Write test cases for other index readers: partitions with the answers Kafka gives (expected.json)",
		Long: `corpus writes N cases into DIR, each a directory case-NNNNN holding a partition directory
(t-0, random workloads written by kidx write's writer), workload.json (the docs/contract.md §3
workload that made it: kidx write replays it) and expected.json (docs/corpus.md): every
segment's valid index and time-index entries, the two-phase lookup of a chosen set of offsets
(all of them for small cases), time lookups, and kidx verify's verdict, computed by kidx's
readers on the files after the differential harness found the files equal to the model. One
case in four is damaged on purpose (a truncated .log or .index, a live index's zero tail, a
flipped header byte, a hostile length field, swapped index entries) and its expected.json
says what a correct reader reports: the answer, or an error at a file and byte. --damage
picks the kinds drawn (none: every case undamaged); which cases are damaged does not depend on
it.

--content realistic (the default) compresses the batches of four cases in five (one codec per
case, gzip, snappy, lz4 or zstd, for about three batches in four, each batch at the workload's
exact size), makes one case in four a transactional producer's (transactions of 1 to 4
appends, each ended by a COMMIT marker) and one in four compacted (offset gaps between
batches); --content plain writes every batch uncompressed, non-transactional and without
gaps, as corpora did before the option. The same --seed, --count and
--content write the same bytes. --kafka-version picks the writer's rule as kidx write does (per-batch: 4.1-4.4 and the releases that write as they do; per-append:
3.7-4.0.0 and theirs); without it the cases alternate between the two. The answers are Kafka's
lookup as one release line gives it (docs/kafka.md §7.5: they differ on damaged bytes):
--kafka-version's line, else per-batch cases 4.1+'s and per-append cases 2.1-3.9's.
--index-view reopened answers as a broker that reopens the files searches the index (every
slot, the zero tail included). DIR must not exist or
be empty; the cases are written into a temporary directory beside it and renamed into place.`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "directory to create (must not exist or be empty)")
	f.IntVar(&o.count, "count", 100, "number of cases")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "cases made at once (the output does not depend on it)")
	f.Uint64Var(&o.seed, "seed", 0, "corpus seed (default: random, printed); the same seed, count and content write the same bytes")
	f.StringVar(&o.content, "content", corpus.ContentRealistic, "what the batches hold: realistic (compressed batches, transactions with COMMIT markers, offset gaps) or plain (none of them)")
	f.StringVar(&o.damage, "damage", "", "damage kinds drawn, comma-separated, or none: every case undamaged (default: every kind: "+strings.Join(corpus.DamageKinds, ",")+")")
	f.StringVar(&o.version, "kafka-version", "", "Kafka release X.Y.Z whose rule the writer writes by and whose lookup answers expected.json holds (default: both rules, alternating by case)")
	f.StringVar(&o.indexView, "index-view", "running", "the index entries phase 1 searches: running (a running broker's valid entries) or reopened (every slot of the file)")
	return cmd
}

func (o *corpusOptions) Complete(cmd *cobra.Command, _ []string) error {
	if !cmd.Flags().Changed("seed") {
		o.seed, o.seedDrawn = rand.Uint64(), true
	}
	o.opts = corpus.Options{Count: o.count, Seed: o.seed, Sync: true, Workers: o.workers, IndexView: o.indexView}
	return nil
}

func (o *corpusOptions) Validate() error {
	if o.out == "" {
		return usageErr("corpus needs --out DIR")
	}
	if o.count < 1 {
		return usageErr("--count %d: want at least 1", o.count)
	}
	if _, err := segment.ParseIndexView(o.indexView); err != nil {
		return usageErr("--index-view: %v", err)
	}
	content, err := corpus.ParseContent(o.content)
	if err != nil {
		return usageErr("--content: %v", err)
	}
	o.opts.Content = content
	if err := emptyTarget(o.out); err != nil {
		return err
	}
	if o.damage != "" {
		kinds, err := parseDamageKinds(o.damage)
		if err != nil {
			return err
		}
		o.opts.DamageKinds = kinds
	}
	if o.version != "" {
		rule, err := corpusRule(o.version)
		if err != nil {
			return err
		}
		o.opts.Rule, o.opts.KafkaVersion = rule, o.version
	}
	return nil
}

func (o *corpusOptions) Run(stdout, stderr io.Writer) error {
	if o.seedDrawn {
		fmt.Fprintf(stderr, "kidx corpus: seed %d (replay with --seed %d)\n", o.seed, o.seed)
	}
	defer cleanOnSignal()()
	var res *corpus.Result
	// The cases are written into a temporary directory and renamed into place: --out never
	// holds half a corpus.
	_, err := writeDirResult(segment.ReplaceDir(o.out, false, func(tmp string) (*segment.WriteResult, error) {
		var err error
		res, err = corpus.Generate(tmp, o.opts)
		return nil, err
	}))
	if err != nil {
		return err
	}
	renderCorpus(stdout, stderr, o.out, res)
	return nil
}

// renderCorpus says what was written on stdout, and warns on stderr of each drawn workload
// skipped because the model and the files disagree.
func renderCorpus(stdout, stderr io.Writer, out string, res *corpus.Result) {
	for _, d := range res.Divergences {
		w, _ := json.Marshal(d.Workload)
		fmt.Fprintf(stderr, "kidx corpus: warning: a drawn workload was skipped because the model and the files disagree (a kidx bug, please report it with this workload): %v\nworkload: %s\n", d, w)
	}
	fmt.Fprintf(stdout, "wrote %s (%d damaged) to %s\n", english.Plural(int64(res.Cases), "case"), res.Damaged, printsafe.Name(out))
}

// corpusRule is the writer's rule for a release, as kidx write picks it (writerRule): a
// release the writer cannot write is a usage error.
func corpusRule(version string) (string, error) {
	era, err := model.EraForKafkaVersion(version)
	if err != nil {
		return "", usageErr("--kafka-version: %v", err)
	}
	rule, err := writerRule(era, version, model.DefaultConfig(), nil)
	if err != nil {
		return "", usageErr("--kafka-version %s: its era (%s) writes files otherwise than the writer's two rules "+
			"(per-batch: Kafka 4.1-4.4, per-append: 3.7-4.0.0, and the releases that write as they do; kidx help versions): "+
			"give one of those releases, or no --kafka-version for both rules", version, era.ID)
	}
	return modelRuleName(rule), nil
}

// emptyTarget refuses an --out that exists and is not an empty directory.
func emptyTarget(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErr("--out %s: %v", dir, err)
	case len(ents) > 0:
		return usageErr("--out %s is not empty (%s): corpus writes only a new or empty directory", dir, english.Plural(int64(len(ents)), "entry"))
	}
	return nil
}
