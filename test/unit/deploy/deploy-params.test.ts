/**
 * The deploy switches (`alarms`, `reserve`, `durable`) as the infra/deploy/*.cjs files and the
 * optional-functions plugin read them, without packaging: a value that is not one of the switch's stops
 * packaging with its name; `reserve` and `durable` decide which reservations exist. (test/template checks
 * the packaged templates themselves.)
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { TIMEOUT_GRACE_SECONDS } from "#lib/questions/schema.ts";

const require = createRequire(import.meta.url);

interface Extensions {
  extensions: Record<string, { Properties?: Record<string, unknown> }>;
}
const { onOff, alarmSet, deployedFunctions } = require("../../../infra/deploy/deployment.cjs") as {
  onOff: (name: string, value: unknown) => boolean;
  alarmSet: (value: unknown) => "standard" | "full";
  deployedFunctions: (durable: boolean) => string[];
};
const { capacity } = require("../../../infra/deploy/capacity.cjs") as {
  capacity: (settings: { reserve: boolean; reservations: string; durable: boolean }) => Extensions;
};
const { durableAgent, TIMEOUT_GRACE_SECONDS: PACKAGED_GRACE } =
  require("../../../infra/deploy/durable-agent.cjs") as {
    durableAgent: (settings: {
      durable: boolean;
      functionName: string;
      resumableStateMachines: string;
      resumableDurableFunctions: string;
      maxTimeoutSeconds: number;
      executionTimeoutSeconds: number;
    }) => { Resources: Record<string, unknown>; Outputs: Record<string, unknown> };
    TIMEOUT_GRACE_SECONDS: number;
  };
const OptionalFunctions = require("../../../scripts/serverless-optional-functions.cjs") as new (
  serverless: unknown,
) => { hooks: { initialize: () => void } };

describe("deploy switches", () => {
  it("take on or off (any case, spaces trimmed), and refuse anything else by the parameter's name", () => {
    expect(onOff("params.durable", "on")).toBe(true);
    expect(onOff("params.durable", " OFF ")).toBe(false);
    expect(() => onOff("params.durable", "yes")).toThrow('params.durable must be "on" or "off", not "yes"');
    expect(() => onOff("params.reserve", undefined)).toThrow("params.reserve");
    expect(alarmSet("Full")).toBe("full");
    expect(alarmSet("standard")).toBe("standard");
    expect(() => alarmSet("all")).toThrow('params.alarms must be "standard" or "full", not "all"');
  });

  it("deploy the durable agent only when durable is on", () => {
    expect(deployedFunctions(false)).not.toContain("durableAgent");
    expect(deployedFunctions(true)).toContain("durableAgent");
    expect(deployedFunctions(true).length - deployedFunctions(false).length).toBe(1);
  });

  it("reserve nothing unless reserve is on, then each deployed function's number", () => {
    const reservations = "questionsApi=25,durableAgent=20,notifier=10";
    expect(capacity({ reserve: false, reservations, durable: true }).extensions).toEqual({});
    const { extensions } = capacity({ reserve: true, reservations, durable: false });
    expect(extensions.QuestionsApiLambdaFunction).toEqual({
      Properties: { ReservedConcurrentExecutions: 25 },
    });
    expect(extensions.NotifierLambdaFunction).toEqual({ Properties: { ReservedConcurrentExecutions: 10 } });
    expect(extensions.AskLambdaFunction).toBeUndefined();
    expect(extensions.DurableAgentLambdaFunction).toBeUndefined();
    expect(
      capacity({ reserve: true, reservations, durable: true }).extensions.DurableAgentLambdaFunction,
    ).toEqual({ Properties: { ReservedConcurrentExecutions: 20 } });
    expect(() => capacity({ reserve: true, reservations: "nobody=3", durable: false })).toThrow(
      'unknown function "nobody"',
    );
  });

  it("give the durable agent its role and output only when durable is on", () => {
    const settings = {
      functionName: "handraise-dev-durableAgent",
      resumableStateMachines: "handraise-dev-*",
      resumableDurableFunctions: "handraise-dev-*",
      maxTimeoutSeconds: 3600,
      executionTimeoutSeconds: 86400,
    };
    expect(durableAgent({ ...settings, durable: false })).toEqual({ Resources: {}, Outputs: {} });
    const on = durableAgent({ ...settings, durable: true });
    expect(Object.keys(on.Resources)).toEqual(["DurableAgentRole"]);
    expect(Object.keys(on.Outputs)).toEqual(["DurableAgentAliasArn"]);
    expect(JSON.stringify(on.Resources)).toContain(
      "function:handraise-dev-durableAgent:*/durable-execution/*/*",
    );
  });

  it("refuse a durable deployment whose longest question and its grace would not fit in an execution", () => {
    const settings = {
      functionName: "handraise-dev-durableAgent",
      resumableStateMachines: "handraise-dev-*",
      resumableDurableFunctions: "handraise-dev-*",
      durable: true,
    };
    expect(PACKAGED_GRACE).toBe(TIMEOUT_GRACE_SECONDS);
    const fits = { maxTimeoutSeconds: 3600, executionTimeoutSeconds: 3600 + TIMEOUT_GRACE_SECONDS };
    expect(Object.keys(durableAgent({ ...settings, ...fits }).Resources)).toEqual(["DurableAgentRole"]);
    for (const [maxTimeoutSeconds, executionTimeoutSeconds] of [
      [3600, 3600 + TIMEOUT_GRACE_SECONDS - 1],
      [31_536_000, 86_400],
      [Number.NaN, 86_400],
    ] as const) {
      expect(() => durableAgent({ ...settings, maxTimeoutSeconds, executionTimeoutSeconds })).toThrow(
        /params\.maxTimeoutSeconds .* must fit in params\.durableExecutionTimeout/,
      );
    }
    // Off, nothing is deployed and nothing is checked.
    const off = { ...settings, durable: false, maxTimeoutSeconds: 31_536_000, executionTimeoutSeconds: 60 };
    expect(durableAgent(off)).toEqual({ Resources: {}, Outputs: {} });
  });
});

describe("the optional-functions plugin", () => {
  const run = (functions: Record<string, Record<string, unknown>>) => {
    const serverless = { service: { functions } };
    new OptionalFunctions(serverless).hooks.initialize();
    return serverless.service.functions;
  };

  it("leaves out a function whose deploy is off, keeps one whose deploy is on (without the key) or unset", () => {
    expect(
      run({
        durableAgent: { handler: "functions/durable-agent.handler", deploy: "off" },
        ask: { handler: "functions/ask.handler", deploy: "on" },
        mcp: { handler: "functions/mcp.handler" },
      }),
    ).toEqual({ ask: { handler: "functions/ask.handler" }, mcp: { handler: "functions/mcp.handler" } });
  });

  it("stops packaging on any other value, naming the function", () => {
    expect(() => run({ durableAgent: { handler: "x.handler", deploy: "maybe" } })).toThrow(
      'functions.durableAgent.deploy must be "on" or "off", not "maybe"',
    );
  });
});
