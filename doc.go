// Package sanad is the vocabulary of the sanad runtime: scopes, runs, artifact
// references and errors. It has no I/O and no dependencies beyond the standard
// library; every other package speaks in these types.
//
// A [Run] is one governed unit of execution. Its inputs and outputs are
// [ArtifactRef] values, it is confined to a [Scope], and it ends in exactly one
// terminal [RunStatus]. Failures are reported as [*Error] values with a code
// from a closed set ([Code]), each code carrying whether a retry may help. A
// panic recovered in an action, a tool or a critic becomes an Error whose
// cause is a [PanicError], and the run's [RunError] records its stack.
package sanad
