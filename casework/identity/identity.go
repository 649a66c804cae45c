// Package identity finds what identifies a client in a text: the personal
// data that guard/pii detects, street addresses, and the names of the case's
// parties. The promotion checks (casework/promote) refuse a text that holds
// any of them; the export redactor (casework/redact) replaces them.
package identity

import (
	"github.com/sanadhq/sanad/guard/pii"
)

// Entity types this package adds to those of guard/pii.
const (
	// TypeLocation is a street address or post office box. The name is
	// Presidio's, whose LOCATION also covers places; here it is only the
	// address forms AddressPattern finds.
	TypeLocation = "LOCATION"
	// TypeParty is the name of one of the case's parties.
	TypeParty = "PARTY"
)

// AddressPattern finds a US-style street address ("1420 W. Maple Ave, Apt
// 3B, Springfield, IL 62704") or a post office box: a house number, up to
// four capitalised words and a street suffix, then an optional unit, city,
// state and ZIP code. It misses addresses written without a street suffix;
// a recognizer that guessed at those would take every "12 Angry Men".
var AddressPattern = pii.Pattern{
	Type: TypeLocation,
	Regex: `\b(?:\d{1,6}[A-Za-z]?[ \t]+(?:[NSEW]\.?[ \t]+)?(?:[A-Z0-9][A-Za-z0-9'’.-]*[ \t]+){0,4}` +
		`(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|place|pl|terrace|ter|way|circle|cir|parkway|pkwy|highway|hwy|square|sq|trail|trl|alley)\b\.?` +
		`(?:,?[ \t]*(?i:apt|apartment|unit|suite|ste|#)\.?[ \t]*#?[A-Za-z0-9-]+)?` +
		`|(?i:p\.?[ \t]?o\.?[ \t]+box)[ \t]+\d+)` +
		`(?:,[ \t]*[A-Z][a-z]+(?:[ \t][A-Z][a-z]+){0,2})?(?:,?[ \t]*[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?)?`,
	Score: 0.6,
}

// IdentityTypes are the types that identify a person: every built-in type
// of guard/pii except URL (a link to a statute or a court's page names no
// one; a link with a user and password is URL_CREDENTIALS, which is here)
// and the secrets (API_KEY, JWT, PRIVATE_KEY), plus TypeLocation.
var IdentityTypes = []string{
	pii.TypeEmail, pii.TypePhone, pii.TypeCreditCard, pii.TypeIBAN, pii.TypeCrypto,
	pii.TypeSSN, pii.TypeITIN, pii.TypeNHS, pii.TypeIP, pii.TypeMAC,
	pii.TypeURLCredentials, pii.TypePerson, TypeLocation,
}

// NewDetector returns a guard/pii detector of the given types, which may
// include TypeLocation; no types means IdentityTypes. TypeParty is not a
// detector type (see [Names]) and is skipped; when it is the only type,
// NewDetector returns a nil detector, which finds nothing. It fails with
// CodeInvalidInput when a type is unknown.
func NewDetector(types []string) (*pii.Detector, error) {
	if len(types) == 0 {
		types = IdentityTypes
	}
	cfg := pii.Config{}
	for _, t := range types {
		switch t {
		case TypeParty:
			continue
		case TypeLocation:
			cfg.Patterns = []pii.Pattern{AddressPattern}
		}
		cfg.Types = append(cfg.Types, t)
	}
	if len(cfg.Types) == 0 {
		return nil, nil // pii's empty Config would enable every type
	}
	return pii.New(cfg)
}
