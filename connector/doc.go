// Package connector fetches raw content from where it lives (local files, web
// pages, Google Drive) into files a parser can open, and says where each came
// from. It is the 004 Connector agent: a [Input] names the source, every item
// found becomes an [Output] with the local absolute path, its size, a SHA-256
// checksum and the source's own metadata.
//
// The sources are subpackages, each a [Fetcher]: connector/local,
// connector/web and connector/gdrive. A [Mux] dispatches an Input to the
// Fetcher of its source type. One Input may name many items (a folder, a
// crawl, a Drive folder): Fetch yields them one by one, and an item that fails
// yields an [*ItemError] naming it without stopping the others.
//
// What this package shares among the sources:
//
//   - [Options]: the workspace, size cap, per-request timeout, user agent,
//     HTTP client, rate limit, crawl limits, retry policy and where
//     credentials come from.
//   - [Store]: a download is written to a temporary file in the workspace,
//     hashed while written, capped at MaxBytes, and renamed to its checksum
//     only when complete, so a file a parser sees is never partial and a
//     name is never chosen by the source.
//   - [HTTP]: GET with a per-host rate limit, a per-request timeout, retries
//     with exponential backoff and jitter for 429, 5xx and network errors
//     (honouring Retry-After), and statuses mapped to sanad error codes:
//     401/403 to ERR_CONNECTOR_AUTH, 404/410 to ERR_CONNECTOR_NOT_FOUND,
//     deadlines to ERR_TIMEOUT.
//   - [State]: the cursor of an incremental sync, which the caller persists.
//
// Errors are *sanad.Error values whose messages name the source; conditions a
// caller may branch on are also sentinels ([ErrTooLarge], [ErrOffSite],
// [ErrRobots], [ErrChanged], [ErrOutsideRoot], [ErrPrivateNetwork]) found
// with errors.Is.
package connector
