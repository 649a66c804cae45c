package diligence

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// room writes a data room of the given files (name to content; kinds maps
// a name to its manifest kind), loads it and analyses it.
func room(tb testing.TB, kinds map[string]string, files map[string]string) (Deal, Findings) {
	tb.Helper()
	dir := tb.TempDir()
	var manifest strings.Builder
	manifest.WriteString("name: synthetic\ncompany: Example Ltd\nas_of: 2025-06-30\ndocuments:\n")
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for _, name := range sortedKeys(files) {
		manifest.WriteString("  - {file: " + name + ", kind: " + kinds[name] + "}\n")
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	d, err := Load(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	return d, Analyze(d)
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func risksOf(f Findings, typ string) []Item {
	var out []Item
	for _, r := range f.Risks {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

func contradictionsOf(f Findings, metric string) []Item {
	var out []Item
	for _, c := range f.Contradictions {
		if c.Metric == metric {
			out = append(out, c)
		}
	}
	return out
}

// monthlyAccounts is management accounts whose latest revenue is a single
// month, far below a year's revenue of any one large customer list.
const monthlyAccounts = `# Management accounts

| £ | Apr 2025 | May 2025 | Jun 2025 |
| - | - | - | - |
| Revenue | 410,000 | 420,000 | 430,000 |
`

const annualStatement = `# Annual report

Revenue for the year ended 31 December 2024 was £5,000,000.
`

func TestConcentrationPrefersTheShareTheListStates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		list     string
		wantRisk bool
	}{
		{"small stated share", "rank,client,fy2024_sales_gbp,share_of_fy2024_sales\n1,Alder Ltd,240000,4.8%\n2,Birch Ltd,200000,4.0%\n", false},
		{"large stated share", "rank,client,fy2024_sales_gbp,share_of_fy2024_sales\n1,Alder Ltd,1600000,32.0%\n2,Birch Ltd,200000,4.0%\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := room(t, map[string]string{"accounts.md": "management_accounts", "clients.csv": "customer_list"},
				map[string]string{"accounts.md": monthlyAccounts, "clients.csv": tc.list})
			if got := len(risksOf(f, RiskConcentration)) > 0; got != tc.wantRisk {
				t.Errorf("got concentration risk %v, want %v (%v)", got, tc.wantRisk, f.Risks)
			}
		})
	}
}

func TestConcentrationNeverDividesByLessThanTheListedCustomers(t *testing.T) {
	// No share column: a month's revenue (£430,000) is not the total of a
	// year's customers (£620,000 together); the year's revenue is.
	list := "client,fy2024_sales_gbp\nAlder Ltd,240000\nBirch Ltd,200000\nCedar Ltd,180000\n"
	for _, tc := range []struct {
		name     string
		files    map[string]string
		wantRisk bool
	}{
		{"only a month's revenue", map[string]string{"accounts.md": monthlyAccounts, "clients.csv": list}, false},
		{"the year's revenue", map[string]string{"accounts.md": monthlyAccounts, "annual.md": annualStatement, "clients.csv": list}, false},
		{"a small year", map[string]string{"annual.md": strings.Replace(annualStatement, "5,000,000", "700,000", 1), "clients.csv": list}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := room(t, map[string]string{"accounts.md": "management_accounts", "annual.md": "audited_statements", "clients.csv": "customer_list"}, tc.files)
			if got := len(risksOf(f, RiskConcentration)) > 0; got != tc.wantRisk {
				t.Errorf("got concentration risk %v, want %v (%v)", got, tc.wantRisk, f.Risks)
			}
		})
	}
}

func TestYearToDateFigureIsNotComparedWithItsLastMonth(t *testing.T) {
	deck := "# Investor update\n\nRevenue of £2.4m for the six months to 31 May 2025.\n\nRevenue year to date to May 2025 was £2.4m.\n"
	_, f := room(t, map[string]string{"accounts.md": "management_accounts", "deck.md": "deck"},
		map[string]string{"accounts.md": monthlyAccounts, "deck.md": deck})
	if got := contradictionsOf(f, "revenue"); len(got) != 0 {
		t.Errorf("got contradictions %+v, want none", got)
	}
}

func TestDebtComponentsAreNotComparedWithTheTotal(t *testing.T) {
	accounts := `# Management accounts

| £'000 | Jun 2025 |
| - | - |
| Term loan | 7,000 |
| Revolving credit facility drawn | 2,000 |
| Net debt | 4,000 |
`
	for _, tc := range []struct {
		name, deck string
		want       int
	}{
		{"the total with its breakdown", "# Update\n\nBorrowings of £9.0m at 30 June 2025 (term loan £7.0m, revolving credit £2.0m).\n", 0},
		{"a total alone", "# Update\n\nBorrowings of £9.0m at 30 June 2025.\n", 0},
		{"a component that differs", "# Update\n\nTerm loan of £7.5m at 30 June 2025.\n", 0},
		{"net debt that differs", "# Update\n\nNet debt of £4.6m at 30 June 2025.\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := room(t, map[string]string{"accounts.md": "management_accounts", "deck.md": "deck"},
				map[string]string{"accounts.md": accounts, "deck.md": tc.deck})
			if got := len(contradictionsOf(f, "debt")) + len(contradictionsOf(f, "net_debt")); got != tc.want {
				t.Errorf("got %d contradictions %+v, want %d", got, f.Contradictions, tc.want)
			}
		})
	}
}

func TestLitigationIsReadFromTheLanguageOfCourtsAndNotFromBoilerplate(t *testing.T) {
	for _, tc := range []struct {
		sentence string
		want     bool
	}{
		{"Contingent liabilities: a former distributor has issued proceedings against the company seeking £0.8m.", true},
		{"A supplier brought a claim against the company in the County Court in January 2025.", true},
		{"The Employment Tribunal has set a hearing for September 2025.", true},
		{"The board noted that the company is defending the claim and expects trial in 2026.", true},
		{"In April 2025 the landlord commenced arbitration over the rent review.", true},
		{"There is a contingent liability in respect of a warranty claim by a customer.", true},
		{"The company is not party to any legal proceedings.", false},
		{"There is no litigation, pending or threatened, against the company.", false},
		{"The directors are not aware of any claims against the company.", false},
		{"Any dispute under this agreement is subject to the courts of England.", false},
		{"The company made a claim under its insurance policy for storm damage.", false},
	} {
		t.Run(tc.sentence, func(t *testing.T) {
			_, f := room(t, map[string]string{"minutes.md": "minutes"}, map[string]string{"minutes.md": "# Board minutes\n\n" + tc.sentence + "\n"})
			if got := len(risksOf(f, RiskLitigation)) > 0; got != tc.want {
				t.Errorf("got litigation %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBareDollarIsTheLocalDollarOfTheRoom(t *testing.T) {
	accounts := "# Financial report\n\nRevenue for FY2024 was $8,412,300.\n"
	for _, tc := range []struct {
		name, deck string
		want       int
	}{
		{"the same figure in A$", "# Deck\n\nRevenue for FY2024 was A$8.4m.\n", 0},
		{"a different figure in A$", "# Deck\n\nRevenue for FY2024 was A$9.6m.\n", 1},
		{"US dollars named as such", "# Deck\n\nRevenue for FY2024 was A$8.4m, or US$5.5m.\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := room(t, map[string]string{"accounts.md": "audited_statements", "deck.md": "deck"},
				map[string]string{"accounts.md": accounts, "deck.md": tc.deck})
			if got := len(contradictionsOf(f, "revenue")); got != tc.want {
				t.Errorf("got %d contradictions %+v, want %d", got, f.Contradictions, tc.want)
			}
		})
	}
}

func TestAverageHeadcountIsNotComparedWithTheYearEndCount(t *testing.T) {
	audited := "# Annual report for the year ended 31 December 2024\n\nThe company employed an average of 57 people in FY2024.\n"
	accounts := "# Management accounts\n\n| | FY2024 |\n| - | - |\n| Headcount | 61 |\n"
	_, f := room(t, map[string]string{"audited.md": "audited_statements", "accounts.md": "management_accounts"},
		map[string]string{"audited.md": audited, "accounts.md": accounts})
	if got := contradictionsOf(f, "headcount"); len(got) != 0 {
		t.Errorf("got contradictions %+v, want none", got)
	}
}

func TestABudgetIsNeitherAnActualNorItsPeriod(t *testing.T) {
	memo := "# Memorandum\n\nRevenue for FY2022 was £20.1m.\n\nBudget 2023 approved by the board in February 2023: revenue of £24.0m.\n"
	_, f := room(t, map[string]string{"memo.md": "deck"}, map[string]string{"memo.md": memo})
	var stale []string
	for _, d := range f.Defects {
		if d.Type == TypeStalePeriod && d.Metric == "revenue" {
			stale = append(stale, d.Period)
		}
	}
	if len(stale) != 1 || stale[0] != "FY2022" {
		t.Errorf("got stale revenue periods %q, want [FY2022], the latest actual", stale)
	}
}
