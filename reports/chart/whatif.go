package chart

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"kidx/reports"
)

// maxCDFSeries bounds the CDF chart: one curve per regime met, then the first points.
const maxCDFSeries = 4

// WhatIf draws the what-if charts: max and mean scan bytes against the first swept key
// (log x-axis when it is index.interval.bytes or geometric; regimes shaded), entries per
// segment against it, the CDF of scan bytes of selected points, and maps against partitions.
func WhatIf(r *reports.WhatIf) ([]reports.Figure, error) {
	var figs []reports.Figure
	add := func(title string, p *plot.Plot, err error) error {
		if err != nil {
			return err
		}
		svg, err := render(p)
		if err != nil {
			return err
		}
		figs = append(figs, reports.Figure{Title: title, SVG: svg})
		return nil
	}
	if key, series := sweepSeries(r); key != "" {
		p, err := scanChart(key, series)
		if err := add(fmt.Sprintf("Max and mean scan bytes against %s (regimes shaded)", key), p, err); err != nil {
			return nil, err
		}
		p, err = entriesChart(key, series)
		if err := add(fmt.Sprintf("Offset-index entries per segment against %s", key), p, err); err != nil {
			return nil, err
		}
	}
	p, err := cdfChart(r)
	if err := add("CDF of scan bytes over every offset", p, err); err != nil {
		return nil, err
	}
	p, err = mapsChart(r)
	if err := add("Memory maps against partitions (2 per segment)", p, err); err != nil {
		return nil, err
	}
	return figs, nil
}

// series is the points that differ only in the swept key, in key order.
type series struct {
	name   string
	points []*reports.Point
	xs     []float64
}

// sweepSeries groups the points of the first sweep's key by everything else (other swept
// keys, rule). Points with a value of 0 are left out (no place on a log axis).
func sweepSeries(r *reports.WhatIf) (string, []*series) {
	if len(r.Sweeps) == 0 || len(r.Sweeps[0].Values) < 2 || reports.IsProducerKey(r.Sweeps[0].Key) {
		return "", nil
	}
	key := r.Sweeps[0].Key
	byName := map[string]*series{}
	var out []*series
	for _, p := range r.Points {
		x, _ := p.Config.Get(key)
		if x <= 0 {
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
	for _, s := range out {
		sort.Sort(byX{s})
	}
	return key, out
}

type byX struct{ s *series }

func (b byX) Len() int           { return len(b.s.xs) }
func (b byX) Less(i, j int) bool { return b.s.xs[i] < b.s.xs[j] }
func (b byX) Swap(i, j int) {
	b.s.xs[i], b.s.xs[j] = b.s.xs[j], b.s.xs[i]
	b.s.points[i], b.s.points[j] = b.s.points[j], b.s.points[i]
}

// sweepLabel names a point by its value of every swept key but skip (and its rule when the
// report compares rules), "key=v key=v rule".
func sweepLabel(r *reports.WhatIf, p *reports.Point, skip string) string {
	out := ""
	for _, s := range r.Sweeps {
		if s.Key == skip {
			continue
		}
		v, err := p.Config.Get(s.Key)
		if err != nil {
			for _, x := range p.Producer {
				if x.Key == s.Key {
					v = x.Value
				}
			}
		}
		out += fmt.Sprintf("%s=%d ", s.Key, v)
	}
	if len(r.Rules) > 1 {
		out += p.Rule.String()
	}
	return out
}

func xys(s *series, y func(*reports.Point) float64) plotter.XYs {
	out := make(plotter.XYs, len(s.xs))
	for i, p := range s.points {
		out[i] = plotter.XY{X: s.xs[i], Y: y(p)}
	}
	return out
}

// shadeRegimes adds one band per point of the first series, from the geometric midpoints to
// its neighbours, coloured by the point's regime.
func shadeRegimes(p *plot.Plot, s *series, ymax float64) error {
	n := len(s.xs)
	for i, pt := range s.points {
		lo, hi := s.xs[i], s.xs[i]
		if i > 0 {
			lo = math.Sqrt(s.xs[i-1] * s.xs[i])
		}
		if i < n-1 {
			hi = math.Sqrt(s.xs[i] * s.xs[i+1])
		}
		if lo == hi {
			continue
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: 0}, {X: hi, Y: 0}, {X: hi, Y: ymax}, {X: lo, Y: ymax}})
		if err != nil {
			return err
		}
		poly.Color = regimeColors[string(pt.Regime)]
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	return nil
}

func logX(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
}

func scanChart(key string, ss []*series) (*plot.Plot, error) {
	p := newPlot("Phase-2 scan bytes (exact, every offset)", key+" (log scale)", "scan bytes")
	logX(p)
	ymax := 1.0
	for _, s := range ss {
		for _, pt := range s.points {
			ymax = max(ymax, float64(pt.Scan.MaxScanBytes)*1.05)
		}
	}
	if err := shadeRegimes(p, ss[0], ymax); err != nil {
		return nil, err
	}
	for i, s := range ss {
		mx, err := plotter.NewLine(xys(s, func(pt *reports.Point) float64 { return float64(pt.Scan.MaxScanBytes) }))
		if err != nil {
			return nil, err
		}
		mx.Color = seriesColor(i)
		mx.Width = vg.Points(1.5)
		mean, err := plotter.NewLine(xys(s, func(pt *reports.Point) float64 { return pt.Scan.MeanScanBytes() }))
		if err != nil {
			return nil, err
		}
		mean.Color = seriesColor(i)
		mean.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mx, mean)
		p.Legend.Add("max "+s.name, mx)
		p.Legend.Add("mean "+s.name, mean)
	}
	p.Y.Min, p.Y.Max = 0, ymax
	return p, nil
}

func entriesChart(key string, ss []*series) (*plot.Plot, error) {
	p := newPlot("Offset-index entries per segment", key+" (log scale)", "entries per segment (mean)")
	logX(p)
	for i, s := range ss {
		l, err := plotter.NewLine(xys(s, func(pt *reports.Point) float64 {
			if pt.Segments == 0 {
				return 0
			}
			return float64(pt.OffsetIndexEntries) / float64(pt.Segments)
		}))
		if err != nil {
			return nil, err
		}
		l.Color = seriesColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name+"entries/segment", l)
	}
	p.Y.Min = 0
	return p, nil
}

// cdfPoints picks the points whose CDF is drawn: the first point of each regime, then the
// first points, up to maxCDFSeries.
func cdfPoints(r *reports.WhatIf) []*reports.Point {
	var out []*reports.Point
	seen := map[reports.Regime]bool{}
	for _, p := range r.Points {
		if !seen[p.Regime] && len(out) < maxCDFSeries {
			seen[p.Regime] = true
			out = append(out, p)
		}
	}
	for _, p := range r.Points {
		if len(out) >= maxCDFSeries {
			break
		}
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(ps []*reports.Point, p *reports.Point) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

func cdfChart(r *reports.WhatIf) (*plot.Plot, error) {
	p := newPlot("Cumulative distribution of scan bytes", "scan bytes", "fraction of offsets")
	for i, pt := range cdfPoints(r) {
		// A step function: the fraction jumps at each exact value.
		var line plotter.XYs
		prev := 0.0
		for _, c := range pt.ScanCDF {
			line = append(line, plotter.XY{X: float64(c.Value), Y: prev}, plotter.XY{X: float64(c.Value), Y: c.Fraction})
			prev = c.Fraction
		}
		if len(line) == 0 {
			continue
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color = seriesColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%s)", pointName(r, pt), pt.Regime), l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}

func pointName(r *reports.WhatIf, p *reports.Point) string {
	name := strings.TrimSpace(sweepLabel(r, p, ""))
	if name == "" {
		return "base"
	}
	return name
}

// mapsChart draws 2 × segments × partitions for each distinct segment count among the points,
// against partitions on a log axis, with vm.max_map_count as a horizontal line.
func mapsChart(r *reports.WhatIf) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("Memory maps (vm.max_map_count = %d)", r.Scale.MaxMapCount), "partitions (log scale)", "maps (log scale)")
	logX(p)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
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
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%d segments/partition", s), l)
	}
	limit, err := plotter.NewLine(plotter.XYs{{X: 1, Y: float64(r.Scale.MaxMapCount)}, {X: maxP, Y: float64(r.Scale.MaxMapCount)}})
	if err != nil {
		return nil, err
	}
	limit.Color = seriesColors[1]
	limit.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(limit)
	p.Legend.Add("vm.max_map_count", limit)
	at, err := plotter.NewScatter(plotter.XYs{{X: float64(max(r.Scale.Partitions, 1)), Y: float64(max(r.Points[0].Maps.Maps, 1))}})
	if err != nil {
		return nil, err
	}
	p.Add(at)
	p.Legend.Add(fmt.Sprintf("this broker: %d partitions", r.Scale.Partitions), at)
	return p, nil
}
