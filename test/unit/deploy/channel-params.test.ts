/**
 * Each channel's deployment parameters (its manifest's `params`) are the one list: serverless.yml has each
 * as a parameter passed into the provider environment under the same variable, the channel's spec requires
 * exactly the required ones at start, and packaging (infra/deploy/secret-access.cjs) stops when an enabled
 * channel lacks one — rather than every function refusing to start after a deploy that went through. A
 * channel's `needs` (e-mail: the link secret) makes a deployment secret required while it is on.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHANNEL_SPECS } from "#lib/channels/channel-specs.ts";
import { ConfigError, loadConfig } from "#lib/config.ts";
import {
  CHANNEL_NAMES,
  channelNeeds,
  channelSecrets,
  OPTIONAL_SECRETS,
} from "#lib/secrets/secret-catalog.ts";

interface Param {
  channel: string;
  name: string;
  env: string;
  required: boolean;
}
const require = createRequire(import.meta.url);
const { channelParams } = require("../../../infra/deploy/channels.cjs") as { channelParams: () => Param[] };
const { secretAccess } = require("../../../infra/deploy/secret-access.cjs") as {
  secretAccess: (settings: {
    channels: string;
    ssmPrefix: string;
    kmsKeyArn: string;
    params?: Record<string, string>;
  }) => unknown;
};

const serverless = parse(readFileSync(new URL("../../../serverless.yml", import.meta.url), "utf8"), {
  logLevel: "error",
}) as { params: { default: Record<string, unknown> }; provider: { environment: Record<string, unknown> } };

const PARAMS = channelParams();
const paramsOf = (channel: string) => PARAMS.filter((param) => param.channel === channel);
/** A value for every channel parameter: the checks here are about presence, the spec checks the format. */
const ALL_SET = Object.fromEntries(PARAMS.map((param) => [param.name, `${param.name}-value`]));
const packageWith = (channels: string, params: Record<string, string>) => () =>
  secretAccess({ channels, ssmPrefix: "/handraise/test", kmsKeyArn: "", params });

describe("channel deployment parameters", () => {
  it("are declared by the channels that have settings, each once", () => {
    expect(PARAMS.map((param) => `${param.channel}.${param.name}`).sort()).toEqual([
      "discord.discordApplicationId",
      "discord.discordPublicKey",
      "email.emailFrom",
      "gchat.googleChatProjectNumber",
      "mattermost.mattermostUrl",
      "teams.teamsAppId",
      "teams.teamsTenantId",
      "whatsapp.whatsappPhoneNumberId",
      "whatsapp.whatsappTemplate",
    ]);
    expect(new Set(PARAMS.map((param) => param.name)).size).toBe(PARAMS.length);
  });

  it("each is a serverless.yml parameter, empty by default, passed into the provider environment as its env", () => {
    for (const param of PARAMS) {
      expect(serverless.params.default, param.name).toHaveProperty(param.name, "");
      expect(serverless.provider.environment[param.env], param.env).toBe(`\${param:${param.name}}`);
    }
  });

  it("every channel variable the provider environment passes from a parameter is in its manifest", () => {
    for (const spec of CHANNEL_SPECS) {
      const passed = Object.keys(spec.config.variables).filter((variable) =>
        String(serverless.provider.environment[variable] ?? "").startsWith("${param:"),
      );
      expect(
        passed.sort(),
        `${spec.name}: declare it in lib/channels/${spec.name}/manifest.json params`,
      ).toEqual(
        paramsOf(spec.name)
          .map((param) => param.env)
          .sort(),
      );
    }
  });

  it("the required ones are exactly what the channel's spec refuses to start without", () => {
    for (const channel of CHANNEL_NAMES) {
      let message = "";
      try {
        // Deployed (secrets in SSM, not checked here), the channel on, none of its settings given.
        loadConfig({
          HANDRAISE_TABLE: "t",
          HANDRAISE_SSM_PREFIX: "/handraise/test",
          HANDRAISE_CHANNELS: channel,
          HANDRAISE_PUBLIC_URL: "https://api.example.com",
        });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        message = error.message;
      }
      const refused = [...message.matchAll(/(\w+) is required: the (\w+) channel is on/g)].map(
        (match) => match[1],
      );
      expect(refused.sort(), channel).toEqual(
        paramsOf(channel)
          .filter((param) => param.required)
          .map((param) => param.env)
          .sort(),
      );
    }
  });

  it("packaging stops when an enabled channel lacks a required one, naming the parameter and the channel", () => {
    expect(packageWith(CHANNEL_NAMES.join(","), ALL_SET)).not.toThrow();
    for (const param of PARAMS.filter((p) => p.required)) {
      const without = { ...ALL_SET, [param.name]: "" };
      expect(packageWith(param.channel, without), param.name).toThrow(
        `params.${param.name} is required while its channel is on (${param.channel}: --param="${param.name}=<value>")`,
      );
      // Spaces are no value; and a channel that is off needs nothing.
      expect(packageWith(param.channel, { ...ALL_SET, [param.name]: "  " })).toThrow(`params.${param.name}`);
      const others = CHANNEL_NAMES.filter((channel) => channel !== param.channel).join(",");
      expect(packageWith(others, without), param.name).not.toThrow();
    }
  });

  it("packaging names every missing one at once; an optional one may be left empty", () => {
    expect(packageWith("discord,teams", {})).toThrow(
      /params\.discordApplicationId .*; params\.discordPublicKey .*; params\.teamsAppId .*; params\.teamsTenantId /,
    );
    expect(packageWith("whatsapp", { ...ALL_SET, whatsappTemplate: "" })).not.toThrow();
  });
});

describe("what a channel needs of the deployment's own secrets", () => {
  it("names only optional deployment secrets (a channel's own are in its secrets), each with why", () => {
    for (const spec of CHANNEL_SPECS) {
      for (const [need, why] of Object.entries(spec.manifest.needs ?? {})) {
        expect(OPTIONAL_SECRETS as readonly string[], `${spec.name} needs ${need}`).toContain(need);
        expect(why.length, `${spec.name} needs ${need}: why`).toBeGreaterThan(0);
      }
    }
  });

  it("e-mail on: the link secret is wanted by the doctor and secrets:put, and no function refuses to start without it", () => {
    expect(channelNeeds("email")).toEqual([
      { name: "link-secret", why: "a mail is answered only through its link" },
    ]);
    // Not one of e-mail's required secrets: loadConfig and each function's start treat it as optional still.
    expect(channelSecrets("email")).toEqual([]);
    expect(OPTIONAL_SECRETS).toContain("link-secret");
    expect(() =>
      loadConfig({
        HANDRAISE_TABLE: "t",
        HANDRAISE_EMAIL_FROM: "approvals@example.com",
        HANDRAISE_API_KEY: "k".repeat(16),
      }),
    ).not.toThrow();
  });
});
