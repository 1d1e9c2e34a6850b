/** Error names the local service answers with; all are AWS Step Functions (or AWS JSON protocol) names. */
export type SfnErrorType =
  | "ExecutionAlreadyExists"
  | "ExecutionDoesNotExist"
  | "InvalidArn"
  | "InvalidExecutionInput"
  | "InvalidName"
  | "InvalidOutput"
  | "InvalidToken"
  | "SerializationException"
  | "StateMachineDoesNotExist"
  | "TaskDoesNotExist"
  | "TaskTimedOut"
  | "UnknownOperationException"
  | "ValidationException";

/** An expected API error: HTTP 400 with `{"__type": type, "message": message}`. */
export class SfnApiError extends Error {
  readonly type: SfnErrorType;

  constructor(type: SfnErrorType, message: string) {
    super(message);
    this.name = "SfnApiError";
    this.type = type;
  }
}
