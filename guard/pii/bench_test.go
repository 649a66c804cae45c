package pii_test

import (
	"strings"
	"testing"

	"github.com/sanadhq/sanad/guard/pii"
)

// chunk1K is about 1 KB of support-ticket text with a few entities of
// several types among ordinary prose, numbers and dates.
var chunk1K = strings.Repeat("Ticket 2291 was opened on 2024-03-15 at 10:30 by Ms. Carla Mendes (carla.mendes@example.org, +351 912 345 678). ", 2) +
	"She reports that the invoice for order 118-2231 charged card 4111 1111 1111 1111 twice, 49.90 EUR each. " +
	"The refund should go to PT50 0002 0123 1234 5678 9015 4. Logs show requests from 203.0.113.42 and 2001:db8::17 " +
	"against https://shop.example.com/orders/118-2231?ref=mail with build 3f9a2b7c1d4e. " +
	"Support replied within 4 hours and closed the ticket after the customer confirmed the second charge was reversed. " +
	"Version 2.4.1 of the app is affected; see the release notes at docs.example.com for details. " +
	"The team will review the payment provider's retry policy next sprint and report back to the customer by e-mail."

func BenchmarkFind1K(b *testing.B) {
	d, err := pii.New(pii.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(chunk1K)))
	b.ReportAllocs()
	for b.Loop() {
		d.Find(chunk1K)
	}
}

func BenchmarkFindRedact1K(b *testing.B) {
	d, err := pii.New(pii.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(chunk1K)))
	for b.Loop() {
		pii.Redact(chunk1K, d.Find(chunk1K))
	}
}
