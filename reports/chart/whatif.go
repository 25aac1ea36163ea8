package chart

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"kidx/model"
	"kidx/reports"
)

// intervalKey is the key the exact sweep cuts into pieces.
const intervalKey = "index.interval.bytes"

// seedIntervals are the four index.interval.bytes values of the question the project
// started from (docs/background.md): the scan chart labels them wherever a sweep has them.
var seedIntervals = []int64{1, 4096, 20000, 1048576}

// intervalAxisMax is the top of the interval axis: index.interval.bytes is an int, at most
// 2^31-1, and the last piece reaches it (drawn to 2^31, its end).
const intervalAxisMax = float64(math.MaxInt32) + 1

// WhatIf draws the what-if charts (docs/reports.md "Charts"): with the exact interval sweep,
// the true step functions of scan bytes and entries per segment against index.interval.bytes,
// regime bands at the exact edges; otherwise the swept points as markers (a value between two
// samples is not known, so none is drawn); for a two-key grid, a heatmap of max scan bytes;
// the CDF of scan bytes of the points that differ most; maps against partitions.
func WhatIf(r *reports.WhatIf) ([]reports.Figure, error) {
	var figs []reports.Figure
	add := func(title string, c *chart, err error) error {
		if err != nil || c == nil {
			return err
		}
		svg, err := render(c)
		if err != nil {
			return err
		}
		figs = append(figs, reports.Figure{Title: title, SVG: svg})
		return nil
	}
	if steps := pieceSteps(r); steps != nil {
		c, err := scanStepChart(r, steps)
		if err := add("Scan bytes against index.interval.bytes: the exact step function, regimes shaded at their exact edges", c, err); err != nil {
			return nil, err
		}
		c, err = entriesStepChart(r, steps)
		if err := add("Offset-index entries per segment against index.interval.bytes (exact)", c, err); err != nil {
			return nil, err
		}
	} else if key, series := sweepSeries(r); key != "" {
		c, err := scanChart(r, key, series)
		if err := add(fmt.Sprintf("Scan bytes at each swept %s (markers: the values between are not known)", key), c, err); err != nil {
			return nil, err
		}
		c, err = entriesChart(r, key, series)
		if err := add(fmt.Sprintf("Offset-index entries per segment at each swept %s", key), c, err); err != nil {
			return nil, err
		}
	}
	for _, era := range gridEras(r) {
		c, err := heatmapChart(r, era)
		title := fmt.Sprintf("Max scan bytes against %s and %s", r.Sweeps[0].Key, r.Sweeps[1].Key)
		if len(r.Eras) > 1 {
			title += " (" + era.ID + ")"
		}
		if err := add(title, c, err); err != nil {
			return nil, err
		}
	}
	c, err := cdfChart(r)
	if err := add("CDF of scan bytes over every offset, for the points that differ most", c, err); err != nil {
		return nil, err
	}
	c, err = mapsChart(r)
	if err := add("Memory maps against partitions (2 per segment)", c, err); err != nil {
		return nil, err
	}
	return figs, nil
}

// step is one piece of the interval axis as the charts draw it: from X0 to X1 (X1 is the next
// piece's lowest value, where the figures jump), the figures of the run there.
type step struct {
	X0, X1              float64
	Max, P99, Mean      float64
	EntriesPerSegment   float64
	Regime              reports.Regime
	HasP99              bool
	piece               reports.IntervalPiece
	pointsAt            []*reports.Point
	densest, segmentCap int64
}

// pieceSteps turns the report's pieces into steps on a log axis (a piece holding only 0 has
// no place there), or nil when the report has no pieces.
func pieceSteps(r *reports.WhatIf) []step {
	if len(r.Pieces) == 0 || len(r.Points) == 0 {
		return nil
	}
	var out []step
	for i, pc := range r.Pieces {
		if pc.Max < 1 {
			continue
		}
		s := step{X0: float64(max(pc.Min, 1)), X1: float64(pc.Max) + 1, piece: pc, Max: float64(pc.Scan.MaxScanBytes), Mean: pc.Scan.MeanScanBytes(),
			densest: r.Points[0].DensestEntries, segmentCap: r.Base.SegmentBytes}
		if i+1 < len(r.Pieces) {
			s.X1 = float64(r.Pieces[i+1].Min)
		}
		if pc.Segments > 0 {
			s.EntriesPerSegment = float64(pc.OffsetIndexEntries) / float64(pc.Segments)
		}
		// Every point inside a piece has the piece's run, so any of them gives its quantiles.
		for _, p := range r.Points {
			if v := p.Config.IndexIntervalBytes; pc.Min <= v && v <= pc.Max {
				s.pointsAt = append(s.pointsAt, p)
			}
		}
		if len(s.pointsAt) > 0 {
			s.P99, s.HasP99 = float64(s.pointsAt[0].ScanQ[reports.P99]), true
		}
		out = append(out, s)
	}
	return out
}

// stepLine is the step function through steps: a horizontal segment over each piece and a
// vertical one at each edge, where the next piece begins.
func stepLine(steps []step, y func(step) float64) plotter.XYs {
	var out plotter.XYs
	for _, s := range steps {
		out = append(out, plotter.XY{X: s.X0, Y: y(s)}, plotter.XY{X: s.X1, Y: y(s)})
	}
	return out
}

// A band is an interval range of one regime, [Lo, Hi] in index.interval.bytes values.
type band struct {
	Lo, Hi int64
	Regime reports.Regime
	// From is the band's lowest value as the table names it (Lo is clamped to 1 for the log
	// axis; the first piece starts at 0).
	From int64
}

// regimeBands are the regimes along the interval axis, cut exactly at the pieces' edges (every
// value of a piece gives the same run, so the same index): a piece takes the regime of the
// sweep's lowest point inside it (every piece of the exact sweep has one). Neighbours of one
// regime merge.
func regimeBands(steps []step) []band {
	var out []band
	for _, s := range steps {
		if len(s.pointsAt) == 0 {
			continue
		}
		lo, hi, reg := max(s.piece.Min, 1), s.piece.Max, s.pointsAt[0].Regime
		if n := len(out); n > 0 && out[n-1].Regime == reg && out[n-1].Hi+1 == lo {
			out[n-1].Hi = hi
			continue
		}
		out = append(out, band{lo, hi, reg, s.piece.Min})
	}
	return out
}

// yAxis sets a chart's y axis for values ys: log (powers of two, for bytes) when the positive
// values span decades, else linear from 0. It returns the axis bottom (where bands start) and
// the value a 0 is drawn at (on a log axis: the bottom, said in the axis label).
func yAxis(c *chart, ys []float64, bytesAxis bool) (bottom, top float64) {
	lo, hi := math.Inf(1), 0.0
	zero := false
	for _, y := range ys {
		if y > 0 {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		} else {
			zero = true
		}
	}
	if hi == 0 {
		c.Y.Min, c.Y.Max = 0, 1
		return 0, 1
	}
	if !spansDecades(lo, hi) {
		c.Y.Min, c.Y.Max = 0, hi*1.1
		return 0, c.Y.Max
	}
	c.Y.Scale = plot.LogScale{}
	c.Y.Tick.Marker = logTicks{}
	if bytesAxis {
		c.Y.Tick.Marker = pow2Ticks{}
	}
	c.Y.Min, c.Y.Max = lo/2, hi*2
	c.Y.Label.Text += " (log"
	if zero {
		c.Y.Label.Text += "; 0 at the bottom"
	}
	c.Y.Label.Text += ")"
	return c.Y.Min, c.Y.Max
}

// atLeast lifts 0 to the axis bottom on a log axis.
func atLeast(bottom float64, xys plotter.XYs) plotter.XYs {
	for i := range xys {
		xys[i].Y = math.Max(xys[i].Y, bottom)
	}
	return xys
}

func intervalAxis(c *chart) {
	c.X.Scale = plot.LogScale{}
	c.X.Tick.Marker = pow2Ticks{}
	c.X.Min, c.X.Max = 1, intervalAxisMax
}

// scanStepChart draws max, p99 and mean scan bytes over every piece, with markers at the
// swept points and the seed's values labelled, on regime bands.
func scanStepChart(r *reports.WhatIf, steps []step) (*chart, error) {
	c := newChart("Phase-2 scan bytes (exact, every offset) against index.interval.bytes", intervalKey+" (log scale, every value from 1 to 2^31-1)", "scan bytes")
	intervalAxis(c)
	hasP99 := true
	var ys []float64
	for _, s := range steps {
		ys = append(ys, s.Max, s.Mean)
		hasP99 = hasP99 && s.HasP99
		if s.HasP99 {
			ys = append(ys, s.P99)
		}
	}
	bottom, top := yAxis(c, ys, true)
	if err := shadeBands(c, regimeBands(steps), bottom, top); err != nil {
		return nil, err
	}
	type fig struct {
		name   string
		y      func(step) float64
		point  func(*reports.Point) float64
		dashes []vg.Length
		glyph  draw.GlyphDrawer
	}
	figsDrawn := []fig{{"max scan", func(s step) float64 { return s.Max }, func(p *reports.Point) float64 { return float64(p.Scan.MaxScanBytes) }, nil, draw.CircleGlyph{}}}
	if hasP99 {
		figsDrawn = append(figsDrawn, fig{"p99 scan", func(s step) float64 { return s.P99 }, func(p *reports.Point) float64 { return float64(p.ScanQ[reports.P99]) },
			[]vg.Length{vg.Points(6), vg.Points(3)}, draw.TriangleGlyph{}})
	}
	figsDrawn = append(figsDrawn, fig{"mean scan", func(s step) float64 { return s.Mean }, func(p *reports.Point) float64 { return p.Scan.MeanScanBytes() },
		[]vg.Length{vg.Points(2), vg.Points(2)}, draw.BoxGlyph{}})
	var swept []*reports.Point
	for _, s := range steps {
		swept = append(swept, s.pointsAt...)
	}
	for i, f := range figsDrawn {
		l, err := plotter.NewLine(atLeast(bottom, stepLine(steps, f.y)))
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = seriesColor(i), vg.Points(1.6), f.dashes
		var pts plotter.XYs
		for _, p := range swept {
			pts = append(pts, plotter.XY{X: float64(max(p.Config.IndexIntervalBytes, 1)), Y: f.point(p)})
		}
		sc, err := plotter.NewScatter(atLeast(bottom, pts))
		if err != nil {
			return nil, err
		}
		radius := vg.Points(3)
		if f.name == "p99 scan" {
			radius = vg.Points(4.5) // an outline around the max marker when they are equal
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(i), Radius: radius, Shape: f.glyph}
		c.Add(l, sc)
		c.legend.Add(f.name, l, sc)
	}
	if err := labelSeedPoints(c, swept, bottom); err != nil {
		return nil, err
	}
	addBandLegend(c)
	return c, nil
}

// labelSeedPoints writes each seed value beside its marker on the max line.
func labelSeedPoints(c *chart, swept []*reports.Point, bottom float64) error {
	var xys plotter.XYs
	var names []string
	for _, p := range swept {
		v := p.Config.IndexIntervalBytes
		for _, s := range seedIntervals {
			if v == s {
				xys = append(xys, plotter.XY{X: float64(max(v, 1)), Y: math.Max(float64(p.Scan.MaxScanBytes), bottom)})
				names = append(names, fmt.Sprintf("I=%d", v))
			}
		}
	}
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(9)
		l.TextStyle[i].XAlign = draw.XCenter
	}
	l.Offset = vg.Point{Y: vg.Points(6)}
	c.Add(l)
	return nil
}

// shadeBands draws the regime bands from bottom to top, each from its lowest value to just
// past its highest (the next band's lowest value), and names each with its exact range in the
// legend (labels inside the plot would cover data).
func shadeBands(c *chart, bands []band, bottom, top float64) error {
	for _, b := range bands {
		lo, hi := float64(b.Lo), float64(b.Hi)+1
		poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: bottom}, {X: hi, Y: bottom}, {X: hi, Y: top}, {X: lo, Y: top}})
		if err != nil {
			return err
		}
		poly.Color = regimeColors[string(b.Regime)]
		poly.LineStyle.Width = 0
		c.Add(poly)
		from := b.From // as the table names it
		rng := fmt.Sprintf("%d..%d", from, b.Hi)
		if b.Hi >= math.MaxInt32 {
			rng = fmt.Sprintf("%d and up", from)
		}
		c.bands = append(c.bands, legendEntry{fmt.Sprintf("%s: %s", b.Regime, rng), swatch{regimeColors[string(b.Regime)]}})
	}
	return nil
}

// addBandLegend puts the bands in the legend, after the lines.
func addBandLegend(c *chart) {
	for _, e := range c.bands {
		c.legend.Add(e.name, e.thumb)
	}
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// swatch is a legend thumbnail of a filled colour.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(s.color, c.ClipPolygonXY(pts))
}

var whiteText = color.White

// heatPalette runs from pale yellow (cheap lookups) to dark red (long walks): ColorBrewer's
// sequential YlOrRd.
func heatPalette() palette.Palette {
	p, err := brewer.GetPalette(brewer.TypeSequential, "YlOrRd", 9)
	if err != nil {
		panic(err) // a fixed, known palette
	}
	return p
}

// entriesStepChart draws the mean entries per segment over every piece.
func entriesStepChart(r *reports.WhatIf, steps []step) (*chart, error) {
	c := newChart("Offset-index entries per segment (exact) against index.interval.bytes", intervalKey+" (log scale, every value from 1 to 2^31-1)", "entries/segment (mean)")
	intervalAxis(c)
	var ys []float64
	for _, s := range steps {
		ys = append(ys, s.EntriesPerSegment)
	}
	bottom, top := yAxis(c, ys, false)
	if err := shadeBands(c, regimeBands(steps), bottom, top); err != nil {
		return nil, err
	}
	l, err := plotter.NewLine(atLeast(bottom, stepLine(steps, func(s step) float64 { return s.EntriesPerSegment })))
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = seriesColor(0), vg.Points(1.6)
	var pts plotter.XYs
	for _, s := range steps {
		for _, p := range s.pointsAt {
			pts = append(pts, plotter.XY{X: float64(max(p.Config.IndexIntervalBytes, 1)), Y: s.EntriesPerSegment})
		}
	}
	sc, err := plotter.NewScatter(atLeast(bottom, pts))
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	c.Add(l, sc)
	c.legend.Add("entries/segment", l, sc)
	addBandLegend(c)
	return c, nil
}

// series is the points that differ only in the swept key, in key order.
type series struct {
	name   string
	points []*reports.Point
	xs     []float64
}

// maxSeries bounds the marker charts: a grid with more values of its second key is read on
// its heatmap.
const maxSeries = 6

// sweepSeries groups the points of the first sweep's key by everything else (other swept
// keys, era). Points with a value of 0 are left out when the axis is logarithmic.
func sweepSeries(r *reports.WhatIf) (string, []*series) {
	if len(r.Sweeps) == 0 || len(r.Sweeps[0].Values) < 2 {
		return "", nil
	}
	key := r.Sweeps[0].Key
	logAxis := useLogX(r.Sweeps[0].Values, key)
	byName := map[string]*series{}
	var out []*series
	for _, p := range r.Points {
		x := p.SweptValue(key)
		if x <= 0 && logAxis {
			continue
		}
		name := sweepLabel(r, p, key)
		s := byName[name]
		if s == nil {
			s = &series{name: name}
			byName[name] = s
			out = append(out, s)
		}
		s.points = append(s.points, p)
		s.xs = append(s.xs, float64(x))
	}
	if len(out) == 0 || len(out) > maxSeries {
		return "", nil
	}
	for _, s := range out {
		sort.Sort(byX{s})
	}
	return key, out
}

// useLogX: the interval axis is always logarithmic; another key's when its values span
// decades.
func useLogX(values []int64, key string) bool {
	if key == intervalKey {
		return true
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range values {
		if v > 0 {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
	}
	return spansDecades(lo, hi)
}

type byX struct{ s *series }

func (b byX) Len() int           { return len(b.s.xs) }
func (b byX) Less(i, j int) bool { return b.s.xs[i] < b.s.xs[j] }
func (b byX) Swap(i, j int) {
	b.s.xs[i], b.s.xs[j] = b.s.xs[j], b.s.xs[i]
	b.s.points[i], b.s.points[j] = b.s.points[j], b.s.points[i]
}

// sweepLabel names a point by its value of every swept key but skip (and its era when the
// report compares eras), "key=v key=v era".
func sweepLabel(r *reports.WhatIf, p *reports.Point, skip string) string {
	var parts []string
	for _, s := range r.Sweeps {
		if s.Key != skip {
			parts = append(parts, fmt.Sprintf("%s=%d", s.Key, p.SweptValue(s.Key)))
		}
	}
	if len(r.Eras) > 1 {
		parts = append(parts, p.Era.ID)
	}
	return strings.Join(parts, " ")
}

// scanChart draws max, p99 and mean scan bytes at each swept value as markers alone: between
// two samples the figures are not known (a step may sit anywhere between them).
func scanChart(r *reports.WhatIf, key string, ss []*series) (*chart, error) {
	c := newChart("Phase-2 scan bytes (exact, every offset) at each swept value", key, "scan bytes")
	logSweepAxis(c, r, key)
	var ys []float64
	for _, s := range ss {
		for _, p := range s.points {
			ys = append(ys, float64(p.Scan.MaxScanBytes), float64(p.ScanQ[reports.P99]), p.Scan.MeanScanBytes())
		}
	}
	padX(c, ss)
	bottom, _ := yAxis(c, ys, true)
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}}
	figs := []struct {
		name string
		y    func(*reports.Point) float64
	}{{"max", func(p *reports.Point) float64 { return float64(p.Scan.MaxScanBytes) }},
		{"p99", func(p *reports.Point) float64 { return float64(p.ScanQ[reports.P99]) }},
		{"mean", func(p *reports.Point) float64 { return p.Scan.MeanScanBytes() }}}
	for i, s := range ss {
		for j, f := range figs {
			pts := make(plotter.XYs, len(s.xs))
			for k, p := range s.points {
				pts[k] = plotter.XY{X: s.xs[k], Y: f.y(p)}
			}
			sc, err := plotter.NewScatter(atLeast(bottom, pts))
			if err != nil {
				return nil, err
			}
			// One series: a colour per figure, as on the step chart; several: a colour per
			// series, a shape per figure. The p99 triangle is an outline drawn larger, so a p99
			// equal to the max still shows around it.
			col := seriesColor(i)
			if len(ss) == 1 {
				col = seriesColor(j)
			}
			radius := vg.Points(3.5)
			if j == 1 {
				radius = vg.Points(5)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: radius, Shape: glyphs[j]}
			c.Add(sc)
			c.legend.Add(strings.TrimSpace(f.name+" "+s.name), sc)
		}
	}
	return c, nil
}

// logSweepAxis makes the swept key's axis logarithmic when useLogX says so (byte-sized keys
// ticked at powers of two).
func logSweepAxis(c *chart, r *reports.WhatIf, key string) {
	if !useLogX(r.Sweeps[0].Values, key) {
		return
	}
	c.X.Scale = plot.LogScale{}
	c.X.Tick.Marker = logTicks{}
	if key == intervalKey || key == "segment.bytes" || key == "batch.size" {
		c.X.Tick.Marker = pow2Ticks{}
	}
	c.xLabel += " (log scale)"
}

func entriesChart(r *reports.WhatIf, key string, ss []*series) (*chart, error) {
	c := newChart("Offset-index entries per segment at each swept value", key, "entries/segment (mean)")
	logSweepAxis(c, r, key)
	var ys []float64
	for _, s := range ss {
		for _, p := range s.points {
			ys = append(ys, perSegment(p))
		}
	}
	padX(c, ss)
	bottom, _ := yAxis(c, ys, false)
	for i, s := range ss {
		pts := make(plotter.XYs, len(s.xs))
		for k, p := range s.points {
			pts[k] = plotter.XY{X: s.xs[k], Y: perSegment(p)}
		}
		sc, err := plotter.NewScatter(atLeast(bottom, pts))
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(i), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		c.Add(sc)
		c.legend.Add(strings.TrimSpace("entries/segment "+s.name), sc)
	}
	return c, nil
}

// padX leaves room around the outermost markers (half a marker would sit on the axis).
func padX(c *chart, ss []*series) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.xs {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if math.IsInf(lo, 0) {
		return
	}
	if _, ok := c.X.Scale.(plot.LogScale); ok {
		c.X.Min, c.X.Max = lo/1.5, hi*1.5
		return
	}
	pad := math.Max((hi-lo)*0.05, 1)
	c.X.Min, c.X.Max = lo-pad, hi+pad
}

func perSegment(p *reports.Point) float64 {
	if p.Segments == 0 {
		return 0
	}
	return float64(p.OffsetIndexEntries) / float64(p.Segments)
}

// maxCDFSeries bounds the CDF chart.
const maxCDFSeries = 4

// cdfSame is the distance under which two CDFs count as the same curve: less than 1% of the
// offsets apart at every scan value.
const cdfSame = 0.01

// cdfDistance is the largest gap between two CDFs over every scan value (Kolmogorov-Smirnov):
// the share of offsets whose cost one side puts below a value and the other above.
func cdfDistance(a, b []reports.CDFPoint) float64 {
	at := func(c []reports.CDFPoint, v int64) float64 {
		f := 0.0
		for _, p := range c {
			if p.Value > v {
				break
			}
			f = p.Fraction
		}
		return f
	}
	d := 0.0
	for _, c := range [][]reports.CDFPoint{a, b} {
		for _, p := range c {
			d = math.Max(d, math.Abs(at(a, p.Value)-at(b, p.Value)))
		}
	}
	return d
}

// cdfPoints picks the points whose CDF is drawn: the report's own configuration (else its
// first point), then again and again the point farthest from every one picked (cdfDistance),
// until maxCDFSeries or no point is more than cdfSame away from the picked ones: never two
// near-identical curves, and the extremes first.
func cdfPoints(r *reports.WhatIf) []*reports.Point {
	var cands []*reports.Point
	for _, p := range r.Points {
		if len(p.ScanCDF) > 0 {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	first := cands[0]
	for _, p := range cands {
		if p.Config == r.Base && len(p.Producer) == 0 {
			first = p
			break
		}
	}
	out := []*reports.Point{first}
	for len(out) < maxCDFSeries {
		var best *reports.Point
		bestD := cdfSame
		for _, p := range cands {
			d := math.Inf(1)
			for _, q := range out {
				d = math.Min(d, cdfDistance(p.ScanCDF, q.ScanCDF))
			}
			if d > bestD {
				best, bestD = p, d
			}
		}
		if best == nil {
			break
		}
		out = append(out, best)
	}
	return out
}

func cdfChart(r *reports.WhatIf) (*chart, error) {
	pts := cdfPoints(r)
	if len(pts) == 0 {
		return nil, nil
	}
	c := newChart("Cumulative distribution of scan bytes", "scan bytes", "fraction of offsets")
	lo, hi := math.Inf(1), 0.0
	for _, p := range pts {
		for _, v := range p.ScanCDF {
			if v.Value > 0 {
				lo, hi = math.Min(lo, float64(v.Value)), math.Max(hi, float64(v.Value))
			}
		}
	}
	bottom := 0.0
	if spansDecades(lo, hi) {
		c.X.Scale = plot.LogScale{}
		c.X.Tick.Marker = pow2Ticks{}
		c.xLabel += " (log scale; 0 drawn at the left edge)"
		bottom = lo / 2
		c.X.Min = bottom
	}
	right := math.Max(hi*1.05, 1)
	c.X.Max = right
	for i, pt := range pts {
		// A step function: the fraction jumps at each exact value.
		var line plotter.XYs
		prev := 0.0
		for _, v := range pt.ScanCDF {
			x := math.Max(float64(v.Value), bottom)
			line = append(line, plotter.XY{X: x, Y: prev}, plotter.XY{X: x, Y: v.Fraction})
			prev = v.Fraction
		}
		line = append(line, plotter.XY{X: right, Y: prev})
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = seriesColor(i), vg.Points(1.6)
		if i > 0 {
			l.Dashes = []vg.Length{vg.Points(float64(2 + 2*i)), vg.Points(2)}
		}
		c.Add(l)
		name := pointName(r, pt)
		if pt.Config == r.Base && len(pt.Producer) == 0 {
			name += ", the base config"
		}
		c.legend.Add(fmt.Sprintf("%s (%s)", name, pt.Regime), l)
	}
	c.Y.Min, c.Y.Max = 0, 1
	return c, nil
}

func pointName(r *reports.WhatIf, p *reports.Point) string {
	name := sweepLabel(r, p, "")
	if name == "" {
		return "base"
	}
	return name
}

// gridEras are the eras to draw a heatmap for: every era of a two-key sweep (one chart each).
func gridEras(r *reports.WhatIf) []model.Era {
	if len(r.Sweeps) != 2 || len(r.Sweeps[0].Values) < 2 || len(r.Sweeps[1].Values) < 2 {
		return nil
	}
	return r.Eras
}

// grid is the heatmap's cells: column c is the second key's c-th value, row k the first key's.
type grid struct {
	z          [][]float64 // [row][col]
	cols, rows int
}

func (g grid) Dims() (int, int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// heatmapChart draws max scan bytes over the grid of the two swept keys, each cell labelled
// with its value (the colour only guides the eye).
func heatmapChart(r *reports.WhatIf, era model.Era) (*chart, error) {
	ka, kb := r.Sweeps[0], r.Sweeps[1]
	g := grid{cols: len(kb.Values), rows: len(ka.Values)}
	g.z = make([][]float64, g.rows)
	for i := range g.z {
		g.z[i] = make([]float64, g.cols)
		for j := range g.z[i] {
			g.z[i][j] = math.NaN()
		}
	}
	index := func(vs []int64, v int64) int {
		for i, x := range vs {
			if x == v {
				return i
			}
		}
		return -1
	}
	var xys plotter.XYs
	var names []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range r.Points {
		if p.Era.ID != era.ID {
			continue
		}
		row, col := index(ka.Values, p.SweptValue(ka.Key)), index(kb.Values, p.SweptValue(kb.Key))
		if row < 0 || col < 0 {
			continue
		}
		v := float64(p.Scan.MaxScanBytes)
		g.z[row][col] = v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		xys = append(xys, plotter.XY{X: float64(col), Y: float64(row)})
		names = append(names, fmt.Sprintf("%s\np99 %s", reports.Bytes(p.Scan.MaxScanBytes), reports.Bytes(p.ScanQ[reports.P99])))
	}
	if len(xys) == 0 {
		return nil, nil
	}
	pal := heatPalette()
	h := plotter.NewHeatMap(g, pal)
	h.Min, h.Max = lo, hi
	if lo == hi {
		// One value everywhere: every cell the palette's lightest colour.
		h.Min, h.Max = lo, hi+1
	}
	c := newChart("Max scan bytes (cells: max and p99) over the grid", kb.Key, ka.Key)
	c.Add(h)
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: names})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(8)
		labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
		// Dark cells get white text.
		if (g.z[int(xys[i].Y)][int(xys[i].X)]-h.Min)/(h.Max-h.Min) > 0.6 {
			labels.TextStyle[i].Color = whiteText
		}
	}
	c.Add(labels)
	c.X.Tick.Marker = valueTicks(kb.Values)
	c.Y.Tick.Marker = valueTicks(ka.Values)
	c.X.Min, c.X.Max = -0.5, float64(g.cols)-0.5
	c.Y.Min, c.Y.Max = -0.5, float64(g.rows)-0.5
	if lo == hi {
		c.legend.Add(fmt.Sprintf("every cell: %s", reports.Bytes(int64(lo))), swatch{pal.Colors()[0]})
	} else {
		c.legend.Add(fmt.Sprintf("lightest: %s", reports.Bytes(int64(lo))), swatch{pal.Colors()[0]})
		c.legend.Add(fmt.Sprintf("darkest: %s", reports.Bytes(int64(hi))), swatch{pal.Colors()[len(pal.Colors())-1]})
	}
	return c, nil
}

// valueTicks label cell i with the i-th swept value.
func valueTicks(vs []int64) plot.ConstantTicks {
	out := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		out[i] = plot.Tick{Value: float64(i), Label: fmt.Sprint(v)}
	}
	return out
}

// mapsChart draws 2 × segments × partitions for each distinct segment count among the points,
// against partitions on a log axis, with vm.max_map_count as a horizontal line.
func mapsChart(r *reports.WhatIf) (*chart, error) {
	if len(r.Points) == 0 {
		return nil, nil
	}
	c := newChart(fmt.Sprintf("Memory maps (vm.max_map_count = %d)", r.Scale.MaxMapCount), "partitions (log scale)", "maps (log scale)")
	c.X.Scale = plot.LogScale{}
	c.X.Tick.Marker = logTicks{}
	c.Y.Scale = plot.LogScale{}
	c.Y.Tick.Marker = logTicks{}
	seen := map[int]bool{}
	var segs []int
	for _, pt := range r.Points {
		if s := pt.Maps.SegmentsPerPart; !seen[s] {
			seen[s] = true
			segs = append(segs, s)
		}
	}
	sort.Ints(segs)
	if len(segs) > len(seriesColors)-1 {
		segs = []int{segs[0], segs[len(segs)/2], segs[len(segs)-1]}
	}
	const maxP = 100000
	for i, s := range segs {
		line := plotter.XYs{{X: 1, Y: float64(2 * s)}, {X: maxP, Y: float64(2 * s * maxP)}}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color = seriesColor(i)
		l.Width = vg.Points(1.5)
		c.Add(l)
		c.legend.Add(fmt.Sprintf("%d segments/partition", s), l)
	}
	limit, err := plotter.NewLine(plotter.XYs{{X: 1, Y: float64(r.Scale.MaxMapCount)}, {X: maxP, Y: float64(r.Scale.MaxMapCount)}})
	if err != nil {
		return nil, err
	}
	limit.Color = seriesColors[1]
	limit.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	c.Add(limit)
	c.legend.Add("vm.max_map_count", limit)
	at, err := plotter.NewScatter(plotter.XYs{{X: float64(max(r.Scale.Partitions, 1)), Y: float64(max(r.Points[0].Maps.Maps, 1))}})
	if err != nil {
		return nil, err
	}
	at.GlyphStyle.Radius = vg.Points(4)
	c.Add(at)
	parts := fmt.Sprintf("%d partitions", r.Scale.Partitions)
	if r.Scale.Partitions == 1 {
		parts = "1 partition"
	}
	c.legend.Add("this broker: "+parts, at)
	return c, nil
}
