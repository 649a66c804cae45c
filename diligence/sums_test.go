package diligence

import (
	"slices"
	"testing"
)

func arithmeticOf(f Findings) []Item {
	var out []Item
	for _, d := range f.Defects {
		if d.Type == TypeInconsistentArithmetic {
			out = append(out, d)
		}
	}
	return out
}

func TestPartsAddUpToTheirWhole(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		// want is the period of the defect, or "" for none.
		want string
	}{
		{"quarters that sum", "accounts.md",
			"# Management accounts FY2024\n\n| £'000 | Q1 | Q2 | Q3 | Q4 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 1,500 | 5,400 |\n", ""},
		{"quarters with a typo", "accounts.md",
			"# Management accounts FY2024\n\n| £'000 | Q1 | Q2 | Q3 | Q4 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 1,500 | 5,900 |\n", "FY2024"},
		{"quarters in a CSV with a typo", "accounts.csv",
			"metric,Q1 2024,Q2 2024,Q3 2024,Q4 2024,FY2024\nRevenue (£m),1.2,1.3,1.4,1.5,5.9\n", "FY2024"},
		{"rounded quarters in £m within rounding", "accounts.md",
			"# Management accounts\n\n| £m | Q1 2024 | Q2 2024 | Q3 2024 | Q4 2024 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1.2 | 1.3 | 1.4 | 1.5 | 5.5 |\n", ""},
		{"rounded quarters in £m beyond rounding", "accounts.md",
			"# Management accounts\n\n| £m | Q1 2024 | Q2 2024 | Q3 2024 | Q4 2024 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1.2 | 1.3 | 1.4 | 1.5 | 5.7 |\n", "FY2024"},
		{"a missing quarter", "accounts.md",
			"# Management accounts FY2024\n\n| £'000 | Q1 | Q2 | Q3 | FY2024 |\n| - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 5,400 |\n", ""},
		{"halves that do not sum", "accounts.md",
			"# Management accounts\n\n| £'000 | H1 2024 | H2 2024 | FY2024 |\n| - | - | - | - |\n| EBITDA | 400 | 500 | 1,000 |\n", "FY2024"},
		{"months that do not sum to the quarter", "accounts.md",
			"# Management accounts\n\n| £ | Jan 2025 | Feb 2025 | Mar 2025 | Q1 2025 |\n| - | - | - | - | - |\n| Revenue | 410,000 | 420,000 | 430,000 | 1,290,000 |\n", "Q1-2025"},
		{"an LTM bridge", "accounts.md",
			"# Bridge\n\n| £'000 | FY2024 | less H1 2024 | plus H1 2025 | LTM Jun 2025 |\n| - | - | - | - | - |\n| Revenue | 5,000 | 2,400 | 2,900 | 5,500 |\n", ""},
		{"cash at each quarter end", "accounts.md",
			"# Management accounts FY2024\n\n| £'000 | Q1 | Q2 | Q3 | Q4 | FY2024 |\n| - | - | - | - | - | - |\n| Cash | 1,200 | 1,300 | 1,400 | 1,500 | 1,500 |\n", ""},
		{"calendar quarters of a year ended March", "accounts.md",
			"# Accounts for the year ended 31 March 2024\n\n| £'000 | Q1 2024 | Q2 2024 | Q3 2024 | Q4 2024 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 1,500 | 5,900 |\n", ""},
		{"fiscal quarters of a year ended March", "accounts.md",
			"# Accounts for the year ended 31 March 2024\n\n| £'000 | Q1 FY2024 | Q2 FY2024 | Q3 FY2024 | Q4 FY2024 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 1,500 | 5,900 |\n", "FY2024"},
		{"segments that sum", "report.md",
			"# Annual report FY2024\n\n| Region | Revenue (£m) |\n| - | - |\n| United Kingdom | 3.1 |\n| Germany | 1.2 |\n| Nordics | 0.9 |\n| Total | 5.2 |\n", ""},
		{"segments that do not sum", "report.md",
			"# Annual report FY2024\n\n| Region | Revenue (£m) |\n| - | - |\n| United Kingdom | 3.1 |\n| Germany | 1.2 |\n| Nordics | 0.9 |\n| Total | 5.8 |\n", "FY2024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := room(t, map[string]string{tc.file: "management_accounts"}, map[string]string{tc.file: tc.content})
			got := arithmeticOf(f)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("got %+v, want no defect", got)
			case tc.want != "" && (len(got) != 1 || got[0].Period != tc.want):
				t.Errorf("got %+v, want one defect for %s", got, tc.want)
			}
		})
	}
}

func TestASumDefectCitesTheTotalAndEveryPart(t *testing.T) {
	accounts := "# Management accounts FY2024\n\n| £'000 | Q1 | Q2 | Q3 | Q4 | FY2024 |\n| - | - | - | - | - | - |\n| Revenue | 1,200 | 1,300 | 1,400 | 1,500 | 5,900 |\n"
	d, f := room(t, map[string]string{"accounts.md": "management_accounts"}, map[string]string{"accounts.md": accounts})
	got := arithmeticOf(f)
	if len(got) != 1 {
		t.Fatalf("got %d defects %+v, want 1", len(got), got)
	}
	var want []string
	for _, c := range d.Docs[0].Claims {
		if c.Value.Metric == "revenue" {
			want = append(want, c.ID)
		}
	}
	if len(want) != 5 {
		t.Fatalf("got %d revenue claims, want 5", len(want))
	}
	slices.Sort(want)
	ids := slices.Clone(got[0].Claims)
	slices.Sort(ids)
	if !slices.Equal(ids, want) {
		t.Errorf("got claims %v, want %v", ids, want)
	}
	if got[0].Metric != "revenue" || got[0].Resolved != "" {
		t.Errorf("got %+v, want an open revenue defect", got[0])
	}
	checkCitations(t, d, f)
}
