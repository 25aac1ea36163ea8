package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of every chart: 24 cm is 907 px at 96 dpi, so a chart and its legend fit a laptop
// screen of 1280 px beside the page's margins (the HTML scales it down when narrower).
const (
	width  = 24 * vg.Centimeter
	height = 10 * vg.Centimeter
)

// Colours: one per series, and the regime shades (light, so lines stay readable).
var (
	seriesColors = []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	}
	regimeColors = map[string]color.Color{
		"plateau":  color.RGBA{R: 0xc8, G: 0xe6, B: 0xc9, A: 0xff},
		"thinning": color.RGBA{R: 0xff, G: 0xec, B: 0xb3, A: 0xff},
		"cliff":    color.RGBA{R: 0xff, G: 0xcd, B: 0xd2, A: 0xff},
	}
)

func seriesColor(i int) color.Color { return seriesColors[i%len(seriesColors)] }

// chart is a plot and its legend, which is drawn outside the plot's data area so that it
// never covers data: to the right of it, or under it when that would leave the plot too
// narrow.
//
// The x-axis label is drawn here too, centred under the plot: gonum/plot places the label's
// glyph box at the data midpoint, which on a log axis sits near the right end and squeezes the
// plot.
type chart struct {
	*plot.Plot
	legend plot.Legend
	xLabel string
	bands  []legendEntry // the regime bands, listed after the lines
}

func newChart(title, x, y string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = y
	p.X.Tick.Marker = plainTicks{}
	p.Y.Tick.Marker = plainTicks{}
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.Padding = vg.Points(2)
	return &chart{Plot: p, legend: l, xLabel: x}
}

// legendGap separates the plot from its legend.
const legendGap = 6 * vg.Millimeter

// render draws c as an SVG document.
func render(c *chart) (string, error) {
	canvas := vgsvg.NewWith(vgsvg.UseWH(width, height))
	dc := draw.New(canvas)
	lr := c.legend.Rectangle(dc)
	lw, lh := lr.Max.X-lr.Min.X, lr.Max.Y-lr.Min.Y
	right := lw > 0 && lw < width*0.3
	if lw > 0 && !right {
		// Under everything, left-aligned.
		l := c.legend
		l.XOffs = 3 * vg.Millimeter
		l.Draw(draw.Crop(dc, 0, 0, 0, -(height - lh - vg.Millimeter)))
		dc = draw.Crop(dc, 0, 0, lh+legendGap, 0)
	}
	if right {
		// The legend's own column at the right, level with the plot's top.
		l := c.legend
		l.YOffs = -c.Plot.Title.TextStyle.Rectangle(c.Plot.Title.Text).Size().Y - 2*vg.Millimeter
		l.Draw(draw.Crop(dc, width-lw, 0, 0, 0))
		dc = draw.Crop(dc, 0, -(lw + legendGap), 0, 0)
	}
	if c.xLabel != "" {
		sty := c.Plot.X.Label.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		h := sty.Rectangle(c.xLabel).Size().Y
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Min.Y + vg.Points(2)}, c.xLabel)
		dc = draw.Crop(dc, 0, 0, h+vg.Points(4), 0)
	}
	c.Plot.Draw(dc)
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// plainTicks are gonum's default ticks labelled without trailing zeros ("50000", not
// "50000.00").
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// pow2Ticks label a log axis of bytes at powers of two ("4 KiB", "1 MiB"), every power a
// minor tick, labelled ones spaced so that at most 9 show.
type pow2Ticks struct{}

// Ticks implements plot.Ticker.
func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Ceil(math.Log2(min))), int(math.Floor(math.Log2(max)))
	step := 1
	for (hi-lo)/step+1 > 9 {
		step++
	}
	// Labelled powers on multiples of step from the top, so the top power (often 2^31) shows.
	var out []plot.Tick
	for e := lo; e <= hi; e++ {
		t := plot.Tick{Value: math.Ldexp(1, e)}
		if (hi-e)%step == 0 {
			t.Label = binaryBytes(int64(1) << e)
		}
		out = append(out, t)
	}
	if len(out) < 2 {
		return plot.LogTicks{Prec: -1}.Ticks(min, max)
	}
	return out
}

// binaryBytes writes a power of two exactly: "512", "4 KiB", "2 GiB".
func binaryBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// logTicks are decade ticks labelled plainly ("1000", not "1e+03").
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// spansDecades says whether positive values from lo to hi need a log axis: hi is at least 10
// times lo.
func spansDecades(lo, hi float64) bool { return lo > 0 && hi >= 10*lo }
