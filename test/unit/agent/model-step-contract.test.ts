/**
 * What the model step and the agent state machine must agree on: the step's time (the Lambda's timeout, the
 * task's TimeoutSeconds, MODEL_STEP_SECONDS), the names of the errors that end a run (thrown by the code,
 * caught by the ASL, never retried), and the `continue` hand-over.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readServerlessFunctionConfigs } from "#infra/local/serverless-functions.ts";
import { ModelError, StepLimitError } from "#lib/agent/model-error.ts";
import { MODEL_STEP_SECONDS } from "#lib/agent/model-settings.ts";
import { MIN_CALL_MS, STEP_MARGIN_MS } from "#lib/agent/model-step.ts";
import { InvalidInputError } from "#lib/app/errors.ts";

const root = new URL("../../../", import.meta.url);
const asl = JSON.parse(readFileSync(new URL("infra/state-machines/agent.asl.json", root), "utf8"));
const functions = readServerlessFunctionConfigs(fileURLToPath(root));
const modelStep = asl.States.ModelStep;

describe("the model step and the agent state machine", () => {
  it("give the step the same time: the Lambda's timeout, the task's TimeoutSeconds, MODEL_STEP_SECONDS", () => {
    expect(functions.modelStep?.timeout).toBe(MODEL_STEP_SECONDS);
    expect(modelStep.TimeoutSeconds).toBe(MODEL_STEP_SECONDS);
    // A step that gives up still ends in time, and a new model call gets a fair share of it.
    expect(STEP_MARGIN_MS).toBeLessThan(MODEL_STEP_SECONDS * 1000 - MIN_CALL_MS);
  });

  it("catch the errors that end a run by the names the code gives them, and never retry them", () => {
    const names = [new ModelError("x").name, new StepLimitError(1).name, new InvalidInputError("x", []).name];
    const caught = (modelStep.Catch as { ErrorEquals: string[]; Next: string }[]).find((c) =>
      c.ErrorEquals.includes("Handraise.ModelError"),
    );
    expect(caught?.ErrorEquals.sort()).toEqual(names.sort());
    const retried = (modelStep.Retry as { ErrorEquals: string[] }[]).flatMap((r) => r.ErrorEquals);
    for (const name of [...names, "States.ALL", "States.TaskFailed"]) expect(retried).not.toContain(name);
    // The run fails with the error's own name and its message as the cause.
    const pass = asl.States[caught?.Next ?? ""];
    expect(pass.Parameters).toEqual({
      "error.$": "$.modelError.Error",
      "lambdaError.$": "States.StringToJson($.modelError.Cause)",
    });
    expect(asl.States[pass.Next]).toEqual({
      Type: "Fail",
      ErrorPath: "$.modelError.error",
      CausePath: "$.modelError.lambdaError.errorMessage",
    });
  });

  it("turn an AskUser task input that does not fit into an error result telling the model not to ask again", () => {
    const catches = asl.States.AskUser.Catch as { ErrorEquals: string[]; Next: string }[];
    const name = new InvalidInputError("x", []).name;
    const caught = catches.findIndex((c) => c.ErrorEquals.includes(name));
    // Before the catch-all, which would report it as delivery_failed.
    expect(caught).toBeGreaterThanOrEqual(0);
    expect(caught).toBeLessThan(catches.findIndex((c) => c.ErrorEquals.includes("States.ALL")));
    expect(asl.States[catches[caught]?.Next ?? ""]).toMatchObject({
      Type: "Pass",
      Result: {
        status: "error",
        error: { code: "INVALID_INPUT", message: expect.stringContaining("Do not call ask_user again") },
      },
      ResultPath: "$.askResult",
      Next: "ModelStep",
    });
  });

  it("send a `continue` back to the model step", () => {
    expect(asl.States.AskOrReply.Choices).toContainEqual({
      Variable: "$.step.action",
      StringEquals: "continue",
      Next: "ModelStep",
    });
  });
});
