/**
 * The packaged durable agent's bundle (`--param=durable=on`), invoked as Lambda invokes a durable function:
 * unpacked outside the project (no node_modules in reach), imported in a process of its own, and handed a
 * durable execution's event as JSON. The durable execution SDK inside the bundle then talks to Lambda's
 * durable execution API through the Lambda client parts the bundle carries (scripts/esbuild-plugins.cjs
 * keeps only those): GetDurableExecutionState for the rest of the execution's state, and
 * CheckpointDurableExecution for each model turn. Here that API is a local stand-in that records the calls
 * (reached through AWS_ENDPOINT_URL_LAMBDA, as the SDK's client reads it); test/integration/durable-agent.test.ts
 * runs the same agent from source under the durable SDK's test runner, which brings a client of its own.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_ON, loadTemplate, PACKAGE_TIMEOUT_MS, packagedFunctions, packagedVariant } from "./packaged.ts";

const EXECUTION_ARN =
  "arn:aws:lambda:us-east-1:000000000000:function:handraise-test-durableAgent:live/durable-execution/run-1/0f1e2d3c";

/** A call Lambda's durable execution API was sent: its verb, decoded path, query and JSON body. */
interface ApiCall {
  verb: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, any> | undefined;
}

/** The agent's input, as the state machine's agent takes it: a scripted model that calls a tool, then replies. */
const INPUT = {
  sessionKey: "bundle-smoke",
  owner: "telegram:42",
  deliverTo: [],
  prompt: "check the bundle",
  model: {
    provider: "scripted",
    steps: [
      { toolCalls: [{ id: "c1", name: "lookup", arguments: {} }] },
      { reply: "bundle ok: {{c1.status}}" },
    ],
  },
};

let calls: ApiCall[] = [];
let checkpoints = 0;
let server: ReturnType<typeof createServer>;
let apiUrl = "";

/**
 * Lambda's durable execution API, as much of it as one invocation uses: the execution's state a page at a
 * time (the page after the event's holds the EXECUTION operation with the input), and checkpoints, each
 * answered with a new token.
 */
async function durableApi(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? "/", "http://local");
  const text = Buffer.concat(chunks).toString("utf8");
  const call: ApiCall = {
    verb: req.method ?? "",
    path: decodeURIComponent(url.pathname),
    query: Object.fromEntries(url.searchParams),
    body: text ? JSON.parse(text) : undefined,
  };
  calls.push(call);
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const base = `/2025-12-01/durable-executions/${EXECUTION_ARN}`;
  if (call.verb === "GET" && call.path === `${base}/state`) {
    return reply(200, {
      Operations: [
        {
          Id: "execution",
          Type: "EXECUTION",
          Status: "STARTED",
          ExecutionDetails: { InputPayload: JSON.stringify(INPUT) },
        },
      ],
      NextMarker: "",
    });
  }
  if (call.verb === "POST" && call.path === `${base}/checkpoint`) {
    checkpoints += 1;
    return reply(200, {
      CheckpointToken: `token-${checkpoints}`,
      NewExecutionState: { Operations: [], NextMarker: "" },
    });
  }
  res.writeHead(404, { "content-type": "application/json", "x-amzn-errortype": "ResourceNotFoundException" });
  res.end(JSON.stringify({ message: `${call.verb} ${call.path} is not served here` }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    durableApi(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the packaged durable agent", () => {
  it(
    "runs one invocation from its bundle alone: reads the execution's state, checkpoints each model turn, and returns the run's reply",
    async () => {
      calls = [];
      checkpoints = 0;
      const dir = await packagedVariant(ALL_ON);
      const [bundle] = packagedFunctions(loadTemplate(dir), dir).filter((fn) => fn.key === "durableAgent");
      if (!bundle) throw new Error("the durable=on package has no durableAgent bundle");
      const module = String(bundle.properties.Handler).replace(/\.[^.]+$/, "");
      // Unpacked outside the project: a package left out of the bundle fails the import as on Lambda.
      const smoke = mkdtempSync(join(tmpdir(), "handraise-durable-bundle-"));
      try {
        for (const entry of bundle.entries) {
          const file = join(smoke, entry.name);
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, bundle.read(entry));
        }
        const resultFile = join(smoke, "result.json");
        // The event Lambda hands a durable function: this page of the state is empty, the next one
        // (GetDurableExecutionState) holds the execution and its input.
        const event = {
          DurableExecutionArn: EXECUTION_ARN,
          CheckpointToken: "token-0",
          InitialExecutionState: { Operations: [], NextMarker: "page-2" },
        };
        const script = `
          import { writeFileSync } from "node:fs";
          const { handler } = await import(${JSON.stringify(join(smoke, `${module}.mjs`))});
          const context = {
            awsRequestId: "0a1b2c3d-0000-4000-8000-000000000001",
            functionName: "handraise-test-durableAgent",
            functionVersion: "1",
            invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:handraise-test-durableAgent:live",
            memoryLimitInMB: "512",
            getRemainingTimeInMillis: () => 600000,
          };
          const result = await handler(${JSON.stringify(event)}, context);
          writeFileSync(${JSON.stringify(resultFile)}, JSON.stringify(result));`;
        await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
          cwd: smoke,
          env: {
            PATH: process.env.PATH,
            HANDRAISE_TABLE: "handraise-smoke",
            AWS_REGION: "us-east-1",
            AWS_ACCESS_KEY_ID: "smoke",
            AWS_SECRET_ACCESS_KEY: "smoke",
            AWS_ENDPOINT_URL_LAMBDA: apiUrl,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
            POWERTOOLS_LOG_LEVEL: "ERROR",
          },
        });
        const result = JSON.parse(readFileSync(resultFile, "utf8"));
        // The reply depends on the input the state page carried, and on the tool call the first turn made.
        expect(result).toEqual({
          Status: "SUCCEEDED",
          Result: JSON.stringify({ reply: "bundle ok: error" }),
        });
        const [state, ...rest] = calls;
        expect(state).toMatchObject({
          verb: "GET",
          path: `/2025-12-01/durable-executions/${EXECUTION_ARN}/state`,
          query: { CheckpointToken: "token-0", Marker: "page-2" },
        });
        // Every other call is a checkpoint, each with the token the one before returned; the model's two
        // turns are among the operations checkpointed, as steps that succeeded.
        expect(rest.length).toBeGreaterThan(0);
        rest.forEach((call, index) => {
          expect(call).toMatchObject({
            verb: "POST",
            path: `/2025-12-01/durable-executions/${EXECUTION_ARN}/checkpoint`,
            body: { CheckpointToken: `token-${index}` },
          });
        });
        const updates = rest.flatMap((call) => call.body?.Updates ?? []);
        const succeeded = updates.filter((u) => u.Type === "STEP" && u.Action === "SUCCEED");
        expect(succeeded.map((u) => u.Name)).toEqual(["model-0", "model-1"]);
        expect(JSON.parse(succeeded[1].Payload)).toEqual({ reply: "bundle ok: error" });
      } finally {
        rmSync(smoke, { recursive: true, force: true });
      }
    },
    PACKAGE_TIMEOUT_MS,
  );
});
