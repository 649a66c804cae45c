package docgen

// Producer is the Producer of every generated sample PDF.
const Producer = "sanad sample data room"

// Slide is one page of a presentation: a title, bullet points, an
// optional table (its first row's first cell the caption, the rows after
// it the table with its header first) and a closing note.
type Slide struct {
	Title  string
	Points []string
	Table  [][]string
	Widths []float64
	Note   string
}

// Deck writes a presentation dated date (20250630): a cover, then one
// section per slide.
func Deck(company, title, date string, slides ...Slide) []byte {
	w := DatedPDF(company+": "+title, company+"  |  "+title+"  |  Confidential", date)
	w.Heading(company, 24, 0)
	w.Heading(title, 15, 0)
	w.Paragraph("Strictly private and confidential. " + DateText(date) + ".")
	for _, s := range slides {
		w.Heading(s.Title, 15, 16)
		for _, p := range s.Points {
			w.Item(p)
		}
		if s.Table != nil {
			w.Table(s.Table[0][0], s.Widths, s.Table[1:])
		}
		if s.Note != "" {
			w.Paragraph(s.Note)
		}
	}
	return w.Bytes()
}

// DatedPDF starts a PDF document created on date (20250630).
func DatedPDF(title, footer, date string) *PDF {
	w := NewPDF(title, footer)
	w.Producer = Producer
	w.Created = "D:" + date + "090000Z"
	return w
}

var months = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// DateText writes 20250630 as 30 June 2025.
func DateText(d string) string {
	day := d[6:8]
	if day[0] == '0' {
		day = day[1:]
	}
	m := int(d[4]-'0')*10 + int(d[5]-'0')
	return day + " " + months[m-1] + " " + d[:4]
}
