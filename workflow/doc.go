// Package workflow runs workflows durably: a [Definition] of steps, each run
// by an action on behalf of an agent and recorded in the ledger as it ends,
// so that a run survives a crash, resumes where it stopped without doing
// again what it recorded as done, and can be replayed from its record alone.
//
// # Definitions and steps
//
// [Parse] reads a workflow file (YAML or JSON), checks it against the
// workflow schema and against what a schema cannot state (unique step ids,
// dependencies on known steps, no cycles), and returns a [Definition]. Each
// [Step] names the agent acting in it and the action it runs ([Step.Uses]):
// "tool" calls [Step.Tool], "echo" returns the step's input ([Step.With])
// and touches nothing, and a step that names neither runs "agent", which the
// caller registers like any other action ([NewActions], [Actions.Register]).
// An [ActionFunc] gets a [StepContext]: the workflow's input, the outputs of
// the steps completed so far, and the workflow's context and memory, which
// it may change ([StepContext.Set], [StepContext.Remember]). A panic in an
// action fails its step, and the record keeps the panic's value and stack.
// Each step's agent acts in an agent run of its own, a child of the
// workflow run, started with its authorization and ended with the step's
// outcome; the step's tool and model calls are children of that run. After
// a crash in the middle of a step, the resumed step goes on in the same
// agent run, and its calls keep their idempotency keys (the workflow run's
// id and the call id).
//
// # Order and concurrency
//
// The steps form a DAG through [Step.DependsOn]: a step starts only once
// every step it depends on has completed, and it reads their outputs. Ready
// steps start in definition order, at most [Definition.MaxConcurrency] at
// once; with the default of 1 they run one at a time, in the order written.
//
// # Failure strategies
//
// [Definition.Strategy] says what a failed step does to the run. [FailFast],
// the default, starts no further step and lets the running ones finish.
// [ContinueOnError] runs every step whose dependencies completed and reports
// all the failures. [Rollback] stops like FailFast, then undoes the completed
// steps in the reverse order of their completion, each by its
// [Step.Compensate] action. A step whose dependency failed is recorded as
// skipped and never runs. A failed run lists a [StepError] per step in its
// [Result].
//
// # Checkpoints in step events
//
// Every step ends with one signed event, [TypeStepCompleted],
// [TypeStepFailed], [TypeStepSkipped] or [TypeStepCompensated], whose
// [StepBody] holds the step's output or error and its change to the
// [Checkpoint] ([CheckpointDelta]): the context and memory entries it set,
// the phase, and the state, a hash that commits to the whole checkpoint
// after it: the outputs of the completed steps (small ones inline, larger
// ones by hash, each kept whole in its own step's event), the context, the
// memory, the failures so far and the phase. An event's size does not depend
// on the steps before it. The checkpoint after an event is the fold of the
// run's step events up to it ([Checkpoints]); a resume and a replay rebuild
// it so, checking every state on the way. The change is part of the event it
// follows, so it is committed with it, signed and chained like it, and there
// is no checkpoint the ledger does not attest.
//
// # Effects: intent, then result
//
// An action reaches the outside world only through its [StepContext]:
// [StepContext.Call] calls a tool through the [tool.Gateway],
// [StepContext.Generate] a model, [StepContext.Delegate] another agent, and
// [StepContext.Effect] anything else. Each effect has a key (the run, the
// step and the effect's ordinal in the step) and is recorded as
// [TypeEffectIntent] before it happens, once everything that led to it is
// durable, and as [TypeEffectResult] after. An action must therefore cause
// its effects in a deterministic order, so that a second execution of the
// step finds them under the same keys.
//
// # Resume and replay
//
// [Engine.Start] records the definition and the input ([TypeDefined]) with
// the run's start, and runs it. [Engine.Resume] goes on with a run that
// stopped (a crash, a cancelled context, a gate) from its latest checkpoint:
// no completed step runs again, and an effect whose result is recorded
// returns that result instead of happening again. An effect with an intent
// and no result was interrupted: it runs again under the same key, recorded
// as [TypeEffectRetried], when it is idempotent ([EffectSpec.Idempotent]) or
// known not to have started, and otherwise a person decides (see Gates).
// [Engine.Replay] executes a run again from its events alone, recording
// nothing and calling no tool or model, and reports INTEGRITY when a step's
// output differs from the recorded one. [Engine.Cancel] ends a stopped run.
// The crash points ([Points], called through [Config.Crash]) let tests stop
// the process at every place where a resume could lose or repeat something.
//
// # Gates
//
// An interrupted effect that is not idempotent opens a human gate through
// [Config.Gates] (without it, the step fails with APPROVAL_REQUIRED): a
// person who approves lets the effect run once more; one who rejects says it
// took place, and their note becomes its output ([EffectConfirmed]). Until
// then the run stops, still running, with the gate in [Result.Gates], and a
// later Resume goes on once the gate is resolved; with [Config.WaitForGates]
// the run waits for it instead.
//
// # Delegation
//
// [StepContext.Delegate] hands a task to another agent. The [Config.Delegate]
// function performs it in an agent child run, and its result is recorded as
// an effect of the step, so that a resume or a replay reuses it. The
// [delegation.Chain] refuses a delegation back to an agent already in the
// chain or past its maximum depth.
//
// [Vocabulary] declares the event types and the rule that orders them within
// a trace.
package workflow
