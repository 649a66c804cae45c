package office

import (
	"context"
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/sanadhq/sanad/document"
	"github.com/sanadhq/sanad/parse/internal/grid"
)

// maxChartPoints bounds the points read from one series.
const maxChartPoints = 10000

type chartSeries struct {
	name   string
	cats   map[int]string
	vals   map[int]string
	maxIdx int
}

// readChart reads a DrawingML chart part (c:chartSpace) into an image block
// naming the chart and a table of its data: categories down the first
// column, one column per series, from the values cached in the chart.
func readChart(ctx context.Context, p *pkg, part string) ([]document.Block, error) {
	d, c, err := p.decoder(part)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	x := newXR(ctx, d)
	var (
		title  strings.Builder
		kind   string
		series []*chartSeries
		cur    *chartSeries
		where  string // "tx", "cat", "val" inside a series
		inPt   = -1
		stack  []string
	)
	for {
		tok, err := x.next()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			switch t.Name.Local {
			case "barChart", "bar3DChart":
				kind = pick(kind, "bar chart")
			case "lineChart", "line3DChart":
				kind = pick(kind, "line chart")
			case "pieChart", "pie3DChart", "doughnutChart", "ofPieChart":
				kind = pick(kind, "pie chart")
			case "scatterChart", "bubbleChart":
				kind = pick(kind, "scatter chart")
			case "areaChart", "area3DChart", "radarChart", "stockChart", "surfaceChart", "surface3DChart":
				kind = pick(kind, "chart")
			case "ser":
				if len(series) < 256 {
					cur = &chartSeries{cats: map[int]string{}, vals: map[int]string{}}
					series = append(series, cur)
				}
			case "tx":
				if cur != nil && where == "" {
					where = "tx"
				}
			case "cat", "xVal":
				if cur != nil {
					where = "cat"
				}
			case "val", "yVal":
				if cur != nil {
					where = "val"
				}
			case "pt":
				inPt = attrInt(t, "idx", -1)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			switch t.Name.Local {
			case "ser":
				cur, where = nil, ""
			case "tx", "cat", "xVal", "val", "yVal":
				if cur != nil && (t.Name.Local != "tx" || where == "tx") {
					where = ""
				}
			case "pt":
				inPt = -1
			}
		case xml.CharData:
			s := string(t)
			if in(stack, "title") && cur == nil && last(stack) == "t" {
				title.WriteString(s)
				continue
			}
			if cur == nil || last(stack) != "v" {
				continue
			}
			switch where {
			case "tx":
				cur.name += strings.TrimSpace(s)
			case "cat", "val":
				if inPt < 0 || inPt >= maxChartPoints {
					continue
				}
				m := cur.cats
				if where == "val" {
					m = cur.vals
				}
				m[inPt] += strings.TrimSpace(s)
				cur.maxIdx = max(cur.maxIdx, inPt+1)
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// The chart's title captions the picture; its kind captions the table
	// of its data ("Bar chart").
	out := []document.Block{{Kind: document.Image, Text: strings.TrimSpace(title.String())}}
	if len(series) == 0 {
		return out, nil
	}
	var cats map[int]string
	rows := 0
	for _, s := range series {
		if cats == nil && len(s.cats) > 0 {
			cats = s.cats
		}
		rows = max(rows, s.maxIdx)
	}
	if rows == 0 {
		return out, nil
	}
	var g grid.Builder
	g.HeaderRows = 1
	g.Add(0, 0, 1, 1, "")
	for j, s := range series {
		g.Add(0, j+1, 1, 1, s.name)
	}
	for i := 0; i < rows; i++ {
		g.Add(i+1, 0, 1, 1, cats[i])
		for j, s := range series {
			g.Add(i+1, j+1, 1, 1, numberText(s.vals[i]))
		}
	}
	if t := g.Table(); t != nil {
		if kind != "" {
			t.Caption = strings.ToUpper(kind[:1]) + kind[1:]
		}
		out = append(out, document.Block{Kind: document.Table, Table: t})
	}
	return out, nil
}

func pick(cur, v string) string {
	if cur != "" {
		return cur
	}
	return v
}

func in(stack []string, name string) bool {
	for _, s := range stack {
		if s == name {
			return true
		}
	}
	return false
}

func last(stack []string) string {
	if len(stack) == 0 {
		return ""
	}
	return stack[len(stack)-1]
}

// numberText renders a cached number without float noise: "120" not
// "120.0", "0.3" not "0.30000000000000004".
func numberText(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if g := strconv.FormatFloat(f, 'g', 15, 64); !strings.ContainsAny(g, "eE") {
		return g
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
