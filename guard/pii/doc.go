// Package pii finds personal data and secrets in text and redacts them, for
// the Guardrails agent of seed 004. A [Detector] runs rule-based
// recognizers, each a regular expression that proposes candidates and a
// check that keeps only the real ones: a checksum where the format has one
// (Luhn for cards, mod 97 for IBANs, mod 11 for NHS numbers, Base58Check
// and bech32 for Bitcoin addresses), the phone number metadata of
// libphonenumber, net/netip for IP addresses, the issuing rules for social
// security numbers, a vendor's fixed key format, or randomness for a value
// assigned to a name like key, token or secret.
//
// Every expression is RE2, which runs in time linear in its input, and each
// recognizer examines a bounded number of candidates per call, so no input
// makes [Detector.Find] slow.
//
// [Redact] replaces entities with numbered placeholders and returns the
// [Mapping] that [Mapping.Restore] uses to put them back.
//
// # Measured
//
// On Presidio's recognizer test cases (shared testdata
// pii/presidio-recognizers), with every built-in type enabled, a predicted
// span counts when its type and its [start, end) match an expected one
// exactly. The figures, and the floors a test holds them to, are in
// presidio_test.go; run them with
//
//	go test ./guard/pii/ -run TestR01 -v
package pii
