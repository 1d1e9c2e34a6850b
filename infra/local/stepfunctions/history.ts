import type { HistoryEvent, HistoryEventType } from "@aws-sdk/client-sfn";
import type { StateMachine } from "aws-local-stepfunctions";
import { epochSeconds, type Wire } from "./wire.ts";

export type WireHistoryEvent = Wire<HistoryEvent>;
export type HistoryEventDetails = Omit<WireHistoryEvent, "id" | "previousEventId" | "timestamp" | "type">;

/** One entry of the interpreter's event log (its type is not exported by name). */
export type InterpreterEvent =
  ReturnType<StateMachine["run"]>["eventLogs"] extends AsyncGenerator<infer Event> ? Event : never;

type StateType = "Task" | "Parallel" | "Map" | "Pass" | "Wait" | "Choice" | "Succeed" | "Fail";

// A Fail state has no Exited event on AWS: the execution fails while in it.
const STATE_EVENT_TYPES: Record<StateType, { entered: HistoryEventType; exited?: HistoryEventType }> = {
  Task: { entered: "TaskStateEntered", exited: "TaskStateExited" },
  Parallel: { entered: "ParallelStateEntered", exited: "ParallelStateExited" },
  Map: { entered: "MapStateEntered", exited: "MapStateExited" },
  Pass: { entered: "PassStateEntered", exited: "PassStateExited" },
  Wait: { entered: "WaitStateEntered", exited: "WaitStateExited" },
  Choice: { entered: "ChoiceStateEntered", exited: "ChoiceStateExited" },
  Succeed: { entered: "SucceedStateEntered", exited: "SucceedStateExited" },
  Fail: { entered: "FailStateEntered" },
};

const UNTRUNCATED = { truncated: false } as const;

export function toJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/**
 * An execution's event history in AWS's shape. State events come from the interpreter's event log; the
 * execution and task events are recorded by the engine, which knows what the interpreter does not (stop
 * requests, task tokens, Lambda responses).
 */
export class ExecutionHistory {
  readonly #events: WireHistoryEvent[] = [];
  #closed = false;
  // Map and Parallel states that failed and were caught still exit; AWS then reports no "Succeeded".
  readonly #failedContainers = new Set<string>();

  get events(): readonly WireHistoryEvent[] {
    return this.#events;
  }

  /** Appends an event unless the execution already ended (late task callbacks after a stop, for instance). */
  record(type: HistoryEventType, details: HistoryEventDetails = {}): void {
    if (this.#closed) return;
    const id = this.#events.length + 1;
    // previousEventId is the event just before: exact for sequential runs, approximate inside Map/Parallel.
    this.#events.push({ timestamp: epochSeconds(Date.now()), type, id, previousEventId: id - 1, ...details });
  }

  /** Appends the terminal execution event; nothing is recorded after it. */
  close(type: HistoryEventType, details: HistoryEventDetails = {}): void {
    this.record(type, details);
    this.#closed = true;
  }

  recordInterpreterEvent(event: InterpreterEvent): void {
    switch (event.type) {
      case "StateEntered": {
        const { name, type, input } = event.state;
        this.record(STATE_EVENT_TYPES[type].entered, {
          stateEnteredEventDetails: { name, input: toJson(input), inputDetails: UNTRUNCATED },
        });
        break;
      }
      case "StateExited": {
        const { name, type, output } = event.state;
        const exited = STATE_EVENT_TYPES[type].exited;
        if (!exited) break;
        if (type === "Map" || type === "Parallel") {
          const key = containerKey(name, event.index);
          if (this.#failedContainers.has(key)) this.#failedContainers.delete(key);
          else this.record(type === "Map" ? "MapStateSucceeded" : "ParallelStateSucceeded");
        }
        this.record(exited, {
          stateExitedEventDetails: { name, output: toJson(output), outputDetails: UNTRUNCATED },
        });
        break;
      }
      case "StateFailed": {
        const { name, type } = event.state;
        if (type === "Map" || type === "Parallel") {
          this.#failedContainers.add(containerKey(name, event.index));
          this.record(type === "Map" ? "MapStateFailed" : "ParallelStateFailed");
        }
        break;
      }
      case "StateRetried":
        // A retried Map/Parallel runs again; only its last attempt decides Succeeded or not.
        this.#failedContainers.delete(containerKey(event.state.name, event.index));
        break;
      case "MapIterationStarted":
        this.record("MapIterationStarted", {
          mapIterationStartedEventDetails: { name: event.parentState.name, index: event.index },
        });
        break;
      case "MapIterationSucceeded":
        this.record("MapIterationSucceeded", {
          mapIterationSucceededEventDetails: { name: event.parentState.name, index: event.index },
        });
        break;
      case "MapIterationFailed":
        this.record("MapIterationFailed", {
          mapIterationFailedEventDetails: { name: event.parentState.name, index: event.index },
        });
        break;
      default:
        // Execution events are recorded by the engine; retries and catches show as task events on AWS.
        break;
    }
  }
}

function containerKey(name: string, index: number | undefined): string {
  return index === undefined ? name : `${name}#${index}`;
}
