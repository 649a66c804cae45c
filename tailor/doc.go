// Package tailor is the Tailor agent of seed 004, the Editor: it composes
// the final answer to a question from the passages retrieval found, in the
// tone of a persona, and cites the passage behind every sentence.
//
// [Compose] answers without a model, by quoting the passages' sentences,
// list items and table rows that best answer the question; [Write] asks a
// model and keeps its reply only when every sentence passes the same
// check. That check is [Supported]: a sentence's content words and every
// one of its numbers must be in the passages it cites, and it must not
// negate what they say. [Check] applies it to a whole [Output], so that an
// answer can be verified again later against the passages it cites.
//
// When the passages do not answer the question, the answer says so, names
// what was searched, and cites nothing ([Output].Refused): the Tailor
// states insufficiency instead of guessing.
package tailor
