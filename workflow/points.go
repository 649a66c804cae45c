package workflow

// Crash points: the places Config.Crash is called, where a test can stop the
// process to prove that a resume loses nothing, repeats no completed step
// and no effect, and breaks no chain. The ledger and the SQLite store name
// their own points for the inside of a commit.
const (
	PointBeforeStart           = "workflow.before_start"            // before the run's start is appended
	PointAfterStart            = "workflow.after_start"             // start sealed and queued, no step run
	PointBeforeAction          = "step.before_action"               // a step is about to run its action
	PointAfterAction           = "step.after_action"                // the action returned; nothing recorded
	PointBeforeCheckpoint      = "step.before_checkpoint_append"    // the step's event and checkpoint are about to be appended
	PointAfterCheckpoint       = "step.after_checkpoint_append"     // they are sealed and queued for commit
	PointBeforeIntent          = "effect.before_intent_append"      // an effect's intent is about to be appended
	PointAfterIntent           = "effect.between_intent_and_effect" // intent durable; the effect has not happened
	PointAfterEffect           = "effect.between_effect_and_record" // the effect happened; its result is not recorded
	PointAfterResult           = "effect.after_result_append"       // the result is durable
	PointBeforeRetry           = "effect.before_recovery_retry"     // an interrupted idempotent effect is about to be retried
	PointAfterGateOpen         = "effect.after_gate_open"           // a gate for an interrupted effect is durable
	PointBeforeCompensate      = "rollback.before_compensation"     // a completed step is about to be compensated
	PointAfterCompensateAction = "rollback.during_compensation"     // its compensation ran; not recorded
	PointAfterCompensate       = "rollback.after_compensation"      // step.compensated is durable
	PointBeforeEnd             = "workflow.before_end"              // every step settled; the run's end is not recorded
	PointAfterEnd              = "workflow.after_end"               // the run's end is durable
	PointResumeLoaded          = "resume.after_load"                // a resume read the run's events
	PointResumeOrphansClosed   = "resume.after_orphans_closed"      // interrupted child runs are closed
)

// Points lists the workflow crash points.
var Points = []string{
	PointBeforeStart, PointAfterStart, PointBeforeAction, PointAfterAction,
	PointBeforeCheckpoint, PointAfterCheckpoint, PointBeforeIntent, PointAfterIntent,
	PointAfterEffect, PointAfterResult, PointBeforeRetry, PointAfterGateOpen,
	PointBeforeCompensate, PointAfterCompensateAction, PointAfterCompensate,
	PointBeforeEnd, PointAfterEnd, PointResumeLoaded, PointResumeOrphansClosed,
}
