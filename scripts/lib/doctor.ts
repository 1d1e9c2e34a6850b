/**
 * `npm run doctor`: checks a deployed or local stack from outside and prints one line per check, `✓ <what>`
 * or `✗ <what> — <the fix>`; exit 0 when every check passed, 1 otherwise (130 / 143 when interrupted).
 * docs/deploy.md ("After deploying: npm run doctor") shows it at work.
 *
 * In order: the API and the key (and what the key may do); which channels the stack has on — as its
 * webhooks say, the stack's own configuration seen from outside, and for a channel without a webhook
 * (e-mail) as the settings given here say; whether the answer page is on; each
 * enabled channel's secrets, and its registration read back from the platform with them; and with `--ask`,
 * one real question end to end.
 *
 * The credentials are read the way the deployment reads them, through lib/config and lib/secrets: with
 * `--stage` (or `--prefix`), the SSM parameters under `/handraise/<stage>` that `npm run secrets:put` writes,
 * and the settings that are not secrets (DISCORD_APPLICATION_ID, MATTERMOST_URL, TEAMS_APP_ID, …) from this
 * environment, set to the values deployed; without, every one from this environment, as `npm run local`
 * reads them. Nothing is changed anywhere, except by `--ask`'s question.
 */

import { parseArgs } from "node:util";
import { SSMProvider } from "@aws-lambda-powertools/parameters/ssm";
import { SSMClient } from "@aws-sdk/client-ssm";
import { type ApiKey, createApiKeyring } from "../../lib/auth/api-keys.ts";
import { type Config, ConfigError, loadConfig } from "../../lib/config.ts";
import { isHttpsOrLoopback } from "../../lib/http/outbound.ts";
import { ownerProblem, parseDeliverTo } from "../../lib/mcp/asker.ts";
import type { DeliveryTarget } from "../../lib/questions/question-record.ts";
import { createEnvSecrets } from "../../lib/secrets/env-secrets.ts";
import {
  API_KEYS_ENV,
  type ChannelName,
  type FixedSecretName,
  SECRET_NAMES,
  SSM_PATH,
  secretEnvName,
} from "../../lib/secrets/secret-catalog.ts";
import { createSsmSecrets } from "../../lib/secrets/ssm-secrets.ts";
import { askEndToEnd } from "./doctor-ask.ts";
import { checkChannelSecrets, checkRegistration, type SecretPlace } from "./doctor-channels.ts";
import { type Check, describeFailure, fail, lineOf, pass } from "./doctor-checks.ts";
import {
  channelsSaidOn,
  checkApi,
  checkKeyScope,
  createStackClient,
  probeAnswerPage,
  probeChannels,
  type StackClient,
} from "./doctor-stack.ts";
import { type ScriptIo, sleepUnlessAborted } from "./script-io.ts";

export const EXIT = { healthy: 0, unhealthy: 1 } as const;
/** Shell convention: 128 + the signal's number. */
const EXIT_ON_SIGNAL: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
/** How long `--ask`'s question waits for its answer unless `--timeout` says otherwise. */
const DEFAULT_ASK_TIMEOUT_SECONDS = 300;

export const USAGE = `usage: npm run -s doctor -- [--url <api url>] [--key <key>] [--stage <stage> [--prefix <ssm path>] [--region <region>]]
         [--ask <owner> [--deliver-to <channel>:<chatId>[,…]] [--timeout <seconds>]]
  --url and --key default to HANDRAISE_URL and HANDRAISE_API_KEY. With --stage, the secrets are read from SSM
  under /handraise/<stage> (as deployed); without, from this environment (as npm run local reads them).`;

export type DoctorIo = ScriptIo;

interface Settings {
  url: string;
  key: string;
  /** Set: the secrets are SSM parameters under this path (`--stage` / `--prefix`). */
  ssm?: { prefix: string; stage: string | undefined; region: string | undefined };
  ask?: { owner: string; deliverTo: DeliveryTarget[]; timeoutSeconds: number };
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Runs the checks with these arguments and streams; resolves to the exit code. */
export async function runDoctor(io: DoctorIo): Promise<number> {
  const now = io.now ?? Date.now;
  const interrupt = io.interrupt ?? new AbortController().signal;
  let settings: Settings;
  try {
    settings = readSettings(io.argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`doctor: ${error.message}\n${USAGE}\n`);
    return EXIT.unhealthy;
  }
  let failed = 0;
  const print = (check: Check) => {
    if (!check.ok) failed += 1;
    io.stdout(`${lineOf(check)}\n`);
  };
  const client = createStackClient(settings.url, settings.key, io.fetch);
  const where = settings.ssm ? `in SSM under ${settings.ssm.prefix}` : "in this environment";
  const wrongStage = {
    where,
    fix: `check that --stage names the stack of --url (${settings.url})`,
  };

  const api = await checkApi(client, keyFix(settings));
  api.checks.forEach(print);
  if (!api.reached) return EXIT.unhealthy;
  // Ctrl-C stops it between checks (each is bounded in time); only --ask has something to undo.
  const stopped = () => interrupt.aborted;
  const stoppedExit = () => EXIT_ON_SIGNAL[String(interrupt.reason)] ?? EXIT.unhealthy;

  // The configuration and the secrets, as the stack reads them (lib/config, lib/secrets).
  const loadFor = (channels: readonly ChannelName[]): Config =>
    loadConfig(configEnv(settings, io.env, channels));
  let place: SecretPlace | undefined;
  try {
    place = secretPlace(settings, loadFor([]), now);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    print(
      fail(
        `the settings in this environment are refused: ${error.message}`,
        settings.ssm ? "correct them" : "correct them (npm run local refuses them too)",
      ),
    );
  }
  if (place !== undefined) {
    // One read first: when the store cannot be read at all, that is one problem, not one per secret.
    try {
      await place.secrets.get("api-key");
    } catch (error) {
      if (!(error instanceof ConfigError)) {
        print(
          fail(
            `the secrets ${where} cannot be read (${describeFailure(error)})`,
            "run with AWS credentials and the region of the stack's account (AWS_PROFILE, AWS_REGION or --region)",
          ),
        );
        place = undefined;
      }
    }
  }

  if (api.keyAccepted) {
    const known = place && (await identify(place, settings.key));
    print(
      await checkKeyScope(
        client,
        known === "unknown" ? undefined : known,
        known === "unknown" && settings.ssm ? wrongStage : undefined,
      ),
    );
  }

  if (stopped()) return stoppedExit();
  const probed = await probeChannels(client);
  const said = channelsSaidOn(io.env);
  const channels = { on: [...probed.on, ...said.on] };
  [...probed.checks, ...said.checks].forEach(print);
  print(await answerPageCheck(client, place, wrongStage));

  if (place !== undefined) {
    const found = place;
    const publicUrl = io.env.HANDRAISE_PUBLIC_URL || settings.url;
    const perChannel = await Promise.all(
      channels.on.map(async (channel): Promise<Check[]> => {
        let secrets: Awaited<ReturnType<typeof checkChannelSecrets>>;
        try {
          secrets = await checkChannelSecrets(found, channel);
        } catch (error) {
          return [
            fail(`${channel} secrets ${where} cannot be read (${describeFailure(error)})`, "run it again"),
          ];
        }
        if (!secrets.complete) return [secrets.check];
        let config: Config;
        try {
          config = loadFor([channel]);
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          return [
            secrets.check,
            fail(
              `${channel} settings: ${error.message.replace(/^Invalid configuration: /, "")}`,
              found.settingsFix,
            ),
          ];
        }
        const region = settings.ssm?.region;
        return [
          secrets.check,
          await checkRegistration(channel, { config, place: found, publicUrl, now, region }),
        ];
      }),
    );
    perChannel.flat().forEach(print);
  }

  if (stopped()) return stoppedExit();
  if (settings.ask) {
    if (!api.keyAccepted) {
      print(
        fail(`no question was asked of ${settings.ask.owner}: the API refused the key`, keyFix(settings)),
      );
    } else {
      const outcome = await askEndToEnd(client, settings.ask, {
        print,
        say: (text) => io.stderr(`${text}\n`),
        interrupt,
        sleep: io.sleep ?? sleepUnlessAborted,
        now,
      });
      if (outcome.interrupted) return stoppedExit();
    }
  }
  return failed > 0 ? EXIT.unhealthy : EXIT.healthy;
}

/** What to do about a refused key: where the stack's key is, and how a key of one's own is made. */
function keyFix(settings: Settings): string {
  const make = (stage: string) => `npm run secrets:put -- --stage ${stage} --api-key <name> --scope ask`;
  if (settings.ssm === undefined) {
    return `give the stack's key with --key or HANDRAISE_API_KEY (locally, the key npm run local prints; deployed, the /handraise/<stage>/api-key parameter, or a key of its own: ${make("<stage>")})`;
  }
  const stage = settings.ssm.stage ?? "<stage>";
  return `give the stack's key with --key or HANDRAISE_API_KEY (the ${settings.ssm.prefix}/api-key parameter, or a key of its own: ${make(stage)})`;
}

/**
 * The key's name and scope from the deployment's own key list, read as the API reads it; "unknown" when
 * the list is readable and does not hold it, undefined when it cannot be told.
 */
async function identify(place: SecretPlace, key: string): Promise<ApiKey | "unknown" | undefined> {
  try {
    return (await createApiKeyring(place.secrets).identify(key)) ?? "unknown";
  } catch {
    return undefined;
  }
}

/** The answer page as the stack shows it; deployed, also whether the stage holds the link secret it needs. */
async function answerPageCheck(
  client: StackClient,
  place: SecretPlace | undefined,
  wrongStage: { where: string; fix: string },
): Promise<Check> {
  const state = await probeAnswerPage(client);
  if (typeof state === "object") {
    return fail(
      `the answer page fails (GET /answer/{id}: ${state.failed})`,
      "see the answerPage function's log (docs/operating.md)",
    );
  }
  if (place === undefined || place.kind === "env") return pass(`answer page ${state}`);
  let stored: boolean;
  try {
    stored = (await place.secrets.get("link-secret")) !== undefined;
  } catch (error) {
    return fail(`answer page: ${describeFailure(error)}`, place.storeFix(["link-secret"]));
  }
  if (state === "on" && stored) return pass(`answer page on (link-secret ${place.where})`);
  if (state === "off" && !stored) {
    return pass(
      `answer page off: no link-secret ${place.where} (${place.storeFix(["link-secret"]).replace(/^store it with /, "")} turns it on)`,
    );
  }
  if (state === "on")
    return fail(`the answer page is on, but there is no link-secret ${wrongStage.where}`, wrongStage.fix);
  return fail(
    `link-secret is ${place.where}, but the answer page is off`,
    `the stack reads a new secret within 5 minutes; if the page stays off, ${wrongStage.fix}`,
  );
}

/** The environment loadConfig reads for the doctor: the stack's settings, with `channels` on and no other. */
function configEnv(
  settings: Settings,
  env: DoctorIo["env"],
  channels: readonly ChannelName[],
): Record<string, string | undefined> {
  const secretVariables = new Set<string>([...SECRET_NAMES.map(secretEnvName), API_KEYS_ENV]);
  // Deployed, the secrets are SSM's alone: a shell that still holds the values it stored with them
  // (secrets:put reads them from the environment) must not be refused for it.
  const kept = Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => name !== "HANDRAISE_SSM_PREFIX" && !(settings.ssm && secretVariables.has(name)),
    ),
  );
  return {
    ...kept,
    // loadConfig wants the table's name; the doctor reads no table.
    HANDRAISE_TABLE: env.HANDRAISE_TABLE || "handraise-doctor",
    HANDRAISE_PUBLIC_URL: env.HANDRAISE_PUBLIC_URL || settings.url,
    // An empty list is a list: no channel on (unset, locally, would mean "those whose token is set").
    HANDRAISE_CHANNELS: channels.join(",") || ",",
    ...(settings.ssm && { HANDRAISE_SSM_PREFIX: settings.ssm.prefix }),
  };
}

/** Where the secrets are read from, as a loaded configuration says, and how each is put there. */
function secretPlace(settings: Settings, config: Config, now: () => number): SecretPlace {
  const { secrets: source } = config;
  if (source.kind === "env") {
    const variables = (names: readonly FixedSecretName[]) => names.map(secretEnvName).join(" and ");
    return {
      kind: "env",
      secrets: createEnvSecrets(source.values, source.modelKeys, source.apiKeys),
      where: "in this environment",
      nameOf: secretEnvName,
      storeFix: (names) => `set ${variables(names)}, here and where npm run local runs (docs/channels.md)`,
      settingsFix: "set them here as where npm run local runs (docs/channels.md)",
    };
  }
  const ssm = settings.ssm;
  if (!ssm) throw new Error("SSM secrets without --stage");
  const client = new SSMClient(ssm.region ? { region: ssm.region } : {});
  const target =
    ssm.stage !== undefined && ssm.prefix === `/handraise/${ssm.stage}`
      ? `--stage ${ssm.stage}`
      : `--stage ${ssm.stage ?? "<stage>"} --prefix ${ssm.prefix}`;
  return {
    kind: "ssm",
    secrets: createSsmSecrets({
      prefix: source.prefix,
      maxAgeSeconds: source.maxAgeSeconds,
      provider: new SSMProvider({ awsSdkV3Client: client }),
      now,
    }),
    where: `in SSM under ${ssm.prefix}`,
    nameOf: (name) => name,
    storeFix: (names, channel) => {
      const what = channel ? ` --channels ${channel}` : names.includes("link-secret") ? " --answer-page" : "";
      const given = names.filter((name) => name !== "link-secret").map(secretEnvName);
      return `store ${names.length > 1 ? "them" : "it"} with npm run secrets:put -- ${target}${what}${given.length > 0 ? `, with ${given.join(" and ")} set` : ""}`;
    },
    settingsFix: "set them here to the values deployed, the deploy parameters of docs/deploy.md",
  };
}

/** The options and environment as settings; throws UsageError naming the first problem. */
function readSettings(argv: readonly string[], env: DoctorIo["env"]): Settings {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: "string" },
        key: { type: "string" },
        stage: { type: "string" },
        prefix: { type: "string" },
        region: { type: "string" },
        ask: { type: "string" },
        "deliver-to": { type: "string" },
        timeout: { type: "string" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value.trim() : undefined;
  };

  const url = (text("url") ?? env.HANDRAISE_URL ?? "").trim().replace(/\/+$/, "");
  if (!url) throw new UsageError("no API URL: give --url <api url> or set HANDRAISE_URL");
  if (!/^https?:\/\/[^/\s]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, not "${url}"`);
  // The key goes with every request: never in clear text across a network.
  if (!isHttpsOrLoopback(url))
    throw new UsageError("--url must be https (http only on localhost / 127.0.0.1)");
  const key = (text("key") ?? env.HANDRAISE_API_KEY ?? "").trim();
  if (!key) throw new UsageError("no API key: give --key <key> or set HANDRAISE_API_KEY");

  const stage = text("stage");
  const prefix = (text("prefix") ?? (stage === undefined ? undefined : `/handraise/${stage}`))?.replace(
    /\/+$/,
    "",
  );
  if (prefix !== undefined && !SSM_PATH.test(prefix)) {
    throw new UsageError("--stage or --prefix must make an SSM path such as /handraise/prod");
  }
  if (text("region") !== undefined && prefix === undefined)
    throw new UsageError("--region goes with --stage");

  const owner = text("ask");
  if (owner === undefined && (text("deliver-to") !== undefined || text("timeout") !== undefined)) {
    throw new UsageError("--deliver-to and --timeout go with --ask <owner>");
  }
  let ask: Settings["ask"];
  if (owner !== undefined) {
    const badOwner = ownerProblem(owner, "--ask");
    if (badOwner) throw new UsageError(badOwner);
    const deliverTo = parseDeliverTo(text("deliver-to") ?? "");
    if ("problem" in deliverTo) throw new UsageError(`--deliver-to: ${deliverTo.problem}`);
    const timeout = text("timeout") ?? String(DEFAULT_ASK_TIMEOUT_SECONDS);
    if (!/^[1-9]\d{0,8}$/.test(timeout)) throw new UsageError("--timeout must be a whole number of seconds");
    ask = { owner, deliverTo: deliverTo.targets, timeoutSeconds: Number(timeout) };
  }
  return {
    url,
    key,
    ...(prefix !== undefined && {
      ssm: { prefix, stage, region: text("region") ?? regionOf(url) },
    }),
    ...(ask && { ask }),
  };
}

/** The region of an API Gateway URL (`https://abc.execute-api.eu-west-1.amazonaws.com`): its SSM's. */
function regionOf(url: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(new URL(url).hostname)?.[1];
}
