// Package diligence is the deterministic analysis of a deal's data room:
// Load reads a deal folder (deal.yaml and its documents) into claims and
// their evidence chains, Analyze runs the offline roles of the debate as
// rules over that evidence — the contradiction finder, the sanad breaker,
// the risk officer and the arbiter — and Score measures the findings
// against a deal's expected.json.
//
// Every finding cites claim ids (and calc ids) whose spans point into the
// documents' Markdown. Thresholds are constants written once for every
// deal (OverstatementFatal, StaleMonths, RunwayMonths, ConcentrationShare,
// MonthlyChurn, AnnualChurn); Analyze never reads expected.json.
package diligence
