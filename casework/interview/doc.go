// Package interview turns a client interview into material a matter can be
// built on: a [Transcript] of speaker turns parsed from a caption or
// transcript file (WebVTT, SRT, plain text, JSON, QMSum, Whisper
// verbose_json) or produced by a [Transcriber] from audio, structured
// [Notes] and [Entity] values extracted from it by rules, and versioned
// prompt packs ([Pack]) that say which question to ask next.
//
// Everything is offline and deterministic except [Transcriber], which calls
// an OpenAI-compatible /v1/audio/transcriptions server (whisper.cpp's
// server, a faster-whisper server, or OpenAI).
//
// Every offset is a byte offset into [Transcript.Text], the canonical text:
// each turn rendered as "Speaker: text\n". A [Note]'s Span slices Text to
// its Quote exactly, so a note can always be shown in place.
//
// The extraction is a screen for an attorney to review, not a finding: it
// reports what the words say, not what is true.
package interview
