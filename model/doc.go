// Package model is how sanad talks to language models: one [Model] interface
// for text generation with tool calls and JSON-Schema structured output, and
// for embeddings, whatever the provider behind it.
//
// A [Request] carries a system prompt, the conversation ([Message] values
// with roles system, user, assistant and tool), the [Tool] definitions the
// model may call, a [ToolChoice], an optional [OutputSchema], and sampling
// limits. A [Response] carries the text, the [ToolCall] values, the
// structured output, why the model stopped, the token [Usage], and where the
// answer came from (provider, model, ids, latency).
//
// Streaming is an optional capability: a model that can stream implements
// [Streamer]; [Stream] streams any model (falling back to one Generate call)
// and [Collect] turns a stream back into the [Response] Generate would have
// returned.
//
// [Structured] wraps any model so that a reply to a request with an
// OutputSchema is checked against the schema; a reply that fails gets one
// repair attempt before the call fails with MODEL_OUTPUT_INVALID.
//
// Providers live in their own packages, named after their technology:
// model/openai (OpenAI Chat Completions and Embeddings, and every server that
// speaks that API: Ollama, vLLM, llama.cpp) and model/anthropic (Anthropic
// Messages). model/provider builds a [Registry] of model classes (reasoning,
// fast, embedding, …) from a [Config], the models: section of a home's
// sanad.yaml. This package does no I/O of its own: it holds the vocabulary,
// the retry policy the adapters share, the structured-output check, the
// configuration and a deterministic [HashEmbedder] for tests.
//
// Errors are *sanad.Error values. The codes a model call may fail with:
// INVALID_INPUT (the request is malformed, or the provider refused it),
// MODEL_AUTH (the API key was refused; the message names the environment
// variable that holds it), MODEL_RATE_LIMIT (still rate limited after the
// retries), DEPENDENCY_DOWN (the provider failed or could not be reached),
// ERR_TIMEOUT (the call's deadline passed), CANCELLED (the caller cancelled),
// and MODEL_OUTPUT_INVALID (the provider's answer was malformed, or the
// structured output did not match its schema).
//
// API keys are [Secret] values: they never appear in an error, a log record
// or a Response.
//
// A [Recorder] makes each call a model_call child run of the caller's run:
// the prompt and the response are stored as artifacts and a model.call
// event signed by the runtime records their hashes, the model, usage,
// latency and cost. Inside a workflow, StepContext.Generate makes the call
// an effect, so a resume or a replay reuses the recorded reply.
package model
