package identity_test

import (
	"testing"

	"github.com/sanadhq/sanad/casework/identity"
)

func TestNamesFind(t *testing.T) {
	n := identity.NewNames([]string{"Maria Delgado", "Smith", "O'Connor, James Jr.", "Acme Realty LLC"}, []string{"The Harbor View Co."})
	for _, tc := range []struct {
		text, want, form string
	}{
		{"Maria Delgado called", "Maria Delgado", identity.FormFull},
		{"MARIA  DELGADO called", "MARIA  DELGADO", identity.FormFull},
		{"Delgado, Maria called", "Delgado, Maria", identity.FormSurnameGiven},
		{"Maria T. Delgado called", "Maria T. Delgado", identity.FormFull},
		{"Delgado's landlord", "Delgado", identity.FormSurname},
		{"the smith matter", "smith", identity.FormFull},
		{"James O'Connor saw it", "James O'Connor", identity.FormFull},
		{"O’Connor saw it", "O’Connor", identity.FormSurname},
		{"Acme Realty LLC wrote", "Acme Realty LLC", identity.FormFull},
		{"Acme Realty wrote", "Acme Realty", identity.FormOrganisation},
		{"harbor view co wrote", "harbor view co", identity.FormFull},
		{"Ms. Delgado-Ruiz", "Delgado", identity.FormSurname},
		{"Harbor View wrote", "Harbor View", identity.FormOrganisation},
	} {
		ms := n.Find(tc.text)
		if len(ms) != 1 {
			t.Errorf("%q: %d matches %+v, want 1", tc.text, len(ms), ms)
			continue
		}
		if got := tc.text[ms[0].Start:ms[0].End]; got != tc.want || ms[0].Form != tc.form {
			t.Errorf("%q: got %q (%s), want %q (%s)", tc.text, got, ms[0].Form, tc.want, tc.form)
		}
	}
	for _, text := range []string{"Maria called", "Delgadoville", "blacksmith", "Acme wrote", "the realty market", "Delgado.\n\nMaria"} {
		if ms := n.Find(text); len(ms) > 0 && text != "Delgado.\n\nMaria" {
			t.Errorf("%q: matches %+v, want none", text, ms)
		} else if text == "Delgado.\n\nMaria" && (len(ms) != 1 || ms[0].Form != identity.FormSurname) {
			t.Errorf("%q: matches %+v, want the surname alone", text, ms)
		}
	}
}

func TestAddressPattern(t *testing.T) {
	d, err := identity.NewDetector([]string{identity.TypeLocation})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{
		{"She lives at 1420 W. Maple Ave, Apt 3B, Springfield, IL 62704 now.", "1420 W. Maple Ave, Apt 3B, Springfield, IL 62704"},
		{"Mail to P.O. Box 3321 please", "P.O. Box 3321"},
		{"the unit at 77 Harbor View Street", "77 Harbor View Street"},
	} {
		ents := d.Find(tc.text)
		if len(ents) != 1 || ents[0].Text != tc.want {
			t.Errorf("%q: found %+v, want %q", tc.text, ents, tc.want)
		}
	}
	for _, text := range []string{"within 30 days of the notice", "Section 8 vouchers", "12 Angry Men"} {
		if ents := d.Find(text); len(ents) > 0 {
			t.Errorf("%q: found %+v, want none", text, ents)
		}
	}
}

func TestNewDetectorPartyOnly(t *testing.T) {
	d, err := identity.NewDetector([]string{identity.TypeParty})
	if err != nil || d != nil {
		t.Errorf("got %v, %v; want a nil detector and no error", d, err)
	}
	if _, err := identity.NewDetector([]string{"NOT_A_TYPE"}); err == nil {
		t.Errorf("unknown type: no error")
	}
}
