/**
 * `npm run doctor`'s checks of the chat channels a stack has on, with the credentials read the way the
 * deployment reads them (scripts/lib/doctor.ts builds `SecretPlace` from lib/config and lib/secrets): are
 * the channel's secrets there, and does the platform, asked with them, say it is set up for this stack?
 * Telegram's webhook (getWebhookInfo), Slack's bot token (auth.test), Discord's interactions endpoint
 * (GET /applications/@me), Mattermost's bot account (/users/me), Teams' app token (the token endpoint),
 * WhatsApp's business number (GET /<phone number id>), Google Chat's service-account token (Google's token
 * endpoint, with the JSON key), e-mail's sender (SES's GetEmailIdentity: the address or its domain verified).
 * Every call only reads.
 */
import { GetEmailIdentityCommand, SESv2Client } from "@aws-sdk/client-sesv2";

import { createDiscordApi } from "../../lib/channels/discord/discord-api.ts";
import { parseServiceAccountKey } from "../../lib/channels/gchat/gchat-api.ts";
import { requestServiceAccountToken } from "../../lib/channels/gchat/gchat-token.ts";
import { createMattermostApi } from "../../lib/channels/mattermost/mattermost-api.ts";
import { PlatformApiError } from "../../lib/channels/platform-api-error.ts";
import { withPlatformDeadline } from "../../lib/channels/platform-http.ts";
import { createSlackApi } from "../../lib/channels/slack/slack-api.ts";
import { requestTeamsAppToken, teamsTokenUrl } from "../../lib/channels/teams/teams-api.ts";
import { createTelegramApi } from "../../lib/channels/telegram/telegram-api.ts";
import { createWhatsappApi } from "../../lib/channels/whatsapp/whatsapp-api.ts";
import type { Config } from "../../lib/config.ts";
import { ConfigError } from "../../lib/config-error.ts";
import {
  type ChannelName,
  channelNeeds,
  channelSecrets,
  type FixedSecretName,
} from "../../lib/secrets/secret-catalog.ts";
import { type Secrets, secretValue } from "../../lib/secrets/secrets.ts";
import { type Check, describeFailure, fail, pass, shownUrl } from "./doctor-checks.ts";

/** Where the secrets are read from, and how a missing one is put there. */
export interface SecretPlace {
  kind: "ssm" | "env";
  secrets: Secrets;
  /** `in SSM under /handraise/prod`, `in this environment`. */
  where: string;
  /** A secret as it is named there: the parameter, or the environment variable. */
  nameOf(name: FixedSecretName): string;
  /** What stores (or sets) `names`, the secrets of `channel` (none: the deployment's own). */
  storeFix(names: readonly FixedSecretName[], channel?: ChannelName): string;
  /** What sets the settings that are not secrets, named by their variables. */
  settingsFix: string;
}

/** Platform calls get this long in all, retries included: a person runs this from afar. */
const PLATFORM_DEADLINE_MS = 10_000;

/**
 * The channel's secrets, and the deployment's it cannot work without (its `needs`: e-mail's link secret):
 * all there and well-formed, or which are not. Throws when they cannot be read.
 */
export async function checkChannelSecrets(
  place: SecretPlace,
  channel: ChannelName,
): Promise<{ check: Check; complete: boolean }> {
  const needs = channelNeeds(channel);
  const names = [...channelSecrets(channel), ...needs.map((need) => need.name)];
  const missing: FixedSecretName[] = [];
  const malformed: string[] = [];
  for (const name of names) {
    try {
      if ((await place.secrets.get(name)) === undefined) missing.push(name);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // "The SSM parameter … must be …", mid-sentence here.
      malformed.push(error.message.replace(/\.$/, "").replace(/^The /, "the "));
    }
  }
  if (malformed.length > 0) {
    return {
      check: fail(
        `${channel} secrets ${place.where}: ${malformed.join("; ")}`,
        place.storeFix(names, channel),
      ),
      complete: false,
    };
  }
  if (missing.length > 0) {
    // A secret of the deployment's own says why this channel wants it.
    const shown = missing.map((name) => {
      const need = needs.find((candidate) => candidate.name === name);
      return need
        ? `${place.nameOf(name)} (${channel} cannot work without it: ${need.why})`
        : place.nameOf(name);
    });
    return {
      check: fail(
        `${channel} ${missing.length > 1 ? "secrets are" : "secret is"} missing ${place.where}: ${shown.join(", ")}`,
        place.storeFix(names, channel),
      ),
      complete: false,
    };
  }
  return {
    check: pass(`${channel} secrets ${place.where}: ${names.map(place.nameOf).join(", ")}`),
    complete: true,
  };
}

/** What checkRegistration needs: the configuration with the channel on, and where its secrets are. */
export interface RegistrationContext {
  config: Config;
  place: SecretPlace;
  /** The stack's public base URL, which the platforms must call: `<it>/webhooks/<channel>`. */
  publicUrl: string;
  now: () => number;
  /** The AWS Region the stack is in (`--region`); undefined: the SDK's own (AWS_REGION, the profile's). */
  region?: string | undefined;
}

/** Asks the platform whether the channel is set up for this stack, with its credentials. */
export async function checkRegistration(channel: ChannelName, context: RegistrationContext): Promise<Check> {
  const deadline = context.now() + PLATFORM_DEADLINE_MS;
  try {
    const check = REGISTRATIONS[channel];
    // A channel nothing registers with (no webhook a platform must be told of): its secrets were the check.
    if (!check) return pass(`${channel}: nothing to register with the platform`);
    return await withPlatformDeadline(deadline, () => check(context), "for the check");
  } catch (error) {
    return platformFailure(channel, error, context.place);
  }
}

const webhookOf = (context: RegistrationContext, channel: ChannelName) =>
  `${context.publicUrl.replace(/\/+$/, "")}/webhooks/${channel}`;

/** Whether a platform could call the stack at all: only at a public https URL. */
const isPublic = (url: string) => url.startsWith("https://");

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** Per platform, how to ask it whether its webhook points at this stack. */
const REGISTRATIONS: Partial<Record<ChannelName, (context: RegistrationContext) => Promise<Check>>> = {
  async telegram(context) {
    const settings = context.config.channels.telegram;
    if (!settings) throw new Error("the telegram channel is not on");
    const api = createTelegramApi({
      apiBase: settings.apiBase,
      botToken: secretValue(context.place.secrets, "telegram/bot-token"),
      now: context.now,
    });
    const info = await api.call<{ url?: string; last_error_date?: number; last_error_message?: string }>(
      "getWebhookInfo",
      {},
    );
    const expected = webhookOf(context, "telegram");
    const setUp = `run npm run telegram:setup -- ${expected} (with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET as stored)`;
    const registered = info.url ?? "";
    if (!isPublic(context.publicUrl)) {
      return pass(
        `telegram: the bot token works (webhook: ${registered ? shownUrl(registered) : "none"}); not compared with ${context.publicUrl}, which Telegram cannot call`,
      );
    }
    if (registered === "") return fail("telegram: the bot has no webhook", setUp);
    if (!sameUrl(registered, expected)) {
      return fail(`telegram: the bot's webhook is ${shownUrl(registered)}, not ${expected}`, setUp);
    }
    if (info.last_error_date !== undefined || info.last_error_message !== undefined) {
      const at = info.last_error_date
        ? new Date(info.last_error_date * 1000).toISOString()
        : "an unknown time";
      const message = info.last_error_message ?? "no description";
      return fail(
        `telegram: Telegram's last delivery to ${expected} failed at ${at}: ${message}`,
        /\b40[13]\b/.test(message)
          ? `the stack refused Telegram's secret token: ${setUp}`
          : "see the telegramWebhook function's log (docs/operating.md)",
      );
    }
    return pass(`telegram: the bot's webhook is ${expected}, with no delivery error`);
  },

  async slack(context) {
    const settings = context.config.channels.slack;
    if (!settings) throw new Error("the slack channel is not on");
    const api = createSlackApi({
      apiBase: settings.apiBase,
      botToken: secretValue(context.place.secrets, "slack/bot-token"),
      now: context.now,
    });
    const who = await api.call<{ user?: string; team?: string; team_id?: string }>("auth.test", {});
    return pass(
      `slack: the bot token is ${who.user ? `@${who.user}'s` : "valid"}, in workspace ${who.team ?? "?"} (${who.team_id ?? "?"})`,
    );
  },

  async discord(context) {
    const settings = context.config.channels.discord;
    if (!settings) throw new Error("the discord channel is not on");
    const api = createDiscordApi({
      apiBase: settings.apiBase,
      botToken: secretValue(context.place.secrets, "discord/bot-token"),
      now: context.now,
    });
    const app = await api.request<{
      id?: string;
      name?: string;
      verify_key?: string;
      interactions_endpoint_url?: string | null;
    }>("GET", "/applications/@me");
    if (app.id !== settings.applicationId) {
      return fail(
        `discord: the bot token is application ${app.id}'s, not DISCORD_APPLICATION_ID ${settings.applicationId}'s`,
        `give the bot token and the id of one application: ${context.place.storeFix(["discord/bot-token"], "discord")}, or DISCORD_APPLICATION_ID=${app.id} (${context.place.settingsFix})`,
      );
    }
    if (app.verify_key?.toLowerCase() !== settings.publicKey.toLowerCase()) {
      return fail(
        "discord: the application's public key is not DISCORD_PUBLIC_KEY",
        `DISCORD_PUBLIC_KEY=${app.verify_key} (Developer Portal → General Information → Public Key; ${context.place.settingsFix})`,
      );
    }
    const expected = webhookOf(context, "discord");
    const registered = app.interactions_endpoint_url ?? "";
    if (!isPublic(context.publicUrl)) {
      return pass(
        `discord: application ${app.name} (${app.id}) takes the bot token (interactions endpoint: ${registered ? shownUrl(registered) : "none"}); not compared with ${context.publicUrl}, which Discord cannot call`,
      );
    }
    if (!sameUrl(registered, expected)) {
      return fail(
        registered
          ? `discord: application ${app.name}'s interactions endpoint is ${shownUrl(registered)}, not ${expected}`
          : `discord: application ${app.name} has no interactions endpoint`,
        `set it to ${expected} (Developer Portal → General Information → Interactions Endpoint URL; npm run discord:register -- ${expected} prints it)`,
      );
    }
    return pass(`discord: application ${app.name} (${app.id}) sends its interactions to ${expected}`);
  },

  async mattermost(context) {
    const settings = context.config.channels.mattermost;
    if (!settings) throw new Error("the mattermost channel is not on");
    const api = createMattermostApi({
      url: settings.url,
      botToken: secretValue(context.place.secrets, "mattermost/bot-token"),
      now: context.now,
    });
    const me = await api.getMe();
    return pass(`mattermost: the bot token is @${me.username}'s on ${settings.url}`);
  },

  async teams(context) {
    const settings = context.config.channels.teams;
    if (!settings) throw new Error("the teams channel is not on");
    await requestTeamsAppToken({
      appId: settings.appId,
      appPassword: secretValue(context.place.secrets, "teams/app-password"),
      tokenUrl: teamsTokenUrl(settings.loginBase, settings.tenantId),
    });
    return pass(`teams: tenant ${settings.tenantId} issues app ${settings.appId} a token`);
  },

  // Meta shows an app's webhook only to an app token (app id and secret); the business number is what the
  // access token must reach. The webhook itself is probed like every other (an unsigned POST gets 401).
  async whatsapp(context) {
    const settings = context.config.channels.whatsapp;
    if (!settings) throw new Error("the whatsapp channel is not on");
    const api = createWhatsappApi({
      apiBase: settings.apiBase,
      phoneNumberId: settings.phoneNumberId,
      accessToken: secretValue(context.place.secrets, "whatsapp/access-token"),
      now: context.now,
    });
    const number = await api.phoneNumber();
    return pass(
      `whatsapp: the access token reaches phone number ${number.display_phone_number ?? settings.phoneNumberId}${number.verified_name ? ` (${number.verified_name})` : ""}`,
    );
  },

  // SES sends from an address only when it, its domain or a parent domain of it (a verified example.com
  // covers a.example.com and user@a.example.com) is a verified identity of the stack's account and Region:
  // otherwise every mail is refused, which no other check would show before a question is asked.
  async email(context) {
    const settings = context.config.channels.email;
    if (!settings) throw new Error("the email channel is not on");
    const address = settings.from;
    const domain = address.slice(address.lastIndexOf("@") + 1);
    const ses = new SESv2Client(context.region ? { region: context.region } : {});
    const why = (identity: string) =>
      identity === address
        ? "the address is verified"
        : identity === domain
          ? `its domain ${domain} is verified`
          : `its parent domain ${identity} is verified`;
    try {
      const found: string[] = [];
      for (const identity of [address, ...domainAndParents(domain)]) {
        const status = await sesIdentity(ses, identity);
        if (status === "verified") return pass(`email: SES may send from ${address} (${why(identity)})`);
        found.push(`${identity}: ${status === "absent" ? "no identity" : `verification ${status}`}`);
      }
      return fail(
        `email: SES may not send from ${address}: neither it nor its domain (or a parent domain) is verified in this account and Region (${found.join("; ")})`,
        `verify the address (SES mails it a link) or its domain (DKIM records) in SES, in the stack's Region — aws sesv2 create-email-identity --email-identity ${address} — or set HANDRAISE_EMAIL_FROM (deployed: the emailFrom parameter) to a verified address`,
      );
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      return fail(
        `email: SES could not be asked about ${address} (GetEmailIdentity: ${typeof name === "string" ? name : describeFailure(error)})`,
        "run with AWS credentials of the stack's account that may call ses:GetEmailIdentity, in its Region (AWS_PROFILE, AWS_REGION or --region)",
      );
    } finally {
      ses.destroy();
    }
  },

  async gchat(context) {
    const settings = context.config.channels.gchat;
    if (!settings) throw new Error("the gchat channel is not on");
    // The key's own format was checked with the channel's secrets; this asks Google whether it is alive.
    const key = parseServiceAccountKey(await secretValue(context.place.secrets, "gchat/service-account")());
    await requestServiceAccountToken(key, settings.tokenUrl, context.now());
    return pass(`gchat: Google issues ${key.client_email} a Chat token`);
  },
};

/** A domain and each parent of it down to two labels: a.b.example.com, b.example.com, example.com. */
function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  return labels.length <= 2
    ? [domain]
    : Array.from({ length: labels.length - 1 }, (_, i) => labels.slice(i).join("."));
}

/**
 * What SES says of one identity (an address or a domain): verified for sending, absent (it has no such
 * identity), or its verification status (`PENDING`, `FAILED`, …). Any other error is thrown.
 */
async function sesIdentity(ses: SESv2Client, identity: string): Promise<"verified" | "absent" | string> {
  try {
    const found = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
    if (found.VerifiedForSendingStatus === true) return "verified";
    return found.VerificationStatus ?? "not verified";
  } catch (error) {
    if ((error as { name?: unknown }).name === "NotFoundException") return "absent";
    throw error;
  }
}

/** Slack's answers to a token it does not take (its `error` codes). */
const SLACK_REFUSALS =
  /^(invalid_auth|not_authed|token_revoked|token_expired|account_inactive|no_permission)$/;

/** A platform call that failed: a refused credential (store the right one), or a platform out of reach. */
/** What a platform refused, where it is not a bot token. */
const REFUSED_CREDENTIAL: Partial<Record<ChannelName, string>> = {
  teams: "the app's id, tenant or password",
  whatsapp: "the access token or WHATSAPP_PHONE_NUMBER_ID",
  gchat: "the service account's key",
};

function platformFailure(channel: ChannelName, error: unknown, place: SecretPlace): Check {
  if (!(error instanceof PlatformApiError)) {
    return fail(`${channel}: the check failed (${describeFailure(error)})`, "run it again");
  }
  // The platform's own words, without the "<platform> <call> failed: " the error starts with.
  const prefix = `${error.platform} ${error.method} failed: `;
  const words = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const refused =
    channel === "slack"
      ? SLACK_REFUSALS.test(words)
      : error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 429;
  if (refused) {
    const what = REFUSED_CREDENTIAL[channel] ?? "the bot token";
    return fail(
      `${channel}: the platform refused ${what} (${error.method}: ${words})`,
      channel === "teams"
        ? `${place.storeFix(["teams/app-password"], channel)}; and check TEAMS_APP_ID and TEAMS_TENANT_ID (${place.settingsFix})`
        : place.storeFix(channelSecrets(channel), channel),
    );
  }
  return fail(
    `${channel}: the platform could not be asked (${error.method}: ${words})`,
    channel === "mattermost"
      ? `check MATTERMOST_URL (${place.settingsFix}), then run it again`
      : "run it again; if it persists, check the platform's status",
  );
}
