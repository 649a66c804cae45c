// Package calc computes the financial figures a diligence memo cites, so that
// no number in it comes from a model's arithmetic (seed 000 §4.2, lookup_calc;
// requirement D06).
//
// # A calculation
//
// A [Formula] is a named expression over named inputs, with a version. Its
// canonical definition (name, version, expression text, input names) is
// hashed as RFC 8785 JSON into the formula hash. Each function of this
// package ([Growth], [CAGR], [GrossMargin], [Runway], [NPV], [IRR], …) is one
// registered formula: it takes [Input] values, each bound to a claim and
// carrying its grade, and returns a [Result] that records the formula, its
// hash, [CodeVersion], the inputs in the formula's order, the value and the
// calc_sanad: the weakest grade among the inputs. The calc id is derived from
// the formula hash and the inputs, so the same calculation over the same
// claims always has the same id.
//
// Inputs that make a formula meaningless (a zero divisor, a negative runway
// input, currencies or units that differ, a value that is not finite) are
// refused with an [sanad.Error] of code INVALID_INPUT; a Result never holds
// NaN or an infinity. [IRR] finds every rate that sets NPV to zero by
// bracketing sign changes on a grid and refining each with Brent's method:
// when there is none it returns [ErrNoSolution], and when there are several it
// reports them all in [Result.Roots].
//
// # Programs and derivations
//
// [ParseProgram] reads the arithmetic programs of FinQA and ConvFinQA
// ("subtract(206588, 181001), divide(#0, 181001)") and [ParseExpr] the
// derivations of TAT-QA ("(206588-181001)/181001"). Both parsers bound the
// text's length and nesting and never panic.
//
// All functions are pure and safe for concurrent use.
package calc
