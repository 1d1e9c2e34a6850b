/**
 * Small ASL state machines for the local Step Functions tests, each exercising one behaviour of the engine.
 * Function names match the handlers of `local-stepfunctions.test.ts`.
 */
import type { LocalStateMachine } from "#infra/local/stepfunctions/index.ts";

const ADD_ONE_ARN = "arn:aws:lambda:us-east-1:000000000000:function:addOne";

/** lambda:invoke → plain Lambda ARN → Choice → Pass → Pass (falsy Result) → Succeed: 7 states entered. */
export const chain: LocalStateMachine = {
  name: "chain",
  definition: {
    StartAt: "Start",
    States: {
      Start: { Type: "Pass", Parameters: { "n.$": "$.n" }, Next: "Double" },
      Double: {
        Type: "Task",
        Resource: "arn:aws:states:::lambda:invoke",
        Parameters: { FunctionName: "double", "Payload.$": "$" },
        ResultSelector: { "n.$": "$.Payload.n" },
        // The interpreter alone would store the result under a key named "$".
        ResultPath: "$",
        Next: "AddOne",
      },
      AddOne: { Type: "Task", Resource: ADD_ONE_ARN, TimeoutSeconds: 5, Next: "Check" },
      Check: {
        Type: "Choice",
        Choices: [{ Variable: "$.n", NumericGreaterThan: 10, Next: "Big" }],
        Default: "Small",
      },
      Big: { Type: "Pass", Parameters: { size: "big", "n.$": "$.n" }, Next: "Flag" },
      Small: { Type: "Pass", Parameters: { size: "small", "n.$": "$.n" }, Next: "Flag" },
      // The interpreter alone would pass the input through for a falsy Result.
      Flag: { Type: "Pass", Result: false, ResultPath: "$.flag", Next: "Done" },
      Done: { Type: "Succeed" },
    },
  },
};

function askTask(question: string, resultPath: string, next: string): Record<string, unknown> {
  return {
    Type: "Task",
    Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken",
    Parameters: {
      FunctionName: "arn:aws:lambda:us-east-1:000000000000:function:ask",
      Payload: { "taskToken.$": "$$.Task.Token", question, "runId.$": "$$.Execution.Id" },
    },
    // Read from the state input, not from the Parameters above (where the interpreter alone would look).
    TimeoutSecondsPath: "$.waitSeconds",
    ResultPath: resultPath,
    Catch: [
      { ErrorEquals: ["States.Timeout"], ResultPath: "$.error", Next: "Expired" },
      { ErrorEquals: ["Handraise.Cancelled"], ResultPath: "$.error", Next: "Cancelled" },
    ],
    Next: next,
  };
}

/** Two waiting tasks in a row; a timeout or a cancel is caught and becomes a typed result. */
export const askTwice: LocalStateMachine = {
  name: "askTwice",
  definition: {
    StartAt: "AskFirst",
    States: {
      AskFirst: askTask("first", "$.first", "AskSecond"),
      AskSecond: askTask("second", "$.second", "Answered"),
      Answered: { Type: "Pass", Result: { status: "answered" }, ResultPath: "$.result", End: true },
      Expired: {
        Type: "Pass",
        Result: { status: "no_answer", reason: "expired" },
        ResultPath: "$.result",
        End: true,
      },
      Cancelled: {
        Type: "Pass",
        Result: { status: "no_answer", reason: "cancelled" },
        ResultPath: "$.result",
        End: true,
      },
    },
  },
};

/** A waiting task with no timeout at all: it waits until answered or stopped, as on AWS. */
export const waitForever: LocalStateMachine = {
  name: "waitForever",
  definition: {
    StartAt: "Wait",
    States: {
      Wait: {
        Type: "Task",
        Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken",
        Parameters: {
          FunctionName: "ask",
          Payload: { "taskToken.$": "$$.Task.Token", question: "forever", "runId.$": "$$.Execution.Id" },
        },
        End: true,
      },
    },
  },
};

/** A handler that throws a named error, caught by that name. */
export const caughtFailure: LocalStateMachine = {
  name: "caughtFailure",
  definition: {
    StartAt: "Deliver",
    States: {
      Deliver: {
        Type: "Task",
        Resource: "arn:aws:states:::lambda:invoke",
        Parameters: { FunctionName: "boom", Payload: {} },
        Catch: [{ ErrorEquals: ["Handraise.DeliveryFailed"], ResultPath: "$.error", Next: "DeliveryFailed" }],
        End: true,
      },
      DeliveryFailed: {
        Type: "Pass",
        Result: { status: "delivery_failed" },
        ResultPath: "$.result",
        End: true,
      },
    },
  },
};

/** A handler that throws with nothing to catch it: the execution fails with the error and cause. */
export const uncaughtFailure: LocalStateMachine = {
  name: "uncaughtFailure",
  definition: {
    StartAt: "Explode",
    States: {
      Explode: { Type: "Task", Resource: "arn:aws:lambda:us-east-1:000000000000:function:boom", End: true },
    },
  },
};
