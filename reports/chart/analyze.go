package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"kidx/reports"
)

// maxBars bounds the per-partition chart to the worst partitions.
const maxBars = 30

// Analyze draws the analyze chart: max, p99 and mean scan bytes of the worst partitions.
func Analyze(a *reports.Analysis) ([]reports.Figure, error) {
	ps := a.Partitions
	if len(ps) > maxBars {
		ps = ps[:maxBars]
	}
	if len(ps) == 0 {
		return nil, nil
	}
	p := newChart("Phase-2 scan bytes per partition (exact, every offset), worst first", "", "scan bytes")
	maxV, p99, mean := make(plotter.Values, len(ps)), make(plotter.Values, len(ps)), make(plotter.Values, len(ps))
	names := make([]string, len(ps))
	for i, pr := range ps {
		maxV[i], p99[i], mean[i] = float64(pr.Scan.MaxScanBytes), float64(pr.ScanQ[reports.P99]), pr.Scan.MeanScanBytes()
		names[i] = shortName(pr)
	}
	var ys []float64
	for i := range ps {
		ys = append(ys, maxV[i], p99[i], mean[i])
	}
	if bottom, _ := yAxis(p, ys, true); isLog(p) {
		// Figures spanning decades: markers on a log axis (bars have no base there).
		glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}}
		for i, v := range []plotter.Values{maxV, p99, mean} {
			xys := make(plotter.XYs, len(v))
			for k := range v {
				xys[k] = plotter.XY{X: float64(k), Y: math.Max(v[k], bottom)}
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(i), Radius: vg.Points([]float64{3.5, 5, 3.5}[i]), Shape: glyphs[i]}
			p.Add(sc)
			p.legend.Add([]string{"max", "p99", "mean"}[i], sc)
		}
	} else {
		// Three bars per partition across about 560 points of plot, at most 18 points each.
		w := min(vg.Points(560)/vg.Length(4*len(ps)), vg.Points(18))
		for i, v := range []plotter.Values{maxV, p99, mean} {
			b, err := plotter.NewBarChart(v, w)
			if err != nil {
				return nil, err
			}
			b.Color = seriesColor(i)
			b.LineStyle.Width = 0
			b.Offset = vg.Length(i-1) * w
			p.Add(b)
			p.legend.Add([]string{"max", "p99", "mean"}[i], b)
		}
		p.Y.Min = 0
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.8
	p.X.Tick.Label.XAlign = -1
	p.X.Min, p.X.Max = -0.5, float64(len(ps))-0.5
	svg, err := render(p)
	if err != nil {
		return nil, err
	}
	return []reports.Figure{{Title: "Scan bytes per partition", SVG: svg}}, nil
}

func isLog(c *chart) bool {
	_, ok := c.Y.Scale.(plot.LogScale)
	return ok
}

func shortName(pr *reports.PartitionReport) string {
	if pr.Topic != "" {
		return fmt.Sprintf("%s-%d", pr.Topic, pr.Partition)
	}
	return pr.Path
}
