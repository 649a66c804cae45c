// Package intake evaluates a client's intake form (client_intake_form) for
// an attorney to confirm: it reads and checks the form ([ParseForm]), then
// [Assess] writes the three artifacts of seed 001 §4.2 INTAKE_AGENT: the
// intake_summary (a bounded narrative, the areas of law spotted, indicative
// limitation risks and urgency), the intake_checklist (what is missing or
// weak, each with the field it concerns) and the conflict_check_request
// (every name to run through the firm's conflict check), with a triage
// recommendation that a person always confirms.
//
// The package is a pure library: it writes no ledger and calls no gateway.
// Its rules are data: limitations.yaml holds the indicative limitation
// periods, expectations.yaml the documents and amounts each area usually
// needs and the words that make a matter urgent. Nothing here is legal
// advice; every period says which rule it comes from and that it must be
// checked for the matter's jurisdiction.
package intake
