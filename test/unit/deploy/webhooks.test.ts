/**
 * A channel's webhook deploys from its manifest (infra/deploy/webhooks.cjs): its function, routes, role and
 * URL output; its reservation (infra/deploy/capacity.cjs) and its X-Ray grant (infra/deploy/tracing.cjs)
 * follow from the same lists. Packaging stops on a manifest that gets its webhook wrong. (test/template
 * checks the packaged template: test/template/iam.test.ts each role's exact grants.)
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import catalog from "#infra/secrets.json" with { type: "json" };
import { CHANNEL_SPECS } from "#lib/channels/channel-specs.ts";

interface FunctionConfig {
  handler: string;
  role: string;
  timeout?: number;
  events: { httpApi: { method: string; path: string } }[];
}
interface Statement {
  Sid: string;
  Action: string | string[];
  Resource: unknown;
}
interface Role {
  Type: string;
  Properties: { Policies: { PolicyName: string; PolicyDocument: { Statement: Statement[] } }[] };
}
type Manifest = Record<string, unknown> & { name: string; webhookFunction?: Record<string, unknown> };

const require = createRequire(import.meta.url);
const webhooksModule = require("../../../infra/deploy/webhooks.cjs") as {
  functions: Record<string, FunctionConfig>;
  webhooks(manifests: Manifest[]): unknown[];
  webhookResources(settings: { resumableStateMachines: string; resumableDurableFunctions: string }): {
    Resources: Record<string, Role>;
    Outputs: Record<string, { Description: string; Value: unknown }>;
  };
};
const { channelManifests } = require("../../../infra/deploy/channels.cjs") as {
  channelManifests(): Manifest[];
};
const { capacity } = require("../../../infra/deploy/capacity.cjs") as {
  capacity(settings: { reserve: boolean; reservations: string; durable: boolean }): {
    extensions: Record<string, { Properties: { ReservedConcurrentExecutions: number } }>;
  };
};
const { tracing } = require("../../../infra/deploy/tracing.cjs") as {
  tracing(): { Resources: { TracingPolicy: { Properties: { Roles: { Ref: string }[] } } } };
};

const RECEIVING = CHANNEL_SPECS.filter((spec) => spec.manifest.webhook !== undefined);
const capitalized = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
const resources = () =>
  webhooksModule.webhookResources({
    resumableStateMachines: "handraise-dev-*",
    resumableDurableFunctions: "handraise-dev-*",
  });

describe("a channel's webhook, from its manifest", () => {
  it("is a function per receiving channel: its entry, its routes under /webhooks/<name>, its role", () => {
    expect(Object.keys(webhooksModule.functions).sort()).toEqual(
      RECEIVING.map((spec) => spec.manifest.webhook).sort(),
    );
    for (const { name, manifest } of RECEIVING) {
      const fn = webhooksModule.functions[manifest.webhook as string];
      expect(fn?.handler, name).toBe(`functions/${name}-webhook.handler`);
      expect(fn?.role, name).toBe(`${capitalized(manifest.webhook as string)}Role`);
      expect(fn?.events, name).toEqual(
        (manifest.webhookFunction?.methods ?? ["POST"]).map((method) => ({
          httpApi: { method, path: `/webhooks/${name}` },
        })),
      );
    }
    // The per-channel extras: Slack's 3 s acknowledgement, WhatsApp's GET subscription check.
    expect(webhooksModule.functions.slackWebhook?.timeout).toBe(6);
    expect(webhooksModule.functions.telegramWebhook?.timeout).toBeUndefined();
    expect(webhooksModule.functions.whatsappWebhook?.events.map((event) => event.httpApi.method)).toEqual([
      "POST",
      "GET",
    ]);
  });

  it("is served by the local stack at the same routes as deployed", () => {
    const local = readServerlessFunctions(fileURLToPath(new URL("../../../", import.meta.url)));
    for (const [key, fn] of Object.entries(webhooksModule.functions)) {
      const served = local.find((candidate) => candidate.key === key);
      expect(served?.module, key).toBe(fn.handler.replace(/\.handler$/, ""));
      expect(served?.routes, key).toEqual(fn.events.map((event) => event.httpApi));
    }
  });

  it("has a role of its own: logs, question items (BatchWrite only when it writes the message index), pendingByOwner, resuming, describing runs", () => {
    const { Resources } = resources();
    expect(Object.keys(Resources).sort()).toEqual(
      RECEIVING.map((spec) => `${capitalized(spec.manifest.webhook as string)}Role`).sort(),
    );
    for (const { name, manifest } of RECEIVING) {
      const role = Resources[`${capitalized(manifest.webhook as string)}Role`];
      const [policy] = role?.Properties.Policies ?? [];
      expect(policy?.PolicyName, name).toBe(`${name}-webhook`);
      const statements = policy?.PolicyDocument.Statement ?? [];
      expect(
        statements.map((statement) => statement.Sid),
        name,
      ).toEqual([
        "Logs",
        "QuestionItems",
        "PendingByOwner",
        "ResumeRuns",
        "DescribeRuns",
        "ResumeDurableExecutions",
      ]);
      const items = statements.find((statement) => statement.Sid === "QuestionItems")?.Action;
      expect(items, name).toContain("dynamodb:GetItem");
      expect((items as string[]).includes("dynamodb:BatchWriteItem"), name).toBe(
        manifest.webhookFunction?.writesMessageIndex,
      );
    }
    expect(manifestOf("teams").webhookFunction?.writesMessageIndex).toBe(false);
    expect(manifestOf("gchat").webhookFunction?.writesMessageIndex).toBe(false);
  });

  it("has its URL as a stack output, described by the manifest", () => {
    const { Outputs } = resources();
    for (const { name, manifest } of RECEIVING) {
      const output = Outputs[`${capitalized(manifest.webhook as string)}Url`];
      expect(output?.Description, name).toBe(manifest.webhookFunction?.urlOutput);
      expect(output?.Value, name).toEqual({ "Fn::Sub": `\${HttpApi.ApiEndpoint}/webhooks/${name}` });
    }
  });

  it("reserves its manifest's number with reserve=on, unless params.reservedConcurrency names another", () => {
    const { extensions } = capacity({ reserve: true, reservations: "telegramWebhook=50", durable: false });
    for (const { manifest } of RECEIVING) {
      const fn = manifest.webhook as string;
      expect(
        extensions[`${capitalized(fn)}LambdaFunction`]?.Properties.ReservedConcurrentExecutions,
        fn,
      ).toBe(fn === "telegramWebhook" ? 50 : manifest.webhookFunction?.reservedConcurrency);
    }
    expect(capacity({ reserve: false, reservations: "", durable: false }).extensions).toEqual({});
  });

  it("traces, with every other function but the durable agent (whose role carries its own grant)", () => {
    const roles = tracing().Resources.TracingPolicy.Properties.Roles.map((role) => role.Ref);
    expect(roles).toEqual(
      Object.keys(catalog.functions)
        .filter((fn) => fn !== "durableAgent")
        .map((fn) => `${capitalized(fn)}Role`),
    );
    for (const { manifest } of RECEIVING)
      expect(roles).toContain(`${capitalized(manifest.webhook as string)}Role`);
  });
});

const manifestOf = (name: string): Manifest => {
  const manifest = channelManifests().find((candidate) => candidate.name === name);
  if (!manifest) throw new Error(`no ${name} manifest`);
  return manifest;
};

describe("packaging stops on a webhook its manifest gets wrong", () => {
  const broken = (change: (manifest: Manifest) => void) => () => {
    const manifest = structuredClone(manifestOf("slack"));
    change(manifest);
    webhooksModule.webhooks([manifest]);
  };
  const spec = (manifest: Manifest) => manifest.webhookFunction as Record<string, unknown>;

  it("without webhookFunction, or with a webhook no row of infra/secrets.json knows", () => {
    expect(broken((m) => delete m.webhookFunction)).toThrow(
      `the slack channel's manifest: "webhookFunction" must say how slackWebhook deploys`,
    );
    expect(broken((m) => delete m.webhook)).toThrow(`"webhook" must name its function`);
    expect(broken((m) => Object.assign(m, { webhook: "smokeWebhook" }))).toThrow(
      'smokeWebhook has no row in infra/secrets.json "functions"',
    );
    expect(broken((m) => Object.assign(m, { name: "smoke" }))).toThrow(
      "slackWebhook has no entry functions/smoke-webhook.ts",
    );
  });

  it("with a field missing or malformed", () => {
    expect(broken((m) => delete spec(m).writesMessageIndex)).toThrow(
      "writesMessageIndex must be true or false",
    );
    expect(broken((m) => delete spec(m).reservedConcurrency)).toThrow(
      "reservedConcurrency must be a whole number",
    );
    expect(broken((m) => Object.assign(spec(m), { reservedConcurrency: 0 }))).toThrow("reservedConcurrency");
    expect(broken((m) => delete spec(m).urlOutput)).toThrow("urlOutput must describe its URL output");
    expect(broken((m) => Object.assign(spec(m), { timeout: 2.5 }))).toThrow("timeout must be a whole number");
    expect(broken((m) => Object.assign(spec(m), { methods: ["POST", "POST"] }))).toThrow("each once");
    expect(broken((m) => Object.assign(spec(m), { methods: ["FETCH"] }))).toThrow("must list HTTP methods");
    expect(broken((m) => Object.assign(spec(m), { methods: [] }))).toThrow("must list HTTP methods");
    expect(broken((m) => Object.assign(spec(m), { timout: 6 }))).toThrow(
      "webhookFunction has no field timout",
    );
  });

  it("and not on a channel that receives nothing (e-mail)", () => {
    expect(webhooksModule.webhooks([manifestOf("email")])).toEqual([]);
  });
});
