package chart

import (
	"bytes"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of every chart.
const (
	width  = 18 * vg.Centimeter
	height = 9 * vg.Centimeter
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

// render draws p as an SVG document.
func render(p *plot.Plot) (string, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(width, height))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	// The legend sits inside the plot's top-left corner: a viewer whose serif font is wider
	// than the one gonum measured with then runs it into the plot, not off the canvas.
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(8)
	p.X.Tick.Marker = plainTicks{}
	p.Y.Tick.Marker = plainTicks{}
	return p
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
