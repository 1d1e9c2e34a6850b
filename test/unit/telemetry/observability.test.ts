/**
 * The X-Ray SDK under Powertools' Tracer tracks every promise of the process with an async hook from the
 * moment it is imported: with tracing switched off, lib/telemetry/observability.ts must not load it. Module
 * loading is per process, so each case builds its observability in a fresh Node process.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tracingSwitchedOff } from "#lib/config.ts";

const run = promisify(execFile);

/** Builds the question API's observability in a fresh process with `env`; what it reports. */
async function observabilityIn(env: Record<string, string>) {
  const script = `
    import { createRequire } from "node:module";
    import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
    const { createObservability } = await import("#lib/telemetry/observability.ts");
    const observability = await createObservability("questionsApi");
    const client = observability.tracer.captureAWSv3Client(new DynamoDBClient({}));
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("aws-xray-sdk-core"));
    console.log(JSON.stringify({
      xrayLoaded: loaded,
      clientTraced: client.middlewareStack.identify().some((name) => /xray/i.test(name)),
      middlewares: observability.middlewares.length,
    }));`;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", AWS_REGION: "us-east-1", ...env },
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as {
    xrayLoaded: boolean;
    clientTraced: boolean;
    middlewares: number;
  };
}

describe("tracing", () => {
  it("is switched off by POWERTOOLS_TRACE_ENABLED=false, in any case, and by nothing else", () => {
    expect(tracingSwitchedOff({ POWERTOOLS_TRACE_ENABLED: "false" })).toBe(true);
    expect(tracingSwitchedOff({ POWERTOOLS_TRACE_ENABLED: "FALSE" })).toBe(true);
    expect(tracingSwitchedOff({ POWERTOOLS_TRACE_ENABLED: "true" })).toBe(false);
    expect(tracingSwitchedOff({})).toBe(false);
  });

  it("switched off, the X-Ray SDK is never loaded and no client is traced", async () => {
    expect(await observabilityIn({ POWERTOOLS_TRACE_ENABLED: "false" })).toEqual({
      xrayLoaded: false,
      clientTraced: false,
      middlewares: 2,
    });
  });

  it("on Lambda with tracing on, every client is traced and the handler has its trace middleware", async () => {
    expect(await observabilityIn({ AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" })).toEqual({
      xrayLoaded: true,
      clientTraced: true,
      middlewares: 3,
    });
  });
});
