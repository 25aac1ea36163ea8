package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"kidx/reports"
	"kidx/reports/chart"
)

// reportFormats are the formats of `kidx whatif` and `kidx analyze`.
var reportFormats = []string{"text", "markdown", "json", "html"}

// reportOutput is where a report goes: stdout, or --out FILE (written only once the report is
// complete, so a failed run leaves no half file).
type reportOutput struct {
	formats     []string // the formats offered (nil: reportFormats)
	format, out string
	wide        bool
	all, quiet  bool // analyze: every row; the verdict and problems only
}

func (o *reportOutput) register(flags *pflag.FlagSet) {
	if o.formats == nil {
		o.formats = reportFormats
	}
	registerFormat(flags, &o.format, o.formats, "")
	flags.StringVar(&o.out, "out", "", "write the report to FILE instead of stdout (any format)")
	flags.BoolVar(&o.wide, "wide", false, "text and markdown: every column of the tables (default: the essential ones, within 120 columns; html always has every column)")
}

// registerRows adds a broker report's --all and --quiet.
func (o *reportOutput) registerRows(flags interface {
	BoolVar(*bool, string, bool, string)
}) {
	flags.BoolVar(&o.all, "all", false, "text and markdown: every topic and partition, in natural order, with every note (default: the verdict, the problems, the topics to look at first and the partitions that need attention)")
	flags.BoolVar(&o.quiet, "quiet", false, "text and markdown: the verdict and the problems only")
}

// text gives a text or Markdown renderer the --wide, --all and --quiet layout.
func (o *reportOutput) text(write func(io.Writer, reports.RenderOptions) error) func(io.Writer) error {
	return func(w io.Writer) error {
		return write(w, reports.RenderOptions{Wide: o.wide, All: o.all, Quiet: o.quiet})
	}
}

func (o *reportOutput) check() error {
	if o.formats == nil {
		o.formats = reportFormats
	}
	return formatFlag(o.format, o.formats...)
}

// write renders with render into stdout or --out.
func (o *reportOutput) write(stdout io.Writer, render func(io.Writer) error) error {
	if o.out == "" {
		return render(stdout)
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if err := writeFileAtomic(o.out, buf.Bytes()); err != nil {
		return usageErr("--out: %v", err)
	}
	return nil
}

// writeFileAtomic writes data to path all or nothing: a temporary file beside it, synced,
// then renamed over it, so that a reader (node_exporter's textfile collector, a browser) never
// sees half a report.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".kidx-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// renderWhatIf picks the renderer of a what-if report.
func renderWhatIf(rep *reports.WhatIf, o *reportOutput) func(io.Writer) error {
	switch o.format {
	case "json":
		return rep.WriteJSON
	case "markdown":
		return o.text(rep.WriteMarkdownWith)
	case "html":
		return func(w io.Writer) error {
			figs, err := chart.WhatIf(rep)
			if err != nil {
				return err
			}
			return rep.WriteHTML(w, figs)
		}
	}
	return o.text(rep.WriteTextWith)
}

// systemMaxMapCount reads vm.max_map_count, or returns Linux's default where it cannot.
func systemMaxMapCount() int64 {
	data, err := os.ReadFile("/proc/sys/vm/max_map_count")
	if err != nil {
		return reports.DefaultMaxMapCount
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || v <= 0 {
		return reports.DefaultMaxMapCount
	}
	return v
}
